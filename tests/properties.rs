//! Property tests (proptest): the core never mutates what it reads, what it
//! writes reads back the same, replay survives any JSON, the permission clamp
//! only ever lowers, and folding a log in pieces answers as folding it whole.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)] // test code: a failed assumption should panic

#[path = "support/observe.rs"]
mod observe;
#[path = "support/words.rs"]
mod words;

use observe::{answers, check_invariants};
use oda_tasks::chat::Chat;
use oda_tasks::entry::{
    read_entry, Entry, Message, Offer, Origin, Outcome, Read, SessionEntry, Settings, Settlement, Source, TodoItem,
    TodoStatus, TodoUpdate,
};
use oda_tasks::input::Input;
use oda_tasks::jsonl::{JsonlReader, UnreadableLine};
use oda_tasks::settle::{clamp_permission, Action, GoalAction, StartPlan, StartRequest};
use oda_tasks::{todo_write, whole_log, TodoOptions};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Map, Value};
use words::WORDS;

// ---------------------------------------------------------------- generators

/// In a text form, each U+E000 becomes one of these escapes (lone surrogates among them).
const ESCAPES: &[&str] = &[
    r"\ud800",
    r"\udc00",
    r"\ud83d\ude00",
    r"\ud800\ud800",
    r"\udbff",
    r"\u0000",
    r"\u00e9",
];
/// In a text form, the string `"\u{E001}"` becomes one of these number tokens.
const ODD_NUMBERS: &[&str] = &[
    "1e400",
    "-1e400",
    "-0",
    "1E-400",
    "123456789012345678901234567890",
    "-9223372036854775809",
    "18446744073709551616",
    "4294967296",
    "1.5",
    "0.1e1",
];
const SURROGATE_MARK: char = '\u{E000}';
const NUMBER_MARK: &str = "\"\u{E001}\"";

fn text() -> BoxedStrategy<String> {
    prop_oneof![
        4 => select(WORDS).prop_map(str::to_string),
        2 => any::<String>(),
        1 => "[ \t\n]{0,2}[a-z]{0,4}[ \t\n]{0,2}",
        1 => "[a-z]{0,3}\u{E000}[a-z]{0,3}",
        1 => Just("\u{E001}".to_string()),
    ]
    .boxed()
}

fn leaf() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        // Eighths: exact in binary, so native serde_json (one ulp off on some long
        // decimals without float_roundtrip) reads back what it wrote. WASM keeps number text as written.
        any::<i32>().prop_filter_map("finite", |i| serde_json::Number::from_f64(f64::from(i) / 8.0)
            .map(Value::Number)),
        text().prop_map(Value::String),
    ]
    .boxed()
}

