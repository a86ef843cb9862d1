//! todo_write: every rule and message of SPEC section 3, and replay.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)] // test code: a failed assumption should panic

use oda_tasks::todo::{diff, PlanState, TodoItem, TodoStatus, TodoWrite};
use oda_tasks::{replay_todos, todo_write, TodoError, TodoOptions};
use serde_json::{json, Value};

const ON: TodoOptions = TodoOptions { one_active: true };
const OFF: TodoOptions = TodoOptions { one_active: false };

fn call(input: Value) -> Result<String, String> {
    call_with(input, ON)
}

/// An accepted call (with the one-active rule on).
fn written(input: Value) -> TodoWrite {
    todo_write(true, &input.into(), ON).unwrap()
}

fn call_with(input: Value, options: TodoOptions) -> Result<String, String> {
    todo_write(true, &input.into(), options)
        .map(|w| w.output)
        .map_err(|e| e.to_string())
}

/// A model's input: these (content, status) pairs as its list.
fn todos(items: &[(&str, &str)]) -> Value {
    let items: Vec<Value> = items
        .iter()
        .map(|(content, status)| json!({"content": content, "status": status}))
        .collect();
    json!({ "todos": items })
}

fn item(content: &str, status: TodoStatus) -> TodoItem {
    TodoItem {
        content: content.to_string(),
        status,
    }
}

use TodoStatus::{Completed as C, InProgress as I, Pending as P};

#[test]
fn no_owning_session_is_refused_first() {
    // Even a malformed input gets the session refusal: it is check 1.
    let err = todo_write(false, &json!("garbage").into(), ON).unwrap_err();
    assert_eq!(err.to_string(), "Error: todo_write requires an owning agent session");
    assert_eq!(err, TodoError::NoSession);
}

#[test]
fn success_reports_counts_of_the_whole_list() {
    let out = call(todos(&[
        ("a", "pending"),
        ("b", "pending"),
        ("c", "in_progress"),
        ("d", "completed"),
        ("e", "completed"),
        ("f", "completed"),
    ]));
    assert_eq!(out.unwrap(), "Updated todo list: 2 pending, 1 in progress, 3 completed");
}

#[test]
fn entry_holds_the_trimmed_list_with_a_version() {
    let w = written(todos(&[("  Write the fix\n", "in_progress")]));
    assert_eq!(w.entry.v, 1);
    assert_eq!(w.entry.todos, vec![item("Write the fix", I)]);
    let stored = serde_json::to_value(oda_tasks::Entry::TodoUpdate(w.entry)).unwrap();
    assert_eq!(
        stored,
        json!({"type": "todo_update", "v": 1, "todos": [{"content": "Write the fix", "status": "in_progress"}]})
    );
}

#[test]
fn empty_list_is_a_valid_update() {
    assert_eq!(
        call(json!({"todos": []})).unwrap(),
        "Updated todo list: 0 pending, 0 in progress, 0 completed"
    );
}

