//! `ChatStateCore`: one chat's fold, kept alive in WASM. The host builds it
//! from a log (as entry texts or JSONL bytes), feeds it only new entries, and
//! asks it every question; nothing re-reads the log.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::convert::{answer, host, params, permission_order, tool_answer, Channel, Text, Value};
use super::params::TodoWriteCall;
use crate::chat::Chat;
use crate::edit::{self, Edit, EditRefusal};
use crate::entry::{Entry, Origin};
use crate::error::{HostError, ServiceError};
use crate::jsonl::JsonlReader;
use crate::replay::{slice_range, SuggestionReplay, TodoReplay, View};
use crate::settle::{self, Decision, StartPlan};
use crate::todo::{self, TodoOptions};
use crate::{jsonl, suggest_call};

/// `listState`: the list and where the turns stand.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListState<'a> {
    todos: &'a [crate::entry::TodoItem],
    turns: usize,
    turn_open: bool,
    turns_since_update: Option<usize>,
}

/// `session`: what the chat's session entry names of it (a list of chats, a chat's heading).
#[derive(Serialize)]
struct SessionInfo<'a> {
    title: Option<&'a str>,
    workspace: Option<&'a str>,
}

/// One chat's state. Wrapped by the package's `ChatState` class.
///
/// # Examples
///
/// ```js
/// const core = new ChatStateCore(true);
/// core.ingest(0, 2, '{"type":"session"}\n{"type":"turn_started"}');
/// const [answer] = core.suggestTask('{"input":{"title":"t","tldr":"w","brief":"b"}}');
/// assert.equal(JSON.parse(answer).ok, true);
/// ```
#[wasm_bindgen]
pub struct ChatStateCore {
    pub(super) chat: Chat,
    jsonl: JsonlReader,
}

