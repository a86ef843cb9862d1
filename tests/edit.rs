//! A person's edit of the list: recorded under todo_write's rules on the length
//! their screen showed, attributed to them, and told to the model once (its
//! context text or the refusal of a stale todo_write), each exact text pinned.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)] // test code: a failed assumption should panic

use oda_tasks::chat::Chat;
use oda_tasks::edit::{edit_todos, list_text, notice, stale_write, Edit, EditRefusal};
use oda_tasks::entry::{read_entry, Editor, Entry, Read, TodoUpdate, Told};
use oda_tasks::todo::{PlanState, TodoItem, TodoStatus};
use oda_tasks::{replay_todos, Input, TodoError, TodoOptions};
use serde_json::{json, Value};

const ON: TodoOptions = TodoOptions { one_active: true };

fn chat(log: &[Value]) -> Chat {
    Chat::from_values(log, true)
}

fn list(items: &[(&str, &str)]) -> Value {
    Value::Array(
        items
            .iter()
            .map(|(content, status)| json!({ "content": content, "status": status }))
            .collect(),
    )
}

fn input(items: &[(&str, &str)]) -> Input {
    json!({ "todos": list(items) }).into()
}

/// A model's update, as stored.
fn update(items: &[(&str, &str)]) -> Value {
    json!({ "type": "todo_update", "v": 1, "todos": list(items) })
}

/// A person's update, as stored.
fn edit(items: &[(&str, &str)], name: Option<&str>) -> Value {
    let by = match name {
        Some(name) => json!({ "name": name }),
        None => json!({}),
    };
    json!({ "type": "todo_update", "v": 1, "todos": list(items), "by": by })
}

fn told(text: &str) -> Value {
    json!({ "type": "todo_told", "v": 1, "text": text })
}

/// The entry an accepted edit appends, as stored.
fn appended(decided: Result<Edit, EditRefusal>) -> String {
    match decided {
        Ok(Edit::Append(update)) => Entry::TodoUpdate(update).text(),
        other => panic!("not appended: {other:?}"),
    }
}

fn session() -> Value {
    json!({ "type": "session", "workspace": "/w" })
}

const PLAN: [(&str, &str); 2] = [("Write tests", "in_progress"), ("Ship", "pending")];

#[test]
fn an_edit_is_recorded_as_an_update_attributed_to_the_person() {
    let c = chat(&[session(), update(&PLAN)]);
    let edited = [
        ("Write tests", "completed"),
        ("Ship", "in_progress"),
        ("Write docs", "pending"),
    ];
    assert_eq!(
        appended(edit_todos(&c, &input(&edited), 2, Some("Ada".into()), ON)),
        r#"{"type":"todo_update","v":1,"todos":[{"content":"Write tests","status":"completed"},{"content":"Ship","status":"in_progress"},{"content":"Write docs","status":"pending"}],"by":{"name":"Ada"}}"#
    );
    // No name: `by` is still there, and says only that a person made it.
    assert_eq!(
        appended(edit_todos(&c, &input(&edited), 2, None, ON)),
        r#"{"type":"todo_update","v":1,"todos":[{"content":"Write tests","status":"completed"},{"content":"Ship","status":"in_progress"},{"content":"Write docs","status":"pending"}],"by":{}}"#
    );
    // Texts are trimmed as a model's are.
    assert_eq!(
        appended(edit_todos(&c, &input(&[("  Ship  ", "pending")]), 2, None, ON)),
        r#"{"type":"todo_update","v":1,"todos":[{"content":"Ship","status":"pending"}],"by":{}}"#
    );
}

