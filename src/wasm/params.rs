//! The binding's params: JSON text the host layer wrote, read into typed
//! structs by serde's derive (`deny_unknown_fields`). A refusal reaches the
//! host as an `oda-tasks:` error, worded as serde words it, without its place
//! in the params text (the host never sees that text).

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use crate::input::Input;
use crate::settle::{Action, GoalAction, StartRequest};
use crate::text::Text;

/// Why params could not be read.
pub type Why = String;

/// Reads a whole params text.
fn read<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, Why> {
    serde_json::from_str(text).map_err(|e| without_place(&e))
}

/// serde_json's message without " at line L column C".
fn without_place(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match (e.line(), text.rfind(" at line ")) {
        (1.., Some(at)) => text.get(..at).unwrap_or_default().to_string(),
        _ => text,
    }
}

/// A string the host wrote: a lone surrogate escape is refused by name.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct HostText(pub String);

impl<'de> Deserialize<'de> for HostText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<HostText, D::Error> {
        Text::deserialize(d).map(|text| HostText(text.0.into_owned()))
    }
}

fn texts(list: Option<Vec<HostText>>) -> Option<Vec<String>> {
    list.map(|list| list.into_iter().map(|t| t.0).collect())
}

/// A model's input as the host passes it: its JSON text, or why the host
/// could not serialise it (too large, a getter that threw, a cycle).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelInput<'a> {
    #[serde(default, borrow)]
    pub input: Option<&'a RawValue>,
    #[serde(default)]
    pub unreadable: Option<String>,
}

impl ModelInput<'_> {
    pub fn read(&self) -> Input {
        match (&self.unreadable, self.input) {
            (Some(why), _) => Input::Unreadable(why.clone()),
            (None, Some(raw)) => Input::parse(raw.get()),
            (None, None) => Input::Unreadable("there is no input".to_string()),
        }
    }
}

/// `suggestTask`'s params.
pub fn model_input(text: &str) -> Result<ModelInput<'_>, Why> {
    read(text)
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TodoWriteOptions {
    #[serde(default)]
    one_active: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TodoWriteParams<'a> {
    #[serde(default, borrow)]
    input: Option<&'a RawValue>,
    #[serde(default)]
    unreadable: Option<String>,
    #[serde(default)]
    options: Option<TodoWriteOptions>,
}

/// `todoWrite`'s params (and `editTodos`'): the input and the one-active option.
#[derive(Debug, Default)]
pub struct TodoWriteCall<'a> {
    pub input: ModelInput<'a>,
    pub one_active: Option<bool>,
}

pub fn todo_write(text: &str) -> Result<TodoWriteCall<'_>, Why> {
    let p: TodoWriteParams = read(text)?;
    Ok(TodoWriteCall {
        input: ModelInput {
            input: p.input,
            unreadable: p.unreadable,
        },
        one_active: p.options.and_then(|o| o.one_active),
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum SettleAction {
    Draft,
    Dismiss,
    Restore,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SettleParams {
    id: HostText,
    action: SettleAction,
}

/// `settleSuggestion`'s params.
pub fn settle(text: &str) -> Result<(String, Action), Why> {
    let p: SettleParams = read(text)?;
    let action = match p.action {
        SettleAction::Draft => Action::Draft,
        SettleAction::Dismiss => Action::Dismiss,
        SettleAction::Restore => Action::Restore,
    };
    Ok((p.id.0, action))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StartRequestParams {
    #[serde(default)]
    model: Option<HostText>,
    #[serde(default)]
    permission: Option<HostText>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PlanStartParams {
    chat_id: HostText,
    id: HostText,
    #[serde(default)]
    request: Option<StartRequestParams>,
    #[serde(default)]
    permissions: Option<Vec<HostText>>,
}

/// `planStart`'s params.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PlanStartCall {
    pub chat_id: String,
    pub id: String,
    pub request: StartRequest,
    pub permissions: Option<Vec<String>>,
}

pub fn plan_start(text: &str) -> Result<PlanStartCall, Why> {
    let p: PlanStartParams = read(text)?;
    let request = p.request.map_or_else(StartRequest::default, |r| StartRequest {
        model: r.model.map(|t| t.0),
        permission: r.permission.map(|t| t.0),
    });
    Ok(PlanStartCall {
        chat_id: p.chat_id.0,
        id: p.id.0,
        request,
        permissions: texts(p.permissions),
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct StartedChatParams {
    chat_id: HostText,
    suggestion_id: HostText,
}

/// `startedChat`'s params: the offering chat and the suggestion.
pub fn started_chat(text: &str) -> Result<(String, String), Why> {
    let p: StartedChatParams = read(text)?;
    Ok((p.chat_id.0, p.suggestion_id.0))
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Goal {
    Create,
    Complete,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GoalParams {
    action: Goal,
}

/// `checkGoal`'s params.
pub fn goal(text: &str) -> Result<GoalAction, Why> {
    let p: GoalParams = read(text)?;
    Ok(match p.action {
        Goal::Create => GoalAction::Create,
        Goal::Complete => GoalAction::Complete,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClampParams {
    wanted: Option<HostText>,
    ceiling: Option<HostText>,
    #[serde(default)]
    permissions: Option<Vec<HostText>>,
}

/// `clampPermission`'s params.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Clamp {
    pub wanted: Option<String>,
    pub ceiling: Option<String>,
    pub permissions: Option<Vec<String>>,
}

pub fn clamp(text: &str) -> Result<Clamp, Why> {
    let p: ClampParams = read(text)?;
    Ok(Clamp {
        wanted: p.wanted.map(|t| t.0),
        ceiling: p.ceiling.map(|t| t.0),
        permissions: texts(p.permissions),
    })
}
