//! Property tests (proptest): the core never mutates what it reads, what it
//! writes reads back the same, replay survives any JSON, the permission clamp
//! only ever lowers, and folding a log in pieces answers as folding it whole.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)] // test code: a failed assumption should panic

#[path = "support/jsonl_reads.rs"]
mod jsonl_reads;
#[path = "support/log.rs"]
mod log;
#[path = "support/observe.rs"]
mod observe;
#[path = "support/words.rs"]
mod words;

use arbitrary::{Arbitrary, Unstructured};
use log::{Entry as LogEntry, Id, Json, Layout, Render, Str};
use observe::{answers, check_invariants};
use oda_tasks::chat::Chat;
use oda_tasks::entry::{
    read_entry, Editor, Entry, Message, Offer, Origin, Outcome, Read, SessionEntry, Settings, Settlement, Source,
    TodoItem, TodoStatus, TodoUpdate, Told,
};
use oda_tasks::input::Input;
use oda_tasks::settle::{clamp_permission, Action, GoalAction, StartPlan, StartRequest};
use oda_tasks::{todo_write, whole_log, TodoOptions};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Value};

// ---------------------------------------------------------------- generators

/// A `T` drawn by `arbitrary` from up to `bytes` bytes that proptest picks and
/// shrinks (toward zeros: the first, plainest variants). Logs come from the
/// generator the fuzz crate uses (support/log.rs), drawn this way.
fn drawn<T: for<'a> Arbitrary<'a> + std::fmt::Debug + 'static>(bytes: usize) -> BoxedStrategy<T> {
    vec(any::<u8>(), 0..bytes)
        .prop_filter_map("arbitrary draws from any bytes", |data| {
            T::arbitrary(&mut Unstructured::new(&data)).ok()
        })
        .boxed()
}

/// The JSON value of `text` when it reads back as itself (not so: a lone
/// surrogate, a float the reader rounds otherwise, nesting past the limit).
fn held(text: &str) -> Option<Value> {
    let value = serde_json::from_str::<Value>(text).ok()?;
    (serde_json::from_str::<Value>(&value.to_string()).ok()? == value).then_some(value)
}

/// What a host holds for `text`: its JSON value, else the text as a JSON string.
fn value_of(text: String) -> Value {
    held(&text).unwrap_or(Value::String(text))
}

fn rendered(item: &impl Render) -> Value {
    let mut text = String::new();
    item.render(&mut text);
    value_of(text)
}

/// Any JSON value, and odd ones.
fn json_value() -> BoxedStrategy<Value> {
    drawn::<Json>(256).prop_map(|json| rendered(&json)).boxed()
}

/// A word from `words`, or any string.
fn string_of(words: &'static [&'static str]) -> BoxedStrategy<Value> {
    prop_oneof![4 => select(words).prop_map(Value::from), 1 => drawn::<Str>(64).prop_map(|s| rendered(&s))].boxed()
}

/// An offer id: one of a few that collide, or any.
fn id() -> BoxedStrategy<Value> {
    drawn::<Id>(16).prop_map(|id| rendered(&id)).boxed()
}

/// `value` wrapped in `depth` arrays or objects: up to past the parser's limit of 128.
fn deep_value() -> BoxedStrategy<Value> {
    (entry(), 100usize..=140, any::<bool>())
        .prop_map(|(mut v, depth, arrays)| {
            for _ in 0..depth {
                v = if arrays { json!([v]) } else { json!({ "x": v }) };
            }
            v
        })
        .boxed()
}

/// One log entry's text, plausible or not.
fn entry_text() -> BoxedStrategy<String> {
    drawn::<LogEntry>(512).prop_map(|entry| entry.render()).boxed()
}

/// One log entry as a host holds it: a drawn entry whose text is such a value.
fn entry() -> BoxedStrategy<Value> {
    entry_text()
        .prop_filter_map("a host holds JSON values", |text| held(&text))
        .boxed()
}

fn log() -> BoxedStrategy<Vec<Value>> {
    vec(entry(), 0..30).boxed()
}