#[test]
fn an_edit_is_refused_by_todo_writes_own_rules_with_its_own_texts() {
    let c = chat(&[session()]);
    let refused = |items: &[(&str, &str)]| match edit_todos(&c, &input(items), 1, None, ON) {
        Err(EditRefusal::Invalid(e)) => e.to_string(),
        other => panic!("not refused: {other:?}"),
    };
    assert_eq!(
        refused(&[("a", "in_progress"), ("b", "in_progress")]),
        "Error: invalid todos: at most one task may be in_progress (got 2)"
    );
    assert_eq!(
        refused(&[("a", "pending"), (" a", "pending")]),
        "Error: invalid todos: duplicate content \"a\""
    );
    assert_eq!(
        refused(&[("  ", "pending")]),
        "Error: invalid todo: `content` must be a non-empty string"
    );
    assert_eq!(
        refused(&[("a", "done")]),
        "Error: invalid todo at index 0: `status` must be \"pending\", \"in_progress\" or \"completed\" (got \"done\")"
    );
    // With the one-active rule off (the host's option), two in progress are an edit like any other.
    let off = TodoOptions { one_active: false };
    assert!(edit_todos(&c, &input(&[("a", "in_progress"), ("b", "in_progress")]), 1, None, off).is_ok());
}

#[test]
fn an_edit_on_a_screen_the_list_has_changed_since_is_refused_as_changed() {
    let log = [session(), update(&PLAN), json!({ "type": "turn_started" })];
    let c = chat(&log);
    let mine = input(&[("Write tests", "completed")]);
    // Based on the length after the update: entries that are no update since change nothing.
    assert!(edit_todos(&c, &mine, 2, None, ON).is_ok());
    assert!(edit_todos(&c, &mine, 3, None, ON).is_ok());
    // Based on a length before the update: the list changed since.
    assert_eq!(edit_todos(&c, &mine, 1, None, ON), Err(EditRefusal::Changed));
    assert_eq!(edit_todos(&c, &mine, 0, None, ON), Err(EditRefusal::Changed));
    // A length past the log's end is a screen of another log: changed.
    assert_eq!(edit_todos(&c, &mine, 4, None, ON), Err(EditRefusal::Changed));
    // Another person's edit changes the list as much as the model's update.
    let c = chat(&[session(), edit(&PLAN, Some("Bo"))]);
    assert_eq!(edit_todos(&c, &mine, 1, None, ON), Err(EditRefusal::Changed));
    // An invalid list is told first, whatever the length.
    assert!(matches!(
        edit_todos(&c, &input(&[("", "pending")]), 0, None, ON),
        Err(EditRefusal::Invalid(TodoError::EmptyContent))
    ));
}

#[test]
fn an_edit_that_leaves_the_list_as_it_is_records_nothing() {
    let c = chat(&[session(), update(&PLAN)]);
    assert_eq!(edit_todos(&c, &input(&PLAN), 2, None, ON), Ok(Edit::Unchanged));
    // The same texts in another order, or another state, are a change.
    assert!(matches!(
        edit_todos(&c, &input(&[PLAN[1], PLAN[0]]), 2, None, ON),
        Ok(Edit::Append(_))
    ));
    assert_eq!(
        edit_todos(&chat(&[session()]), &input(&[]), 1, None, ON),
        Ok(Edit::Unchanged)
    );
}

/// The change and the list, as both texts carry them.
const BODY: &str = "What they changed:\n- added \"Write docs\" (pending)\n- removed \"Ship\"\n- \"Write tests\": in_progress → completed\n- moved \"Deploy\" from 3 to 1\nThe list as edited (2 pending, 0 in progress, 1 completed):\n1. [pending] \"Deploy\"\n2. [completed] \"Write tests\"\n3. [pending] \"Write docs\"";

fn edited_chat(more: &[Value]) -> Chat {
    let mut log = vec![
        session(),
        update(&[
            ("Write tests", "in_progress"),
            ("Ship", "pending"),
            ("Deploy", "pending"),
        ]),
        edit(
            &[
                ("Deploy", "pending"),
                ("Write tests", "completed"),
                ("Write docs", "pending"),
            ],
            Some("Ada"),
        ),
    ];
    log.extend(more.iter().cloned());
    chat(&log)
}

#[test]
fn a_stale_write_is_refused_with_the_list_as_edited_and_what_changed() {
    let c = edited_chat(&[]);
    let refusal = stale_write(&c).expect("the model was not told");
    assert_eq!(
        refusal.text,
        format!("Error: the user edited the todo list, and this update was not recorded: it was written before you saw their edit. {BODY}\nCall todo_write again with the whole list, starting from this one and keeping the user's changes.")
    );
    assert!(refusal.text.starts_with("Error: the user edited the todo list"));
    assert_eq!(refusal.text, TodoError::UserEdited(BODY.to_string()).to_string());
    // Recorded as told: the entry holds the exact text.
    assert_eq!(
        Entry::TodoTold(refusal.clone()).text(),
        format!(
            r#"{{"type":"todo_told","v":1,"text":{}}}"#,
            serde_json::to_string(&refusal.text).unwrap()
        )
    );
}

