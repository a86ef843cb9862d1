//! The stored entry format (a leaf: it knows no fold and no rule).
//!
//! A log is an ordered list of JSON objects with a string `type`. Entries the
//! core writes carry `v` ([`FORMAT_VERSION`]); an entry without it is read as
//! version 1. Reading is tolerant: [`read_entry`] turns one entry's JSON text
//! into a known entry, an app's own entry, or a reason to skip it.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::json::{kind_of_text, parse_value, quote, Text};

/// Version of the entries this core writes. Bump it when a stored field
/// changes meaning; readers skip (and report) entries from a newer version.
pub const FORMAT_VERSION: u32 = 1;

/// The `agent` value of a top-level chat; anything else is a helper.
pub const TOP_LEVEL: &str = "top-level";

/// Every entry type the core reads, as written. Field names are the stored format.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Entry {
    Session(SessionEntry),
    TurnStarted {},
    TurnEnded {},
    TodoUpdate(TodoUpdate),
    SuggestionOffered(Offer),
    SuggestionSettled(Settlement),
    Message(Message),
}

/// The chat itself; the host writes it first (the core writes it for a started chat).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionEntry {
    pub v: u32,
    pub chat_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub workspace: Option<String>,
    pub scheduled_task_folder: bool,
    pub agent: String,
    pub settings: Settings,
    /// Set on a chat started from a suggestion: where it came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
}

impl SessionEntry {
    /// What a session that cannot be read stands for: the least a chat may
    /// do (a helper, in a scheduled folder, no workspace, no permission).
    pub fn fail_closed() -> SessionEntry {
        SessionEntry {
            v: FORMAT_VERSION,
            chat_id: None,
            title: None,
            workspace: None,
            scheduled_task_folder: true,
            agent: "helper".to_string(),
            settings: Settings::default(),
            origin: None,
        }
    }
}

/// What a chat runs as. `sandbox` and `approval` are opaque: copied as they are.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<Value>,
}

/// The offering chat and suggestion a started chat (or its brief) comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    pub chat_id: String,
    pub suggestion_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

impl TodoStatus {
    pub fn parse(text: &str) -> Option<TodoStatus> {
        match text {
            "pending" => Some(TodoStatus::Pending),
            "in_progress" => Some(TodoStatus::InProgress),
            "completed" => Some(TodoStatus::Completed),
            _ => None,
        }
    }
}

/// An item is its text and its state; nothing else travels with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TodoItem {
    pub content: String,
    pub status: TodoStatus,
}

/// One recorded `todo_write` update: the whole list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TodoUpdate {
    pub v: u32,
    pub todos: Vec<TodoItem>,
}

/// One recorded `suggest_task` offer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Offer {
    pub v: u32,
    pub id: String,
    pub title: String,
    pub tldr: String,
    pub brief: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Started,
    Drafted,
    Dismissed,
    Restored,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Started => "started",
            Outcome::Drafted => "drafted",
            Outcome::Dismissed => "dismissed",
            Outcome::Restored => "restored",
        }
    }
}

/// A settlement of an offer; `chat_id` only with `started`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Settlement {
    pub v: u32,
    pub id: String,
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_id: Option<String>,
}

/// A chat message. A `user` message without `source` is the person's own;
/// one with a suggestion `source` is a brief the core wrote for a started chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    pub v: u32,
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
}

/// Who a message is attributed to when it is not the person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    Suggestion(Origin),
}

/// An entry replay could not use, and why. Reported, never fatal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    /// Position in the log.
    pub index: usize,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub reason: String,
}

/// One entry as read: what the fold gets.
#[derive(Debug, Clone, PartialEq)]
pub enum Read {
    Entry(Entry),
    /// An app's own entry (a type the core does not read): ignored silently.
    Foreign,
    /// Text that is not JSON at all (a damaged line of a file), and why.
    NotJson(String),
    /// A known or unusable entry that cannot be read: reported, and still
    /// counted where its mere presence matters (an offer, a session).
    Skip {
        kind: Option<KnownType>,
        reason: String,
    },
    /// A session that cannot be read as written: `session` is what it stands
    /// for (its fields read one by one, restrictively, or
    /// [`SessionEntry::fail_closed`] as a whole).
    FailedSession {
        session: SessionEntry,
        reason: String,
    },
}

/// The entry types the core reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnownType {
    Session,
    TurnStarted,
    TurnEnded,
    TodoUpdate,
    SuggestionOffered,
    SuggestionSettled,
    Message,
}

impl KnownType {
    fn parse(text: &str) -> Option<KnownType> {
        Some(match text {
            "session" => KnownType::Session,
            "turn_started" => KnownType::TurnStarted,
            "turn_ended" => KnownType::TurnEnded,
            "todo_update" => KnownType::TodoUpdate,
            "suggestion_offered" => KnownType::SuggestionOffered,
            "suggestion_settled" => KnownType::SuggestionSettled,
            "message" => KnownType::Message,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            KnownType::Session => "session",
            KnownType::TurnStarted => "turn_started",
            KnownType::TurnEnded => "turn_ended",
            KnownType::TodoUpdate => "todo_update",
            KnownType::SuggestionOffered => "suggestion_offered",
            KnownType::SuggestionSettled => "suggestion_settled",
            KnownType::Message => "message",
        }
    }
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
pub fn read_entry(text: &str) -> Read {
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
    if e.to_string().contains(crate::json::LONE_SURROGATE) {
        format!("`{name}`: {}", crate::json::LONE_SURROGATE)
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
pub fn offer_id(text: &str) -> Option<String> {
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