/// Any JSON value, a few levels deep.
fn json_value() -> BoxedStrategy<Value> {
    leaf()
        .prop_recursive(5, 40, 6, |inner| {
            prop_oneof![
                vec(inner.clone(), 0..6).prop_map(Value::Array),
                vec((text(), inner), 0..6).prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
        .boxed()
}

/// `value` wrapped in `depth` arrays or objects: up to past the parser's limit of 128.
fn deep_value() -> BoxedStrategy<Value> {
    (leaf(), 100usize..=140, any::<bool>())
        .prop_map(|(mut v, depth, arrays)| {
            for _ in 0..depth {
                v = if arrays { json!([v]) } else { json!({ "x": v }) };
            }
            v
        })
        .boxed()
}

/// A field: usually of the right kind, sometimes missing, sometimes anything.
fn field(right: impl Strategy<Value = Value>) -> impl Strategy<Value = Option<Value>> {
    prop_oneof![5 => right.prop_map(Some), 1 => Just(None), 1 => json_value().prop_map(Some)]
}

fn string_of(words: &'static [&'static str]) -> BoxedStrategy<Value> {
    prop_oneof![4 => select(words).prop_map(Value::from), 1 => text().prop_map(Value::from)].boxed()
}

fn odd_v() -> BoxedStrategy<Option<Value>> {
    prop_oneof![
        4 => Just(None),
        4 => Just(Some(json!(1))),
        1 => select(vec![
            json!(2), json!(0), json!(-1), json!(1.5), json!("1"), Value::Null,
            json!(4294967296u64), json!(u64::MAX), json!(1.0), json!([1]),
        ]).prop_map(Some),
    ]
    .boxed()
}

fn object(kind: &str, fields: Vec<(&str, Option<Value>)>) -> Value {
    let mut map = Map::new();
    map.insert("type".to_string(), Value::from(kind));
    for (name, value) in fields {
        if let Some(value) = value {
            map.insert(name.to_string(), value);
        }
    }
    Value::Object(map)
}

const IDS: &[&str] = &["s1", "s2", "s3", "s4", "s1 ", ""];
const PERMISSIONS: &[&str] = &["read-only", "ask", "auto", "full-access", "root"];

fn origin_value() -> BoxedStrategy<Value> {
    (string_of(&["c", "c1"]), string_of(IDS))
        .prop_map(|(chat_id, suggestion_id)| json!({ "chatId": chat_id, "suggestionId": suggestion_id }))
        .boxed()
}

fn session() -> BoxedStrategy<Value> {
    let settings = (
        field(string_of(&["p1"])),
        field(string_of(&["m1", "m2"])),
        field(string_of(PERMISSIONS)),
        field(json_value()),
        field(json_value()),
    )
        .prop_map(|(preset, model, permission, sandbox, approval)| {
            let mut s = object("", vec![]);
            let map = s.as_object_mut().expect("an object");
            map.remove("type");
            for (name, value) in [
                ("preset", preset),
                ("model", model),
                ("permission", permission),
                ("sandbox", sandbox),
                ("approval", approval),
            ] {
                if let Some(value) = value {
                    map.insert(name.to_string(), value);
                }
            }
            s
        });
    (
        odd_v(),
        field(string_of(&["c", "c1"])),
        field(text().prop_map(Value::from)),
        field(prop_oneof![string_of(&["w1"]), Just(Value::Null)]),
        field(any::<bool>().prop_map(Value::Bool)),
        field(string_of(&["top-level", "helper"])),
        field(settings),
        field(origin_value()),
    )
        .prop_map(|(v, chat_id, title, workspace, scheduled, agent, settings, origin)| {
            object(
                "session",
                vec![
                    ("v", v),
                    ("chatId", chat_id),
                    ("title", title),
                    ("workspace", workspace),
                    ("scheduledTaskFolder", scheduled),
                    ("agent", agent),
                    ("settings", settings),
                    ("origin", origin),
                ],
            )
        })
        .boxed()
}

fn todo_update() -> BoxedStrategy<Value> {
    let item = (
        field(text().prop_map(Value::from)),
        field(string_of(&["pending", "in_progress", "completed"])),
    )
        .prop_map(|(content, status)| {
            let mut map = Map::new();
            content.map(|c| map.insert("content".to_string(), c));
            status.map(|s| map.insert("status".to_string(), s));
            Value::Object(map)
        });
    (odd_v(), field(vec(item, 0..5).prop_map(Value::Array)))
        .prop_map(|(v, todos)| object("todo_update", vec![("v", v), ("todos", todos)]))
        .boxed()
}

fn offer() -> BoxedStrategy<Value> {
    (
        odd_v(),
        field(string_of(IDS)),
        field(string_of(&["T"])),
        field(string_of(&["W"])),
        field(string_of(&["B"])),
    )
        .prop_map(|(v, id, title, tldr, brief)| {
            object(
                "suggestion_offered",
                vec![("v", v), ("id", id), ("title", title), ("tldr", tldr), ("brief", brief)],
            )
        })
        .boxed()
}

fn settlement() -> BoxedStrategy<Value> {
    (
        odd_v(),
        field(string_of(IDS)),
        field(string_of(&["started", "drafted", "dismissed", "restored"])),
        prop_oneof![Just(None), field(string_of(&["c.s1", "c.s2"]))],
    )
        .prop_map(|(v, id, outcome, chat_id)| {
            object(
                "suggestion_settled",
                vec![("v", v), ("id", id), ("outcome", outcome), ("chatId", chat_id)],
            )
        })
        .boxed()
}

fn message() -> BoxedStrategy<Value> {
    let source = (string_of(&["suggestion"]), string_of(&["c", "c1"]), string_of(IDS))
        .prop_map(|(kind, chat_id, id)| json!({ "kind": kind, "chatId": chat_id, "suggestionId": id }));
    (
        odd_v(),
        field(string_of(&["user", "assistant"])),
        field(text().prop_map(Value::from)),
        prop_oneof![Just(None), field(source)],
    )
        .prop_map(|(v, role, text, source)| {
            object(
                "message",
                vec![("v", v), ("role", role), ("text", text), ("source", source)],
            )
        })
        .boxed()
}

fn turn() -> BoxedStrategy<Value> {
    (
        select(&["turn_started", "turn_ended"][..]),
        odd_v(),
        field(json_value()),
    )
        .prop_map(|(kind, v, at)| object(kind, vec![("v", v), ("at", at)]))
        .boxed()
}

fn foreign() -> BoxedStrategy<Value> {
    (text(), vec((text(), json_value()), 0..4))
        .prop_map(|(kind, fields)| {
            let mut map: Map<String, Value> = fields.into_iter().collect();
            map.insert("type".to_string(), Value::from(kind));
            Value::Object(map)
        })
        .boxed()
}

/// One plausible log entry, or something that is not one.
fn entry() -> BoxedStrategy<Value> {
    prop_oneof![
        2 => session(),
        6 => turn(),
        3 => todo_update(),
        5 => offer(),
        5 => settlement(),
        3 => message(),
        2 => foreign(),
        1 => json_value(),
    ]
    .boxed()
}

fn log() -> BoxedStrategy<Vec<Value>> {
    vec(entry(), 0..30).boxed()
}

/// The JSON text of `value`, with each surrogate mark turned into an escape
/// (some of them lone surrogates) and each number mark into an odd number token.
fn text_form(value: &Value, seed: usize) -> String {
    let plain = serde_json::to_string(value).expect("a Value serialises");
    let mut out = String::with_capacity(plain.len());
    let mut n = seed;
    for piece in plain.split(NUMBER_MARK).enumerate().flat_map(|(i, part)| {
        let number = (i > 0).then(|| ODD_NUMBERS[(seed + i) % ODD_NUMBERS.len()]);
        number.into_iter().chain(std::iter::once(part))
    }) {
        for c in piece.chars() {
            if c == SURROGATE_MARK {
                out.push_str(ESCAPES[n % ESCAPES.len()]);
                n += 1;
            } else {
                out.push(c);
            }
        }
    }
    out
}

/// Entry texts as a host or a file would hold them, odd escapes and numbers included.
fn entry_texts() -> BoxedStrategy<Vec<String>> {
    vec(
        (prop_oneof![8 => entry(), 1 => deep_value()], any::<usize>()).prop_map(|(v, seed)| text_form(&v, seed)),
        0..30,
    )
    .boxed()
}

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
        ..ProptestConfig::default()
    })]

    /// Every call reads the log and leaves it as it was, byte for byte; a
    /// refused call, repeated, gives the same refusal (it counted for nothing).
    #[test]
    fn calls_leave_the_log_byte_identical(
        log in log(),
        input in model_input(),
        id in string_of(IDS),
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

    /// A folded chat answers the same before and after any question is asked of it.
    #[test]
    fn questions_leave_the_chat_as_it_was(log in log(), input in model_input(), id in string_of(IDS)) {
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
            6 => (entry(), any::<usize>()).prop_map(|(v, seed)| text_form(&v, seed)),
            1 => select(vec!["", "{}", "[]", "1", " ", "{", "nul", "\"x\"", "{\"type\":1}"]).prop_map(str::to_string),
            1 => "[^\r\n]{0,8}",
        ], 0..25),
        bom in any::<bool>(),
        ends in vec(0usize..3, 25),
        terminated in any::<bool>(),
        chunks in vec(1usize..40, 1..8),
    ) {
        // Expected: each line's text through `ingest_json_line`; the last line
        // without a newline only if it is complete JSON (else a torn write).
        let mut expected = Chat::new(true);
        let mut unreadable = Vec::new();
        let mut bytes: Vec<u8> = if bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
        for (i, text) in texts.iter().enumerate() {
            let last = i + 1 == texts.len();
            bytes.extend_from_slice(text.as_bytes());
            if !last || terminated {
                // `\n`, `\r\n` or a lone `\r`; an empty line after a lone `\r` ends
                // with `\r\n`, as `\r` then `\n` would be one line end.
                let after_cr = bytes.last() == Some(&b'\r') && text.is_empty();
                let end: &[u8] = match ends[i] {
                    0 if after_cr => b"\r\n",
                    0 => b"\n",
                    1 => b"\r\n",
                    _ => b"\r",
                };
                bytes.extend_from_slice(end);
            }
            // A file's leading byte order mark is not text: only one is skipped.
            let text = if i == 0 && !bom { text.strip_prefix('\u{FEFF}').unwrap_or(text) } else { text };
            let blank = text.trim_matches([' ', '\t']).is_empty();
            let torn = last && !terminated && serde_json::from_str::<serde::de::IgnoredAny>(text).is_err();
            if blank || torn {
                continue;
            }
            if let Err(reason) = expected.ingest_json_line(text) {
                unreadable.push(UnreadableLine { line: i + 1, reason });
            }
        }

        let mut chat = Chat::new(true);
        let mut reader = JsonlReader::default();
        let mut rest = bytes.as_slice();
        for size in chunks.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (chunk, tail) = rest.split_at((*size).min(rest.len()));
            reader.feed(&mut chat, chunk);
            rest = tail;
        }
        reader.finish(&mut chat);
        prop_assert_eq!(answers(&chat), answers(&expected));
        prop_assert_eq!(reader.unreadable, unreadable);
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
            (string(), status).prop_map(|(content, status)| TodoItem { content, status }),
            0..5
        )
        .prop_map(|todos| Entry::TodoUpdate(TodoUpdate { v: 1, todos })),
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