#[test]
fn the_context_notice_tells_the_same_change_and_list() {
    let c = edited_chat(&[]);
    let told = notice(&c).expect("an edit is untold");
    assert_eq!(
        told.text,
        format!("The user edited the todo list while you worked. {BODY}\nKeep their changes: your next todo_write sends this list whole, with the user's changes in it.")
    );
}

#[test]
fn told_once_then_the_models_writes_record_as_usual() {
    // Not yet told: both are due.
    assert!(stale_write(&edited_chat(&[])).is_some());
    // Told by either record: neither is due again.
    for record in [
        told("anything"),
        json!({ "type": "todo_told", "text": "v absent reads as v1" }),
    ] {
        let c = edited_chat(&[record]);
        assert_eq!(stale_write(&c), None);
        assert_eq!(notice(&c), None);
    }
    // The model's own update after the edit (it saw the list another way): nothing left to tell.
    let c = edited_chat(&[update(&[("Deploy", "in_progress")])]);
    assert_eq!(notice(&c), None);
    // A model's list with no edit at all: nothing to tell.
    assert_eq!(notice(&chat(&[session(), update(&PLAN)])), None);
    assert_eq!(notice(&chat(&[])), None);
}

#[test]
fn edits_told_after_another_are_told_against_what_the_model_last_knew() {
    // Two edits before the model was told: one text, against the model's own list.
    let c = chat(&[
        session(),
        update(&[("a", "pending")]),
        edit(&[("a", "completed")], None),
        edit(&[("a", "completed"), ("b", "pending")], None),
    ]);
    assert_eq!(
        notice(&c).unwrap().text,
        "The user edited the todo list while you worked. What they changed:\n- added \"b\" (pending)\n- \"a\": pending → completed\nThe list as edited (1 pending, 0 in progress, 1 completed):\n1. [completed] \"a\"\n2. [pending] \"b\"\nKeep their changes: your next todo_write sends this list whole, with the user's changes in it."
    );
    // An edit after the model was told: against the list it was told.
    let c = chat(&[
        session(),
        update(&[("a", "pending")]),
        edit(&[("a", "completed")], None),
        told("t"),
        edit(&[], None),
    ]);
    assert_eq!(
        stale_write(&c).unwrap().text,
        TodoError::UserEdited("What they changed:\n- removed \"a\"\nThe list as edited is empty.".into()).to_string()
    );
    // Edits that end where the model left the list still tell so.
    let c = chat(&[
        session(),
        update(&[("a", "pending")]),
        edit(&[], None),
        edit(&[("a", "pending")], None),
    ]);
    assert_eq!(
        notice(&c).unwrap().text,
        "The user edited the todo list while you worked. What they changed:\n- nothing, in the end: the list is as you last knew it\nThe list as edited (1 pending, 0 in progress, 0 completed):\n1. [pending] \"a\"\nKeep their changes: your next todo_write sends this list whole, with the user's changes in it."
    );
    // The person's first list, before the model wrote any.
    let c = chat(&[session(), edit(&[("a\nb", "pending")], None)]);
    assert_eq!(
        stale_write(&c).unwrap().text,
        TodoError::UserEdited("What they changed:\n- added \"a\\nb\" (pending)\nThe list as edited (1 pending, 0 in progress, 0 completed):\n1. [pending] \"a\\nb\"".into()).to_string()
    );
}

