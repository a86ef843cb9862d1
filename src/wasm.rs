//! The JavaScript binding: the only module that touches wasm-bindgen,
//! serde-wasm-bindgen or js-sys.
//!
//! Every export has one shape: JS values in → [`from_js`] → one core call →
//! [`to_js`] out. Misuse by the host program (a log that is not an array,
//! options of the wrong type) throws a JS `Error`; everything the model or
//! the person should see comes back as a plain `{ ok: false, ... }` object.
//! The TypeScript types below are the public contract: each export names
//! them with `unchecked_param_type` / `unchecked_return_type`, so the
//! generated `.d.ts` holds no `any`.

use serde::Serialize;
use serde_json::{json, Map, Value};
use serde_wasm_bindgen::Serializer;
use wasm_bindgen::prelude::*;

use crate::error::{HostError, ServiceError};
use crate::log::{Entry, Origin};
use crate::settle::{self, Action, Decision, GoalAction, StartPlan, StartRequest};
use crate::{suggest, todo, tool};

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** A JSON value, as stored in a log. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export type TodoStatus = "pending" | "in_progress" | "completed";
/** An item is its text and its state; nothing else travels with it. */
export interface TodoItem { content: string; status: TodoStatus }
/** What the model sends to `todo_write`: the whole list. */
export interface TodoWriteInput { todos: TodoItem[] }
export interface TodoWriteOptions {
  /** At most one item `in_progress` per update. Default `true`. */
  oneActive?: boolean;
}

/** What a chat runs as. `sandbox` and `approval` are copied as they are. */
export interface SessionSettings {
  preset?: string; model?: string; permission?: string;
  sandbox?: JsonValue; approval?: JsonValue;
}
/** The offering chat and suggestion a started chat comes from. */
export interface Origin { chatId: string; suggestionId: string }

/** The chat itself; the first entry of a log. */
export interface SessionEntry {
  type: "session"; v?: number; chatId?: string | null; title?: string;
  workspace?: string | null; scheduledTaskFolder?: boolean;
  agent?: "top-level" | "helper"; settings?: SessionSettings; origin?: Origin;
}
export interface TurnStartedEntry { type: "turn_started" }
export interface TurnEndedEntry { type: "turn_ended" }
/** One recorded `todo_write` update: the whole list. */
export interface TodoUpdateEntry { type: "todo_update"; v: number; todos: TodoItem[] }
/** One recorded `suggest_task` offer. */
export interface SuggestionOfferedEntry {
  type: "suggestion_offered"; v: number; id: string; title: string; tldr: string; brief: string;
}
export type SuggestionOutcome = "started" | "drafted" | "dismissed" | "restored";
/** A settlement of an offer; `chatId` only with `started`. */
export interface SuggestionSettledEntry {
  type: "suggestion_settled"; v: number; id: string; outcome: SuggestionOutcome; chatId?: string;
}
/** Who a message is attributed to when it is not the person. */
export interface MessageSource { kind: "suggestion"; chatId: string; suggestionId: string }
/** A chat message. A `user` message without `source` is the person's own. */
export interface MessageEntry { type: "message"; v?: number; role: string; text?: string; source?: MessageSource }
/** An entry the app writes for itself; replay ignores it. */
export interface ForeignEntry { type: string; [field: string]: unknown }
export type CoreEntry =
  | SessionEntry | TurnStartedEntry | TurnEndedEntry | TodoUpdateEntry
  | SuggestionOfferedEntry | SuggestionSettledEntry | MessageEntry;
export type LogEntry = CoreEntry | ForeignEntry;
/** A chat's log, oldest entry first. */
export type Log = readonly LogEntry[];

/** A call the core accepted: append `entry`, show the model `output`. */
export interface Accepted<E> { ok: true; entry: E; output: string }
/** A call the core refused: show the model `error`; nothing is recorded. */
export interface Refused { ok: false; error: string }
export type TodoWriteResult = Accepted<TodoUpdateEntry> | Refused;
export type SuggestTaskResult = Accepted<SuggestionOfferedEntry> | Refused;

