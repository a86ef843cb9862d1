//! Every text a caller can see, one `thiserror` enum per concern.
//!
//! The model reads `TodoError` and `SuggestError` verbatim, and apps match on
//! `ServiceError` codes, so these strings are a contract: the quoted ones are
//! copied byte for byte from the product documents (see SPEC.md), and tests
//! compare them exactly. Change a text here only with the SPEC.

use thiserror::Error;

use crate::json::quote;

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
/// unknown options, entries fed out of order. Thrown as a JS `Error`, never
/// shown to the model.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HostError {
    #[error("oda-tasks: invalid arguments of {call}: {why}")]
    BadArguments { call: &'static str, why: String },
    #[error("oda-tasks: ingest(from = {from}) does not continue this state of {length} entries; feed entries from index {length}")]
    NotContinuing { from: usize, length: usize },
    #[error("oda-tasks: this ChatState keeps no todo cards; create it with {{ cards: true }} to replay todos")]
    NoCards,
}
