//! Text in, text out: reading an export's params and writing its answer.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use wasm_bindgen::JsError;

use crate::error::HostError;
use crate::json::Input;

/// Reads an export's params (JSON text the host wrote) into its typed struct.
pub fn params<T: DeserializeOwned>(call: &'static str, text: &str) -> Result<T, JsError> {
    serde_json::from_str(text).map_err(|e| bad_params(call, &e))
}

/// Reads params that borrow from the text (a model's input kept raw).
pub fn params_borrowed<'a, T: Deserialize<'a>>(call: &'static str, text: &'a str) -> Result<T, JsError> {
    serde_json::from_str(text).map_err(|e| bad_params(call, &e))
}

/// serde's message without its position in the params text, which the host never sees.
fn bad_params(call: &'static str, e: &serde_json::Error) -> JsError {
    let text = e.to_string();
    let why = match text.rfind(" at line ") {
        Some(at) => text.get(..at).unwrap_or(&text).to_string(),
        None => text,
    };
    host(HostError::BadArguments { call, why })
}

/// The one serializer: the answer as JSON text, parsed by the host.
pub fn answer<T: Serialize + ?Sized>(value: &T) -> Result<String, JsError> {
    serde_json::to_string(value).map_err(|e| JsError::new(&format!("oda-tasks: {e}")))
}

pub fn host(error: HostError) -> JsError {
    JsError::new(&error.to_string())
}

/// A model's input as the host passes it: its JSON text, or why the host
/// could not serialise it (too large, a getter that threw, a cycle).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelInput<'a> {
    #[serde(borrow, default)]
    pub input: Option<&'a RawValue>,
    #[serde(default)]
    pub unreadable: Option<String>,
}

impl ModelInput<'_> {
    pub fn read(&self) -> Input {
        Self::read_parts(self.input, &self.unreadable)
    }

    pub fn read_parts(input: Option<&RawValue>, unreadable: &Option<String>) -> Input {
        match (unreadable, input) {
            (Some(why), _) => Input::Unreadable(why.clone()),
            (None, Some(raw)) => Input::parse(raw.get()),
            (None, None) => Input::Unreadable("there is no input".to_string()),
        }
    }
}

/// `{ ok: true, entry, output }` or `{ ok: false, error }`.
#[derive(Serialize)]
#[serde(untagged)]
pub enum ToolAnswer<'a> {
    Accepted {
        ok: bool,
        entry: &'a crate::entry::Entry,
        output: &'a str,
    },
    Refused {
        ok: bool,
        error: String,
    },
}

pub fn tool_answer<E: std::fmt::Display>(result: Result<(crate::entry::Entry, String), E>) -> Result<String, JsError> {
    match result {
        Ok((entry, output)) => answer(&ToolAnswer::Accepted {
            ok: true,
            entry: &entry,
            output: &output,
        }),
        Err(e) => answer(&ToolAnswer::Refused {
            ok: false,
            error: e.to_string(),
        }),
    }
}

/// A permission order: lowest first, non-empty, the core's default when absent.
pub fn permission_order(order: Option<Vec<crate::json::OwnedText>>) -> Result<Vec<String>, JsError> {
    match order {
        None => Ok(crate::settle::DEFAULT_PERMISSIONS
            .iter()
            .map(|p| p.to_string())
            .collect()),
        Some(order) if order.is_empty() => Err(host(HostError::BadArguments {
            call: "permissions",
            why: "`permissions` must be a non-empty array of strings, lowest first".to_string(),
        })),
        Some(order) => Ok(order.into_iter().map(|t| t.0).collect()),
    }
}
