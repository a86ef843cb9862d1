//! `ChatStateCore`: one chat's fold, kept alive in WASM. The host builds it
//! from a log (as entry texts or JSONL bytes), feeds it only new entries, and
//! asks it every question; nothing re-reads the log.

use wasm_bindgen::prelude::*;

use super::convert::{answer, host, object, params, permission_order, tool_answer};
use crate::chat::Chat;
use crate::entry::{Entry, Origin};
use crate::error::{HostError, ServiceError};
use crate::json::write::{cat, uint_text};
use crate::json::Out;
use crate::jsonl::JsonlReader;
use crate::params::TodoWriteParams;
use crate::settle::{self, Decision, StartPlan};
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

/// A service failure: `{ ok: false, code, message, payload, <payload's name>, id? }`.
fn failure(error: &ServiceError) -> String {
    object(|out| {
        out.field("ok", &false);
        out.field("code", error.code());
        out.field("message", &error.text());
        match error {
            ServiceError::NotFound { id } => {
                out.field("payload", id);
                out.field("id", id);
            }
            ServiceError::NotOpen { id, outcome } => {
                out.field("payload", *outcome);
                out.field("id", id);
                out.field("outcome", *outcome);
            }
            ServiceError::OpenLimit { limit } => {
                out.field("payload", limit);
                out.field("limit", limit);
            }
            ServiceError::NoWorkspace { chat_id } | ServiceError::ScheduledFolder { chat_id } => {
                out.field("payload", chat_id);
                out.field("chatId", chat_id);
            }
        }
    })
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
            return Err(JsError::new(&cat(&[
                "oda-tasks: ingest got ",
                &uint_text(u64::from(fed)),
                " entry texts for ",
                &uint_text(u64::from(count)),
                " entries",
            ])));
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
    pub fn jsonl_report(&self) -> String {
        object(|out| {
            out.field("unreadable", &self.jsonl.unreadable);
            out.field("tornBytes", &self.jsonl.torn);
        })
    }

    /// JSON `{ todos, turns, turnOpen, turnsSinceUpdate }`: where the list and the turns stand, cards or not
    /// (the host's turn markers and the list's reminder read it).
    #[wasm_bindgen(js_name = listState)]
    pub fn list_state(&self) -> String {
        let turns = &self.chat.turns;
        object(|out| {
            out.field("todos", &self.chat.todos.todos);
            out.field("turns", &turns.started);
            out.field("turnOpen", &turns.open);
            out.field("turnsSinceUpdate", &turns.started_at_update.map(|at| turns.started - at));
        })
    }

    #[wasm_bindgen(js_name = todoWrite)]
    pub fn todo_write(&self, params_text: &str) -> Result<String, JsError> {
        let p = params("todoWrite", crate::params::todo_write(params_text))?;
        Ok(todo_write_answer(true, &p))
    }

    #[wasm_bindgen(js_name = suggestTask)]
    pub fn suggest_task(&self, params_text: &str) -> Result<String, JsError> {
        let p = params("suggestTask", crate::params::model_input(params_text))?;
        Ok(tool_answer(
            suggest::suggest_task(Some(&self.chat), &p.read())
                .map(|d| (Entry::SuggestionOffered(d.entry), d.output))
                .map_err(|e| e.text()),
        ))
    }

    #[wasm_bindgen(js_name = replayTodos)]
    pub fn replay_todos(&self) -> Result<String, JsError> {
        if !self.chat.todos.keeps_cards() {
            return Err(host(HostError::NoCards));
        }
        Ok(TodoReplay::json_of(&self.chat))
    }

    #[wasm_bindgen(js_name = replaySuggestions)]
    pub fn replay_suggestions(&self) -> String {
        answer(&SuggestionReplay::of(&self.chat))
    }

    #[wasm_bindgen(js_name = settleSuggestion)]
    pub fn settle_suggestion(&self, params_text: &str) -> Result<String, JsError> {
        let (id, action) = params("settleSuggestion", crate::params::settle(params_text))?;
        Ok(match settle::settle(&self.chat, &id, action) {
            Ok(Decision::Append(s)) => object(|out| {
                out.field("ok", &true);
                out.field("entry", &Entry::SuggestionSettled(s));
            }),
            Ok(Decision::Unchanged) => object(|out| {
                out.field("ok", &true);
                out.key("entry");
                out.null();
            }),
            Err(e) => failure(&e),
        })
    }

    #[wasm_bindgen(js_name = planStart)]
    pub fn plan_start(&self, params_text: &str) -> Result<String, JsError> {
        let p = params("planStart", crate::params::plan_start(params_text))?;
        let order = permission_order(p.permissions)?;
        let planned = |out: &mut Out, kind: &str, chat_id: &str| {
            out.field("kind", kind);
            out.field("ok", &true);
            out.field("chatId", chat_id);
        };
        Ok(
            match settle::plan_start(&self.chat, &p.chat_id, &p.id, &p.request, &order) {
                Ok(StartPlan::Create {
                    chat_id,
                    session,
                    settled,
                    brief,
                }) => object(|out| {
                    planned(out, "create", &chat_id);
                    out.field("session", &Entry::Session(session));
                    out.field("settled", &Entry::SuggestionSettled(settled));
                    out.field("brief", &Entry::Message(brief));
                }),
                Ok(StartPlan::Started { chat_id, brief }) => object(|out| {
                    planned(out, "started", &chat_id);
                    out.field("brief", &Entry::Message(brief));
                }),
                Err(e) => failure(&e),
            },
        )
    }

    #[wasm_bindgen(js_name = startedChat)]
    pub fn started_chat(&self, params_text: &str) -> Result<String, JsError> {
        let (chat_id, suggestion_id) = params("startedChat", crate::params::started_chat(params_text))?;
        let origin = Origin { chat_id, suggestion_id };
        Ok(answer(&settle::started_chat(Some(&self.chat), &origin)))
    }

    #[wasm_bindgen(js_name = checkGoal)]
    pub fn check_goal(&self, params_text: &str) -> Result<String, JsError> {
        let action = params("checkGoal", crate::params::goal(params_text))?;
        Ok(object(|out| match settle::check_goal(&self.chat, action) {
            Ok(()) => out.field("ok", &true),
            Err(e) => {
                out.field("ok", &false);
                out.field("error", &e.text());
            }
        }))
    }
}

/// `todo_write` with or without an owning session (the free export has none to hold).
pub(super) fn todo_write_answer(has_session: bool, p: &TodoWriteParams) -> String {
    let options = TodoOptions {
        one_active: p.one_active.unwrap_or(true),
    };
    tool_answer(
        todo::todo_write(has_session, &p.input.read(), options)
            .map(|d| (Entry::TodoUpdate(d.entry), d.output))
            .map_err(|e| e.text()),
    )
}
