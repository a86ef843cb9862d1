//! Reading JSON text safely: strings that must be well-formed Unicode, model
//! input with a depth limit, and quoting untrusted text in messages.
//!
//! Values reach the core as JSON text (the host serialises them), so nothing
//! here runs the host's code, and every limit is checked while parsing.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use serde_json::Value;

/// Deepest nesting of arrays and objects a value may have (serde_json's own
/// recursion limit, which also bounds the core's stack use).
pub const MAX_DEPTH: usize = 128;

/// Longest piece of the model's (or a stored) text quoted in a message, in
/// characters; longer text is cut and ends with `…`.
pub const MAX_QUOTE: usize = 200;

/// `text`, cut to [`MAX_QUOTE`] characters (with `…` when cut), so a refusal
/// can never echo megabytes back.
pub fn quote(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(MAX_QUOTE) {
        None => Cow::Borrowed(text),
        Some((at, _)) => Cow::Owned(format!("{}…", text.get(..at).unwrap_or_default())),
    }
}

/// A short name of a JSON value's kind, for messages (never its content).
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
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

/// A JSON string that must be well-formed Unicode. serde_json hands over a
/// string with a lone surrogate escape (`"\ud800"`) only as bytes (WTF-8),
/// which this refuses by name instead of failing the parse with a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text<'a>(pub Cow<'a, str>);

impl<'a> Text<'a> {
    pub fn into_owned(self) -> String {
        self.0.into_owned()
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for TextVisitor<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v)))
            }
            fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<Self::Value, E> {
                std::str::from_utf8(v)
                    .map(|s| Text(Cow::Borrowed(s)))
                    .map_err(|_| E::custom(LONE_SURROGATE))
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
                std::str::from_utf8(v)
                    .map(|s| Text(Cow::Owned(s.to_string())))
                    .map_err(|_| E::custom(LONE_SURROGATE))
            }
            fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Self::Value, E> {
                String::from_utf8(v)
                    .map(|s| Text(Cow::Owned(s)))
                    .map_err(|_| E::custom(LONE_SURROGATE))
            }
        }
        // Bytes, not str: serde_json then accepts lone surrogates (as WTF-8)
        // and the visitor names the problem.
        deserializer.deserialize_bytes(TextVisitor(std::marker::PhantomData))
    }
}

/// An owned [`Text`]: a well-formed string in params that outlive their text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedText(pub String);

impl<'de> Deserialize<'de> for OwnedText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Text::deserialize(deserializer).map(|t| OwnedText(t.into_owned()))
    }
}

/// Parses one stored JSON value that must be well-formed (a setting copied as
/// it is): depth-limited by serde_json, lone surrogates refused.
pub fn parse_value(text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

/// A model's tool input as the core receives it.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Well-formed JSON data.
    Json(Value),
    /// Input that cannot be read as JSON data, and why (the host could not
    /// serialise it, it is too large or too deep, or it is not well-formed
    /// Unicode). Refused at the input-shape check, in each tool's own words.
    Unreadable(String),
}

impl From<Value> for Input {
    fn from(value: Value) -> Self {
        Input::Json(value)
    }
}

impl Input {
    /// Reads input JSON text: nesting beyond [`MAX_DEPTH`] and lone
    /// surrogates are refused, the latter naming where they are.
    pub fn parse(text: &str) -> Input {
        match serde_json::from_str::<Value>(text) {
            Ok(value) => Input::Json(value),
            Err(e) if e.to_string().contains("recursion limit") => {
                Input::Unreadable(format!("it is nested deeper than {MAX_DEPTH} levels"))
            }
            // serde_json words a lone surrogate several ways: look for one.
            Err(e) => match lone_surrogate_path(text) {
                Some(path) => Input::Unreadable(format!(
                    "{} holds a lone surrogate; text must be well-formed Unicode",
                    quote(&path)
                )),
                None => Input::Unreadable(format!("it is not JSON ({})", quote(&e.to_string()))),
            },
        }
    }
}

/// Where the first lone surrogate escape of `text` sits, as a path such as
/// `todos[2].content` (a field name is named by its object's path and the
/// name). Slow, for refusals only: it re-parses a copy in which each lone
/// escape is replaced by a marker character absent from the text.
fn lone_surrogate_path(text: &str) -> Option<String> {
    let marker = ['\u{10FFFF}', '\u{10FFFE}', '\u{FFFF}', '\u{FFFE}']
        .into_iter()
        .find(|m| !text.contains(*m) && !text.to_ascii_lowercase().contains(&escape_of(*m)))?;
    let marked = mark_lone_surrogates(text, marker)?;
    let value: Value = serde_json::from_str(&marked).ok()?;
    let mut path = String::new();
    find_marker(&value, marker, &mut path).then_some(path)
}

