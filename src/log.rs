//! The chat's log: the stored entry format and the one fold that reads it.
//!
//! A log is an ordered list of JSON objects with a string `type`. Entries the
//! core writes carry `v` (the format version, [`FORMAT_VERSION`]); entries
//! without it are read as version 1, so logs written before versioning replay.
//! Reading is tolerant: an entry of a known type that does not parse is
//! skipped and reported in `skipped`; an entry of an unknown type belongs to
//! the app and is ignored silently. Nothing here fails on a stored log.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::suggest::SuggestionLedger;
use crate::todo::{TodoItem, TodoLedger};

/// Version of the entries this core writes. Bump it when a stored field
/// changes meaning; readers skip (and report) entries from a newer version.
pub const FORMAT_VERSION: u32 = 1;

fn v1() -> u32 {
    1
}

fn top_level() -> String {
    TOP_LEVEL.to_string()
}

/// The `agent` value of a top-level chat; anything else is a helper.
pub const TOP_LEVEL: &str = "top-level";

/// Every entry type the core reads. Field names are the stored format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionEntry {
    #[serde(default = "v1")]
    pub v: u32,
    #[serde(default)]
    pub chat_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default)]
    pub workspace: Option<String>,
    #[serde(default)]
    pub scheduled_task_folder: bool,
    #[serde(default = "top_level")]
    pub agent: String,
    #[serde(default)]
    pub settings: Settings,
    /// Set on a chat started from a suggestion: where it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
}

/// What a chat runs as. `sandbox` and `approval` are opaque to the core:
/// they are copied as they are.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<Value>,
}

/// The offering chat and suggestion a started chat (or its brief) comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    pub chat_id: String,
    pub suggestion_id: String,
}

/// One recorded `todo_write` update: the whole list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TodoUpdate {
    #[serde(default = "v1")]
    pub v: u32,
    pub todos: Vec<TodoItem>,
}

/// One recorded `suggest_task` offer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offer {
    #[serde(default = "v1")]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settlement {
    #[serde(default = "v1")]
    pub v: u32,
    pub id: String,
    pub outcome: Outcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat_id: Option<String>,
}

/// A chat message. A `user` message without `source` is the person's own;
/// one with a suggestion `source` is a brief the core wrote for a started chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    #[serde(default = "v1")]
    pub v: u32,
    pub role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
}

/// Who a message is attributed to when it is not the person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

const KNOWN_TYPES: [&str; 7] = [
    "session",
    "turn_started",
    "turn_ended",
    "todo_update",
    "suggestion_offered",
    "suggestion_settled",
    "message",
];

/// Reads one stored value: `Ok(Some(entry))` for a usable known entry,
/// `Ok(None)` for an app's own entry, `Err(skip)` for one that must be reported.
pub fn parse_entry(index: usize, value: &Value) -> Result<Option<Entry>, Skipped> {
    let skip = |kind: Option<&str>, reason: String| Skipped {
        index,
        kind: kind.map(str::to_string),
        reason,
    };
    let Some(obj) = value.as_object() else {
        return Err(skip(
            None,
            format!("an entry must be an object (got {})", json_kind(value)),
        ));
    };
    let Some(kind) = obj.get("type").and_then(Value::as_str) else {
        return Err(skip(None, "an entry must have a string `type`".to_string()));
    };
    if !KNOWN_TYPES.contains(&kind) {
        return Ok(None);
    }
    let entry = if kind == "session" {
        Entry::Session(read_session(obj))
    } else {
        Entry::deserialize(value).map_err(|e| skip(Some(kind), e.to_string()))?
    };
    match entry_version(&entry) {
        Some(v) if v > FORMAT_VERSION => Err(skip(
            Some(kind),
            format!("written in format v{v}; this version reads up to v{FORMAT_VERSION}"),
        )),
        _ => Ok(Some(entry)),
    }
}

/// Reads a `session` entry field by field, never failing: who the chat is
/// decides what it may do, so a field of the wrong type must not make a
/// helper or a scheduled chat look like a top-level one (as skipping the
/// whole entry would). `null` reads as absent; any other wrong type reads as
/// the most restrictive value: a helper, in a scheduled folder, with no
/// workspace, with no permission (which counts as the lowest).
fn read_session(obj: &Map<String, Value>) -> SessionEntry {
    let get = |key: &str| obj.get(key).filter(|v| !v.is_null());
    let text = |key: &str| get(key).and_then(Value::as_str).map(str::to_string);
    let settings = get("settings").and_then(Value::as_object);
    let setting = |key: &str| settings.and_then(|s| s.get(key)).filter(|v| !v.is_null());
    let setting_text = |key: &str| setting(key).and_then(Value::as_str).map(str::to_string);
    let origin = get("origin").and_then(Value::as_object).and_then(|o| {
        Some(Origin {
            chat_id: o.get("chatId")?.as_str()?.to_string(),
            suggestion_id: o.get("suggestionId")?.as_str()?.to_string(),
        })
    });
    SessionEntry {
        v: get("v")
            .and_then(Value::as_u64)
            .and_then(|v| u32::try_from(v).ok())
            .unwrap_or(1),
        chat_id: text("chatId"),
        title: text("title"),
        workspace: text("workspace"),
        scheduled_task_folder: match get("scheduledTaskFolder") {
            None => false,
            Some(v) => v.as_bool().unwrap_or(true),
        },
        agent: match get("agent") {
            None => TOP_LEVEL.to_string(),
            Some(v) => v.as_str().unwrap_or("helper").to_string(),
        },
        settings: Settings {
            preset: setting_text("preset"),
            model: setting_text("model"),
            permission: setting_text("permission"),
            sandbox: setting("sandbox").cloned(),
            approval: setting("approval").cloned(),
        },
        origin,
    }
}