/** An entry replay could not use, and why. */
export interface Skipped { index: number; type: string | null; reason: string }
export interface TodoCounts { pending: number; inProgress: number; completed: number }
export interface TodoPlaced { content: string; status: TodoStatus; position: number }
export interface TodoStatusChange { content: string; from: TodoStatus; to: TodoStatus }
export interface TodoMove { content: string; from: number; to: number }
/** What an update changed against the previous list (items match by text). */
export interface TodoChanges {
  added: TodoPlaced[]; removed: TodoPlaced[]; statusChanged: TodoStatusChange[]; moved: TodoMove[];
}
/** One "Update to-do list" card. `index`: the entry's position in the log. */
export interface TodoCard {
  index: number; turn: number | null; todos: TodoItem[]; counts: TodoCounts; changes: TodoChanges;
}
/** `running` while the recording turn runs, `finished` after it ends, `none` once the next turn starts. */
export type PlanState = "none" | "running" | "finished";
export interface TodoPlan { state: PlanState; todos: TodoItem[]; turn: number | null }
export interface TodoReplay { todos: TodoItem[]; cards: TodoCard[]; plan: TodoPlan; skipped: Skipped[] }

/** What the model sends to `suggest_task`. */
export interface SuggestTaskInput { title: string; tldr: string; brief: string }
export interface Suggestion { id: string; title: string; tldr: string; brief: string }
export interface SettledSuggestion extends Suggestion {
  outcome: "started" | "drafted" | "dismissed";
  /** The started chat, with `started`. */
  chatId?: string;
}
export interface SuggestionReplay { open: Suggestion[]; settled: SettledSuggestion[]; skipped: Skipped[] }

export type SuggestionErrorCode =
  | "task-suggestion/not-found" | "task-suggestion/not-open"
  | "task-suggestion/open-limit" | "task-suggestion/workspace-missing";
/** A refused service operation: `code`, the exact `message`, and its payload. */
export type ServiceFailure =
  | { ok: false; code: "task-suggestion/not-found"; message: string; payload: string; id: string }
  | { ok: false; code: "task-suggestion/not-open"; message: string; payload: "started" | "drafted" | "dismissed"; id: string; outcome: "started" | "drafted" | "dismissed" }
  | { ok: false; code: "task-suggestion/open-limit"; message: string; payload: number; limit: number }
  | { ok: false; code: "task-suggestion/workspace-missing"; message: string; payload: string; chatId: string };
export type SettleAction = "draft" | "dismiss" | "restore";
/** `entry` is `null` when nothing needs writing (restoring an open offer). */
export type SettleDecision = { ok: true; entry: SuggestionSettledEntry | null } | ServiceFailure;
/** Settings the person picks for the started chat; the permission is clamped. */
export interface StartRequest { model?: string; permission?: string }
export type StartDecision =
  | { ok: true; kind: "create"; chatId: string; session: SessionEntry; settled: SuggestionSettledEntry; brief: MessageEntry }
  | { ok: true; kind: "started"; chatId: string; brief: MessageEntry }
  | ServiceFailure;
export type StartedChatState = "missing" | "needs_brief" | "complete" | "foreign";
export type GoalAction = "create" | "complete";
export type GoalCheck = { ok: true } | { ok: false; error: string };

/** A JSON Schema object. */
export type JsonSchema = { [keyword: string]: JsonValue };
/** A tool definition for model function-calling. */
export interface ToolDefinition<N extends string = string> { name: N; description: string; inputSchema: JsonSchema }
export interface ToolDefinitions { todoWrite: ToolDefinition<"todo_write">; suggestTask: ToolDefinition<"suggest_task"> }
"#;

/// The one serializer: JSON-compatible, so results arrive as plain objects
/// and arrays (never `Map`s) and `None` as `null`.
const SERIALIZER: Serializer = Serializer::json_compatible();

fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    value.serialize(&SERIALIZER).map_err(|e| JsError::new(&e.to_string()))
}

fn host(error: HostError) -> JsError {
    JsError::new(&error.to_string())
}

/// A JS value as JSON data. A value with no JSON form (a symbol, a function,
/// a BigInt) becomes `null`, which the checks then refuse or skip by kind.
fn from_js(value: JsValue) -> Value {
    serde_wasm_bindgen::from_value(value).unwrap_or(Value::Null)
}

/// `null`/`undefined` → no owning session; an array → its entries, each read
/// on its own so one odd entry cannot fail the log.
fn log_from_js(log: JsValue) -> Result<Option<Vec<Value>>, JsError> {
    if log.is_null() || log.is_undefined() {
        return Ok(None);
    }
    if !js_sys::Array::is_array(&log) {
        return Err(host(HostError::LogNotArray(js_kind(&log))));
    }
    Ok(Some(js_sys::Array::from(&log).iter().map(from_js).collect()))
}

fn required_log(log: JsValue) -> Result<Vec<Value>, JsError> {
    log_from_js(log)?.ok_or_else(|| host(HostError::LogNotArray("null".to_string())))
}

fn js_kind(value: &JsValue) -> String {
    value.js_typeof().as_string().unwrap_or_default()
}

fn string_arg(name: &'static str, value: JsValue) -> Result<String, JsError> {
    value.as_string().ok_or_else(|| {
        host(HostError::BadArgument {
            name,
            why: format!("must be a string (got {})", js_kind(&value)),
        })
    })
}

/// A host options object: `undefined`/`null` → empty; otherwise an object
/// whose keys are all in `known`.
fn options_from_js(value: Option<JsValue>, known: &[&str]) -> Result<Map<String, Value>, JsError> {
    let Some(value) = value.filter(|v| !v.is_null() && !v.is_undefined()) else {
        return Ok(Map::new());
    };
    match from_js(value) {
        Value::Object(map) => {
            if let Some(key) = map.keys().find(|k| !known.contains(&k.as_str())) {
                return Err(host(HostError::BadOptions(format!("unknown option `{key}`"))));
            }
            Ok(map)
        }
        other => Err(host(HostError::BadOptions(format!(
            "options must be an object (got {})",
            crate::log::json_kind(&other)
        )))),
    }
}

fn optional_string(map: &Map<String, Value>, key: &str) -> Result<Option<String>, JsError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(host(HostError::BadOptions(format!("`{key}` must be a string")))),
    }
}

fn permission_order(value: Option<JsValue>) -> Result<Vec<String>, JsError> {
    let Some(value) = value.filter(|v| !v.is_null() && !v.is_undefined()) else {
        return Ok(settle::DEFAULT_PERMISSIONS.iter().map(|p| p.to_string()).collect());
    };
    match from_js(value) {
        Value::Array(items) if !items.is_empty() => items
            .into_iter()
            .map(|p| match p {
                Value::String(s) => Ok(s),
                _ => Err(host(HostError::BadOptions(
                    "`permissions` must hold strings".to_string(),
                ))),
            })
            .collect(),
        _ => Err(host(HostError::BadOptions(
            "`permissions` must be a non-empty array, lowest first".to_string(),
        ))),
    }
}

#[derive(Serialize)]
struct Accepted<'a> {
    ok: bool,
    entry: &'a Entry,
    output: &'a str,
}

#[derive(Serialize)]
struct Refused<'a> {
    ok: bool,
    error: &'a str,
}

fn accepted(entry: Entry, output: &str) -> Result<JsValue, JsError> {
    to_js(&Accepted {
        ok: true,
        entry: &entry,
        output,
    })
}

fn refused(error: &str) -> Result<JsValue, JsError> {
    to_js(&Refused { ok: false, error })
}

