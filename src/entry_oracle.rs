//! The oracle: how entries were read when serde_json did it (the code as it
//! was, test-only), and differential tests of the new reading against it.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::*;
use crate::json::oracle::Text;
use crate::json::{kind_of_text, quote, LONE_SURROGATE};

fn parse_value(text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

/// Every field any known entry has, captured unparsed: one pass over the
/// entry finds them, fields no known type has are skipped without being
/// built, and each type then parses only its own.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Fields<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<&'a RawValue>,
    #[serde(borrow)]
    v: Option<&'a RawValue>,
    #[serde(borrow)]
    chat_id: Option<&'a RawValue>,
    #[serde(borrow)]
    title: Option<&'a RawValue>,
    #[serde(borrow)]
    workspace: Option<&'a RawValue>,
    #[serde(borrow)]
    scheduled_task_folder: Option<&'a RawValue>,
    #[serde(borrow)]
    agent: Option<&'a RawValue>,
    #[serde(borrow)]
    settings: Option<&'a RawValue>,
    #[serde(borrow)]
    origin: Option<&'a RawValue>,
    #[serde(borrow)]
    todos: Option<&'a RawValue>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    tldr: Option<&'a RawValue>,
    #[serde(borrow)]
    brief: Option<&'a RawValue>,
    #[serde(borrow)]
    outcome: Option<&'a RawValue>,
    #[serde(borrow)]
    role: Option<&'a RawValue>,
    #[serde(borrow)]
    source: Option<&'a RawValue>,
}

/// Reads one entry from its JSON text.
pub fn old_read_entry(text: &str) -> Read {
    let got = kind_of_text(text);
    if got != "an object" {
        // Checked first: a struct would also accept an array, by position.
        return match serde_json::from_str::<serde::de::IgnoredAny>(text) {
            Ok(_) => Read::Skip {
                kind: None,
                reason: format!("an entry must be an object (got {got})"),
            },
            Err(e) => Read::NotJson(quote(&e.to_string()).into_owned()),
        };
    }
    let fields: Fields = match serde_json::from_str(text) {
        Ok(fields) => fields,
        Err(e) if matches!(e.classify(), serde_json::error::Category::Data) => {
            return Read::Skip {
                kind: None,
                reason: format!("not a readable entry ({})", quote(&e.to_string())),
            }
        }
        Err(e) => return Read::NotJson(quote(&e.to_string()).into_owned()),
    };
    let Some(kind) = fields.kind.and_then(|raw| serde_json::from_str::<Text>(raw.get()).ok()) else {
        return Read::Skip {
            kind: None,
            reason: "an entry must have a string `type`".to_string(),
        };
    };
    let Some(known) = KnownType::parse(kind.as_str()) else {
        return Read::Foreign;
    };
    let skip = |reason: String| Read::Skip {
        kind: Some(known),
        reason,
    };
    // Turn markers carry nothing the core reads, so any version of one is
    // used as it is: skipping one would misplace every offer and plan after it.
    let v = match known {
        KnownType::TurnStarted => return Read::Entry(Entry::TurnStarted {}),
        KnownType::TurnEnded => return Read::Entry(Entry::TurnEnded {}),
        _ => match version(fields.v) {
            Ok(v) => v,
            Err(reason) if known == KnownType::Session => {
                return Read::FailedSession {
                    session: SessionEntry::fail_closed(),
                    reason,
                }
            }
            Err(reason) => return skip(reason),
        },
    };
    let read = match known {
        KnownType::Session => return read_session(&fields, v),
        KnownType::TodoUpdate => read_todo_update(&fields, v).map(Entry::TodoUpdate),
        KnownType::SuggestionOffered => read_offer(&fields, v).map(Entry::SuggestionOffered),
        KnownType::SuggestionSettled => read_settlement(&fields, v).map(Entry::SuggestionSettled),
        KnownType::Message => read_message(&fields, v).map(Entry::Message),
        KnownType::TurnStarted | KnownType::TurnEnded => return Read::Foreign, // handled above
    };
    match read {
        Ok(entry) => Read::Entry(entry),
        Err(reason) => skip(reason),
    }
}