fn entry_version(entry: &Entry) -> Option<u32> {
    match entry {
        Entry::Session(e) => Some(e.v),
        Entry::TodoUpdate(e) => Some(e.v),
        Entry::SuggestionOffered(e) => Some(e.v),
        Entry::SuggestionSettled(e) => Some(e.v),
        Entry::Message(e) => Some(e.v),
        Entry::TurnStarted {} | Entry::TurnEnded {} => None,
    }
}

/// A short name of a JSON value's kind, for error texts (never its content,
/// which may be long or private).
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Where the chat's turns stand.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Turns {
    /// How many turns have started (the current turn's number, 1-based).
    pub started: usize,
    /// A turn has started and not ended.
    pub open: bool,
    /// An offer was recorded since the latest `turn_started`.
    pub offered_this_turn: bool,
}

/// Everything the core knows about a chat, folded from its log front to back.
///
/// This is the one reader of the log: every decision (a tool call, a
/// settlement, a replay for display) is made on a `Chat`. Folding entry by
/// entry is also what lets a host keep one alive and feed it appends.
#[derive(Debug, Clone, Default)]
pub struct Chat {
    pub session: Option<SessionEntry>,
    pub turns: Turns,
    pub todos: TodoLedger,
    pub suggestions: SuggestionLedger,
    /// The person has written a message of their own in this chat.
    pub person_spoke: bool,
    /// Briefs present in this chat, by their origin.
    pub briefs: Vec<Origin>,
    pub skipped: Vec<Skipped>,
    /// Number of entries folded (the log's length).
    pub len: usize,
}

impl Chat {
    /// Folds a whole log. `cards` asks for the todo cards (a diff per update),
    /// which only display needs.
    pub fn replay(log: &[Value], cards: bool) -> Chat {
        let mut chat = Chat {
            todos: TodoLedger::new(cards),
            ..Chat::default()
        };
        for value in log {
            chat.ingest(value);
        }
        chat
    }

    /// Folds one more entry.
    pub fn ingest(&mut self, value: &Value) {
        let index = self.len;
        self.len += 1;
        let entry = match parse_entry(index, value) {
            Ok(Some(entry)) => entry,
            Ok(None) => return,
            Err(skipped) => {
                if skipped.kind.as_deref() == Some("suggestion_offered") {
                    // An offer this version cannot read is still an offer made:
                    // it counts toward the chat's and the turn's limits.
                    self.suggestions.unreadable_offer(value);
                    self.turns.offered_this_turn = true;
                }
                self.skipped.push(skipped);
                return;
            }
        };
        match entry {
            Entry::Session(session) => {
                if self.session.is_none() {
                    self.session = Some(session);
                } else {
                    self.skip(index, "session", "a second `session` entry; the first one counts");
                }
            }
            Entry::TurnStarted {} => {
                self.turns.started += 1;
                self.turns.open = true;
                self.turns.offered_this_turn = false;
                self.todos.turn_started();
            }
            Entry::TurnEnded {} => {
                self.turns.open = false;
                self.todos.turn_ended();
            }
            Entry::TodoUpdate(update) => {
                let turn = self.turns.open.then_some(self.turns.started);
                self.todos.record(index, turn, update.todos);
            }
            Entry::SuggestionOffered(offer) => match self.suggestions.offer(index, offer) {
                Ok(()) => self.turns.offered_this_turn = true,
                Err(reason) => self.skip(index, "suggestion_offered", &reason),
            },
            Entry::SuggestionSettled(settlement) => {
                if let Err(reason) = self.suggestions.settle(settlement) {
                    self.skip(index, "suggestion_settled", &reason);
                }
            }
            Entry::Message(message) => match message.source {
                Some(Source::Suggestion(origin)) => self.briefs.push(origin),
                None if message.role == "user" => self.person_spoke = true,
                None => {}
            },
        }
    }

    fn skip(&mut self, index: usize, kind: &str, reason: &str) {
        self.skipped.push(Skipped {
            index,
            kind: Some(kind.to_string()),
            reason: reason.to_string(),
        });
    }

    /// The chat is a helper (subagent or forked helper), not the top-level agent.
    pub fn is_helper(&self) -> bool {
        self.session.as_ref().is_some_and(|s| s.agent != TOP_LEVEL)
    }

    pub fn in_scheduled_folder(&self) -> bool {
        self.session.as_ref().is_some_and(|s| s.scheduled_task_folder)
    }

    pub fn workspace(&self) -> Option<&str> {
        self.session.as_ref().and_then(|s| s.workspace.as_deref())
    }

    pub fn settings(&self) -> Settings {
        self.session.as_ref().map(|s| s.settings.clone()).unwrap_or_default()
    }
}
