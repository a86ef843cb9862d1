//! JSON, read and written by the core itself: a validating reader (strings
//! that must be well-formed Unicode, a depth limit for built values, skipping
//! at any depth), a small borrowed value type, the one writer, and quoting
//! untrusted text in messages.
//!
//! Values reach the core as JSON text (the host serialises them), so nothing
//! here runs the host's code, and every limit is checked while reading.

use std::borrow::Cow;

pub mod data;
pub mod error;
pub mod read;
pub mod value;
pub mod write;

#[cfg(not(target_arch = "wasm32"))]
mod native;

pub use data::Data;
pub use error::{Code, Error};
pub use read::Parser;
pub use value::{kind, Object, Value};
pub use write::{quoted, Out, ToJson};

/// Deepest nesting of arrays and objects a built value may have (the limit
/// serde_json had, which also bounds the core's stack use).
pub const MAX_DEPTH: usize = 128;

/// Longest piece of the model's (or a stored) text quoted in a message, in
/// characters; longer text is cut and ends with `…`.
pub const MAX_QUOTE: usize = 200;

/// `text`, cut to [`MAX_QUOTE`] characters (with `…` when cut), so a refusal
/// can never echo megabytes back.
pub fn quote(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(MAX_QUOTE) {
        None => Cow::Borrowed(text),
        Some((at, _)) => Cow::Owned(write::cat(&[text.get(..at).unwrap_or_default(), "…"])),
    }
}

/// The number of characters (Unicode code points) of `text`: its bytes that
/// do not continue a character.
pub fn char_count(text: &str) -> usize {
    text.bytes().filter(|b| (b & 0xC0) != 0x80).count()
}

/// The kind of the JSON value `text` holds, from its first byte (for a value
/// that did not parse into what was expected).
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

/// The message of a string that is not well-formed Unicode.
pub const LONE_SURROGATE: &str = "text must be well-formed Unicode (it holds a lone surrogate)";

/// Whether `needle` occurs in `haystack` (a plain scan, for error paths).
pub fn contains(haystack: &str, needle: &str) -> bool {
    needle.is_empty()
        || haystack
            .as_bytes()
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
}

/// Checks that `bytes` are one JSON value (of any depth) and nothing else.
pub fn validate(bytes: &[u8]) -> Result<(), Error> {
    let mut p = Parser::new(bytes);
    p.skip_value()?;
    p.end()
}

/// Reads one JSON value from `text`, depth-limited, lone surrogates refused
/// (or read as `mark`).
pub fn parse(text: &str, mark: Option<char>) -> Result<Value<'_>, Error> {
    let mut p = Parser::new(text.as_bytes());
    let value = p.parse_value(mark)?;
    p.end()?;
    Ok(value)
}

/// A model's tool input as the core receives it.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Well-formed JSON data.
    Json(Value<'static>),
    /// Input that cannot be read as JSON data, and why (the host could not
    /// serialise it, it is too large or too deep, or it is not well-formed
    /// Unicode). Refused at the input-shape check, in each tool's own words.
    Unreadable(String),
}

impl From<Value<'_>> for Input {
    fn from(value: Value<'_>) -> Self {
        Input::Json(value.into_owned())
    }
}

impl Input {
    /// Reads input JSON text: nesting beyond [`MAX_DEPTH`] and lone
    /// surrogates are refused, the latter naming where they are.
    pub fn parse(text: &str) -> Input {
        match parse(text, None) {
            Ok(value) => Input::Json(value.into_owned()),
            Err(e) if e.code == Code::RecursionLimitExceeded => Input::Unreadable(write::cat(&[
                "it is nested deeper than ",
                &write::uint_text(MAX_DEPTH as u64),
                " levels",
            ])),
            Err(e) => match lone_surrogate_path(text) {
                Some(path) => Input::Unreadable(write::cat(&[
                    &quote(&path),
                    " holds a lone surrogate; text must be well-formed Unicode",
                ])),
                None => Input::Unreadable(write::cat(&["it is not JSON (", &quote(&e.text()), ")"])),
            },
        }
    }
}

/// Where the first lone surrogate escape of `text` sits, as a path such as
/// `todos[2].content` (a field name is named by its object's path and the
/// name), in key order. For refusals only: it reads the text again with each
/// lone escape read as a marker character absent from the text.
fn lone_surrogate_path(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let marker = ['\u{10FFFF}', '\u{10FFFE}', '\u{FFFF}', '\u{FFFE}']
        .into_iter()
        .find(|m| !text.chars().any(|c| c == *m) && !contains(&lower, &escape_of(*m)))?;
    let value = parse(text, Some(marker)).ok()?;
    let mut path = String::new();
    find_marker(&value, marker, &mut path).then_some(path)
}

/// The JSON escape of a character outside the BMP or a BMP noncharacter, lowercase.
fn escape_of(c: char) -> String {
    let mut units = [0u16; 2];
    c.encode_utf16(&mut units)
        .iter()
        .map(|u| write::cat(&["\\u", &write::hex_text(u32::from(*u))]))
        .collect()
}

fn find_marker(value: &Value, marker: char, path: &mut String) -> bool {
    match value {
        Value::String(s) => s.chars().any(|c| c == marker),
        Value::Array(items) => items.iter().enumerate().any(|(i, item)| {
            let len = path.len();
            path.push('[');
            path.push_str(&write::uint_text(i as u64));
            path.push(']');
            let found = find_marker(item, marker, path);
            if !found {
                path.truncate(len);
            }
            found
        }),
        Value::Object(map) => map.sorted().into_iter().any(|(key, item)| {
            let len = path.len();
            if !path.is_empty() {
                path.push('.');
            }
            if key.chars().any(|c| c == marker) {
                path.push_str("(a field name)");
                return true;
            }
            path.push_str(key);
            let found = find_marker(item, marker, path);
            if !found {
                path.truncate(len);
            }
            found
        }),
        _ => false,
    }
}

#[cfg(test)]
pub(crate) mod oracle;
#[cfg(test)]
mod tests;
