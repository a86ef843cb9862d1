//! Opaque JSON data the core copies without reading it: a chat's `sandbox`
//! and `approval` settings, a tool's input schema.
//!
//! Natively it is a `serde_json::Value`, so native callers and tests can build
//! and inspect it; in WASM it is the value's JSON text, written once when it
//! is read (keys in byte order, each once, numbers as written), so no JSON
//! library is linked there.

#[cfg(target_arch = "wasm32")]
use super::write::{Out, ToJson};
use super::Value;

/// A copied JSON value.
#[cfg(not(target_arch = "wasm32"))]
pub type Data = serde_json::Value;

/// A copied JSON value, as its JSON text.
#[cfg(target_arch = "wasm32")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Data(Box<str>);

#[cfg(target_arch = "wasm32")]
impl ToJson for Data {
    fn write_json(&self, out: &mut Out) {
        out.raw(&self.0);
    }
}

/// `value` as copied data.
pub fn data_of(value: &Value) -> Data {
    from_text(&super::ToJson::to_json(value))
}

/// Data from JSON text the core wrote itself (a constant, or written by [`data_of`]).
#[cfg(target_arch = "wasm32")]
pub fn from_text(json: &str) -> Data {
    Data(Box::from(json))
}

/// Data from JSON text the core wrote itself (a constant, or written by [`data_of`]).
#[cfg(not(target_arch = "wasm32"))]
pub fn from_text(json: &str) -> Data {
    serde_json::from_str(json).unwrap_or(serde_json::Value::Null)
}
