//! Text in, text out: reading an export's params and writing its answer.

use wasm_bindgen::JsError;

use crate::entry::Entry;
use crate::error::HostError;
use crate::json::{Out, ToJson};
use crate::params::Why;

/// Params that could not be read, as the host's error.
pub fn params<T>(call: &'static str, read: Result<T, Why>) -> Result<T, JsError> {
    read.map_err(|why| host(HostError::BadArguments { call, why }))
}

/// The one serializer: the answer as JSON text, parsed by the host.
pub fn answer<T: ToJson + ?Sized>(value: &T) -> String {
    value.to_json()
}

/// An answer object whose members `members` writes.
pub fn object(members: impl FnOnce(&mut Out)) -> String {
    let mut out = Out::new();
    out.object(members);
    out.finish()
}

pub fn host(error: HostError) -> JsError {
    JsError::new(&error.text())
}

/// `{ ok: true, entry, output }` or `{ ok: false, error }`.
pub fn tool_answer(result: Result<(Entry, String), String>) -> String {
    object(|out| match result {
        Ok((entry, output)) => {
            out.field("ok", &true);
            out.field("entry", &entry);
            out.field("output", &output);
        }
        Err(e) => {
            out.field("ok", &false);
            out.field("error", &e);
        }
    })
}

/// A permission order: lowest first, non-empty, the core's default when absent.
pub fn permission_order(order: Option<Vec<String>>) -> Result<Vec<String>, JsError> {
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