/// The JSON escape of a character outside the BMP or a BMP noncharacter, lowercase.
fn escape_of(c: char) -> String {
    let mut units = [0u16; 2];
    c.encode_utf16(&mut units)
        .iter()
        .map(|u| format!("\\u{u:04x}"))
        .collect()
}

/// `text` with every lone surrogate escape inside a string replaced by `marker`.
fn mark_lone_surrogates(text: &str, marker: char) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut in_string = false;
    let mut i = 0;
    let hex_at = |at: usize| -> Option<u16> {
        let digits = text.get(at..at + 4)?;
        u16::from_str_radix(digits, 16).ok()
    };
    let escape_at = |at: usize| -> Option<u16> {
        if bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u') {
            hex_at(at + 2)
        } else {
            None
        }
    };
    while i < bytes.len() {
        match bytes.get(i) {
            Some(b'"') => {
                in_string = !in_string;
                i += 1;
            }
            Some(b'\\') if in_string => {
                if let Some(unit) = escape_at(i) {
                    let is_high = (0xD800..0xDC00).contains(&unit);
                    let is_low = (0xDC00..0xE000).contains(&unit);
                    let paired_low = escape_at(i + 6).is_some_and(|u| (0xDC00..0xE000).contains(&u));
                    if is_high && paired_low {
                        i += 12;
                    } else if is_high || is_low {
                        out.push_str(text.get(copied..i)?);
                        out.push(marker);
                        i += 6;
                        copied = i;
                    } else {
                        i += 6;
                    }
                } else {
                    i += 2; // a two-character escape such as \" or \\
                }
            }
            _ => i += 1,
        }
    }
    out.push_str(text.get(copied..)?);
    Some(out)
}

fn find_marker(value: &Value, marker: char, path: &mut String) -> bool {
    match value {
        Value::String(s) => s.contains(marker),
        Value::Array(items) => items.iter().enumerate().any(|(i, item)| {
            let len = path.len();
            path.push_str(&format!("[{i}]"));
            let found = find_marker(item, marker, path);
            if !found {
                path.truncate(len);
            }
            found
        }),
        Value::Object(map) => map.iter().any(|(key, item)| {
            let len = path.len();
            if !path.is_empty() {
                path.push('.');
            }
            if key.contains(marker) {
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
mod tests {
    use super::*;

    #[test]
    fn quote_cuts_long_text_by_characters() {
        assert_eq!(quote("abc"), "abc");
        let long = "é".repeat(MAX_QUOTE + 5);
        let cut = quote(&long);
        assert_eq!(cut.chars().count(), MAX_QUOTE + 1);
        assert!(cut.ends_with('…'));
        assert_eq!(quote(&"x".repeat(MAX_QUOTE)).len(), MAX_QUOTE);
    }

    #[test]
    fn lone_surrogates_are_named_by_path() {
        let text = r#"{"todos":[{"content":"ok \ud83d\ude00","status":"pending"},{"content":"bad \ud800","status":"pending"}]}"#;
        assert_eq!(
            Input::parse(text),
            Input::Unreadable("todos[1].content holds a lone surrogate; text must be well-formed Unicode".to_string())
        );
        let key = r#"{"a\udc00b":1}"#;
        assert_eq!(
            Input::parse(key),
            Input::Unreadable("(a field name) holds a lone surrogate; text must be well-formed Unicode".to_string())
        );
        // An escaped backslash before "ud800" is text, not an escape.
        assert!(matches!(Input::parse(r#"{"a":"\\ud800"}"#), Input::Json(_)));
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(
            Input::parse(&deep),
            Input::Unreadable(format!("it is nested deeper than {MAX_DEPTH} levels"))
        );
    }

    #[test]
    fn text_refuses_lone_surrogates_and_keeps_pairs() {
        let ok: Text = serde_json::from_str(r#""a\ud83d\ude00""#).unwrap();
        assert_eq!(ok.as_str(), "a😀");
        let err = serde_json::from_str::<Text>(r#""a\ud800""#).unwrap_err();
        assert!(err.to_string().contains(LONE_SURROGATE), "{err}");
        let borrowed: Text = serde_json::from_str(r#""plain""#).unwrap();
        assert!(matches!(borrowed.0, Cow::Borrowed("plain")));
    }
}
