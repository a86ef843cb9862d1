//! Every text a caller can see, one enum per concern.
//!
//! The model reads `TodoError` and `SuggestError` verbatim, and apps match on
//! `ServiceError` codes, so these strings are a contract: the quoted ones are
//! listed with the order of checks in `docs/tools.md`, and tests compare them
//! exactly. Change a text here only with that page (`tests/refusals_doc.rs`).

use thiserror::Error;

use crate::text::quote;

/// Refusals of a `todo_write` call. Each starts with `Error:` because the
/// model sees it as the tool's result.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TodoError {
    #[error("Error: todo_write requires an owning agent session")]
    NoSession,
    #[error("Error: invalid todos: input must be an object with a `todos` array")]
    InputNotObject,
    #[error("Error: invalid todos: the input cannot be read as JSON data: {0}")]
    Unreadable(String),
    #[error("Error: invalid todos: unknown field `{0}` (the input is only `todos`)")]
    UnknownInputField(String),
    #[error("Error: invalid todos: `todos` must be an array (got {0})")]
    TodosNotArray(String),
    #[error("Error: invalid todo at index {index}: an item must be an object (got {got})")]
    ItemNotObject { index: usize, got: String },
    #[error("Error: invalid todo at index {index}: unknown field `{field}` (an item is only `content` and `status`)")]
    UnknownItemField { index: usize, field: String },
    #[error("Error: invalid todo at index {index}: `status` must be \"pending\", \"in_progress\" or \"completed\" (got {got})")]
    BadStatus { index: usize, got: String },
    #[error("Error: invalid todo: `content` must be a non-empty string")]
    EmptyContent,
    #[error("Error: invalid todos: duplicate content \"{0}\"")]
    DuplicateContent(String),
    #[error("Error: invalid todos: at most one task may be in_progress (got {0})")]
    TooManyActive(usize),
    /// A person's edit is the list's latest change and the model was not told
    /// of it: `{0}` says what they changed and the list as edited.
    #[error("Error: the user edited the todo list, and this update was not recorded: it was written before you saw their edit. {0}\nCall todo_write again with the whole list, starting from this one and keeping the user's changes.")]
    UserEdited(String),
}

/// Refusals of a `suggest_task` call, in the order they are checked.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SuggestError {
    #[error("suggest_task requires an owning agent session")]
    NoSession,
    #[error("suggest_task is only for the top-level agent; report the follow-up in your result instead")]
    Helper,
    #[error("suggest_task: this chat runs in a scheduled task folder, where no new chat can start; offer no suggestions here")]
    ScheduledFolder,
    #[error("suggest_task: requires an open model turn")]
    NoOpenTurn,
    #[error("suggest_task: this chat already offered {0} suggestions; offer no more")]
    ChatLimit(usize),
    #[error(
        "suggest_task: {0} suggestions already wait for the user; offer no more until one is started or dismissed"
    )]
    OpenLimit(usize),
    #[error("suggest_task: one suggestion per turn; this turn already offered one")]
    TurnLimit,
    #[error("suggest_task: input must be an object with `title`, `tldr` and `brief`")]
    InputNotObject,
    #[error("suggest_task: the input cannot be read as JSON data: {0}")]
    Unreadable(String),
    #[error("suggest_task: unknown field `{0}` (the input is only `title`, `tldr` and `brief`)")]
    UnknownField(String),
    #[error("suggest_task: {0} must be a string")]
    NotString(&'static str),
    #[error("suggest_task: {0} must not be empty")]
    Empty(&'static str),
    #[error("suggest_task: {field} must be at most {limit} characters (got {got})")]
    TooLong {
        field: &'static str,
        limit: usize,
        got: usize,
    },
}

/// Failures of the suggestion service (start, draft, dismiss, restore).
/// Each has a stable `code` and a payload; see [`ServiceError::code`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ServiceError {
    #[error("no suggestion \"{}\"", quote(.id))]
    NotFound { id: String },
    #[error("suggestion \"{}\" is {outcome}", quote(.id))]
    NotOpen { id: String, outcome: &'static str },
    #[error("{limit} suggestions are already open")]
    OpenLimit { limit: usize },
    #[error("session \"{}\" belongs to no workspace", quote(.chat_id))]
    NoWorkspace { chat_id: String },
    #[error("session \"{}\" runs in a scheduled task's folder", quote(.chat_id))]
    ScheduledFolder { chat_id: String },
}

impl ServiceError {
    pub const NOT_FOUND: &'static str = "task-suggestion/not-found";
    pub const NOT_OPEN: &'static str = "task-suggestion/not-open";
    pub const OPEN_LIMIT: &'static str = "task-suggestion/open-limit";
    pub const WORKSPACE_MISSING: &'static str = "task-suggestion/workspace-missing";

    /// The stable code apps match on.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotFound { .. } => Self::NOT_FOUND,
            Self::NotOpen { .. } => Self::NOT_OPEN,
            Self::OpenLimit { .. } => Self::OPEN_LIMIT,
            Self::NoWorkspace { .. } | Self::ScheduledFolder { .. } => Self::WORKSPACE_MISSING,
        }
    }
}