/// Entry texts as a host or a file would hold them, odd escapes and numbers included.
fn entry_texts() -> BoxedStrategy<Vec<String>> {
    vec(entry_text(), 0..30).boxed()
}

const PERMISSIONS: &[&str] = &["read-only", "ask", "auto", "full-access", "root"];

fn action() -> impl Strategy<Value = Action> {
    select(vec![Action::Draft, Action::Dismiss, Action::Restore])
}

/// A model's tool input: plausible for either tool, or anything.
fn model_input() -> BoxedStrategy<Value> {
    let todo = vec(
        (string_of(&["a", "b", " a "]), string_of(&["pending", "in_progress", "completed"])),
        0..4,
    )
    .prop_map(|items| {
        json!({ "todos": items.into_iter().map(|(c, s)| json!({ "content": c, "status": s })).collect::<Vec<_>>() })
    });
    let suggestion = (string_of(&["T"]), string_of(&["W"]), string_of(&["B"]))
        .prop_map(|(title, tldr, brief)| json!({ "title": title, "tldr": tldr, "brief": brief }));
    prop_oneof![todo, suggestion, json_value()].boxed()
}

// ---------------------------------------------------------------- properties

proptest! {
    // Default case counts; the faster generator keeps a debug-build `cargo test` short.
    #![proptest_config(ProptestConfig {
        rng_algorithm: proptest::test_runner::RngAlgorithm::XorShift,
        // `entry()` passes over the drawn texts that are no JSON value (about a
        // third): a generous bound, so that 16,384 cases do not run out of it.
        max_local_rejects: 1 << 24,
        ..ProptestConfig::default()
    })]

    /// Every call reads the log and leaves it as it was, byte for byte; a
    /// refused call, repeated, gives the same refusal (it counted for nothing).
    #[test]
    fn calls_leave_the_log_byte_identical(
        log in log(),
        input in model_input(),
        id in id(),
        action in action(),
        one_active in any::<bool>(),
    ) {
        let id = id.as_str().unwrap_or("s1").to_string();
        let before = serde_json::to_vec(&log).expect("a log serialises");
        let suggested = whole_log::suggest_task(Some(&log), &input);
        let settled = whole_log::settle(&log, &id, action);
        let request = StartRequest { model: None, permission: Some("full-access".to_string()) };
        let order = observe::default_order();
        let planned = whole_log::plan_start(&log, "c", &id, &request, &order);
        let goal = whole_log::check_goal(&log, GoalAction::Complete);
        let origin = Origin { chat_id: "c".to_string(), suggestion_id: id.clone() };
        let started = whole_log::started_chat(Some(&log), &origin);
        let todos = whole_log::replay_todos(&log);
        let suggestions = whole_log::replay_suggestions(&log);
        let wrote = todo_write(true, &Input::from(input.clone()), TodoOptions { one_active });
        prop_assert_eq!(&before, &serde_json::to_vec(&log).expect("a log serialises"));

        // The same calls again: the same answers, refused or not.
        prop_assert_eq!(suggested, whole_log::suggest_task(Some(&log), &input));
        prop_assert_eq!(settled, whole_log::settle(&log, &id, action));
        prop_assert_eq!(planned, whole_log::plan_start(&log, "c", &id, &request, &order));
        prop_assert_eq!(goal, whole_log::check_goal(&log, GoalAction::Complete));
        prop_assert_eq!(started, whole_log::started_chat(Some(&log), &origin));
        prop_assert_eq!(todos, whole_log::replay_todos(&log));
        prop_assert_eq!(suggestions, whole_log::replay_suggestions(&log));
        prop_assert_eq!(wrote, todo_write(true, &Input::from(input), TodoOptions { one_active }));
        prop_assert_eq!(&before, &serde_json::to_vec(&log).expect("a log serialises"));
    }

    /// The card a recorded `todo_write` shows (`next_card`, on a chat without
    /// cards) is the card replay makes once its entry is appended.
    #[test]
    fn next_card_is_the_card_replay_makes(log in log(), input in model_input(), one_active in any::<bool>()) {
        let Ok(decided) = todo_write(true, &Input::from(input), TodoOptions { one_active }) else { return Ok(()) };
        let chat = Chat::from_values(&log, false);
        let card = chat.next_card(decided.entry.todos.clone(), None);
        let mut whole = log.clone();
        whole.push(serde_json::from_str(&Entry::TodoUpdate(decided.entry).text()).expect("an entry's text is JSON"));
        let replayed = Chat::from_values(&whole, true);
        let last = replayed.todos.card_count().checked_sub(1).and_then(|k| replayed.todos.card(k));
        prop_assert_eq!(Some(card), last);
    }

    /// A folded chat answers the same before and after any question is asked of it.
    #[test]
    fn questions_leave_the_chat_as_it_was(log in log(), input in model_input(), id in id()) {
        let chat = Chat::from_values(&log, true);
        let before = answers(&chat);
        let _ = oda_tasks::suggest_call::suggest_task(Some(&chat), &Input::from(input));
        let id = id.as_str().unwrap_or("s1");
        let _ = oda_tasks::settle::settle(&chat, id, Action::Restore);
        prop_assert_eq!(before, answers(&chat));
    }

    /// Replay takes any array of JSON values: nothing fails, every entry takes
    /// one index, and the chat keeps its invariants.
    #[test]
    fn replay_never_fails_on_any_json_array(log in vec(prop_oneof![4 => entry(), 2 => json_value(), 1 => deep_value()], 0..30)) {
        let chat = Chat::from_values(&log, true);
        prop_assert_eq!(chat.len, log.len());
        check_invariants(&chat);
        let _ = answers(&chat);
        let _ = whole_log::replay_todos(&log);
        let _ = whole_log::replay_suggestions(&log);
    }

    /// The same over entry texts: lone-surrogate escapes, odd numbers, nesting
    /// past the limit. Each text is one entry.
    #[test]
    fn replay_never_fails_on_any_entry_text(texts in entry_texts()) {
        let mut chat = Chat::new(true);
        for text in &texts {
            chat.ingest(text);
        }
        prop_assert_eq!(chat.len, texts.len());
        check_invariants(&chat);
        let _ = answers(&chat);
    }

    /// Folding entry by entry, and asking questions at random points, answers
    /// at every point exactly as folding that prefix at once.
    #[test]
    fn incremental_equals_whole_replay(log in log(), splits in vec(any::<prop::sample::Index>(), 0..5)) {
        let mut points: Vec<usize> = splits.iter().map(|i| i.index(log.len() + 1)).collect();
        points.push(log.len());
        points.sort_unstable();
        let mut chat = Chat::new(true);
        let mut folded = 0;
        for point in points {
            for value in log.get(folded..point).unwrap_or_default() {
                chat.ingest(&serde_json::to_string(value).expect("a Value serialises"));
            }
            folded = point;
            let whole = Chat::from_values(log.get(..point).unwrap_or_default(), true);
            prop_assert_eq!(answers(&chat), answers(&whole));
        }
    }

    /// JSONL bytes fed in random chunks (with a byte order mark, LF, CRLF or
    /// lone CR line ends, blank lines, short lines) fold as the same entries fed as text, and report the
    /// same unreadable lines.
    #[test]
    fn jsonl_chunks_equal_entries_fed_as_text(
        texts in vec(prop_oneof![
            6 => entry_text(),
            1 => select(vec!["", "{}", "[]", "1", " ", "{", "nul", "\"x\"", "{\"type\":1}"]).prop_map(str::to_string),
            1 => "[^\r\n]{0,8}",
        ], 0..25),
        layout in drawn::<Layout>(64),
    ) {
        let (bytes, lines) = layout.jsonl(&texts);
        let (read, unreadable) = jsonl_reads::in_chunks(&layout, &bytes);
        let (expected, expected_unreadable) = jsonl_reads::line_by_line(&layout, &lines);
        prop_assert_eq!(answers(&read), answers(&expected));
        prop_assert_eq!(unreadable, expected_unreadable);
    }

    /// An entry the core writes, serialised and read back, is the same entry.
    #[test]
    fn written_entries_read_back_the_same(entry in written_entry()) {
        let text = serde_json::to_string(&entry).expect("an entry serialises");
        // A message's text is not read back (replay needs only who wrote it).
        let expected = match entry {
            Entry::Message(m) => Entry::Message(Message { text: None, ..m }),
            other => other,
        };
        prop_assert_eq!(read_entry(&text), Read::Entry(expected));
    }

    /// The clamp never exceeds the ceiling nor the wish, lands in the order,
    /// and is monotone: a higher wish never gives a lower permission.
    #[test]
    fn permission_clamp_is_monotone_and_capped(
        order in vec(select(PERMISSIONS).prop_map(str::to_string), 0..6),
        wanted in prop::option::of(select(PERMISSIONS)),
        wanted2 in prop::option::of(select(PERMISSIONS)),
        ceiling in prop::option::of(select(PERMISSIONS)),
    ) {
        let rank = |p: Option<&str>| p.and_then(|p| order.iter().position(|o| o == p)).unwrap_or(0);
        let got = clamp_permission(wanted, ceiling, &order);
        let got2 = clamp_permission(wanted2, ceiling, &order);
        prop_assert_eq!(got.is_none(), order.is_empty());
        if let Some(g) = &got {
            prop_assert!(order.contains(g));
        }
        prop_assert!(rank(got.as_deref()) <= rank(ceiling));
        prop_assert!(rank(got.as_deref()) <= rank(wanted));
        if rank(wanted) <= rank(wanted2) {
            prop_assert!(rank(got.as_deref()) <= rank(got2.as_deref()));
        }
    }

    /// A chain of Starts (each started chat offering the next) never gains
    /// permission over the chat that offered it, whatever each Start asks for.
    #[test]
    fn started_chats_never_exceed_the_offering_chat(
        first in prop::option::of(select(PERMISSIONS)),
        asked in vec(prop::option::of(select(PERMISSIONS)), 1..4),
        order in vec(select(PERMISSIONS).prop_map(str::to_string), 0..6),
    ) {
        let rank = |p: Option<&str>| p.and_then(|p| order.iter().position(|o| o == p)).unwrap_or(0);
        let mut session = json!({
            "type": "session", "chatId": "c", "workspace": "w1", "agent": "top-level",
            "settings": { "permission": first }
        });
        let mut chat_id = "c".to_string();
        for wish in asked {
            let log = vec![session.clone(), json!({ "type": "turn_started" }), json!({
                "type": "suggestion_offered", "v": 1, "id": "s1", "title": "T", "tldr": "W", "brief": "B"
            })];
            let parent = Chat::from_values(&log, false).settings().permission;
            let request = StartRequest { model: None, permission: wish.map(str::to_string) };
            let plan = whole_log::plan_start(&log, &chat_id, "s1", &request, &order);
            let Ok(StartPlan::Create { chat_id: new_id, session: started, .. }) = plan else {
                return Err(TestCaseError::fail(format!("no Create plan: {plan:?}")));
            };
            let got = started.settings.permission.clone();
            prop_assert!(rank(got.as_deref()) <= rank(parent.as_deref()), "{:?} above {:?}", got, parent);
            // The started chat, stored and read back, offers the next one.
            session = serde_json::to_value(Entry::Session(started)).expect("a session serialises");
            chat_id = new_id;
        }
    }
}

