//! The binding's params: JSON text the host layer wrote, read into typed
//! structs. Unknown fields are refused, and every refusal is worded as it was
//! when serde's derive read these structs (without a position: the host never
//! sees the params text), because it reaches the host as an `oda-tasks:` error.

use std::borrow::Cow;

use crate::json::read::{Field, Parser, Shape};
use crate::json::{Error, Input, LONE_SURROGATE};
use crate::settle::{Action, GoalAction, StartRequest};

/// Why params could not be read.
pub type Why = String;

/// Reads a whole params text with `read`.
fn read_params<'a>(text: &'a str, shape: &Shape, field: Field<'a, '_>) -> Result<(), Why> {
    let mut p = Parser::new(text.as_bytes());
    // The message without its place in the params text.
    p.read_struct(shape, field)
        .and_then(|()| p.end())
        .map_err(|e| e.message().to_string())
}

fn shape(expecting: &'static str, fields: &'static [&'static str], optional: u32, defaulted: u32) -> Shape {
    Shape {
        expecting,
        fields,
        deny_unknown: true,
        last_wins: false,
        optional,
        defaulted,
    }
}

/// A string that must be well-formed Unicode.
fn string(p: &mut Parser) -> Result<String, Error> {
    p.loose_text("a string", LONE_SURROGATE).map(Cow::into_owned)
}

fn optional_text(p: &mut Parser) -> Result<Option<String>, Error> {
    if p.null()? {
        return Ok(None);
    }
    string(p).map(Some)
}

/// A permission order: `null` or an array of strings.
fn text_list(p: &mut Parser) -> Result<Option<Vec<String>>, Error> {
    if p.null()? {
        return Ok(None);
    }
    let mut list = Vec::new();
    p.read_seq(&mut |p| {
        list.push(string(p)?);
        Ok(())
    })?;
    Ok(Some(list))
}

/// A model's input as the host passes it: its JSON text, or why the host
/// could not serialise it (too large, a getter that threw, a cycle).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ModelInput<'a> {
    pub input: Option<&'a str>,
    pub unreadable: Option<String>,
}

impl ModelInput<'_> {
    pub fn read(&self) -> Input {
        match (&self.unreadable, self.input) {
            (Some(why), _) => Input::Unreadable(why.clone()),
            (None, Some(raw)) => Input::parse(raw),
            (None, None) => Input::Unreadable("there is no input".to_string()),
        }
    }

    /// `input` (unparsed) and `unreadable`, fields 0 and 1 of a params struct.
    fn field<'a>(into: &mut ModelInput<'a>, p: &mut Parser<'a>, k: usize) -> Result<(), Error> {
        match k {
            0 => {
                if !p.null()? {
                    into.input = std::str::from_utf8(p.raw_value()?).ok();
                }
            }
            _ => {
                if !p.null()? {
                    into.unreadable = Some(p.strict_text("a string")?.into_owned());
                }
            }
        }
        Ok(())
    }
}

/// `suggestTask`'s params.
pub fn model_input(text: &str) -> Result<ModelInput<'_>, Why> {
    let mut m = ModelInput::default();
    read_params(
        text,
        &shape("struct ModelInput", &["input", "unreadable"], 0b11, 0b11),
        &mut |p, k| ModelInput::field(&mut m, p, k),
    )?;
    Ok(m)
}

/// `todoWrite`'s params: the model's input and the one-active option.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct TodoWriteParams<'a> {
    pub input: ModelInput<'a>,
    pub one_active: Option<bool>,
}

pub fn todo_write(text: &str) -> Result<TodoWriteParams<'_>, Why> {
    let mut params = TodoWriteParams::default();
    let fields = &["input", "unreadable", "options"];
    read_params(
        text,
        &shape("struct TodoWriteParams", fields, 0b111, 0b111),
        &mut |p, k| {
            if k < 2 {
                return ModelInput::field(&mut params.input, p, k);
            }
            if p.null()? {
                return Ok(());
            }
            p.read_struct(
                &shape("struct TodoWriteOptions", &["oneActive"], 0b1, 0b1),
                &mut |p, _| {
                    if !p.null()? {
                        params.one_active = Some(p.boolean()?);
                    }
                    Ok(())
                },
            )
        },
    )?;
    Ok(params)
}

