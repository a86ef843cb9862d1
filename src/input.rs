//! A model's tool input as the core receives it: JSON text the host
//! serialised, read into data (serde_json, its recursion limit kept), or why
//! it cannot be read.

use serde_json::Value;

use crate::text::{lone_surrogate_escapes, quote, MAX_DEPTH};

/// A model's tool input.
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
    /// Reads input JSON text: nesting of [`MAX_DEPTH`] levels or more and
    /// lone surrogates are refused, the latter naming where they are.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(matches!(oda_tasks::Input::parse("{}"), oda_tasks::Input::Json(_)));
    /// ```
    pub fn parse(text: &str) -> Input {
        match serde_json::from_str::<Value>(text) {
            Ok(value) => Input::Json(value),
            Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
                Input::Unreadable(format!("it is nested deeper than {MAX_DEPTH} levels"))
            }
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
/// `todos[2].content` (a member name is named by its object's path and
/// `(a field name)`), in key order. For refusals only: it reads the text again
/// with each lone escape replaced by a marker character absent from the text.
fn lone_surrogate_path(text: &str) -> Option<String> {
    let lone = lone_surrogate_escapes(text);
    if lone.is_empty() {
        return None;
    }
    let lower = text.to_ascii_lowercase();
    let (marker, escape) = [
        ('\u{10FFFF}', "\\udbff\\udfff"),
        ('\u{FFFF}', "\\uffff"),
        ('\u{FFFE}', "\\ufffe"),
    ]
    .into_iter()
    .find(|(m, escape)| !text.contains(*m) && !lower.contains(escape))?;
    let mut marked = String::with_capacity(text.len());
    let mut at = 0;
    for range in lone {
        marked.push_str(text.get(at..range.start)?);
        marked.push_str(escape);
        at = range.end;
    }
    marked.push_str(text.get(at..)?);
    let value: Value = serde_json::from_str(&marked).ok()?;
    let mut path = String::new();
    find_marker(&value, marker, &mut path).then_some(path)
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
