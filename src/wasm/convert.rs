//! Text in; text or a value out: reading an export's params and writing its answer.
//!
//! An answer leaves through one of two channels, chosen by the host per call:
//! [`Text`] (JSON text, parsed by the host) or [`Value`] (a JS value built by
//! serde-wasm-bindgen, which sets each member by assignment, so the host takes
//! it only while its realm guard holds). Both serialise the same structs.

use serde::Serialize;
use wasm_bindgen::JsValue;

use super::params::Why;
use crate::entry::Entry;
use crate::error::HostError;

/// Params that could not be read, as the host's error.
pub fn params<T>(call: &'static str, read: Result<T, Why>) -> Result<T, JsValue> {
    read.map_err(|why| host(HostError::BadArguments { call, why }))
}

/// The one JSON writer of answers: the answer as JSON text, parsed by the host.
pub fn answer<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// How an answer leaves WASM.
pub trait Channel {
    type Out;
    fn answer<T: Serialize + ?Sized>(value: &T) -> Result<Self::Out, JsValue>;
    /// An entry's exact stored text, beside the answer.
    fn text(text: String) -> Self::Out;
}

/// JSON text.
pub struct Text;

impl Channel for Text {
    type Out = String;
    fn answer<T: Serialize + ?Sized>(value: &T) -> Result<String, JsValue> {
        Ok(answer(value))
    }
    fn text(text: String) -> String {
        text
    }
}

/// A JS value with fixed keys (`Serializer::json_compatible()`: `None` as
/// `null`, maps as objects, numbers as numbers).
pub struct Value;

impl Channel for Value {
    type Out = JsValue;
    fn answer<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
        value
            .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .map_err(|e| host(HostError::Answer { why: e.to_string() }))
    }
    fn text(text: String) -> JsValue {
        JsValue::from(text)
    }
}

/// Host misuse, thrown as a `TypeError`.
pub fn host(error: HostError) -> JsValue {
    js_sys::TypeError::new(&error.to_string()).into()
}

/// `{ ok: true, entry, output }` or `{ ok: false, error }`, and the entry's stored text.
pub fn tool_answer<C: Channel>(result: Result<(Entry, String), String>) -> Result<Vec<C::Out>, JsValue> {
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
    Ok(match &result {
        Ok((entry, output)) => vec![
            C::answer(&ToolAnswer::Done {
                ok: true,
                entry,
                output,
            })?,
            C::text(entry.text()),
        ],
        Err(error) => vec![C::answer(&ToolAnswer::Refused { ok: false, error })?],
    })
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
