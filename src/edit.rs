//! A person's edit of the list, and what the model is told of it.
//!
//! A person edits the whole list under `todo_write`'s rules, on the log length
//! their screen showed; the update records who made it. While such an edit is
//! the list's latest change and the model was not told of it, the model is
//! told once: by the integration's context text ([`notice`]) or by the refusal
//! of its next `todo_write` ([`stale_write`]), each recorded as a `todo_told`
//! entry holding the exact text, after which its writes record as usual.

use crate::chat::Chat;
use std::fmt::Write;

use crate::entry::{Editor, TodoItem, TodoUpdate, Told, FORMAT_VERSION};
use crate::error::TodoError;
use crate::input::Input;
use crate::text::quoted;
use crate::todo::{self, TodoOptions};

/// What a person's edit decides when it is accepted.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// Append this update.
    Append(TodoUpdate),
    /// The list already is the edited one: nothing to record.
    Unchanged,
}

/// Why a person's edit is not recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditRefusal {
    /// The list breaks one of `todo_write`'s rules: the core's own refusal.
    Invalid(TodoError),
    /// The list changed after the length the person's screen showed (or
    /// that length is past the log's end): their edit would overwrite a
    /// change they did not see.
    Changed,
}

/// Decides a person's edit of the list: `input` is `{ todos }` as a model
/// would send it, checked by the same rules (`options`), on the log length
/// `based_on` their screen showed; `name` is the display name the app gave.
///
/// # Examples
///
/// ```
/// use oda_tasks::edit::{edit_todos, Edit};
/// let chat = oda_tasks::Chat::from_values(&[serde_json::json!({ "type": "session" })], false);
/// let input = serde_json::json!({ "todos": [{ "content": "Ship", "status": "pending" }] }).into();
/// assert!(matches!(edit_todos(&chat, &input, 1, None, Default::default()), Ok(Edit::Append(_))));
/// ```
pub fn edit_todos(
    chat: &Chat,
    input: &Input,
    based_on: usize,
    name: Option<String>,
    options: TodoOptions,
) -> Result<Edit, EditRefusal> {
    let written = todo::todo_write(true, input, options).map_err(EditRefusal::Invalid)?;
    if based_on > chat.len || chat.todos.last_update.is_some_and(|at| at >= based_on) {
        return Err(EditRefusal::Changed);
    }
    if written.entry.todos == chat.todos.todos {
        return Ok(Edit::Unchanged);
    }
    Ok(Edit::Append(TodoUpdate {
        by: Some(Editor { name }),
        ..written.entry
    }))
}

/// The text the integration puts into the model's context, recorded as told,
/// when a person's edit is the list's latest change and the model was not
/// told of it; else `None`.
pub fn notice(chat: &Chat) -> Option<Told> {
    let mut text = "The user edited the todo list while you worked. ".to_string();
    told_body(chat, &mut text)?;
    text.push_str("\nKeep their changes: your next todo_write sends this list whole, with the user's changes in it.");
    Some(told(text))
}

/// The record of the refusal of a `todo_write` written before the model saw
/// a person's edit (the edit is the list's latest change, the model was not
/// told of it): its `text` is the refusal ([`TodoError::UserEdited`]); else `None`.
pub fn stale_write(chat: &Chat) -> Option<Told> {
    let mut body = String::new();
    told_body(chat, &mut body)?;
    Some(told(TodoError::UserEdited(body).to_string()))
}

fn told(text: String) -> Told {
    Told {
        v: FORMAT_VERSION,
        text,
    }
}

/// Writes what the person changed against the list the model last knew, and
/// the list as edited; `None` (nothing written) when no edit is untold.
fn told_body(chat: &Chat, out: &mut String) -> Option<()> {
    let known = chat.todos.untold.as_ref()?;
    let now = &chat.todos.todos;
    let c = todo::diff(known, now);
    out.push_str("What they changed:");
    // One line per change, as the model reads it (positions from 1, as a person sees them).
    for a in &c.added {
        let _ = write!(out, "\n- added {} ({})", quoted(&a.content), a.status.as_str());
    }
    for r in &c.removed {
        let _ = write!(out, "\n- removed {}", quoted(&r.content));
    }
    for s in &c.status_changed {
        let _ = write!(
            out,
            "\n- {}: {} → {}",
            quoted(&s.content),
            s.from.as_str(),
            s.to.as_str()
        );
    }
    for m in &c.moved {
        let _ = write!(
            out,
            "\n- moved {} from {} to {}",
            quoted(&m.content),
            m.from + 1,
            m.to + 1
        );
    }
    if c.added.is_empty() && c.removed.is_empty() && c.status_changed.is_empty() && c.moved.is_empty() {
        out.push_str("\n- nothing, in the end: the list is as you last knew it");
    }
    if now.is_empty() {
        out.push_str("\nThe list as edited is empty.");
    } else {
        let _ = write!(out, "\nThe list as edited ({}):", todo::counts(now));
        list_lines(now, out);
    }
    Some(())
}

/// Writes the list as numbered lines, `\n1. [in_progress] "Write tests"` (texts
/// as JSON strings, so a line break stays inside its item).
fn list_lines(todos: &[TodoItem], out: &mut String) {
    for (i, t) in todos.iter().enumerate() {
        let _ = write!(out, "\n{}. [{}] {}", i + 1, t.status.as_str(), quoted(&t.content));
    }
}

/// The list as a short text for the model's context (after compaction, on
/// resume, when a reminder is due), or `None` for an empty list.
///
/// # Examples
///
/// ```
/// use oda_tasks::todo::{TodoItem, TodoStatus};
/// let list = [TodoItem { content: "Ship".into(), status: TodoStatus::Pending }];
/// let text = oda_tasks::edit::list_text(&list).unwrap(); // ok: a doctest; a one-item list has a text
/// assert!(text.contains("1. [pending] \"Ship\""));
/// ```
pub fn list_text(todos: &[TodoItem]) -> Option<String> {
    if todos.is_empty() {
        return None;
    }
    let mut text = format!(
        "Your todo list, as last recorded with todo_write ({}):",
        todo::counts(todos)
    );
    list_lines(todos, &mut text);
    text.push_str("\nKeep it current: call todo_write with the whole list when an item's state changes.");
    Some(text)
}