/// `v`: absent is 1; a whole number up to this version is read; a newer one
/// is reported; anything else (`1.5`, `"1"`, `0`, `-1`) cannot be read.
fn version(raw: Option<&RawValue>) -> Result<u32, String> {
    let Some(raw) = raw else { return Ok(1) };
    let text = raw.get();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        match text.parse::<u64>() {
            Ok(1) => return Ok(1),
            Ok(v) if v > u64::from(FORMAT_VERSION) => {
                return Err(format!(
                    "written in format v{v}; this version reads up to v{FORMAT_VERSION}"
                ))
            }
            Err(_) => {
                return Err(format!(
                    "written in format v{}; this version reads up to v{FORMAT_VERSION}",
                    quote(text)
                ))
            }
            Ok(_) => {}
        }
    }
    Err(format!("`v` must be a whole number from 1 (got {})", quote(text)))
}

/// A required field of type `T`, or why not.
fn required<'a, T: Deserialize<'a>>(raw: Option<&'a RawValue>, name: &str, what: &str) -> Result<T, String> {
    let raw = raw.ok_or_else(|| format!("missing field `{name}`"))?;
    serde_json::from_str(raw.get()).map_err(|e| field_error(name, what, raw, &e))
}

fn optional<'a, T: Deserialize<'a>>(raw: Option<&'a RawValue>, name: &str, what: &str) -> Result<Option<T>, String> {
    match raw {
        None => Ok(None),
        Some(raw) => serde_json::from_str(raw.get())
            .map(Some)
            .map_err(|e| field_error(name, what, raw, &e)),
    }
}

fn field_error(name: &str, what: &str, raw: &RawValue, e: &serde_json::Error) -> String {
    if e.to_string().contains(LONE_SURROGATE) {
        format!("`{name}`: {}", LONE_SURROGATE)
    } else {
        format!("`{name}` must be {what} (got {})", kind_of_text(raw.get()))
    }
}

fn text(raw: Option<&RawValue>, name: &str) -> Result<String, String> {
    required::<Text>(raw, name, "a string").map(Text::into_owned)
}

#[derive(Deserialize)]
struct StoredItem<'a> {
    #[serde(borrow)]
    content: Text<'a>,
    #[serde(borrow)]
    status: Text<'a>,
}

fn read_todo_update(f: &Fields, v: u32) -> Result<TodoUpdate, String> {
    let items: Vec<StoredItem> = required(f.todos, "todos", "an array of { content, status }")?;
    let todos = items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let status = TodoStatus::parse(item.status.as_str())
                .ok_or_else(|| format!("todos[{i}]: unknown status {}", quote(item.status.as_str())))?;
            Ok(TodoItem {
                content: item.content.into_owned(),
                status,
            })
        })
        .collect::<Result<_, String>>()?;
    Ok(TodoUpdate { v, todos })
}

fn read_offer(f: &Fields, v: u32) -> Result<Offer, String> {
    Ok(Offer {
        v,
        id: text(f.id, "id")?,
        title: text(f.title, "title")?,
        tldr: text(f.tldr, "tldr")?,
        brief: text(f.brief, "brief")?,
    })
}

/// The id of an offer entry that cannot be read, where it has a readable one.
pub fn old_offer_id(text: &str) -> Option<String> {
    let fields: Fields = serde_json::from_str(text).ok()?;
    serde_json::from_str::<Text>(fields.id?.get())
        .ok()
        .map(Text::into_owned)
}