/// Entries of every kind the core writes, with any text in them.
fn written_entry() -> BoxedStrategy<Entry> {
    let string = || any::<String>();
    let origin = (string(), string()).prop_map(|(chat_id, suggestion_id)| Origin { chat_id, suggestion_id });
    let status = select(vec![TodoStatus::Pending, TodoStatus::InProgress, TodoStatus::Completed]);
    let outcome = select(vec![
        Outcome::Started,
        Outcome::Drafted,
        Outcome::Dismissed,
        Outcome::Restored,
    ]);
    let non_null = || json_value().prop_filter("null reads as absent", |v| !v.is_null());
    let settings = (
        prop::option::of(string()),
        prop::option::of(string()),
        prop::option::of(string()),
        prop::option::of(non_null()),
        prop::option::of(non_null()),
    )
        .prop_map(|(preset, model, permission, sandbox, approval)| Settings {
            preset,
            model,
            permission,
            sandbox: sandbox.map(Into::into),
            approval: approval.map(Into::into),
        });
    let session = (
        prop::option::of(string()),
        prop::option::of(string()),
        prop::option::of(string()),
        any::<bool>(),
        string(),
        settings,
        prop::option::of(origin.clone()),
    )
        .prop_map(
            |(chat_id, title, workspace, scheduled_task_folder, agent, settings, origin)| {
                Entry::Session(SessionEntry {
                    v: 1,
                    chat_id,
                    title,
                    workspace,
                    scheduled_task_folder,
                    agent,
                    settings,
                    origin,
                })
            },
        );
    prop_oneof![
        session,
        Just(Entry::TurnStarted {}),
        Just(Entry::TurnEnded {}),
        vec(
            (string(), status.clone()).prop_map(|(content, status)| TodoItem { content, status }),
            0..5
        )
        .prop_map(|todos| Entry::TodoUpdate(TodoUpdate { v: 1, todos, by: None })),
        (
            vec(
                (string(), status).prop_map(|(content, status)| TodoItem { content, status }),
                0..5
            ),
            prop::option::of(string())
        )
            .prop_map(|(todos, name)| Entry::TodoUpdate(TodoUpdate {
                v: 1,
                todos,
                by: Some(Editor { name })
            })),
        string().prop_map(|text| Entry::TodoTold(Told { v: 1, text })),
        (string(), string(), string(), string()).prop_map(|(id, title, tldr, brief)| Entry::SuggestionOffered(Offer {
            v: 1,
            id,
            title,
            tldr,
            brief
        })),
        (string(), outcome, prop::option::of(string())).prop_map(|(id, outcome, chat_id)| Entry::SuggestionSettled(
            Settlement {
                v: 1,
                id,
                outcome,
                chat_id
            }
        )),
        (string(), prop::option::of(string()), prop::option::of(origin)).prop_map(|(role, text, origin)| {
            Entry::Message(Message {
                v: 1,
                role,
                text,
                source: origin.map(Source::Suggestion),
            })
        }),
    ]
    .boxed()
}

