//! Every text a caller can see, one enum per concern.
//!
//! The model reads `TodoError` and `SuggestError` verbatim, and apps match on
//! `ServiceError` codes, so these strings are a contract: the quoted ones are
//! copied byte for byte from the product documents (see SPEC.md), and tests
//! compare them exactly. Change a text here only with the SPEC. Each is built
//! by [`text`](TodoError::text) from pieces (no formatting machinery in the
//! shipped module); `Display` shows the same text.

use std::fmt;

use crate::json::quote;
use crate::json::write::{cat, uint_text};

/// Refusals of a `todo_write` call. Each starts with `Error:` because the
/// model sees it as the tool's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TodoError {
    NoSession,
    InputNotObject,
    Unreadable(String),
    UnknownInputField(String),
    TodosNotArray(String),
    ItemNotObject { index: usize, got: String },
    UnknownItemField { index: usize, field: String },
    BadStatus { index: usize, got: String },
    EmptyContent,
    DuplicateContent(String),
    TooManyActive(usize),
}

impl TodoError {
    pub fn text(&self) -> String {
        let at = |index: &usize| uint_text(*index as u64);
        match self {
            TodoError::NoSession => "Error: todo_write requires an owning agent session".into(),
            TodoError::InputNotObject => "Error: invalid todos: input must be an object with a `todos` array".into(),
            TodoError::Unreadable(why) => cat(&["Error: invalid todos: the input cannot be read as JSON data: ", why]),
            TodoError::UnknownInputField(field) => cat(&[
                "Error: invalid todos: unknown field `",
                field,
                "` (the input is only `todos`)",
            ]),
            TodoError::TodosNotArray(got) => cat(&["Error: invalid todos: `todos` must be an array (got ", got, ")"]),
            TodoError::ItemNotObject { index, got } => cat(&[
                "Error: invalid todo at index ",
                &at(index),
                ": an item must be an object (got ",
                got,
                ")",
            ]),
            TodoError::UnknownItemField { index, field } => cat(&[
                "Error: invalid todo at index ",
                &at(index),
                ": unknown field `",
                field,
                "` (an item is only `content` and `status`)",
            ]),
            TodoError::BadStatus { index, got } => cat(&[
                "Error: invalid todo at index ",
                &at(index),
                ": `status` must be \"pending\", \"in_progress\" or \"completed\" (got ",
                got,
                ")",
            ]),
            TodoError::EmptyContent => "Error: invalid todo: `content` must be a non-empty string".into(),
            TodoError::DuplicateContent(content) => cat(&["Error: invalid todos: duplicate content \"", content, "\""]),
            TodoError::TooManyActive(n) => cat(&[
                "Error: invalid todos: at most one task may be in_progress (got ",
                &at(n),
                ")",
            ]),
        }
    }
}