#[test]
fn input_shape_errors_name_the_item_and_field() {
    let cases = [
        (json!(null), "Error: invalid todos: input must be an object with a `todos` array"),
        (json!([]), "Error: invalid todos: input must be an object with a `todos` array"),
        (json!({}), "Error: invalid todos: `todos` must be an array (got nothing)"),
        (json!({"todos": "a"}), "Error: invalid todos: `todos` must be an array (got a string)"),
        (json!({"todos": {}}), "Error: invalid todos: `todos` must be an array (got an object)"),
        (
            json!({"todos": [], "merge": true}),
            "Error: invalid todos: unknown field `merge` (the input is only `todos`)",
        ),
        (
            json!({"todos": [{"content": "a", "status": "pending"}, "b"]}),
            "Error: invalid todo at index 1: an item must be an object (got a string)",
        ),
        (
            json!({"todos": [{"content": "a", "status": "pending", "id": "1"}]}),
            "Error: invalid todo at index 0: unknown field `id` (an item is only `content` and `status`)",
        ),
        (
            json!({"todos": [{"content": "a", "status": "pending"}, {"content": "b", "status": "pending", "priority": "high"}]}),
            "Error: invalid todo at index 1: unknown field `priority` (an item is only `content` and `status`)",
        ),
        (
            json!({"todos": [{"content": "a", "status": "done"}]}),
            "Error: invalid todo at index 0: `status` must be \"pending\", \"in_progress\" or \"completed\" (got \"done\")",
        ),
        (
            json!({"todos": [{"content": "a"}]}),
            "Error: invalid todo at index 0: `status` must be \"pending\", \"in_progress\" or \"completed\" (got nothing)",
        ),
        (
            json!({"todos": [{"content": "a", "status": 1}]}),
            "Error: invalid todo at index 0: `status` must be \"pending\", \"in_progress\" or \"completed\" (got a number)",
        ),
        (
            json!({"todos": [{"content": "a", "status": "IN_PROGRESS"}]}),
            "Error: invalid todo at index 0: `status` must be \"pending\", \"in_progress\" or \"completed\" (got \"IN_PROGRESS\")",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(call(input.clone()).unwrap_err(), want, "input {input}");
    }
}

#[test]
fn empty_or_non_string_content_is_refused() {
    let want = "Error: invalid todo: `content` must be a non-empty string";
    for content in [json!(""), json!("   "), json!("\t\n\u{3000}"), json!(7), json!(null)] {
        let input = json!({"todos": [{"content": content, "status": "pending"}]});
        assert_eq!(call(input).unwrap_err(), want, "content {content}");
    }
    let missing = json!({"todos": [{"status": "pending"}]});
    assert_eq!(call(missing).unwrap_err(), want);
}

#[test]
fn duplicates_compare_trimmed_text_case_sensitively() {
    let dup = todos(&[("Write tests", "pending"), ("  Write tests ", "completed")]);
    assert_eq!(
        call(dup).unwrap_err(),
        "Error: invalid todos: duplicate content \"Write tests\""
    );
    let cases = todos(&[("Write tests", "pending"), ("write tests", "pending")]);
    assert!(call(cases).is_ok());
}

#[test]
fn one_active_rule_counts_all_in_progress_items() {
    let three = todos(&[("a", "in_progress"), ("b", "in_progress"), ("c", "in_progress")]);
    assert_eq!(
        call(three.clone()).unwrap_err(),
        "Error: invalid todos: at most one task may be in_progress (got 3)"
    );
    assert_eq!(
        call_with(three, OFF).unwrap(),
        "Updated todo list: 0 pending, 3 in progress, 0 completed"
    );
    assert!(TodoOptions::default().one_active);
}

#[test]
fn each_check_runs_over_the_whole_list_before_the_next() {
    // A bad status on item 3 is reported before an empty text on item 1.
    let input = todos(&[("", "pending"), ("b", "pending"), ("c", "finished")]);
    assert!(call(input).unwrap_err().contains("index 2: `status`"));

    // An unknown field on item 2 is reported before a bad status on item 1.
    let input = json!({"todos": [
        {"content": "a", "status": "nope"},
        {"content": "b", "status": "pending", "id": 2},
    ]});
    assert!(call(input).unwrap_err().contains("index 1: unknown field `id`"));

    // A non-object on item 2 before an unknown field on item 1.
    let input = json!({"todos": [{"content": "a", "status": "pending", "x": 1}, 5]});
    assert!(call(input).unwrap_err().contains("index 1: an item must be an object"));

    // Empty text on item 3 before a duplicate of items 1 and 2.
    let input = todos(&[("a", "pending"), ("a", "pending"), (" ", "pending")]);
    assert_eq!(
        call(input).unwrap_err(),
        "Error: invalid todo: `content` must be a non-empty string"
    );

    // A duplicate before two in progress.
    let input = todos(&[("a", "in_progress"), ("b", "in_progress"), ("a", "pending")]);
    assert_eq!(
        call(input).unwrap_err(),
        "Error: invalid todos: duplicate content \"a\""
    );
}

#[test]
fn unicode_text_is_kept_as_sent() {
    let w = written(todos(&[("\u{2003}Écrire les tests 🧪\u{3000}", "pending")]));
    assert_eq!(w.entry.todos[0].content, "Écrire les tests 🧪");
}

fn update(todos: Value) -> Value {
    json!({"type": "todo_update", "v": 1, "todos": todos})
}

#[test]
fn replay_latest_update_is_the_list() {
    let log = vec![
        json!({"type": "session", "chatId": "c"}),
        update(json!([{"content": "a", "status": "pending"}, {"content": "b", "status": "pending"}])),
        json!({"type": "something_else", "x": 1}),
        update(json!([{"content": "b", "status": "completed"}])),
    ];
    let r = replay_todos(&log);
    assert_eq!(r.todos, vec![item("b", C)]);
    assert_eq!(r.cards.len(), 2);
    assert!(
        r.skipped.is_empty(),
        "foreign entries are not reported: {:?}",
        r.skipped
    );

    let cleared = [log.clone(), vec![update(json!([]))]].concat();
    assert!(replay_todos(&cleared).todos.is_empty());
    assert!(replay_todos(&[]).todos.is_empty());
}

#[test]
fn replay_keeps_an_older_list_as_recorded() {
    // Two in progress, a duplicate, untrimmed text, no `v`: recorded by an
    // older writer or with the rule off. Replay does not re-check.
    let log = vec![update(json!([
        {"content": " a ", "status": "in_progress"},
        {"content": "b", "status": "in_progress"},
        {"content": "b", "status": "pending"},
    ]))];
    let log: Vec<Value> = log
        .into_iter()
        .map(|mut v| {
            v.as_object_mut().unwrap().remove("v");
            v
        })
        .collect();
    let r = replay_todos(&log);
    assert_eq!(r.todos, vec![item(" a ", I), item("b", I), item("b", P)]);
    assert!(r.skipped.is_empty());
}

#[test]
fn replay_skips_and_reports_unusable_entries() {
    let log = vec![
        update(json!([{"content": "a", "status": "pending"}])),
        json!("not an object"),
        json!({"no": "type"}),
        json!({"type": "todo_update", "todos": "nope"}),
        json!({"type": "todo_update", "v": 2, "todos": [{"content": "future", "status": "pending"}]}),
        json!({"type": "todo_update", "todos": [{"content": "x", "status": "blocked"}]}),
    ];
    let r = replay_todos(&log);
    assert_eq!(r.todos, vec![item("a", P)], "no unusable entry replaces the list");
    let indexes: Vec<usize> = r.skipped.iter().map(|s| s.index).collect();
    assert_eq!(indexes, vec![1, 2, 3, 4, 5]);
    assert_eq!(r.skipped[0].reason, "an entry must be an object (got a string)");
    assert_eq!(r.skipped[3].kind.as_deref(), Some("todo_update"));
    assert!(r.skipped[3].reason.contains("v2"), "{}", r.skipped[3].reason);
}

#[test]
fn cards_show_what_changed() {
    let log = vec![
        update(json!([
            {"content": "a", "status": "in_progress"},
            {"content": "b", "status": "pending"},
            {"content": "c", "status": "pending"},
        ])),
        update(json!([
            {"content": "a", "status": "completed"},
            {"content": "c", "status": "in_progress"},
            {"content": "b", "status": "pending"},
            {"content": "d", "status": "pending"},
        ])),
        update(json!([
            {"content": "c", "status": "completed"},
            {"content": "d", "status": "pending"},
        ])),
    ];
    let r = replay_todos(&log);
    let first = &r.cards[0].changes;
    assert_eq!(
        first.added.iter().map(|a| a.content.as_str()).collect::<Vec<_>>(),
        ["a", "b", "c"]
    );
    assert!(first.removed.is_empty() && first.status_changed.is_empty() && first.moved.is_empty());

    let second = &r.cards[1];
    assert_eq!(second.index, 1);
    assert_eq!(
        (
            second.counts.pending,
            second.counts.in_progress,
            second.counts.completed
        ),
        (2, 1, 1)
    );
    let ch = &second.changes;
    assert_eq!(ch.added.len(), 1);
    assert_eq!((ch.added[0].content.as_str(), ch.added[0].position), ("d", 3));
    assert!(ch.removed.is_empty());
    let status: Vec<(&str, TodoStatus, TodoStatus)> = ch
        .status_changed
        .iter()
        .map(|s| (s.content.as_str(), s.from, s.to))
        .collect();
    assert_eq!(status, [("a", I, C), ("c", P, I)]);
    // b and c swapped: one move explains it.
    assert_eq!(ch.moved.len(), 1, "{:?}", ch.moved);

    let third = &r.cards[2].changes;
    let removed: Vec<(&str, usize)> = third.removed.iter().map(|p| (p.content.as_str(), p.position)).collect();
    assert_eq!(removed, [("a", 0), ("b", 2)]);
    assert!(third.moved.is_empty());
}

#[test]
fn moves_are_the_fewest_that_explain_the_new_order() {
    let list = |names: &[&str]| names.iter().map(|n| item(n, P)).collect::<Vec<_>>();
    // Last item to the front: exactly that one item moved.
    let ch = diff(&list(&["a", "b", "c", "d"]), &list(&["d", "a", "b", "c"]));
    assert_eq!(ch.moved.len(), 1);
    assert_eq!(
        (ch.moved[0].content.as_str(), ch.moved[0].from, ch.moved[0].to),
        ("d", 3, 0)
    );
    // Same order with an insertion: nothing moved.
    let ch = diff(&list(&["a", "b", "c"]), &list(&["a", "x", "b", "c"]));
    assert!(ch.moved.is_empty());
    // Full reversal of four: three moved.
    let ch = diff(&list(&["a", "b", "c", "d"]), &list(&["d", "c", "b", "a"]));
    assert_eq!(ch.moved.len(), 3);
    // Identical lists: no change at all.
    let ch = diff(&list(&["a", "b"]), &list(&["a", "b"]));
    assert_eq!(ch, Default::default());
}

#[test]
fn plan_runs_in_its_turn_stays_finished_and_clears_at_the_next_turn() {
    let a = json!([{"content": "a", "status": "in_progress"}]);
    let a_done = json!([{"content": "a", "status": "completed"}]);
    let mut log = vec![json!({"type": "turn_started"})];
    assert_eq!(replay_todos(&log).plan.state, PlanState::None);

    log.push(update(a.clone()));
    let plan = replay_todos(&log).plan;
    assert_eq!((plan.state, plan.turn), (PlanState::Running, Some(1)));
    assert_eq!(plan.todos, vec![item("a", I)]);

    log.push(update(a_done));
    log.push(json!({"type": "turn_ended"}));
    let plan = replay_todos(&log).plan;
    assert_eq!(plan.state, PlanState::Finished, "the finished checklist stays visible");
    assert_eq!(plan.todos, vec![item("a", C)]);

    log.push(json!({"type": "turn_started"}));
    let r = replay_todos(&log);
    assert_eq!(r.plan.state, PlanState::None, "the next turn clears the standing plan");
    assert!(r.plan.todos.is_empty());
    assert_eq!(r.todos, vec![item("a", C)], "the list itself stays");

    log.push(update(a));
    let plan = replay_todos(&log).plan;
    assert_eq!((plan.state, plan.turn), (PlanState::Running, Some(2)));
    assert_eq!(replay_todos(&log).cards[2].turn, Some(2));
}

#[test]
fn a_turn_without_an_update_ends_with_nothing_shown() {
    let log = vec![
        json!({"type": "turn_started"}),
        update(json!([{"content": "a", "status": "completed"}])),
        json!({"type": "turn_ended"}),
        json!({"type": "turn_started"}),
        json!({"type": "turn_ended"}),
    ];
    assert_eq!(replay_todos(&log).plan.state, PlanState::None);
}

#[test]
fn an_update_outside_any_turn_shows_as_running() {
    let log = vec![update(json!([{"content": "a", "status": "pending"}]))];
    let r = replay_todos(&log);
    assert_eq!((r.plan.state, r.plan.turn), (PlanState::Running, None));
    assert_eq!(r.cards[0].turn, None);
}

#[test]
fn write_then_replay_round_trips() {
    let mut log: Vec<Value> = vec![json!({"type": "session"}), json!({"type": "turn_started"})];
    for todos in [
        json!([{"content": "one", "status": "in_progress"}, {"content": "two", "status": "pending"}]),
        json!([{"content": "one", "status": "completed"}, {"content": "two", "status": "in_progress"}]),
    ] {
        let w = written(json!({ "todos": todos }));
        log.push(serde_json::to_value(oda_tasks::Entry::TodoUpdate(w.entry)).unwrap());
    }
    let r = replay_todos(&log);
    assert_eq!(r.todos, vec![item("one", C), item("two", I)]);
    assert_eq!(r.cards.len(), 2);
}