#[test]
fn the_card_says_a_person_made_the_change_and_old_logs_replay_as_before() {
    let log = [
        session(),
        update(&PLAN),
        edit(&[("Ship", "pending")], Some("Ada")),
        edit(&[], None),
    ];
    let replay = replay_todos(&log);
    assert_eq!(replay.cards[0].by, None);
    assert_eq!(
        replay.cards[1].by,
        Some(Editor {
            name: Some("Ada".into())
        })
    );
    assert_eq!(replay.cards[2].by, Some(Editor { name: None }));
    assert_eq!(replay.cards[1].changes.removed.len(), 1);
    let cards = serde_json::to_value(&replay.cards).unwrap();
    assert!(cards[0].get("by").is_none(), "a model's card has no `by`: {}", cards[0]);
    assert_eq!(cards[1]["by"], json!({ "name": "Ada" }));
    assert_eq!(cards[2]["by"], json!({}));
    // The list is the latest update, whoever made it.
    assert!(replay.todos.is_empty());
}

#[test]
fn a_person_edit_between_turns_keeps_the_finished_checklist_finished() {
    let turn = |t: &str| json!({ "type": t });
    let done = replay_todos(&[
        session(),
        turn("turn_started"),
        update(&PLAN),
        turn("turn_ended"),
        edit(&[("Write tests", "completed")], None),
    ]);
    assert_eq!(done.plan.state, PlanState::Finished);
    assert_eq!(done.plan.turn, Some(1));
    assert_eq!(
        done.plan.todos,
        vec![TodoItem {
            content: "Write tests".into(),
            status: TodoStatus::Completed
        }]
    );
    // Inside a turn, a person's edit runs in it, as the model's does.
    let running = replay_todos(&[
        session(),
        turn("turn_started"),
        update(&PLAN),
        turn("turn_ended"),
        turn("turn_started"),
        edit(&PLAN, None),
    ]);
    assert_eq!((running.plan.state, running.plan.turn), (PlanState::Running, Some(2)));
    // Outside any turn with no plan showing: running, as an update outside a turn reads.
    let first = replay_todos(&[session(), edit(&PLAN, None)]);
    assert_eq!((first.plan.state, first.plan.turn), (PlanState::Running, None));
}

#[test]
fn by_and_told_records_are_read_tolerantly() {
    let read = |v: Value| read_entry(&v.to_string());
    let mut odd = edit(&PLAN, None);
    odd["by"] = json!({ "name": "Ada", "role": "owner" });
    assert!(matches!(
        read(odd),
        Read::Entry(Entry::TodoUpdate(TodoUpdate {
            by: Some(Editor { name: Some(_) }),
            ..
        }))
    ));
    odd = edit(&PLAN, None);
    odd["by"] = Value::Null; // null reads as absent: the model's update
    assert!(matches!(
        read(odd),
        Read::Entry(Entry::TodoUpdate(TodoUpdate { by: None, .. }))
    ));
    for (by, reason) in [
        (json!(5), "`by` must be an object { name? } (got a number)"),
        (json!("Ada"), "`by` must be an object { name? } (got a string)"),
        (json!({ "name": 5 }), "`by` must be an object { name? } (got an object)"),
    ] {
        let mut bad = edit(&PLAN, None);
        bad["by"] = by;
        match read(bad) {
            Read::Skip { reason: why, .. } => assert_eq!(why, reason),
            other => panic!("not skipped: {other:?}"),
        }
    }
    // A told record with no text is skipped and reported: the model is refused once more, nothing lost.
    let c = edited_chat(&[json!({ "type": "todo_told", "v": 1 })]);
    assert_eq!(c.skipped.last().unwrap().reason, "missing field `text`");
    assert!(stale_write(&c).is_some());
    // A newer version of a told record is skipped the same way.
    assert!(stale_write(&edited_chat(&[json!({ "type": "todo_told", "v": 2, "text": "t" })])).is_some());
    assert!(matches!(read(told("t")), Read::Entry(Entry::TodoTold(Told { .. }))));
}

#[test]
fn the_list_text_for_the_models_context() {
    let item = |content: &str, status| TodoItem {
        content: content.into(),
        status,
    };
    assert_eq!(
        list_text(&[item("Write tests", TodoStatus::InProgress), item("Ship", TodoStatus::Pending)]).unwrap(),
        "Your todo list, as last recorded with todo_write (1 pending, 1 in progress, 0 completed):\n1. [in_progress] \"Write tests\"\n2. [pending] \"Ship\"\nKeep it current: call todo_write with the whole list when an item's state changes."
    );
    assert_eq!(list_text(&[]), None);
}
