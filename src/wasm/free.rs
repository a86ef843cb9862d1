//! Exports that need no chat state: the stateless `todo_write` refusal path
//! and the permission clamp. (The tool definitions are no export: the
//! package carries them as constants, `scripts/build.mjs`.)

use wasm_bindgen::prelude::*;

use super::chat_state::todo_write_answer;
use super::convert::{answer, params, permission_order, tool_answer, Text};
use crate::entry::Entry;
use crate::{settle, suggest_call};

/// `todo_write` for a chat given only as "has a session or not": the list is
/// self-contained, so no log is read. Answers `[answer JSON, entry text?]`.
///
/// # Examples
///
/// ```js
/// const [answer] = todoWriteCall(false, '{"input":{"todos":[]}}');
/// assert.equal(JSON.parse(answer).error, "Error: todo_write requires an owning agent session");
/// ```
#[wasm_bindgen(js_name = todoWriteCall)]
pub fn todo_write_call(has_session: bool, params_text: &str) -> Result<Vec<String>, JsValue> {
    let p = params("todoWrite", super::params::todo_write(params_text))?;
    todo_write_answer(has_session, &p, None)
}

/// `suggest_task` for a call with no owning session: the first refusal.
///
/// # Examples
///
/// ```js
/// const [answer] = suggestTaskWithoutSession('{"input":{}}');
/// assert.equal(JSON.parse(answer).error, "suggest_task requires an owning agent session");
/// ```
#[wasm_bindgen(js_name = suggestTaskWithoutSession)]
pub fn suggest_task_without_session(params_text: &str) -> Result<Vec<String>, JsValue> {
    let p = params("suggestTask", super::params::model_input(params_text))?;
    tool_answer::<Text>(
        suggest_call::suggest_task(None, &p.read())
            .map(|d| (Entry::SuggestionOffered(d.entry), d.output))
            .map_err(|e| e.to_string()),
    )
}

/// The lower of two permissions, as JSON text (`null` only for an empty order).
///
/// # Examples
///
/// ```js
/// assert.equal(JSON.parse(clampPermission('{"wanted":"full-access","ceiling":"ask"}')), "ask");
/// ```
#[wasm_bindgen(js_name = clampPermission)]
pub fn clamp_permission(params_text: &str) -> Result<String, JsValue> {
    let p = params("clampPermission", super::params::clamp(params_text))?;
    let order = permission_order(p.permissions)?;
    Ok(answer(&settle::clamp_permission(
        p.wanted.as_deref(),
        p.ceiling.as_deref(),
        &order,
    )))
}