/// A service failure: `{ ok: false, code, message, payload, <payload's name>, id? }`.
fn failure<C: Channel>(error: &ServiceError) -> Result<C::Out, JsValue> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Failure<'a, P: Serialize> {
        ok: bool,
        code: &'static str,
        message: String,
        payload: P,
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        outcome: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        limit: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        chat_id: Option<&'a str>,
    }
    let (code, message) = (error.code(), error.to_string());
    let base = |payload| Failure {
        ok: false,
        code,
        message: message.clone(),
        payload,
        id: None,
        outcome: None,
        limit: None,
        chat_id: None,
    };
    match error {
        ServiceError::NotFound { id } => C::answer(&Failure {
            id: Some(id),
            ..base(id.as_str())
        }),
        ServiceError::NotOpen { id, outcome } => C::answer(&Failure {
            id: Some(id),
            outcome: Some(outcome),
            ..base(*outcome)
        }),
        ServiceError::OpenLimit { limit } => C::answer(&Failure {
            ok: false,
            code,
            message,
            payload: *limit,
            id: None,
            outcome: None,
            limit: Some(*limit),
            chat_id: None,
        }),
        ServiceError::NoWorkspace { chat_id } | ServiceError::ScheduledFolder { chat_id } => C::answer(&Failure {
            chat_id: Some(chat_id),
            ..base(chat_id.as_str())
        }),
    }
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

    /// The number of todo cards.
    #[wasm_bindgen(getter, js_name = cardCount)]
    pub fn card_count(&self) -> f64 {
        self.chat.todos.card_count() as f64
    }

    fn continues(&self, from: f64) -> Result<(), JsValue> {
        // An entry ingested now would go before the line the JSONL bytes began first.
        if self.jsonl.open_line() {
            return Err(host(HostError::HalfFedLine));
        }
        if from == self.chat.len as f64 {
            return Ok(());
        }
        Err(host(HostError::NotContinuing {
            from: if from.is_finite() && from >= 0.0 {
                from as usize
            } else {
                usize::MAX
            },
            length: self.chat.len,
        }))
    }

    /// Folds `count` entries given as JSON texts joined by `\n`, which must
    /// continue the log exactly at `from` (no gap, no double feed).
    pub fn ingest(&mut self, from: f64, count: u32, lines: &str) -> Result<(), JsValue> {
        self.continues(from)?;
        if count == 0 {
            return Ok(());
        }
        let mut fed = 0usize;
        for line in lines.split('\n') {
            self.chat.ingest(line);
            fed += 1;
        }
        if fed != count as usize {
            return Err(host(HostError::WrongCount {
                fed,
                count: count as usize,
            }));
        }
        Ok(())
    }

    /// Folds entries given as their JSON texts exactly as stored, continuing the log at `from`.
    #[wasm_bindgen(js_name = ingestTexts)]
    pub fn ingest_texts(&mut self, from: f64, texts: Vec<String>) -> Result<(), JsValue> {
        self.continues(from)?;
        for text in &texts {
            self.chat.ingest(text);
        }
        Ok(())
    }

    /// Lines of the JSONL fed from now on that are longer than `max_line` bytes are
    /// reported unreadable and skipped, never held whole (call before the first chunk).
    #[wasm_bindgen(js_name = limitJsonlLines)]
    pub fn limit_jsonl_lines(&mut self, max_line: f64) {
        self.jsonl = JsonlReader::with_max_line(max_line as usize);
    }

    /// Folds the next chunk of a JSONL log; a line may span chunks.
    #[wasm_bindgen(js_name = ingestJsonl)]
    pub fn ingest_jsonl(&mut self, bytes: &[u8]) {
        self.jsonl.feed(&mut self.chat, bytes);
    }

    /// Ends a JSONL stream: a last line without a line end counts only if it is complete JSON.
    #[wasm_bindgen(js_name = endJsonl)]
    pub fn end_jsonl(&mut self) {
        self.jsonl.finish(&mut self.chat);
    }

    /// JSON: `{ unreadable: [{ line, reason }], tornBytes }` of the JSONL read so far.
    #[wasm_bindgen(js_name = jsonlReport)]
    pub fn jsonl_report(&self) -> String {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Report<'a> {
            unreadable: &'a [jsonl::UnreadableLine],
            torn_bytes: usize,
        }
        answer(&Report {
            unreadable: &self.jsonl.unreadable,
            torn_bytes: self.jsonl.torn,
        })
    }

    /// JSON `{ todos, turns, turnOpen, turnsSinceUpdate }`: where the list and the turns stand, cards or not
    /// (the host's turn markers and the list's reminder read it).
    #[wasm_bindgen(js_name = listState)]
    pub fn list_state(&self) -> Result<String, JsValue> {
        self.list_state_in::<Text>()
    }

    /// `listState` as a value (only while the host's realm guard holds; so each `…Value` export).
    #[wasm_bindgen(js_name = listStateValue)]
    pub fn list_state_value(&self) -> Result<JsValue, JsValue> {
        self.list_state_in::<Value>()
    }

    /// JSON `{ title, workspace }` of the chat's session entry (each `null` when it names none), or
    /// `null` when the log has no session entry. A session that cannot be read names neither.
    #[wasm_bindgen(js_name = session)]
    pub fn session(&self) -> Result<String, JsValue> {
        Text::answer(&self.chat.session.as_ref().map(|s| SessionInfo {
            title: s.title.as_deref(),
            workspace: s.workspace.as_deref(),
        }))
    }

    /// `[answer JSON, entry text?]`. (The guard of a person's edit comes first: `told(true)`.)
    #[wasm_bindgen(js_name = todoWrite)]
    pub fn todo_write(&self, params_text: &str) -> Result<Vec<String>, JsValue> {
        let p = params("todoWrite", super::params::todo_write(params_text))?;
        todo_write_answer(true, &p, None)
    }

    /// `todoWrite`, and on success the card its entry makes when appended now,
    /// decided in one call: `[answer JSON, entry text, card JSON]` or `[answer JSON]`.
    #[wasm_bindgen(js_name = todoWriteCard)]
    pub fn todo_write_card(&self, params_text: &str) -> Result<Vec<String>, JsValue> {
        let p = params("todoWrite", super::params::todo_write(params_text))?;
        todo_write_answer(true, &p, Some(&self.chat))
    }

    /// A person's edit of the list, made on the log length `based_on` their
    /// screen showed, by `by` (the display name the app gave, well-formed: the
    /// host checks it): `[answer JSON, entry text?]`, the answer `{ ok: true,
    /// entry, output }`, `null` (the list already is the edited one: nothing
    /// to record), or `{ ok: false, error }` with the core's refusal of the
    /// list, or with the error `chat/changed` (no refusal text: those begin
    /// `Error:`) when the list changed after `based_on`.
    #[wasm_bindgen(js_name = editTodos)]
    pub fn edit_todos(&self, params_text: &str, based_on: f64, by: Option<String>) -> Result<Vec<String>, JsValue> {
        let p = params("editTodos", super::params::todo_write(params_text))?;
        let options = TodoOptions {
            one_active: p.one_active.unwrap_or(true),
        };
        // A length past any log (or not a whole number) is a change the screen did not see.
        let based_on = if based_on >= 0.0 && based_on.fract() == 0.0 {
            based_on as usize
        } else {
            usize::MAX
        };
        tool_answer::<Text>(
            match edit::edit_todos(&self.chat, &p.input.read(), based_on, by, options) {
                Ok(Edit::Append(update)) => Ok((Entry::TodoUpdate(update), String::new())),
                Ok(Edit::Unchanged) => return Ok(vec!["null".to_owned()]),
                Err(EditRefusal::Invalid(e)) => Err(e.to_string()),
                Err(EditRefusal::Changed) => Err("chat/changed".to_owned()),
            },
        )
    }

    /// JSON: the list as a short text for the model's context, or `null` for an empty list.
    #[wasm_bindgen(js_name = listText)]
    pub fn list_text(&self) -> String {
        answer(&edit::list_text(&self.chat.todos.todos))
    }

    /// What the model is told of a person's edit while one is the list's
    /// latest change and the model was not told of it: the integration's
    /// context text, or with `refusal` the refusal of a `todo_write` (which
    /// the host answers before deciding the call). `[{ ok: true, entry, output }
    /// JSON, entry text]`, `output` the text and `entry` the `todo_told` to
    /// record; `["null"]` when nothing is to be told.
    pub fn told(&self, refusal: bool) -> Result<Vec<String>, JsValue> {
        let told = if refusal {
            edit::stale_write(&self.chat)
        } else {
            edit::notice(&self.chat)
        };
        match told {
            None => Ok(vec!["null".to_owned()]),
            Some(told) => {
                let text = told.text.clone();
                tool_answer::<Text>(Ok((Entry::TodoTold(told), text)))
            }
        }
    }

    /// `[answer JSON, entry text?]`.
    #[wasm_bindgen(js_name = suggestTask)]
    pub fn suggest_task(&self, params_text: &str) -> Result<Vec<String>, JsValue> {
        self.suggest_task_in::<Text>(params_text)
    }

    /// JSON: the card the `todo_update` entry `entry_text` makes when appended
    /// now, or `null` for any other entry (cards kept or not).
    #[wasm_bindgen(js_name = nextCard)]
    pub fn next_card(&self, entry_text: &str) -> String {
        match crate::entry::read_entry(entry_text) {
            crate::entry::Read::Entry(Entry::TodoUpdate(update)) => {
                answer(&self.chat.next_card(update.todos, update.by))
            }
            _ => "null".to_owned(),
        }
    }

    #[wasm_bindgen(js_name = replayTodos)]
    pub fn replay_todos(&self) -> Result<String, JsValue> {
        self.replay_todos_in::<Text>()
    }

    #[wasm_bindgen(js_name = replayTodosValue)]
    pub fn replay_todos_value(&self) -> Result<JsValue, JsValue> {
        self.replay_todos_in::<Value>()
    }

    /// The first screen: `{ todos, plan, open, settled, cardCount, cards, skipped }` with the last `cards` cards.
    pub fn view(&self, cards: f64) -> Result<String, JsValue> {
        self.view_in::<Text>(cards)
    }

    #[wasm_bindgen(js_name = viewValue)]
    pub fn view_value(&self, cards: f64) -> Result<JsValue, JsValue> {
        self.view_in::<Value>(cards)
    }

    /// Cards `from..to`, with `Array.prototype.slice` semantics.
    pub fn cards(&self, from: f64, to: f64) -> Result<String, JsValue> {
        self.cards_in::<Text>(from, to)
    }

    #[wasm_bindgen(js_name = cardsValue)]
    pub fn cards_value(&self, from: f64, to: f64) -> Result<JsValue, JsValue> {
        self.cards_in::<Value>(from, to)
    }

    #[wasm_bindgen(js_name = replaySuggestions)]
    pub fn replay_suggestions(&self) -> Result<String, JsValue> {
        Text::answer(&SuggestionReplay::of(&self.chat))
    }

    #[wasm_bindgen(js_name = replaySuggestionsValue)]
    pub fn replay_suggestions_value(&self) -> Result<JsValue, JsValue> {
        Value::answer(&SuggestionReplay::of(&self.chat))
    }

    /// `[answer JSON, entry text?]`.
    #[wasm_bindgen(js_name = settleSuggestion)]
    pub fn settle_suggestion(&self, params_text: &str) -> Result<Vec<String>, JsValue> {
        self.settle_suggestion_in::<Text>(params_text)
    }

    /// `[answer JSON, entry texts…]` (create: session, settled, brief; started: brief).
    #[wasm_bindgen(js_name = planStart)]
    pub fn plan_start(&self, params_text: &str) -> Result<Vec<String>, JsValue> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Planned<'a> {
            kind: &'static str,
            ok: bool,
            chat_id: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            session: Option<&'a Entry>,
            #[serde(skip_serializing_if = "Option::is_none")]
            settled: Option<&'a Entry>,
            brief: &'a Entry,
        }
        let p = params("planStart", super::params::plan_start(params_text))?;
        let order = permission_order(p.permissions)?;
        Ok(
            match settle::plan_start(&self.chat, &p.chat_id, &p.id, &p.request, &order) {
                Ok(StartPlan::Create {
                    chat_id,
                    session,
                    settled,
                    brief,
                }) => {
                    let (session, settled, brief) = (
                        Entry::Session(session),
                        Entry::SuggestionSettled(settled),
                        Entry::Message(brief),
                    );
                    let plan = Planned {
                        kind: "create",
                        ok: true,
                        chat_id: &chat_id,
                        session: Some(&session),
                        settled: Some(&settled),
                        brief: &brief,
                    };
                    vec![answer(&plan), session.text(), settled.text(), brief.text()]
                }
                Ok(StartPlan::Started { chat_id, brief }) => {
                    let brief = Entry::Message(brief);
                    let plan = Planned {
                        kind: "started",
                        ok: true,
                        chat_id: &chat_id,
                        session: None,
                        settled: None,
                        brief: &brief,
                    };
                    vec![answer(&plan), brief.text()]
                }
                Err(e) => vec![failure::<Text>(&e)?],
            },
        )
    }

    #[wasm_bindgen(js_name = startedChat)]
    pub fn started_chat(&self, params_text: &str) -> Result<String, JsValue> {
        let (chat_id, suggestion_id) = params("startedChat", super::params::started_chat(params_text))?;
        let origin = Origin { chat_id, suggestion_id };
        Ok(answer(&settle::started_chat(Some(&self.chat), &origin)))
    }

    #[wasm_bindgen(js_name = checkGoal)]
    pub fn check_goal(&self, params_text: &str) -> Result<String, JsValue> {
        #[derive(Serialize)]
        struct Checked {
            ok: bool,
            #[serde(skip_serializing_if = "Option::is_none")]
            error: Option<String>,
        }
        let action = params("checkGoal", super::params::goal(params_text))?;
        let error = settle::check_goal(&self.chat, action).err().map(|e| e.to_string());
        Ok(answer(&Checked {
            ok: error.is_none(),
            error,
        }))
    }
}

