//! Native-only bridges to serde_json, for native callers and tests: model
//! input from a `serde_json::Value`, and `serde::Serialize` for the core's
//! answers through the core's own writer (so there is still one serializer).

use std::borrow::Cow;

use super::value::{Object, Value};
use super::write::{Out, ToJson};
use super::Input;

impl From<&serde_json::Value> for Value<'static> {
    fn from(value: &serde_json::Value) -> Self {
        match value {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => Value::Number(Cow::Owned(n.to_string())),
            serde_json::Value::String(s) => Value::String(Cow::Owned(s.clone())),
            serde_json::Value::Array(items) => Value::Array(items.iter().map(Value::from).collect()),
            serde_json::Value::Object(map) => Value::Object(Object(
                map.iter()
                    .map(|(k, v)| (Cow::Owned(k.clone()), Value::from(v)))
                    .collect(),
            )),
        }
    }
}

impl From<serde_json::Value> for Input {
    fn from(value: serde_json::Value) -> Self {
        Input::Json(Value::from(&value))
    }
}

impl ToJson for serde_json::Value {
    fn write_json(&self, out: &mut Out) {
        match self {
            serde_json::Value::Null => out.null(),
            serde_json::Value::Bool(b) => out.boolean(*b),
            serde_json::Value::Number(n) => out.raw(&n.to_string()),
            serde_json::Value::String(s) => out.string(s),
            serde_json::Value::Array(items) => items.write_json(out),
            serde_json::Value::Object(map) => out.object(|out| {
                for (k, v) in map {
                    out.field(k, v);
                }
            }),
        }
    }
}

/// `serde::Serialize` through [`ToJson`]: the text the core writes, read
/// back as a `serde_json::Value` and serialised from there.
macro_rules! serialize_as_json {
    ($($t:ty),* $(,)?) => {$(
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let text = $crate::json::ToJson::to_json(self);
                let value: serde_json::Value = serde_json::from_str(&text).map_err(serde::ser::Error::custom)?;
                value.serialize(serializer)
            }
        }
    )*};
}

serialize_as_json!(
    crate::entry::Entry,
    crate::entry::Skipped,
    crate::todo::TodoReplay,
    crate::todo::Card,
    crate::todo::Plan,
    crate::suggest::SuggestionReplay,
    crate::suggest::Listed,
    crate::settle::StartedChatState,
    crate::tool::ToolDefinition,
    crate::jsonl::UnreadableLine,
);