/// Refusals of a `suggest_task` call, in the order they are checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SuggestError {
    NoSession,
    Helper,
    ScheduledFolder,
    NoOpenTurn,
    ChatLimit(usize),
    OpenLimit(usize),
    TurnLimit,
    InputNotObject,
    Unreadable(String),
    UnknownField(String),
    NotString(&'static str),
    Empty(&'static str),
    TooLong {
        field: &'static str,
        limit: usize,
        got: usize,
    },
}

impl SuggestError {
    pub fn text(&self) -> String {
        let n = |n: &usize| uint_text(*n as u64);
        match self {
            SuggestError::NoSession => "suggest_task requires an owning agent session".into(),
            SuggestError::Helper => {
                "suggest_task is only for the top-level agent; report the follow-up in your result instead".into()
            }
            SuggestError::ScheduledFolder => "suggest_task: this chat runs in a scheduled task folder, where no new chat can start; offer no suggestions here".into(),
            SuggestError::NoOpenTurn => "suggest_task: requires an open model turn".into(),
            SuggestError::ChatLimit(limit) => cat(&[
                "suggest_task: this chat already offered ",
                &n(limit),
                " suggestions; offer no more",
            ]),
            SuggestError::OpenLimit(limit) => cat(&[
                "suggest_task: ",
                &n(limit),
                " suggestions already wait for the user; offer no more until one is started or dismissed",
            ]),
            SuggestError::TurnLimit => "suggest_task: one suggestion per turn; this turn already offered one".into(),
            SuggestError::InputNotObject => "suggest_task: input must be an object with `title`, `tldr` and `brief`".into(),
            SuggestError::Unreadable(why) => cat(&["suggest_task: the input cannot be read as JSON data: ", why]),
            SuggestError::UnknownField(field) => cat(&[
                "suggest_task: unknown field `",
                field,
                "` (the input is only `title`, `tldr` and `brief`)",
            ]),
            SuggestError::NotString(field) => cat(&["suggest_task: ", field, " must be a string"]),
            SuggestError::Empty(field) => cat(&["suggest_task: ", field, " must not be empty"]),
            SuggestError::TooLong { field, limit, got } => cat(&[
                "suggest_task: ",
                field,
                " must be at most ",
                &n(limit),
                " characters (got ",
                &n(got),
                ")",
            ]),
        }
    }
}

/// Failures of the suggestion service (start, draft, dismiss, restore).
/// Each has a stable `code` and a payload; see [`ServiceError::code`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServiceError {
    NotFound { id: String },
    NotOpen { id: String, outcome: &'static str },
    OpenLimit { limit: usize },
    NoWorkspace { chat_id: String },
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

    pub fn text(&self) -> String {
        match self {
            Self::NotFound { id } => cat(&["no suggestion \"", &quote(id), "\""]),
            Self::NotOpen { id, outcome } => cat(&["suggestion \"", &quote(id), "\" is ", outcome]),
            Self::OpenLimit { limit } => cat(&[&uint_text(*limit as u64), " suggestions are already open"]),
            Self::NoWorkspace { chat_id } => cat(&["session \"", &quote(chat_id), "\" belongs to no workspace"]),
            Self::ScheduledFolder { chat_id } => {
                cat(&["session \"", &quote(chat_id), "\" runs in a scheduled task's folder"])
            }
        }
    }
}

/// A check that needs the person's own words, refused for a chat whose only
/// instruction so far is a suggestion's brief.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GoalError {
    NotFromPerson(&'static str),
    NoInstruction(&'static str),
}

impl GoalError {
    pub fn text(&self) -> String {
        match self {
            GoalError::NotFromPerson(verb) => cat(&[
                "goal: this chat's instructions came from a suggestion, not from the person; ask the person to confirm in their own words before you ",
                verb,
                " a goal",
            ]),
            GoalError::NoInstruction(verb) => cat(&[
                "goal: the person has not given an instruction in this chat yet; ask the person before you ",
                verb,
                " a goal",
            ]),
        }
    }
}

/// Misuse by the host program (not the model): arguments of the wrong shape,
/// unknown options, entries fed out of order. Thrown as a JS `Error`, never
/// shown to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostError {
    BadArguments { call: &'static str, why: String },
    NotContinuing { from: usize, length: usize },
    NoCards,
}

impl HostError {
    pub fn text(&self) -> String {
        match self {
            HostError::BadArguments { call, why } => cat(&["oda-tasks: invalid arguments of ", call, ": ", why]),
            HostError::NotContinuing { from, length } => {
                let length = uint_text(*length as u64);
                cat(&[
                    "oda-tasks: ingest(from = ",
                    &uint_text(*from as u64),
                    ") does not continue this state of ",
                    &length,
                    " entries; feed entries from index ",
                    &length,
                ])
            }
            HostError::NoCards => {
                "oda-tasks: this ChatState keeps no todo cards; create it with { cards: true } to replay todos".into()
            }
        }
    }
}

macro_rules! display_as_text {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(&self.text())
            }
        }
        impl std::error::Error for $t {}
    )*};
}

display_as_text!(TodoError, SuggestError, ServiceError, GoalError, HostError);

#[cfg(test)]
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
            (HostError::NoCards.text(), "oda-tasks: this ChatState keeps no todo cards; create it with { cards: true } to replay todos"),
        ];
        for (text, expected) in cases {
            assert_eq!(text, expected);
        }
        assert_eq!(TodoError::EmptyContent.to_string(), TodoError::EmptyContent.text());
    }
}