/// Each answer once, for either channel.
impl ChatStateCore {
    fn cards_kept(&self) -> Result<(), JsValue> {
        match self.chat.todos.keeps_cards() {
            true => Ok(()),
            false => Err(host(HostError::NoCards)),
        }
    }

    fn list_state_in<C: Channel>(&self) -> Result<C::Out, JsValue> {
        let turns = &self.chat.turns;
        C::answer(&ListState {
            todos: &self.chat.todos.todos,
            turns: turns.started,
            turn_open: turns.open,
            turns_since_update: turns.started_at_update.map(|at| turns.started - at),
        })
    }

    fn suggest_task_in<C: Channel>(&self, params_text: &str) -> Result<Vec<C::Out>, JsValue> {
        let p = params("suggestTask", super::params::model_input(params_text))?;
        tool_answer::<C>(
            suggest_call::suggest_task(Some(&self.chat), &p.read())
                .map(|d| (Entry::SuggestionOffered(d.entry), d.output))
                .map_err(|e| e.to_string()),
        )
    }

    fn replay_todos_in<C: Channel>(&self) -> Result<C::Out, JsValue> {
        self.cards_kept()?;
        C::answer(&TodoReplay::of(&self.chat))
    }

    fn view_in<C: Channel>(&self, cards: f64) -> Result<C::Out, JsValue> {
        self.cards_kept()?;
        let n = if cards.is_finite() && cards > 0.0 {
            cards as usize
        } else {
            0
        };
        C::answer(&View::of(&self.chat, n))
    }

