//! The stored entry format (a leaf: it knows no fold and no rule).
//!
//! A log is an ordered list of JSON objects with a string `type`. Entries the
//! core writes carry `v` ([`FORMAT_VERSION`]); an entry without it is read as
//! version 1. This module holds the types; `read.rs` is the tolerant reader
//! ([`read_entry`] turns one entry's JSON text into a known entry, an app's own
//! entry, or a reason to skip it).

mod read;

pub use read::{is_json, offer_id, read_entry};

use serde::Serialize;
use serde_json::value::RawValue;

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
    TodoTold(Told),
}

impl Entry {
    /// The entry's stored text: one line of JSON.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(oda_tasks::Entry::TurnStarted {}.text(), r#"{"type":"turn_started"}"#);
    /// ```
    pub fn text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
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

/// A JSON value copied as written (every number and key as the log holds it).
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct Copied(Box<RawValue>);

impl Copied {
    /// The value's JSON text, as written.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// The value read as data (numbers past f64's range become `null`; for tests and native callers).
    pub fn value(&self) -> serde_json::Value {
        serde_json::from_str(self.get()).unwrap_or(serde_json::Value::Null)
    }

    /// A copied value from JSON text that is one JSON value.
    pub fn from_text(text: &str) -> Option<Copied> {
        RawValue::from_string(text.trim().to_string()).ok().map(Copied)
    }
}

impl From<serde_json::Value> for Copied {
    fn from(value: serde_json::Value) -> Copied {
        let text = serde_json::to_string(&value).unwrap_or_else(|_| "null".to_string());
        Copied::from_text(&text).unwrap_or_else(|| Copied(RawValue::NULL.to_owned()))
    }
}

impl PartialEq for Copied {
    fn eq(&self, other: &Copied) -> bool {
        self.get() == other.get()
    }
}

/// What a chat runs as. `sandbox` and `approval` are opaque: copied as they are.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Settings {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<Copied>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<Copied>,
}

/// The offering chat and suggestion a started chat (or its brief) comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    pub chat_id: String,
    pub suggestion_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
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

    pub fn as_str(self) -> &'static str {
        match self {
            TodoStatus::Pending => "pending",
            TodoStatus::InProgress => "in_progress",
            TodoStatus::Completed => "completed",
        }
    }
}

/// An item is its text and its state; nothing else travels with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TodoItem {
    pub content: String,
    pub status: TodoStatus,
}

/// One recorded update of the list: the whole list. `by` names a person's
/// edit (absent: the model's `todo_write`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TodoUpdate {
    pub v: u32,
    pub todos: Vec<TodoItem>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<Editor>,
}

/// The person who edited the list (it was not the model), with the display name the app gave.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Editor {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The record that the model was told of the person's edits before it: the
/// exact text it read (a refusal of its `todo_write`, which begins `Error:`,
/// or the integration's context text). Replay reads only that it is there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Told {
    pub v: u32,
    pub text: String,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
    TodoTold,
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
            "todo_told" => KnownType::TodoTold,
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
            KnownType::TodoTold => "todo_told",
        }
    }
}
