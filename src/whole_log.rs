//! The pure functions over a whole log of JSON values, for native callers
//! and tests: each folds the log into a [`Chat`] and asks it (the
//! binding does the same with entries as text, or keeps the `Chat` alive
//! between calls).

use serde_json::Value;

use crate::chat::Chat;
use crate::entry::Origin;
use crate::error::{GoalError, ServiceError, SuggestError};
use crate::input::Input;
use crate::replay::{SuggestionReplay, TodoReplay};
use crate::settle::{self, Action, Decision, GoalAction, StartPlan, StartRequest, StartedChatState};
use crate::suggest::SuggestTask;

/// `suggest_task` on a log (`None`: no owning session).
pub fn suggest_task(log: Option<&[Value]>, input: &Value) -> Result<SuggestTask, SuggestError> {
    let chat = log.map(|log| Chat::from_values(log, false));
    crate::suggest_call::suggest_task(chat.as_ref(), &Input::from(input.clone()))
}

pub fn replay_todos(log: &[Value]) -> TodoReplay {
    TodoReplay::of(&Chat::from_values(log, true))
}

pub fn replay_suggestions(log: &[Value]) -> SuggestionReplay {
    SuggestionReplay::of(&Chat::from_values(log, false))
}

pub fn settle(log: &[Value], id: &str, action: Action) -> Result<Decision, ServiceError> {
    settle::settle(&Chat::from_values(log, false), id, action)
}

pub fn plan_start(
    log: &[Value],
    chat_id: &str,
    id: &str,
    request: &StartRequest,
    order: &[String],
) -> Result<StartPlan, ServiceError> {
    settle::plan_start(&Chat::from_values(log, false), chat_id, id, request, order)
}

pub fn started_chat(log: Option<&[Value]>, origin: &Origin) -> StartedChatState {
    let chat = log.map(|log| Chat::from_values(log, false));
    settle::started_chat(chat.as_ref(), origin)
}

pub fn check_goal(log: &[Value], action: GoalAction) -> Result<(), GoalError> {
    settle::check_goal(&Chat::from_values(log, false), action)
}
