//! JSON data as the core reads it: borrowed from the text where it can be.
//! Numbers stay as their text (they are only ever copied, never computed
//! with), so no float parsing or formatting is needed to round-trip them.

use std::borrow::Cow;

/// A JSON value. Objects keep their members in text order, repeats included;
/// [`Object::get`] and [`Object::sorted`] read them as a map would (the last
/// repeat wins, keys in byte order).
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    /// The number's JSON text, as written.
    Number(Cow<'a, str>),
    String(Cow<'a, str>),
    Array(Vec<Value<'a>>),
    Object(Object<'a>),
}

/// An object's members in text order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Object<'a>(pub Vec<(Cow<'a, str>, Value<'a>)>);

impl<'a> Object<'a> {
    /// The value of `key` (its last occurrence, as a map keeps it).
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The first key, in byte order, for which `pred` holds.
    pub fn first_key(&self, pred: impl Fn(&str) -> bool) -> Option<&str> {
        self.0.iter().map(|(k, _)| k.as_ref()).filter(|k| pred(k)).min()
    }

    /// The members as a map holds them: keys in byte order, each once, with
    /// its last value.
    pub fn sorted(&self) -> Vec<(&str, &Value<'a>)> {
        let members: Vec<(&str, &Value<'a>)> = self.0.iter().map(|(k, v)| (k.as_ref(), v)).collect();
        // Stable, so among equal keys the last in text order is the latest.
        let members = merge_sort(members);
        let mut out: Vec<(&str, &Value<'a>)> = Vec::with_capacity(members.len());
        for (k, v) in members {
            match out.last_mut() {
                Some(last) if last.0 == k => *last = (k, v),
                _ => out.push((k, v)),
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'a> Value<'a> {
    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The same value, owning its text.
    pub fn into_owned(self) -> Value<'static> {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(b),
            Value::Number(n) => Value::Number(Cow::Owned(n.into_owned())),
            Value::String(s) => Value::String(Cow::Owned(s.into_owned())),
            Value::Array(items) => Value::Array(items.into_iter().map(Value::into_owned).collect()),
            Value::Object(o) => Value::Object(Object(
                o.0.into_iter()
                    .map(|(k, v)| (Cow::Owned(k.into_owned()), v.into_owned()))
                    .collect(),
            )),
        }
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

/// A stable merge sort by key (a small one: std's sorts are large in WASM).
fn merge_sort<T: Copy>(mut items: Vec<(&str, T)>) -> Vec<(&str, T)> {
    let mut width = 1;
    let n = items.len();
    while width < n {
        let mut merged = Vec::with_capacity(n);
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j) = (start, mid);
            while i < mid || j < end {
                let take_left = match (items.get(i), items.get(j)) {
                    (Some(a), Some(b)) if j < end && i < mid => a.0 <= b.0,
                    _ => i < mid,
                };
                let from = if take_left { &mut i } else { &mut j };
                if let Some(item) = items.get(*from) {
                    merged.push(*item);
                }
                *from += 1;
            }
            start = end;
        }
        items = merged;
        width *= 2;
    }
    items
}