/// `{ ok: false, code, message, payload, <payload's name>: payload, id? }`.
fn failure(error: ServiceError) -> Result<JsValue, JsError> {
    let mut out = Map::new();
    out.insert("ok".into(), Value::Bool(false));
    out.insert("code".into(), json!(error.code()));
    out.insert("message".into(), json!(error.to_string()));
    let (name, payload) = match &error {
        ServiceError::NotFound { id } => ("id", json!(id)),
        ServiceError::NotOpen { id, outcome } => {
            out.insert("id".into(), json!(id));
            ("outcome", json!(outcome))
        }
        ServiceError::OpenLimit { limit } => ("limit", json!(limit)),
        ServiceError::NoWorkspace { chat_id } | ServiceError::ScheduledFolder { chat_id } => ("chatId", json!(chat_id)),
    };
    out.insert("payload".into(), payload.clone());
    out.insert(name.into(), payload);
    to_js(&out)
}

/// Checks a `todo_write` call. `log` is the chat's entries, or `null` when the
/// call has no owning session. The log is never changed: append `entry` yourself.
///
/// @example
/// const r = todoWrite(log, { todos: [{ content: "Write tests", status: "in_progress" }] });
/// if (r.ok) log.push(r.entry);
/// reply(r.ok ? r.output : r.error); // "Updated todo list: 0 pending, 1 in progress, 0 completed"
#[wasm_bindgen(js_name = todoWrite, unchecked_return_type = "TodoWriteResult")]
pub fn todo_write(
    #[wasm_bindgen(unchecked_param_type = "Log | null")] log: JsValue,
    #[wasm_bindgen(unchecked_param_type = "TodoWriteInput")] input: JsValue,
    #[wasm_bindgen(unchecked_param_type = "TodoWriteOptions")] options: Option<JsValue>,
) -> Result<JsValue, JsError> {
    // The core reads nothing of the log but its existence (see
    // `todo::todo_write`), so it is checked, not converted: O(1) in its length.
    let log: Option<&[()]> = if log.is_null() || log.is_undefined() {
        None
    } else if js_sys::Array::is_array(&log) {
        Some(&[])
    } else {
        return Err(host(HostError::LogNotArray(js_kind(&log))));
    };
    let options = options_from_js(options, &["oneActive"])?;
    let one_active = match options.get("oneActive") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(host(HostError::BadOptions("`oneActive` must be a boolean".to_string()))),
    };
    match todo::todo_write(log, &from_js(input), todo::TodoOptions { one_active }) {
        Ok(done) => accepted(Entry::TodoUpdate(done.entry), &done.output),
        Err(e) => refused(&e.to_string()),
    }
}

/// Replays a chat's task list: the latest list, one card per recorded update
/// (with what it changed), and the plan across turns.
///
/// @example
/// const { todos, cards, plan } = replayTodos(log);
/// for (const card of cards) console.log(card.changes.added.map((a) => a.content));
#[wasm_bindgen(js_name = replayTodos, unchecked_return_type = "TodoReplay")]
pub fn replay_todos(#[wasm_bindgen(unchecked_param_type = "Log")] log: JsValue) -> Result<JsValue, JsError> {
    to_js(&todo::replay_todos(&required_log(log)?))
}

/// Checks a `suggest_task` call against a chat (`null`: no owning session).
///
/// @example
/// const r = suggestTask(log, { title: "Add retries", tldr: "Flaky uploads", brief: "In upload.ts ..." });
/// if (r.ok) log.push(r.entry); // r.entry.id === "s1"
#[wasm_bindgen(js_name = suggestTask, unchecked_return_type = "SuggestTaskResult")]
pub fn suggest_task(
    #[wasm_bindgen(unchecked_param_type = "Log | null")] log: JsValue,
    #[wasm_bindgen(unchecked_param_type = "SuggestTaskInput")] input: JsValue,
) -> Result<JsValue, JsError> {
    let log = log_from_js(log)?;
    match suggest::suggest_task(log.as_deref(), &from_js(input)) {
        Ok(done) => accepted(Entry::SuggestionOffered(done.entry), &done.output),
        Err(e) => refused(&e.to_string()),
    }
}