/// `settleSuggestion`'s params.
pub fn settle(text: &str) -> Result<(String, Action), Why> {
    let (mut id, mut action) = (String::new(), Action::Draft);
    read_params(
        text,
        &shape("struct SettleParams", &["id", "action"], 0, 0),
        &mut |p, k| {
            if k == 0 {
                id = string(p)?;
            } else {
                action = match p.read_variant(&["draft", "dismiss", "restore"])? {
                    0 => Action::Draft,
                    1 => Action::Dismiss,
                    _ => Action::Restore,
                };
            }
            Ok(())
        },
    )?;
    Ok((id, action))
}

/// `planStart`'s params.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PlanStartParams {
    pub chat_id: String,
    pub id: String,
    pub request: StartRequest,
    pub permissions: Option<Vec<String>>,
}

pub fn plan_start(text: &str) -> Result<PlanStartParams, Why> {
    let mut params = PlanStartParams::default();
    let fields = &["chatId", "id", "request", "permissions"];
    read_params(
        text,
        &shape("struct PlanStartParams", fields, 0b1100, 0b1100),
        &mut |p, k| {
            match k {
                0 => params.chat_id = string(p)?,
                1 => params.id = string(p)?,
                2 => {
                    if !p.null()? {
                        let request = &mut params.request;
                        let fields = &["model", "permission"];
                        p.read_struct(&shape("struct StartRequestParams", fields, 0b11, 0b11), &mut |p, k| {
                            let value = optional_text(p)?;
                            if k == 0 {
                                request.model = value;
                            } else {
                                request.permission = value;
                            }
                            Ok(())
                        })?;
                    }
                }
                _ => params.permissions = text_list(p)?,
            }
            Ok(())
        },
    )?;
    Ok(params)
}

/// `startedChat`'s params: the offering chat and the suggestion.
pub fn started_chat(text: &str) -> Result<(String, String), Why> {
    let (mut chat_id, mut suggestion_id) = (String::new(), String::new());
    let fields = &["chatId", "suggestionId"];
    read_params(text, &shape("struct StartedChatParams", fields, 0, 0), &mut |p, k| {
        if k == 0 {
            chat_id = string(p)?;
        } else {
            suggestion_id = string(p)?;
        }
        Ok(())
    })?;
    Ok((chat_id, suggestion_id))
}

/// `checkGoal`'s params.
pub fn goal(text: &str) -> Result<GoalAction, Why> {
    let mut action = GoalAction::Create;
    read_params(text, &shape("struct GoalParams", &["action"], 0, 0), &mut |p, _| {
        if p.read_variant(&["create", "complete"])? == 1 {
            action = GoalAction::Complete;
        }
        Ok(())
    })?;
    Ok(action)
}

/// `clampPermission`'s params.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ClampParams {
    pub wanted: Option<String>,
    pub ceiling: Option<String>,
    pub permissions: Option<Vec<String>>,
}

pub fn clamp(text: &str) -> Result<ClampParams, Why> {
    let mut params = ClampParams::default();
    let fields = &["wanted", "ceiling", "permissions"];
    // `wanted` and `ceiling` may be missing from an object, not from an array.
    read_params(text, &shape("struct ClampParams", fields, 0b111, 0b100), &mut |p, k| {
        match k {
            0 => params.wanted = optional_text(p)?,
            1 => params.ceiling = optional_text(p)?,
            _ => params.permissions = text_list(p)?,
        }
        Ok(())
    })?;
    Ok(params)
}

#[cfg(test)]
#[path = "params_oracle.rs"]
mod oracle;
