//! Words about untrusted text, for messages: a quote cut to a safe length,
//! a count of characters, and the kind of a JSON value (never its content).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer};

/// Longest piece of the model's (or a stored) text quoted in a message, in
/// characters; longer text is cut and ends with `…`.
pub const MAX_QUOTE: usize = 200;

/// Deepest nesting of arrays and objects a value the core builds may have
/// (serde_json's recursion limit, which also bounds the core's stack use).
pub const MAX_DEPTH: usize = 128;

/// The message of a string that is not well-formed Unicode.
pub const LONE_SURROGATE: &str = "text must be well-formed Unicode (it holds a lone surrogate)";

/// `text`, cut to [`MAX_QUOTE`] characters (with `…` when cut), so a refusal
/// can never echo megabytes back.
///
/// # Examples
///
/// ```
/// assert_eq!(oda_tasks::text::quote("short"), "short");
/// ```
pub fn quote(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(MAX_QUOTE) {
        None => Cow::Borrowed(text),
        Some((at, _)) => Cow::Owned(format!("{}…", text.get(..at).unwrap_or_default())),
    }
}

/// The number of characters (Unicode code points) of `text`.
pub fn char_count(text: &str) -> usize {
    text.chars().count()
}

/// The kind of the JSON value `text` holds, from its first byte.
pub fn kind_of_text(text: &str) -> &'static str {
    match text.trim_start().bytes().next() {
        Some(b'{') => "an object",
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        Some(b'-' | b'0'..=b'9') => "a number",
        _ => "not JSON",
    }
}

/// A short name of a JSON value's kind.
pub fn kind(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `text` as a JSON string literal (quotes and escapes included).
pub fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// The byte ranges of the lone surrogate escapes (`\uD800` without its pair)
/// in `json`, text serde_json has already checked as JSON.
pub fn lone_surrogate_escapes(json: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = json.as_bytes();
    let hex = |at: usize| -> Option<u32> {
        let digits = json.get(at..at + 4)?;
        u32::from_str_radix(digits, 16).ok()
    };
    let mut lone = Vec::new();
    let (mut in_string, mut at) = (false, 0);
    // A high surrogate escape waiting for its low half: where it starts.
    let mut high: Option<usize> = None;
    while let Some(&b) = bytes.get(at) {
        let escape_u = in_string && b == b'\\' && bytes.get(at + 1) == Some(&b'u');
        let unit = if escape_u { hex(at + 2) } else { None };
        match unit {
            Some(u @ 0xDC00..=0xDFFF) if high.is_some() => {
                let _ = u;
                high = None;
            }
            Some(u) => {
                if let Some(start) = high.take() {
                    lone.push(start..start + 6);
                }
                match u {
                    0xD800..=0xDBFF => high = Some(at),
                    0xDC00..=0xDFFF => lone.push(at..at + 6),
                    _ => {}
                }
            }
            None => {
                if let Some(start) = high.take() {
                    lone.push(start..start + 6);
                }
            }
        }
        at += match (in_string, b) {
            _ if escape_u => 6,
            (true, b'\\') => 2,
            (_, b'"') => {
                in_string = !in_string;
                1
            }
            _ => 1,
        };
    }
    if let Some(start) = high {
        lone.push(start..start + 6);
    }
    lone
}

/// The deepest nesting of arrays and objects in `json` (checked JSON text).
pub fn nesting_depth(json: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in json.bytes() {
        match (in_string, escaped, b) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (_, _, b'"') => in_string = !in_string,
            (false, _, b'[' | b'{') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (false, _, b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// A string read as bytes, so an escape of a lone surrogate reaches us and is
/// refused by name ([`LONE_SURROGATE`]) rather than as a syntax error. Use it
/// on JSON already checked (captured members) or written by JSON.stringify.
pub struct Text<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text<'a>, D::Error> {
        struct TextVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for TextVisitor<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_bytes<E: de::Error>(self, bytes: &'de [u8]) -> Result<Text<'a>, E> {
                std::str::from_utf8(bytes)
                    .map(|s| Text(Cow::Borrowed(s)))
                    .map_err(|_| E::custom(LONE_SURROGATE))
            }
            fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Text<'a>, E> {
                std::str::from_utf8(bytes)
                    .map(|s| Text(Cow::Owned(s.to_string())))
                    .map_err(|_| E::custom(LONE_SURROGATE))
            }
        }
        // Bytes, not a str: a lone surrogate reaches the visitor, which names it.
        d.deserialize_bytes(TextVisitor(std::marker::PhantomData))
    }
}
