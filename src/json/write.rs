//! Writing JSON text: the one serializer of every answer and entry.
//!
//! Strings are escaped as serde_json escapes them (`"`, `\`, and control
//! characters; everything else as it is), so each answer's text is the one
//! the core wrote before and `JSON.parse` reads the same objects from it.

// `push_str(",")`, not `push(',')`: `push` encodes a char through a call the
// size-optimised build does not inline, once per separator.
#![allow(clippy::single_char_add_str)]

use super::value::Value;

/// A JSON text being written. Separators are placed by the writer: open a
/// container, write keys and values, close it.
#[derive(Debug, Default)]
pub struct Out {
    buf: String,
    /// A value was just written, so the next key or element needs a comma.
    comma: bool,
}

impl Out {
    pub fn new() -> Out {
        Out::default()
    }

    pub fn finish(self) -> String {
        self.buf
    }

    fn sep(&mut self) {
        if self.comma {
            self.buf.push_str(",");
        }
    }

    pub fn open_object(&mut self) {
        self.sep();
        self.buf.push_str("{");
        self.comma = false;
    }

    pub fn close_object(&mut self) {
        self.buf.push_str("}");
        self.comma = true;
    }

    pub fn open_array(&mut self) {
        self.sep();
        self.buf.push_str("[");
        self.comma = false;
    }

    pub fn close_array(&mut self) {
        self.buf.push_str("]");
        self.comma = true;
    }

    /// A member's key; its value is written next.
    pub fn key(&mut self, key: &str) {
        self.sep();
        escape_into(&mut self.buf, key);
        self.buf.push_str(":");
        self.comma = false;
    }

    pub fn string(&mut self, text: &str) {
        self.sep();
        escape_into(&mut self.buf, text);
        self.comma = true;
    }

    pub fn uint(&mut self, n: u64) {
        self.sep();
        push_uint(&mut self.buf, n);
        self.comma = true;
    }

    pub fn boolean(&mut self, b: bool) {
        self.sep();
        self.buf.push_str(if b { "true" } else { "false" });
        self.comma = true;
    }

    pub fn null(&mut self) {
        self.sep();
        self.buf.push_str("null");
        self.comma = true;
    }

    /// JSON text written elsewhere, copied as it is.
    pub fn raw(&mut self, json: &str) {
        self.sep();
        self.buf.push_str(json);
        self.comma = true;
    }

    /// `"key": value`.
    pub fn field<T: ToJson + ?Sized>(&mut self, key: &str, value: &T) {
        self.key(key);
        value.write_json(self);
    }

    /// `"key": value`, left out when `value` is `None`.
    pub fn some<T: ToJson>(&mut self, key: &str, value: &Option<T>) {
        if let Some(value) = value {
            self.field(key, value);
        }
    }

    /// An object whose members `members` writes.
    pub fn object(&mut self, members: impl FnOnce(&mut Out)) {
        self.open_object();
        members(self);
        self.close_object();
    }

    /// A JSON value with its members as a map holds them (keys in byte order,
    /// each once, the last value), numbers as their text.
    pub fn value(&mut self, value: &Value) {
        match value {
            Value::Null => self.null(),
            Value::Bool(b) => self.boolean(*b),
            Value::Number(n) => self.raw(n),
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                self.open_array();
                for item in items {
                    self.value(item);
                }
                self.close_array();
            }
            Value::Object(o) => {
                self.open_object();
                for (k, v) in o.sorted() {
                    self.key(k);
                    self.value(v);
                }
                self.close_object();
            }
        }
    }
}

/// A type with a JSON form.
pub trait ToJson {
    fn write_json(&self, out: &mut Out);

    /// The JSON text of `self`.
    fn to_json(&self) -> String {
        let mut out = Out::new();
        self.write_json(&mut out);
        out.finish()
    }
}

impl ToJson for str {
    fn write_json(&self, out: &mut Out) {
        out.string(self);
    }
}

impl ToJson for String {
    fn write_json(&self, out: &mut Out) {
        out.string(self);
    }
}

impl ToJson for bool {
    fn write_json(&self, out: &mut Out) {
        out.boolean(*self);
    }
}

impl ToJson for u32 {
    fn write_json(&self, out: &mut Out) {
        out.uint(u64::from(*self));
    }
}

impl ToJson for usize {
    fn write_json(&self, out: &mut Out) {
        out.uint(*self as u64);
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn write_json(&self, out: &mut Out) {
        (**self).write_json(out);
    }
}

/// `None` is `null`.
impl<T: ToJson> ToJson for Option<T> {
    fn write_json(&self, out: &mut Out) {
        match self {
            Some(value) => value.write_json(out),
            None => out.null(),
        }
    }
}

impl<T: ToJson> ToJson for [T] {
    fn write_json(&self, out: &mut Out) {
        out.open_array();
        for item in self {
            item.write_json(out);
        }
        out.close_array();
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn write_json(&self, out: &mut Out) {
        self.as_slice().write_json(out);
    }
}

impl ToJson for Value<'_> {
    fn write_json(&self, out: &mut Out) {
        out.value(self);
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// `text` as a JSON string, escaped as serde_json escapes it.
pub fn escape_into(out: &mut String, text: &str) {
    out.push_str("\"");
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        // Eight plain bytes at a time: no quote, backslash or control character.
        if let Some(&[a0, a1, a2, a3, a4, a5, a6, a7]) = bytes.get(i..i + 8) {
            const ONES: u64 = u64::MAX / 255;
            let w = u64::from_le_bytes([a0, a1, a2, a3, a4, a5, a6, a7]);
            let (q, s) = (w ^ (ONES * 0x22), w ^ (ONES * 0x5c));
            let special = (w.wrapping_sub(ONES * 0x20) | q.wrapping_sub(ONES) & !q | s.wrapping_sub(ONES) & !s) & !w;
            if special & (ONES << 7) == 0 {
                i += 8;
                continue;
            }
        }
        i += 1;
        let escape: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(text.get(start..i - 1).unwrap_or_default());
        if escape.is_empty() {
            let hex = |n: u8| char::from(HEX.get(usize::from(n)).copied().unwrap_or(b'0'));
            out.push_str("\\u00");
            out.push(hex(b >> 4));
            out.push(hex(b & 0xf));
        } else {
            out.push_str(escape);
        }
        start = i;
    }
    out.push_str(text.get(start..).unwrap_or_default());
    out.push_str("\"");
}

/// `text` as a JSON string.
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    escape_into(&mut out, text);
    out
}

fn push_uint(out: &mut String, mut n: u64) {
    // Least significant digit first, into the end of a buffer.
    let mut digits = [b'0'; 20];
    let mut at = digits.len();
    while let Some(slot) = at.checked_sub(1).and_then(|k| digits.get_mut(k)) {
        *slot = b'0' + (n % 10) as u8;
        at -= 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(digits.get(at..).unwrap_or_default()).unwrap_or_default());
}

/// The pieces, joined (messages are built this way, not with `format!`:
/// the shipped module links no formatting machinery).
pub fn cat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for part in parts {
        out.push_str(part);
    }
    out
}

/// The decimal text of `n`.
pub fn uint_text(n: u64) -> String {
    let mut out = String::new();
    push_uint(&mut out, n);
    out
}

/// The lowercase hexadecimal text of `n`, without leading zeros.
pub fn hex_text(mut n: u32) -> String {
    let mut digits = Vec::new();
    loop {
        digits.push(HEX[(n & 0xf) as usize]);
        n >>= 4;
        if n == 0 {
            break;
        }
    }
    digits.iter().rev().map(|d| char::from(*d)).collect()
}
