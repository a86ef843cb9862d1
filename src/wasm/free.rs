//! Exports that need no chat state: the stateless `todo_write` refusal path,
//! the permission clamp and the tool definitions.

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use super::chat_state::{todo_write_answer, TodoWriteArgs};
use super::convert::{answer, params, params_borrowed, permission_order, tool_answer, ModelInput};
use crate::entry::Entry;
use crate::json::OwnedText;
use crate::{settle, suggest, tool};

/// `todo_write` for a chat given only as "has a session or not": the list is
/// self-contained, so no log is read.
///
/// @example
/// JSON.parse(todoWriteCall(false, '{"input":{"todos":[]}}')).error; // "Error: todo_write requires an owning agent session"
#[wasm_bindgen(js_name = todoWriteCall)]
pub fn todo_write_call(has_session: bool, params_text: &str) -> Result<String, JsError> {
    let p: TodoWriteArgs = params_borrowed("todoWrite", params_text)?;
    todo_write_answer(has_session, &p)
}

/// `suggest_task` for a call with no owning session: the first refusal.
///
/// @example
/// JSON.parse(suggestTaskWithoutSession('{"input":{}}')).error; // "suggest_task requires an owning agent session"
#[wasm_bindgen(js_name = suggestTaskWithoutSession)]
pub fn suggest_task_without_session(params_text: &str) -> Result<String, JsError> {
    let p: ModelInput = params_borrowed("suggestTask", params_text)?;
    tool_answer(suggest::suggest_task(None, &p.read()).map(|d| (Entry::SuggestionOffered(d.entry), d.output)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClampParams {
    wanted: Option<OwnedText>,
    ceiling: Option<OwnedText>,
    #[serde(default)]
    permissions: Option<Vec<OwnedText>>,
}

/// The lower of two permissions, as JSON text (`null` only for an empty order).
///
/// @example
/// JSON.parse(clampPermission('{"wanted":"full-access","ceiling":"ask"}')); // "ask"
#[wasm_bindgen(js_name = clampPermission)]
pub fn clamp_permission(params_text: &str) -> Result<String, JsError> {
    let p: ClampParams = params("clampPermission", params_text)?;
    let order = permission_order(p.permissions)?;
    let wanted = p.wanted.map(|t| t.0);
    let ceiling = p.ceiling.map(|t| t.0);
    answer(&settle::clamp_permission(wanted.as_deref(), ceiling.as_deref(), &order))
}

/// Both tool definitions as JSON text (written into the package at build time).
///
/// @example
/// JSON.parse(toolDefinitions()).todoWrite.name; // "todo_write"
#[wasm_bindgen(js_name = toolDefinitions)]
pub fn tool_definitions() -> Result<String, JsError> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Tools {
        todo_write: tool::ToolDefinition,
        suggest_task: tool::ToolDefinition,
    }
    answer(&Tools {
        todo_write: tool::todo_write_tool(),
        suggest_task: tool::suggest_task_tool(),
    })
}
