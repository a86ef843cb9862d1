//! `ChatStateCore`: one chat's fold, kept alive in WASM. The host builds it
//! from a log (as entry texts or JSONL bytes), feeds it only new entries, and
//! asks it every question; nothing re-reads the log.

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use super::convert::{answer, host, params, params_borrowed, permission_order, tool_answer, ModelInput};
use crate::chat::Chat;
use crate::entry::{Entry, Origin};
use crate::error::HostError;
use crate::json::OwnedText;
use crate::jsonl::JsonlReader;
use crate::settle::{self, Action, Decision, GoalAction, StartPlan, StartRequest};
use crate::suggest::{self, SuggestionReplay};
use crate::todo::{self, TodoOptions, TodoReplay};

/// One chat's state. Wrapped by the package's `ChatState` class.
///
/// @example
/// const core = new ChatStateCore(true);
/// core.ingest(0, 2, '{"type":"session"}\n{"type":"turn_started"}');
/// JSON.parse(core.suggestTask('{"input":{"title":"t","tldr":"w","brief":"b"}}')).ok; // true
#[wasm_bindgen]
pub struct ChatStateCore {
    chat: Chat,
    jsonl: JsonlReader,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TodoWriteOptions {
    #[serde(default)]
    one_active: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TodoWriteParams<'a> {
    #[serde(borrow, default)]
    input: Option<&'a serde_json::value::RawValue>,
    #[serde(default)]
    unreadable: Option<String>,
    #[serde(default)]
    options: Option<TodoWriteOptions>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SettleParams {
    id: OwnedText,
    action: SettleAction,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum SettleAction {
    Draft,
    Dismiss,
    Restore,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct StartRequestParams {
    #[serde(default)]
    model: Option<OwnedText>,
    #[serde(default)]
    permission: Option<OwnedText>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PlanStartParams {
    chat_id: OwnedText,
    id: OwnedText,
    #[serde(default)]
    request: Option<StartRequestParams>,
    #[serde(default)]
    permissions: Option<Vec<OwnedText>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct StartedChatParams {
    chat_id: OwnedText,
    suggestion_id: OwnedText,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GoalParams {
    action: GoalActionParam,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum GoalActionParam {
    Create,
    Complete,
}

/// A service failure: `{ ok: false, code, message, payload, <payload's name>, id? }`.
#[derive(Serialize)]
struct Failure<'a> {
    ok: bool,
    code: &'static str,
    message: String,
    payload: serde_json::Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none", rename = "chatId")]
    chat_id: Option<&'a str>,
}

fn failure(error: &crate::error::ServiceError) -> Result<String, JsError> {
    use crate::error::ServiceError as E;
    let mut f = Failure {
        ok: false,
        code: error.code(),
        message: error.to_string(),
        payload: serde_json::Value::Null,
        id: None,
        outcome: None,
        limit: None,
        chat_id: None,
    };
    match error {
        E::NotFound { id } => {
            f.payload = id.as_str().into();
            f.id = Some(id);
        }
        E::NotOpen { id, outcome } => {
            f.payload = (*outcome).into();
            f.id = Some(id);
            f.outcome = Some(outcome);
        }
        E::OpenLimit { limit } => {
            f.payload = (*limit).into();
            f.limit = Some(*limit);
        }
        E::NoWorkspace { chat_id } | E::ScheduledFolder { chat_id } => {
            f.payload = chat_id.as_str().into();
            f.chat_id = Some(chat_id);
        }
    }
    answer(&f)
}

#[wasm_bindgen]
impl ChatStateCore {
    /// An empty chat; `cards` keeps a card per todo update (display needs them, decisions do not).
    #[wasm_bindgen(constructor)]
    pub fn new(cards: bool) -> ChatStateCore {
        ChatStateCore {
            chat: Chat::new(cards),
            jsonl: JsonlReader::default(),
        }
    }

    /// Entries folded so far: the log's length.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> f64 {
        self.chat.len as f64
    }

    #[wasm_bindgen(getter, js_name = keepsCards)]
    pub fn keeps_cards(&self) -> bool {
        self.chat.todos.keeps_cards()
    }

    /// Folds `count` entries given as JSON texts joined by `\n`, which must
    /// continue the log exactly at `from` (no gap, no double feed).
    pub fn ingest(&mut self, from: f64, count: u32, lines: &str) -> Result<(), JsError> {
        if from != self.chat.len as f64 {
            return Err(host(HostError::NotContinuing {
                from: if from.is_finite() && from >= 0.0 {
                    from as usize
                } else {
                    usize::MAX
                },
                length: self.chat.len,
            }));
        }
        if count == 0 {
            return Ok(());
        }
        let mut fed = 0u32;
        for line in lines.split('\n') {
            self.chat.ingest(line);
            fed += 1;
        }
        if fed != count {
            return Err(JsError::new(&format!(
                "oda-tasks: ingest got {fed} entry texts for {count} entries"
            )));
        }
        Ok(())
    }

    /// Folds the next chunk of a JSONL log; a line may span chunks.
    #[wasm_bindgen(js_name = ingestJsonl)]
    pub fn ingest_jsonl(&mut self, bytes: &[u8]) {
        self.jsonl.feed(&mut self.chat, bytes);
    }

    /// Ends a JSONL stream: a last line without a newline counts only if it is complete JSON.
    #[wasm_bindgen(js_name = endJsonl)]
    pub fn end_jsonl(&mut self) {
        self.jsonl.finish(&mut self.chat);
    }

    /// JSON: `{ unreadable: [{ line, reason }], tornBytes }` of the JSONL read so far.
    #[wasm_bindgen(js_name = jsonlReport)]
    pub fn jsonl_report(&self) -> Result<String, JsError> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Report<'a> {
            unreadable: &'a [crate::jsonl::UnreadableLine],
            torn_bytes: usize,
        }
        answer(&Report {
            unreadable: &self.jsonl.unreadable,
            torn_bytes: self.jsonl.torn,
        })
    }

    #[wasm_bindgen(js_name = todoWrite)]
    pub fn todo_write(&self, params_text: &str) -> Result<String, JsError> {
        let p: TodoWriteParams = params_borrowed("todoWrite", params_text)?;
        todo_write_answer(true, &p)
    }

    #[wasm_bindgen(js_name = suggestTask)]
    pub fn suggest_task(&self, params_text: &str) -> Result<String, JsError> {
        let p: ModelInput = params_borrowed("suggestTask", params_text)?;
        tool_answer(
            suggest::suggest_task(Some(&self.chat), &p.read()).map(|d| (Entry::SuggestionOffered(d.entry), d.output)),
        )
    }

    #[wasm_bindgen(js_name = replayTodos)]
    pub fn replay_todos(&self) -> Result<String, JsError> {
        if !self.chat.todos.keeps_cards() {
            return Err(host(HostError::NoCards));
        }
        answer(&TodoReplay::of(&self.chat))
    }

    #[wasm_bindgen(js_name = replaySuggestions)]
    pub fn replay_suggestions(&self) -> Result<String, JsError> {
        answer(&SuggestionReplay::of(&self.chat))
    }

    #[wasm_bindgen(js_name = settleSuggestion)]
    pub fn settle_suggestion(&self, params_text: &str) -> Result<String, JsError> {
        let p: SettleParams = params("settleSuggestion", params_text)?;
        let action = match p.action {
            SettleAction::Draft => Action::Draft,
            SettleAction::Dismiss => Action::Dismiss,
            SettleAction::Restore => Action::Restore,
        };
        #[derive(Serialize)]
        struct Settled<'a> {
            ok: bool,
            entry: Option<&'a Entry>,
        }
        match settle::settle(&self.chat, &p.id.0, action) {
            Ok(Decision::Append(s)) => answer(&Settled {
                ok: true,
                entry: Some(&Entry::SuggestionSettled(s)),
            }),
            Ok(Decision::Unchanged) => answer(&Settled { ok: true, entry: None }),
            Err(e) => failure(&e),
        }
    }

    #[wasm_bindgen(js_name = planStart)]
    pub fn plan_start(&self, params_text: &str) -> Result<String, JsError> {
        let p: PlanStartParams = params("planStart", params_text)?;
        let request = p.request.map_or_else(StartRequest::default, |r| StartRequest {
            model: r.model.map(|t| t.0),
            permission: r.permission.map(|t| t.0),
        });
        let order = permission_order(p.permissions)?;
        #[derive(Serialize)]
        #[serde(tag = "kind", rename_all = "camelCase")]
        enum Planned {
            #[serde(rename = "create", rename_all = "camelCase")]
            Create {
                ok: bool,
                chat_id: String,
                session: Entry,
                settled: Entry,
                brief: Entry,
            },
            #[serde(rename = "started", rename_all = "camelCase")]
            Started { ok: bool, chat_id: String, brief: Entry },
        }
        match settle::plan_start(&self.chat, &p.chat_id.0, &p.id.0, &request, &order) {
            Ok(StartPlan::Create {
                chat_id,
                session,
                settled,
                brief,
            }) => answer(&Planned::Create {
                ok: true,
                chat_id,
                session: Entry::Session(session),
                settled: Entry::SuggestionSettled(settled),
                brief: Entry::Message(brief),
            }),
            Ok(StartPlan::Started { chat_id, brief }) => answer(&Planned::Started {
                ok: true,
                chat_id,
                brief: Entry::Message(brief),
            }),
            Err(e) => failure(&e),
        }
    }

    #[wasm_bindgen(js_name = startedChat)]
    pub fn started_chat(&self, params_text: &str) -> Result<String, JsError> {
        let p: StartedChatParams = params("startedChat", params_text)?;
        let origin = Origin {
            chat_id: p.chat_id.0,
            suggestion_id: p.suggestion_id.0,
        };
        answer(&settle::started_chat(Some(&self.chat), &origin))
    }

    #[wasm_bindgen(js_name = checkGoal)]
    pub fn check_goal(&self, params_text: &str) -> Result<String, JsError> {
        let p: GoalParams = params("checkGoal", params_text)?;
        let action = match p.action {
            GoalActionParam::Create => GoalAction::Create,
            GoalActionParam::Complete => GoalAction::Complete,
        };
        #[derive(Serialize)]
        struct Goal {
            ok: bool,
            #[serde(skip_serializing_if = "Option::is_none")]
            error: Option<String>,
        }
        answer(&match settle::check_goal(&self.chat, action) {
            Ok(()) => Goal { ok: true, error: None },
            Err(e) => Goal {
                ok: false,
                error: Some(e.to_string()),
            },
        })
    }
}

/// `todo_write` with or without an owning session (the free export has none to hold).
pub(super) fn todo_write_answer(has_session: bool, p: &TodoWriteParams) -> Result<String, JsError> {
    let options = TodoOptions {
        one_active: p.options.as_ref().and_then(|o| o.one_active).unwrap_or(true),
    };
    tool_answer(
        todo::todo_write(has_session, &ModelInput::read_parts(p.input, &p.unreadable), options)
            .map(|d| (Entry::TodoUpdate(d.entry), d.output)),
    )
}

pub(super) use TodoWriteParams as TodoWriteArgs;