/// A check that needs the person's own words, refused for a chat whose only
/// instruction so far is a suggestion's brief.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GoalError {
    #[error("goal: this chat's instructions came from a suggestion, not from the person; ask the person to confirm in their own words before you {0} a goal")]
    NotFromPerson(&'static str),
    #[error("goal: the person has not given an instruction in this chat yet; ask the person before you {0} a goal")]
    NoInstruction(&'static str),
}

/// Misuse by the host program (not the model): arguments of the wrong shape,
/// unknown options, entries fed out of order. Thrown in JS, never shown to the model.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HostError {
    #[error("oda-tasks: invalid arguments of {call}: {why}")]
    BadArguments { call: &'static str, why: String },
    #[error("oda-tasks: ingest(from = {from}) does not continue this state of {length} entries; feed entries from index {length}")]
    NotContinuing { from: usize, length: usize },
    #[error("oda-tasks: ingest() while a JSONL line is half fed (the bytes given to ingestJsonl() end inside a line); feed the rest of that line, or call endJsonl(), before ingesting entries")]
    HalfFedLine,
    #[error("oda-tasks: ingest got {fed} entry texts for {count} entries")]
    WrongCount { fed: usize, count: usize },
    #[error("oda-tasks: this ChatState keeps no todo cards; create it with {{ cards: true }} to replay todos")]
    NoCards,
    /// serde-wasm-bindgen refused an answer (a number past 2^53: not expected of any answer).
    #[error("oda-tasks: the answer could not be built as a JS value: {why}")]
    Answer { why: String },
}

/// `text()`: the message, as `Display` writes it (kept for callers of the earlier API).
macro_rules! text_as_display {
    ($($t:ty),*) => {$(
        impl $t {
            /// The message, byte for byte.
            pub fn text(&self) -> String {
                self.to_string()
            }
        }
    )*};
}

text_as_display!(TodoError, SuggestError, ServiceError, GoalError, HostError);

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// The texts as `thiserror` wrote them from the `#[error]` attributes, one per variant.
    #[test]
    fn every_text_is_the_one_of_the_contract() {
        let cases: Vec<(String, &str)> = vec![
            (TodoError::NoSession.text(), "Error: todo_write requires an owning agent session"),
            (TodoError::InputNotObject.text(), "Error: invalid todos: input must be an object with a `todos` array"),
            (TodoError::Unreadable("w".into()).text(), "Error: invalid todos: the input cannot be read as JSON data: w"),
            (TodoError::UnknownInputField("f".into()).text(), "Error: invalid todos: unknown field `f` (the input is only `todos`)"),
            (TodoError::TodosNotArray("a number".into()).text(), "Error: invalid todos: `todos` must be an array (got a number)"),
            (TodoError::ItemNotObject { index: 12, got: "null".into() }.text(), "Error: invalid todo at index 12: an item must be an object (got null)"),
            (TodoError::UnknownItemField { index: 0, field: "id".into() }.text(), "Error: invalid todo at index 0: unknown field `id` (an item is only `content` and `status`)"),
            (TodoError::BadStatus { index: 3, got: "\"x\"".into() }.text(), "Error: invalid todo at index 3: `status` must be \"pending\", \"in_progress\" or \"completed\" (got \"x\")"),
            (TodoError::EmptyContent.text(), "Error: invalid todo: `content` must be a non-empty string"),
            (TodoError::DuplicateContent("a".into()).text(), "Error: invalid todos: duplicate content \"a\""),
            (TodoError::TooManyActive(2).text(), "Error: invalid todos: at most one task may be in_progress (got 2)"),
            (TodoError::UserEdited("B".into()).text(), "Error: the user edited the todo list, and this update was not recorded: it was written before you saw their edit. B\nCall todo_write again with the whole list, starting from this one and keeping the user's changes."),
            (SuggestError::NoSession.text(), "suggest_task requires an owning agent session"),
            (SuggestError::Helper.text(), "suggest_task is only for the top-level agent; report the follow-up in your result instead"),
            (SuggestError::ScheduledFolder.text(), "suggest_task: this chat runs in a scheduled task folder, where no new chat can start; offer no suggestions here"),
            (SuggestError::NoOpenTurn.text(), "suggest_task: requires an open model turn"),
            (SuggestError::ChatLimit(10).text(), "suggest_task: this chat already offered 10 suggestions; offer no more"),
            (SuggestError::OpenLimit(3).text(), "suggest_task: 3 suggestions already wait for the user; offer no more until one is started or dismissed"),
            (SuggestError::TurnLimit.text(), "suggest_task: one suggestion per turn; this turn already offered one"),
            (SuggestError::InputNotObject.text(), "suggest_task: input must be an object with `title`, `tldr` and `brief`"),
            (SuggestError::Unreadable("w".into()).text(), "suggest_task: the input cannot be read as JSON data: w"),
            (SuggestError::UnknownField("x".into()).text(), "suggest_task: unknown field `x` (the input is only `title`, `tldr` and `brief`)"),
            (SuggestError::NotString("title").text(), "suggest_task: title must be a string"),
            (SuggestError::Empty("tldr").text(), "suggest_task: tldr must not be empty"),
            (SuggestError::TooLong { field: "brief", limit: 4000, got: 4001 }.text(), "suggest_task: brief must be at most 4000 characters (got 4001)"),
            (ServiceError::NotFound { id: "s9".into() }.text(), "no suggestion \"s9\""),
            (ServiceError::NotOpen { id: "s1".into(), outcome: "started" }.text(), "suggestion \"s1\" is started"),
            (ServiceError::OpenLimit { limit: 3 }.text(), "3 suggestions are already open"),
            (ServiceError::NoWorkspace { chat_id: "c1".into() }.text(), "session \"c1\" belongs to no workspace"),
            (ServiceError::ScheduledFolder { chat_id: "c1".into() }.text(), "session \"c1\" runs in a scheduled task's folder"),
            (GoalError::NotFromPerson("create").text(), "goal: this chat's instructions came from a suggestion, not from the person; ask the person to confirm in their own words before you create a goal"),
            (GoalError::NoInstruction("complete").text(), "goal: the person has not given an instruction in this chat yet; ask the person before you complete a goal"),
            (HostError::BadArguments { call: "todoWrite", why: "w".into() }.text(), "oda-tasks: invalid arguments of todoWrite: w"),
            (HostError::NotContinuing { from: 3, length: 5 }.text(), "oda-tasks: ingest(from = 3) does not continue this state of 5 entries; feed entries from index 5"),
            (HostError::HalfFedLine.text(), "oda-tasks: ingest() while a JSONL line is half fed (the bytes given to ingestJsonl() end inside a line); feed the rest of that line, or call endJsonl(), before ingesting entries"),
            (HostError::NoCards.text(), "oda-tasks: this ChatState keeps no todo cards; create it with { cards: true } to replay todos"),
            (HostError::Answer { why: "w".into() }.text(), "oda-tasks: the answer could not be built as a JS value: w"),
        ];
        for (text, expected) in cases {
            assert_eq!(text, expected);
        }
        assert_eq!(TodoError::EmptyContent.to_string(), TodoError::EmptyContent.text());
    }
}