/// Rebuilds a chat's suggestions: open ones newest first, settled ones in
/// the order they were offered.
///
/// @example
/// const { open, settled } = replaySuggestions(log);
/// open[0]?.title; settled.find((s) => s.outcome === "started")?.chatId;
#[wasm_bindgen(js_name = replaySuggestions, unchecked_return_type = "SuggestionReplay")]
pub fn replay_suggestions(#[wasm_bindgen(unchecked_param_type = "Log")] log: JsValue) -> Result<JsValue, JsError> {
    to_js(&suggest::replay_suggestions(&required_log(log)?))
}

/// Decides a draft, dismiss or restore of offer `id`: the entry to append
/// (conditionally, at the length read), `null` for nothing to write, or a
/// service failure.
///
/// @example
/// const d = settleSuggestion(log, "s1", "dismiss");
/// if (d.ok && d.entry) await store.append(chatId, [d.entry], log.length);
#[wasm_bindgen(js_name = settleSuggestion, unchecked_return_type = "SettleDecision")]
pub fn settle_suggestion(
    #[wasm_bindgen(unchecked_param_type = "Log")] log: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
    #[wasm_bindgen(unchecked_param_type = "SettleAction")] action: JsValue,
) -> Result<JsValue, JsError> {
    let log = required_log(log)?;
    let id = string_arg("id", id)?;
    let action = match string_arg("action", action)?.as_str() {
        "draft" => Action::Draft,
        "dismiss" => Action::Dismiss,
        "restore" => Action::Restore,
        other => {
            return Err(host(HostError::BadArgument {
                name: "action",
                why: format!("must be \"draft\", \"dismiss\" or \"restore\" (got \"{other}\")"),
            }))
        }
    };
    match settle::settle(&log, &id, action) {
        Ok(Decision::Append(entry)) => to_js(&json!({ "ok": true, "entry": Entry::SuggestionSettled(entry) })),
        Ok(Decision::Unchanged) => to_js(&json!({ "ok": true, "entry": null })),
        Err(e) => failure(e),
    }
}

/// Plans a Start of offer `id` of chat `chatId`: create the new chat, record
/// `started`, write the brief; or, when already started, the chat it started.
/// `permissions` orders permissions lowest first (default
/// `["read-only", "ask", "auto", "full-access"]`).
///
/// @example
/// const p = planStart(log, "chat-1", "s1", { permission: "auto" });
/// if (p.ok && p.kind === "create") await store.create(p.chatId, [p.session]);
#[wasm_bindgen(js_name = planStart, unchecked_return_type = "StartDecision")]
pub fn plan_start(
    #[wasm_bindgen(unchecked_param_type = "Log")] log: JsValue,
    #[wasm_bindgen(js_name = chatId, unchecked_param_type = "string")] chat_id: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
    #[wasm_bindgen(unchecked_param_type = "StartRequest")] request: Option<JsValue>,
    #[wasm_bindgen(unchecked_param_type = "readonly string[]")] permissions: Option<JsValue>,
) -> Result<JsValue, JsError> {
    let log = required_log(log)?;
    let chat_id = string_arg("chatId", chat_id)?;
    let id = string_arg("id", id)?;
    let request = options_from_js(request, &["model", "permission"])?;
    let request = StartRequest {
        model: optional_string(&request, "model")?,
        permission: optional_string(&request, "permission")?,
    };
    let order = permission_order(permissions)?;
    match settle::plan_start(&log, &chat_id, &id, &request, &order) {
        Ok(StartPlan::Create {
            chat_id,
            session,
            settled,
            brief,
        }) => to_js(&json!({
            "ok": true, "kind": "create", "chatId": chat_id,
            "session": Entry::Session(session),
            "settled": Entry::SuggestionSettled(settled),
            "brief": Entry::Message(brief),
        })),
        Ok(StartPlan::Started { chat_id, brief }) => to_js(&json!({
            "ok": true, "kind": "started", "chatId": chat_id, "brief": Entry::Message(brief),
        })),
        Err(e) => failure(e),
    }
}