fn read_settlement(f: &Fields, v: u32) -> Result<Settlement, String> {
    let outcome = required::<Text>(f.outcome, "outcome", "a string")?;
    let outcome = match outcome.as_str() {
        "started" => Outcome::Started,
        "drafted" => Outcome::Drafted,
        "dismissed" => Outcome::Dismissed,
        "restored" => Outcome::Restored,
        other => return Err(format!("unknown outcome {}", quote(other))),
    };
    Ok(Settlement {
        v,
        id: text(f.id, "id")?,
        outcome,
        chat_id: optional::<Text>(f.chat_id, "chatId", "a string")?.map(Text::into_owned),
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredSource<'a> {
    #[serde(borrow)]
    kind: Text<'a>,
    #[serde(borrow)]
    chat_id: Text<'a>,
    #[serde(borrow)]
    suggestion_id: Text<'a>,
}

/// A message's text is not read (replay needs only who wrote it), so a
/// long message costs one skip over its bytes.
fn read_message(f: &Fields, v: u32) -> Result<Message, String> {
    let role = text(f.role, "role")?;
    let source = match optional::<StoredSource>(f.source, "source", "{ kind, chatId, suggestionId }")? {
        None => None,
        Some(s) if s.kind.as_str() == "suggestion" => Some(Source::Suggestion(Origin {
            chat_id: s.chat_id.into_owned(),
            suggestion_id: s.suggestion_id.into_owned(),
        })),
        Some(s) => return Err(format!("unknown source kind {}", quote(s.kind.as_str()))),
    };
    Ok(Message {
        v,
        role,
        text: None,
        source,
    })
}

/// Reads a `session` entry field by field: who the chat is decides what it
/// may do, so a field of the wrong type reads as the most restrictive value
/// (a helper, in a scheduled folder, no workspace, no permission) and the
/// entry is reported. `null` reads as absent.
fn read_session(f: &Fields, v: u32) -> Read {
    let mut odd: Vec<&str> = Vec::new();
    let mut text_field = |raw: Option<&RawValue>, name: &'static str| -> Option<String> {
        let raw = raw?;
        match serde_json::from_str::<Option<Text>>(raw.get()) {
            Ok(t) => t.map(Text::into_owned),
            Err(_) => {
                odd.push(name);
                None
            }
        }
    };
    let chat_id = text_field(f.chat_id, "chatId");
    let title = text_field(f.title, "title");
    let workspace = text_field(f.workspace, "workspace");
    let agent_raw = f.agent;
    let agent = match agent_raw.map(|raw| serde_json::from_str::<Option<Text>>(raw.get())) {
        None | Some(Ok(None)) => TOP_LEVEL.to_string(),
        Some(Ok(Some(a))) => a.into_owned(),
        Some(Err(_)) => {
            odd.push("agent");
            "helper".to_string()
        }
    };
    let scheduled_task_folder = match f
        .scheduled_task_folder
        .map(|raw| serde_json::from_str::<Option<bool>>(raw.get()))
    {
        None | Some(Ok(None)) => false,
        Some(Ok(Some(b))) => b,
        Some(Err(_)) => {
            odd.push("scheduledTaskFolder");
            true
        }
    };
    let Ok(settings) = read_settings(f.settings) else {
        return Read::FailedSession {
            session: SessionEntry::fail_closed(),
            reason: "`settings` cannot be read; the session fails closed".to_string(),
        };
    };
    let origin = match f
        .origin
        .map(|raw| serde_json::from_str::<Option<StoredOrigin>>(raw.get()))
    {
        None | Some(Ok(None)) => None,
        Some(Ok(Some(o))) => Some(Origin {
            chat_id: o.chat_id.into_owned(),
            suggestion_id: o.suggestion_id.into_owned(),
        }),
        Some(Err(_)) => {
            odd.push("origin");
            None
        }
    };
    let session = SessionEntry {
        v,
        chat_id,
        title,
        workspace,
        scheduled_task_folder,
        agent,
        settings,
        origin,
    };
    if odd.is_empty() {
        Read::Entry(Entry::Session(session))
    } else {
        Read::FailedSession {
            reason: format!(
                "{} cannot be read; read as the most restrictive value",
                odd.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
            ),
            session,
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredOrigin<'a> {
    #[serde(borrow)]
    chat_id: Text<'a>,
    #[serde(borrow)]
    suggestion_id: Text<'a>,
}

#[derive(Deserialize)]
struct StoredSettings<'a> {
    #[serde(borrow)]
    preset: Option<&'a RawValue>,
    #[serde(borrow)]
    model: Option<&'a RawValue>,
    #[serde(borrow)]
    permission: Option<&'a RawValue>,
    #[serde(borrow)]
    sandbox: Option<&'a RawValue>,
    #[serde(borrow)]
    approval: Option<&'a RawValue>,
}

/// Settings are copied into a started chat, so settings that cannot be read
/// fail the whole session closed rather than lose, say, a sandbox.
fn read_settings(raw: Option<&RawValue>) -> Result<Settings, ()> {
    let Some(raw) = raw else { return Ok(Settings::default()) };
    let Some(s) = serde_json::from_str::<Option<StoredSettings>>(raw.get()).map_err(|_| ())? else {
        return Ok(Settings::default());
    };
    let text = |raw: Option<&RawValue>| -> Result<Option<String>, ()> {
        match raw {
            None => Ok(None),
            Some(raw) => serde_json::from_str::<Option<Text>>(raw.get())
                .map(|t| t.map(Text::into_owned))
                .map_err(|_| ()),
        }
    };
    let copied = |raw: Option<&RawValue>| -> Result<Option<Value>, ()> {
        match raw {
            None => Ok(None),
            Some(raw) => match parse_value(raw.get()) {
                Ok(Value::Null) => Ok(None),
                Ok(value) => Ok(Some(value)),
                Err(_) => Err(()),
            },
        }
    };
    Ok(Settings {
        preset: text(s.preset)?,
        model: text(s.model)?,
        permission: text(s.permission)?,
        sandbox: copied(s.sandbox)?,
        approval: copied(s.approval)?,
    })
}

// ---- differential tests ----------------------------------------------------

use crate::testgen::{self, Rng};

fn check(text: &str) {
    if has_repeated_key(text) || old_refused_a_repeat(text) {
        return; // the old reader refused these; see `repeated_keys_take_the_last_value`
    }
    assert_eq!(read_entry(text), old_read_entry(text), "read_entry {text:?}");
    assert_eq!(offer_id(text), old_offer_id(text), "offer_id {text:?}");
}

/// The old reader stopped at a repeated field even in text that is not JSON further on.
fn old_refused_a_repeat(text: &str) -> bool {
    matches!(old_read_entry(text), Read::Skip { reason, .. } if reason.contains("duplicate field"))
}

/// The old reader refused a repeated field; the new one takes the last value,
/// as JSON.parse does, so such texts are left out of the comparison.
fn has_repeated_key(text: &str) -> bool {
    fn repeated(value: &crate::json::Value) -> bool {
        match value {
            crate::json::Value::Array(items) => items.iter().any(repeated),
            crate::json::Value::Object(object) => {
                let mut keys = std::collections::HashSet::new();
                object.0.iter().any(|(k, v)| !keys.insert(k.clone()) || repeated(v))
            }
            _ => false,
        }
    }
    crate::json::parse(text, Some('\u{FFFF}')).is_ok_and(|v| repeated(&v))
}

#[test]
fn repeated_keys_take_the_last_value() {
    use crate::entry::{Entry, KnownType};
    let helper = r#"{"type":"session","agent":"top-level","agent":"helper","scheduledTaskFolder":true}"#;
    match read_entry(helper) {
        Read::Entry(Entry::Session(s)) => assert_eq!((s.agent.as_str(), s.scheduled_task_folder), ("helper", true)),
        other => panic!("{other:?}"),
    }
    // A last null is absent, as JSON.parse would give it.
    match read_entry(r#"{"type":"session","agent":"helper","agent":null}"#) {
        Read::Entry(Entry::Session(s)) => assert_eq!(s.agent, "top-level"),
        other => panic!("{other:?}"),
    }
    let offer =
        r#"{"type":"x","type":"suggestion_offered","v":1,"id":"s1","id":"s2","title":"t","tldr":"w","brief":"b"}"#;
    match read_entry(offer) {
        Read::Entry(Entry::SuggestionOffered(o)) => assert_eq!(o.id, "s2"),
        other => panic!("{other:?}"),
    }
    let todos = r#"{"type":"todo_update","todos":[{"content":"a","status":"pending"}],"todos":[]}"#;
    match read_entry(todos) {
        Read::Entry(Entry::TodoUpdate(u)) => assert!(u.todos.is_empty()),
        other => panic!("{other:?}"),
    }
    let inner = r#"{"type":"session","settings":{"permission":"full-access","permission":"ask"}}"#;
    match read_entry(inner) {
        Read::Entry(Entry::Session(s)) => assert_eq!(s.settings.permission.as_deref(), Some("ask")),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        read_entry(
            r#"{"type":"suggestion_offered","type":"suggestion_offered","v":1,"id":"s1","title":"t","tldr":"w","brief":"b"}"#
        ),
        Read::Entry(_)
    ));
    let _ = KnownType::Session;
}

/// An entry-shaped text: a known type with its fields (of the right kind or not).
fn entry(rng: &mut Rng) -> String {
    let known = [
        "session",
        "turn_started",
        "turn_ended",
        "todo_update",
        "suggestion_offered",
        "suggestion_settled",
        "message",
        "tool_call",
    ];
    let mut out = String::from("{");
    let mut first = true;
    let mut member = |out: &mut String, key: &str, value: &str| {
        if !std::mem::take(&mut first) {
            out.push(',');
        }
        out.push_str(&format!("\"{key}\":{value}"));
    };
    let kind = rng.pick(&known);
    member(&mut out, "type", &format!("\"{kind}\""));
    // Mostly the fields the type has, mostly of the right kind.
    let fields: &[(&str, &[&str])] = match kind {
        "session" => &[
            ("chatId", &["\"c1\""]),
            ("workspace", &["\"/w\"", "null"]),
            ("agent", &["\"top-level\"", "\"helper\""]),
            ("scheduledTaskFolder", &["false", "true"]),
            ("settings", &["{\"model\":\"m\",\"permission\":\"ask\",\"sandbox\":{\"b\":[1.50,-0,1e2],\"a\":\"x\",\"b\":2}}", "{}", "{\"preset\":\"p\"}"]),
            ("origin", &["{\"chatId\":\"c0\",\"suggestionId\":\"s1\"}"]),
        ],
        "todo_update" => &[("v", &["1"]), ("todos", &["[{\"content\":\"a\",\"status\":\"pending\"},{\"status\":\"completed\",\"content\":\"b \\u00e9\",\"x\":[1]}]", "[]"])],
        "suggestion_offered" => &[("v", &["1"]), ("id", &["\"s1\""]), ("title", &["\"t\""]), ("tldr", &["\"w\""]), ("brief", &["\"b\""])],
        "suggestion_settled" => &[("v", &["1"]), ("id", &["\"s1\""]), ("outcome", &["\"started\"", "\"dismissed\"", "\"restored\""]), ("chatId", &["\"c2\""])],
        "message" => &[("role", &["\"user\"", "\"assistant\""]), ("text", &["\"hi\""]), ("source", &["{\"kind\":\"suggestion\",\"chatId\":\"c0\",\"suggestionId\":\"s1\"}"])],
        _ => &[],
    };
    for (key, values) in fields {
        if rng.chance(85) {
            let mut value = String::new();
            if rng.chance(85) {
                value.push_str(rng.pick(values));
            } else {
                testgen::valid_value(rng, 2, &mut value);
            }
            member(&mut out, key, &value);
        }
    }
    for _ in 0..if rng.chance(50) { 0 } else { rng.below(4) } {
        let key = if rng.chance(95) {
            rng.pick(&testgen::KEYS[..testgen::KEYS.len() - 1])
        } else {
            rng.pick(testgen::KEYS)
        };
        let mut value = String::new();
        match (key, rng.below(3)) {
            ("todos", 0) => {
                value.push('[');
                for i in 0..rng.below(4) {
                    if i > 0 {
                        value.push(',');
                    }
                    if rng.chance(80) {
                        value.push_str("{\"content\":");
                        // Any string: raw control characters and bad escapes too.
                        if rng.chance(80) {
                            testgen::valid_string(rng, &mut value);
                        } else {
                            testgen::string(rng, &mut value);
                        }
                        value.push_str(",\"status\":");
                        value.push_str(rng.pick(&["\"pending\"", "\"in_progress\"", "\"completed\"", "\"done\"", "1"]));
                        if rng.chance(10) {
                            value.push_str(",\"content\":\"again\"");
                        }
                        value.push('}');
                    } else {
                        testgen::valid_value(rng, 2, &mut value);
                    }
                }
                value.push(']');
            }
            ("settings", 0) => testgen::valid_value(rng, 2, &mut value),
            ("source" | "origin", 0) => {
                value.push_str(rng.pick(&[
                    "{\"kind\":\"suggestion\",\"chatId\":\"c1\",\"suggestionId\":\"s1\"}",
                    "{\"chatId\":\"c1\",\"suggestionId\":\"s1\"}",
                    "[\"suggestion\",\"c1\",\"s1\"]",
                    "[\"c1\",\"s1\"]",
                    "[\"c1\"]",
                    "{\"kind\":\"other\",\"chatId\":\"c1\",\"suggestionId\":\"\\ud800\"}",
                ]));
            }
            ("v", 0) => {
                value.push_str(rng.pick(&["1", "2", "0", "-1", "1.0", "\"1\"", "99999999999999999999999", "null"]))
            }
            _ => testgen::valid_value(rng, 2, &mut value),
        }
        member(&mut out, key, &value);
    }
    out.push('}');
    if rng.chance(15) {
        out = testgen::damage(rng, &out);
    }
    out
}

#[test]
fn entries_read_as_before_on_generated_texts() {
    let mut rng = Rng::new(1);
    for _ in 0..40_000 {
        check(&entry(&mut rng));
        check(&testgen::text(&mut rng));
    }
}

#[test]
fn entries_read_as_before_on_edge_cases() {
    let cases = [
        "",
        "   ",
        "\u{a0}{\"type\":\"turn_started\"}",
        "\u{b}{\"type\":\"turn_started\"}",
        "\u{c}[1]",
        "[1,2]",
        "\"session\"",
        "{\"type\":\"turn_started\",\"type\":\"turn_ended\"}",
        "{\"type\":\"tool_call\",\"id\":1,\"id\":2}",
        "{\"type\":\"tool_call\",\"x\":1,\"x\":2}",
        "{\"type\":null,\"type\":1}",
        "{\"type\":\"todo_update\",\"todos\":[[\"a\",\"pending\"]]}",
        "{\"type\":\"todo_update\",\"todos\":[[\"a\"]]}",
        "{\"type\":\"todo_update\",\"todos\":[[\"a\",\"pending\",\"x\"]]}",
        "{\"type\":\"todo_update\",\"todos\":[\"text must be well-formed Unicode (it holds a lone surrogate)\"]}",
        "{\"type\":\"todo_update\",\"todos\":[{\"status\":1,\"content\":\"\\ud800\"}]}",
        "{\"type\":\"todo_update\",\"todos\":[{\"content\":\"\\ud800\",\"status\":1}]}",
        "{\"type\":\"session\",\"settings\":[\"p\",\"m\",\"ask\",{\"b\":1,\"a\":[1.50,-0]},null]}",
        "{\"type\":\"session\",\"settings\":[\"p\",\"m\",\"ask\"]}",
        "{\"type\":\"session\",\"settings\":{\"sandbox\":1e400}}",
        "{\"type\":\"session\",\"settings\":{\"sandbox\":\"\\ud800\"}}",
        "{\"type\":\"session\",\"settings\":{\"preset\":\"p\",\"preset\":\"q\"}}",
        "{\"type\":\"session\",\"agent\":1,\"chatId\":[],\"scheduledTaskFolder\":\"yes\",\"origin\":{}}",
        "{\"type\":\"session\",\"v\":2}",
        "{\"type\":\"suggestion_offered\",\"v\":1,\"id\":\"s1\",\"title\":1}",
        "{\"type\":\"suggestion_offered\",\"v\":3,\"id\":\"s1\"}",
        "{\"type\":\"suggestion_settled\",\"id\":1,\"outcome\":\"x\",\"chatId\":2}",
        "{\"type\":\"message\",\"role\":\"user\",\"text\":\"\\ud800\"}",
        "{\"type\":\"message\",\"role\":\"user\",\"source\":null}",
        "{\"type\":\"tool_call\",\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
    ];
    for text in cases {
        check(text);
    }
    let deep = format!(
        "{{\"type\":\"tool_call\",\"x\":{}{}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    check(&deep);
    assert_eq!(
        read_entry(&deep),
        Read::Foreign,
        "a foreign entry 10,000 deep is skipped, not refused"
    );
    let deep_settings = format!(
        "{{\"type\":\"session\",\"settings\":{{\"sandbox\":{}{}}}}}",
        "[".repeat(200),
        "]".repeat(200)
    );
    check(&deep_settings);
}

#[test]
fn bytes_that_are_not_utf8_are_found_wherever_they_are() {
    let mut rng = Rng::new(3);
    let bad: [&[u8]; 8] = [
        b"\xff",
        b"\xc3",
        b"\xe2\x82",
        b"\xed\xa0\x80",
        b"\xc0\xaf",
        b"\xf4\x90\x80\x80",
        b"\x80",
        b"\xf0\x9f\x98",
    ];
    for _ in 0..20_000 {
        let text = if rng.chance(50) {
            entry(&mut rng)
        } else {
            testgen::text(&mut rng)
        };
        let mut bytes = text.into_bytes();
        if rng.chance(70) {
            // Between characters, so the rest stays as it was.
            let mut at = rng.below(bytes.len() + 1);
            while at < bytes.len() && (bytes[at] & 0xC0) == 0x80 {
                at += 1;
            }
            let piece = rng.pick(&bad);
            bytes.splice(at..at, piece.iter().copied());
        }
        if std::str::from_utf8(&bytes).is_ok_and(|t| has_repeated_key(t) || old_refused_a_repeat(t)) {
            continue;
        }
        let old = std::str::from_utf8(&bytes).ok().map(old_read_entry);
        assert_eq!(read_entry_bytes(&bytes), old, "{:?}", String::from_utf8_lossy(&bytes));
    }
}
