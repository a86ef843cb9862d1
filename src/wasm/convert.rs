//! Text in, text out: reading an export's params and writing its answer.

use serde::Serialize;
use wasm_bindgen::JsValue;

use super::params::Why;
use crate::entry::Entry;
use crate::error::HostError;

/// Params that could not be read, as the host's error.
pub fn params<T>(call: &'static str, read: Result<T, Why>) -> Result<T, JsValue> {
    read.map_err(|why| host(HostError::BadArguments { call, why }))
}

/// The one serializer: the answer as JSON text, parsed by the host.
pub fn answer<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Host misuse, thrown as a `TypeError`.
pub fn host(error: HostError) -> JsValue {
    js_sys::TypeError::new(&error.to_string()).into()
}

/// `{ ok: true, entry, output }` or `{ ok: false, error }`, and the entry's stored text.
pub fn tool_answer(result: Result<(Entry, String), String>) -> Vec<String> {
    #[derive(Serialize)]
    #[serde(untagged)]
    enum ToolAnswer<'a> {
        Done {
            ok: bool,
            entry: &'a Entry,
            output: &'a str,
        },
        Refused {
            ok: bool,
            error: &'a str,
        },
    }
    match &result {
        Ok((entry, output)) => vec![
            answer(&ToolAnswer::Done {
                ok: true,
                entry,
                output,
            }),
            entry.text(),
        ],
        Err(error) => vec![answer(&ToolAnswer::Refused { ok: false, error })],
    }
}

/// A permission order: lowest first, non-empty, the core's default when absent.
pub fn permission_order(order: Option<Vec<String>>) -> Result<Vec<String>, JsValue> {
    match order {
        None => Ok(crate::settle::DEFAULT_PERMISSIONS
            .iter()
            .map(|p| p.to_string())
            .collect()),
        Some(order) if order.is_empty() => Err(host(HostError::BadArguments {
            call: "permissions",
            why: "`permissions` must be a non-empty array of strings, lowest first".to_string(),
        })),
        Some(order) => Ok(order),
    }
}
