//! The oracle: how this module read JSON when serde_json did it (the code as
//! it was, test-only), and differential tests of the new reader against it.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::{quote, LONE_SURROGATE, MAX_DEPTH};

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

/// The old `Input::parse`: `Ok` holds the value read.
pub fn old_input(text: &str) -> Result<Value, String> {
    {
        match serde_json::from_str::<Value>(text) {
            Ok(value) => Ok(value),
            Err(e) if e.to_string().contains("recursion limit") => {
                Err(format!("it is nested deeper than {MAX_DEPTH} levels"))
            }
            // serde_json words a lone surrogate several ways: look for one.
            Err(e) => match lone_surrogate_path(text) {
                Some(path) => Err(format!(
                    "{} holds a lone surrogate; text must be well-formed Unicode",
                    quote(&path)
                )),
                None => Err(format!("it is not JSON ({})", quote(&e.to_string()))),
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

// ---- differential tests ----------------------------------------------------

use crate::testgen::{self, Rng};

/// The new reader's value as serde_json's: its canonical text read back.
fn as_serde(value: &super::Value) -> Value {
    serde_json::from_str(&super::ToJson::to_json(value)).expect("the writer writes JSON")
}

/// serde_json's `$serde_json::private::RawValue` key turns an object into
/// parsed text (an internal of serde_json the new reader does not copy).
fn has_raw_value_key(text: &str) -> bool {
    text.contains("$serde_json")
}

/// Every number is a whole number serde_json keeps as one (so writes the same).
fn integers_only(value: &super::Value) -> bool {
    match value {
        super::Value::Number(n) => {
            n.as_ref() != "-0"
                && n.bytes().all(|b| b == b'-' || b.is_ascii_digit())
                && (n.parse::<i64>().is_ok() || n.parse::<u64>().is_ok())
        }
        super::Value::Array(items) => items.iter().all(integers_only),
        super::Value::Object(o) => o.0.iter().all(|(_, v)| integers_only(v)),
        _ => true,
    }
}

fn check_text(text: &str) {
    // Checking only (skip): ok, and the same message and position.
    let old = serde_json::from_str::<de::IgnoredAny>(text)
        .map(|_| ())
        .map_err(|e| e.to_string());
    let new = super::validate(text.as_bytes()).map_err(|e| e.to_string());
    assert_eq!(new, old, "validate {text:?}");
    if has_raw_value_key(text) {
        return;
    }
    // Building: the same value, or the same message and position.
    let old = serde_json::from_str::<Value>(text).map_err(|e| e.to_string());
    let new = super::parse(text, None)
        .map(|v| as_serde(&v))
        .map_err(|e| e.to_string());
    assert_eq!(new, old, "parse {text:?}");
    // Writing a copied value: the text serde wrote, numbers aside (they keep their text).
    if let (Ok(value), Ok(old)) = (super::parse(text, None), &old) {
        if integers_only(&value) {
            assert_eq!(super::ToJson::to_json(&value), old.to_string(), "write {text:?}");
        }
    }
    // Model input: the same value or the same refusal.
    let old = old_input(text);
    let new = match super::Input::parse(text) {
        super::Input::Json(v) => Ok(as_serde(&v)),
        super::Input::Unreadable(why) => Err(why),
    };
    assert_eq!(new, old, "Input::parse {text:?}");
}

#[test]
fn reader_agrees_with_serde_json_on_generated_texts() {
    let mut rng = Rng::new(8);
    for _ in 0..60_000 {
        check_text(&testgen::text(&mut rng));
    }
}

#[test]
fn reader_agrees_with_serde_json_on_edge_cases() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let cases: Vec<String> = vec![
        String::new(),
        " ".into(),
        "\u{feff}{}".into(), // a byte order mark is not JSON
        "{}".into(),
        "[]".into(),
        "{} x".into(),
        "{}\n".into(),
        "[1,]".into(),
        "{\"a\":1,}".into(),
        "{\"a\" 1}".into(),
        "{1:2}".into(),
        "\"\\ud800\"".into(),
        "\"\\udc00\"".into(),
        "\"\\ude00\\ud83d\"".into(),
        "\"\\ud83d\\ude00\"".into(),
        "\"\\\\ud800\"".into(),
        "\"\\ud800\\\"".into(),
        "\"\\ud800\\".into(),
        "\"\\ud800".into(),
        "\"\\ud80".into(),
        "\"a\u{1}b\"".into(),
        "\"a\u{7f}b\"".into(),
        deep(127),
        deep(128),
        deep(10_000),
        format!("{}1{}", "[".repeat(127), "]".repeat(127)),
        format!("{{\"a\":{}}}", deep(126)),
        format!("{{\"a\":{}}}", deep(127)),
        "1e309".into(),
        "-1e309".into(),
        "[1e308, 1.7976931348623157e308, 1.7976931348623158e308, 1.797693134862315807937e308]".into(),
        "17976931348623157081452742373170435679807056752584499659891747680315726078002853876058955863276687817154045895351438246423432132688946418276846754670353751698604991057655128207624549009038932894407586850845513394230458323690322294816580855933212334827479782620414472316873817718091929988125040402618412485836".into(),
        "1.00000000000000000000000000000000000000001".into(),
        "0.000000000000000000000000000000000000000000001e330".into(),
        "{\"todos\":[{\"content\":\"bad \\ud800\",\"status\":\"pending\"}]}".into(),
        "{\"b\":\"\\ud800\",\"a\":\"\\udc00\"}".into(),
        "{\"a\":\"\\ud800\",\"a\":\"ok\"}".into(),
        "{\"a\\udc00b\":1}".into(),
        "[\"\\ud800\", {\"x\": [\"\\udfff\"]}]".into(),
        "{\"x\":\"\\ud800\"} trailing".into(),
        "\"\u{10FFFF}\\ud800\u{10FFFE}\\uffff\u{FFFE}\"".into(),
        "\"\\udbff\\udfff\\ud800\"".into(),
        // The texts the unit tests name, so their expected messages are serde_json's.
        "01".into(), "1.".into(), "1.x".into(), ".5".into(), "1e".into(), "1e+".into(), "+1".into(), "-".into(),
        "0x10".into(), "Infinity".into(), "NaN".into(), "[-1e400]".into(), "\"\\x\"".into(), "\"\\u12\"".into(),
        "\"\\u12".into(), "\"open".into(), "\"a\tb\"".into(), "\"\\ud800\\u0041\"".into(),
        "\"\\ud800\\n\"".into(), "\u{a0}1".into(), "\u{c}1".into(), "[1 2]".into(), "{\"a\":1\n\"b\":2}".into(),
        "tru".into(), "trux".into(), " \t\r\n[ 1 ,\n2 ] \n".into(), "{\"b\":\"\\ud800\",\"a\":[\"x\",\"\\udfff\"]}".into(),
    ];
    for text in &cases {
        check_text(text);
    }
}