/// The shared generator, drawn from proptest's bytes, reaches every kind of
/// entry a log holds, non-objects, and texts no host could hold as a value.
#[test]
fn drawn_logs_reach_every_entry_kind() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    // How the core reads each drawn entry: the type it reads it as, or why not.
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for _ in 0..1000 {
        let value = entry().new_tree(&mut runner).unwrap().current();
        let kind = match read_entry(&value.to_string()) {
            Read::Entry(entry) => serde_json::to_value(entry).unwrap()["type"].to_string(),
            Read::Skip { kind: Some(_), .. } | Read::FailedSession { .. } => "skipped".to_string(),
            _ if value.is_object() => "foreign".to_string(),
            _ => "not an object".to_string(),
        };
        *kinds.entry(kind).or_default() += 1;
    }
    // All eight entry types, each read at least 15 times, and the rest.
    let read = kinds
        .iter()
        .filter(|(kind, n)| kind.starts_with('"') && **n >= 15)
        .count();
    assert_eq!(read, 8, "{kinds:?}");
    for kind in ["skipped", "foreign", "not an object"] {
        assert!(kinds.get(kind).copied().unwrap_or(0) >= 15, "{kind}: {kinds:?}");
    }
    let texts: Vec<String> = (0..1000)
        .map(|_| entry_text().new_tree(&mut runner).unwrap().current())
        .collect();
    let unheld = texts.iter().filter(|text| held(text).is_none()).count();
    assert!(unheld >= 100, "{unheld} of 1000 texts are no JSON value");
    assert!(texts.iter().any(|text| text.contains(r"\ud800")), "a lone surrogate");
    assert!(
        texts.iter().any(|text| text.contains(&"[".repeat(129))),
        "nesting past 128"
    );
}