/// Reads a started chat's log (`null`: it does not exist) against the offer
/// it should come from: `"needs_brief"` means write the plan's brief now.
///
/// @example
/// startedChat(await store.read(p.chatId), "chat-1", "s1"); // "complete"
#[wasm_bindgen(js_name = startedChat, unchecked_return_type = "StartedChatState")]
pub fn started_chat(
    #[wasm_bindgen(unchecked_param_type = "Log | null")] log: JsValue,
    #[wasm_bindgen(js_name = chatId, unchecked_param_type = "string")] chat_id: JsValue,
    #[wasm_bindgen(js_name = suggestionId, unchecked_param_type = "string")] suggestion_id: JsValue,
) -> Result<JsValue, JsError> {
    let log = log_from_js(log)?;
    let origin = Origin {
        chat_id: string_arg("chatId", chat_id)?,
        suggestion_id: string_arg("suggestionId", suggestion_id)?,
    };
    to_js(&settle::started_chat(log.as_deref(), &origin))
}

/// The lower of two permissions in `permissions` (lowest first; default
/// order when omitted). An unknown permission counts as the lowest.
///
/// @example
/// clampPermission("full-access", "ask"); // "ask"
#[wasm_bindgen(js_name = clampPermission, unchecked_return_type = "string")]
pub fn clamp_permission(
    #[wasm_bindgen(unchecked_param_type = "string | null")] wanted: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | null")] ceiling: JsValue,
    #[wasm_bindgen(unchecked_param_type = "readonly string[]")] permissions: Option<JsValue>,
) -> Result<JsValue, JsError> {
    let order = permission_order(permissions)?;
    let clamped = settle::clamp_permission(wanted.as_string().as_deref(), ceiling.as_string().as_deref(), &order);
    to_js(&clamped)
}

/// Refuses creating or completing a goal until the person has spoken in the
/// chat: a brief from a suggestion is not the person's instruction.
///
/// @example
/// const g = checkGoal(log, "create");
/// if (!g.ok) return g.error; // tell the model to ask the person first
#[wasm_bindgen(js_name = checkGoal, unchecked_return_type = "GoalCheck")]
pub fn check_goal(
    #[wasm_bindgen(unchecked_param_type = "Log")] log: JsValue,
    #[wasm_bindgen(unchecked_param_type = "GoalAction")] action: JsValue,
) -> Result<JsValue, JsError> {
    let log = required_log(log)?;
    let action = match string_arg("action", action)?.as_str() {
        "create" => GoalAction::Create,
        "complete" => GoalAction::Complete,
        other => {
            return Err(host(HostError::BadArgument {
                name: "action",
                why: format!("must be \"create\" or \"complete\" (got \"{other}\")"),
            }))
        }
    };
    match settle::check_goal(&log, action) {
        Ok(()) => to_js(&json!({ "ok": true })),
        Err(e) => refused(&e.to_string()),
    }
}

/// Both tool definitions. The package also exports them as constants
/// (`todoWriteTool`, `suggestTaskTool`), generated from this at build time so
/// a browser can read them before the module is initialised.
///
/// @example
/// const { todoWrite } = toolDefinitions(); // { name: "todo_write", description, inputSchema }
#[wasm_bindgen(js_name = toolDefinitions, unchecked_return_type = "ToolDefinitions")]
pub fn tool_definitions() -> Result<JsValue, JsError> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Tools {
        todo_write: tool::ToolDefinition,
        suggest_task: tool::ToolDefinition,
    }
    to_js(&Tools {
        todo_write: tool::todo_write_tool(),
        suggest_task: tool::suggest_task_tool(),
    })
}