    fn cards_in<C: Channel>(&self, from: f64, to: f64) -> Result<C::Out, JsValue> {
        self.cards_kept()?;
        let (from, to) = slice_range(from, to, self.chat.todos.card_count());
        C::answer(&self.chat.todos.cards(from, to))
    }

    fn settle_suggestion_in<C: Channel>(&self, params_text: &str) -> Result<Vec<C::Out>, JsValue> {
        #[derive(Serialize)]
        struct Settled<'a> {
            ok: bool,
            entry: Option<&'a Entry>,
        }
        let (id, action) = params("settleSuggestion", super::params::settle(params_text))?;
        Ok(match settle::settle(&self.chat, &id, action) {
            Ok(Decision::Append(s)) => {
                let entry = Entry::SuggestionSettled(s);
                vec![
                    C::answer(&Settled {
                        ok: true,
                        entry: Some(&entry),
                    })?,
                    C::text(entry.text()),
                ]
            }
            Ok(Decision::Unchanged) => vec![C::answer(&Settled { ok: true, entry: None })?],
            Err(e) => vec![failure::<C>(&e)?],
        })
    }
}

/// `todo_write` with or without an owning session (the free export has none
/// to hold); with `card_of`, the card the entry makes on that chat comes last.
pub(super) fn todo_write_answer(
    has_session: bool,
    p: &TodoWriteCall,
    card_of: Option<&Chat>,
) -> Result<Vec<String>, JsValue> {
    let options = TodoOptions {
        one_active: p.one_active.unwrap_or(true),
    };
    let decided = todo::todo_write(has_session, &p.input.read(), options);
    let card = match (&decided, card_of) {
        (Ok(d), Some(chat)) => Some(answer(&chat.next_card(d.entry.todos.clone(), None))),
        _ => None,
    };
    let mut parts = tool_answer::<Text>(
        decided
            .map(|d| (Entry::TodoUpdate(d.entry), d.output))
            .map_err(|e| e.to_string()),
    )?;
    parts.extend(card);
    Ok(parts)
}
