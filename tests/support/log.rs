//! Plausible and implausible logs, drawn with `arbitrary`: sessions with odd
//! fields, turns, todo updates (a person's edits among them), told records, offers with repeated ids, settlements of every
//! outcome, messages, foreign entries, odd `v` values, raw escapes (lone
//! surrogates), odd numbers, duplicate keys, deep nesting and plain garbage.
//! Each entry renders as one line of JSON text (or what should have been one).
//! The one generator of logs: the fuzz crate draws it from libFuzzer's bytes,
//! tests/properties.rs from proptest's (`drawn`); both include it by path.

#![allow(dead_code)]
// Drawn values live one test case long; their size does not matter.
#![allow(clippy::large_enum_variant)]

use arbitrary::{Arbitrary, Unstructured};

use crate::words::WORDS;

/// Escapes written raw into a string token: lone and paired surrogates, NUL, quotes.
const ESCAPES: &[&str] = &[
    r"\ud800",
    r"\udc00",
    r"\ud83d\ude00",
    r"\ud800\ud800",
    r"\udbff\u0041",
    r"\u0000",
    r"\u00e9",
    r#"\""#,
    r"\\",
    r"\uDFFF",
];

/// Number tokens a JSON parser may find odd.
const ODD_NUMBERS: &[&str] = &[
    "1e400",
    "-1e400",
    "-0",
    "1E-400",
    "123456789012345678901234567890",
    "-9223372036854775809",
    "18446744073709551616",
    "4294967296",
    "4294967297",
    "1.5",
    "1.0",
    "0.1e1",
    "1e0",
    "01",
];

/// Deepest a drawn value is rendered (past the core's limit of 128, within the harness's stack).
const MAX_RENDER_DEPTH: usize = 200;

fn pick<'a>(list: &[&'a str], i: impl Into<usize>) -> &'a str {
    list[i.into() % list.len()]
}

fn quote_into(out: &mut String, text: &str) {
    out.push_str(&serde_json::to_string(text).expect("a str serialises"));
}

/// A JSON string token.
#[derive(Arbitrary, Debug, Clone)]
pub enum Str {
    Word(u8),
    Any(String),
    /// Text with a raw escape inside (lone surrogates among them).
    Escaped(String, u8, String),
    /// One letter repeated, up to 5,000 times (refusals quote at most 200).
    Long(u16, u8),
    /// A word with up to two spaces, tabs or newlines on each side (texts are trimmed).
    Padded(u8, u8, u8),
}

/// Up to two blanks drawn from the bits of `bits`.
fn padding(bits: u8) -> String {
    (0..bits % 3)
        .map(|k| [' ', '\t', '\n'][usize::from(bits >> (2 + 2 * k)) % 3])
        .collect()
}

impl Str {
    pub fn render(&self, out: &mut String) {
        match self {
            Str::Word(i) => quote_into(out, pick(WORDS, *i)),
            Str::Any(s) => quote_into(out, s),
            Str::Escaped(a, i, b) => {
                let a = serde_json::to_string(a).expect("a str serialises");
                let b = serde_json::to_string(b).expect("a str serialises");
                out.push_str(a.strip_suffix('"').unwrap_or(&a));
                out.push_str(pick(ESCAPES, *i));
                out.push_str(b.strip_prefix('"').unwrap_or(&b));
            }
            Str::Long(n, c) => {
                let letter = char::from(b'a' + c % 26);
                quote_into(out, &letter.to_string().repeat(usize::from(*n) % 5000));
            }
            Str::Padded(before, i, after) => {
                quote_into(
                    out,
                    &format!("{}{}{}", padding(*before), pick(WORDS, *i), padding(*after)),
                );
            }
        }
    }
}

/// Any JSON value, and some odd ones.
#[derive(Arbitrary, Debug, Clone)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Odd(u8),
    Str(Str),
    Array(Vec<Json>),
    Object(Vec<(Str, Json)>),
    /// 100 to 159 nested arrays or objects around a value: across the limit of 128.
    Deep(u8, bool, Box<Json>),
}

impl Json {
    pub fn render(&self, out: &mut String) {
        self.render_at(out, 0);
    }

    fn render_at(&self, out: &mut String, depth: usize) {
        if depth > MAX_RENDER_DEPTH {
            out.push_str("null");
            return;
        }
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(n) => out.push_str(&n.to_string()),
            Json::Uint(n) => out.push_str(&n.to_string()),
            // A non-finite float serialises as null.
            Json::Float(f) => out.push_str(&serde_json::to_string(f).expect("a float serialises")),
            Json::Odd(i) => out.push_str(pick(ODD_NUMBERS, *i)),
            Json::Str(s) => s.render(out),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.render_at(out, depth + 1);
                }
                out.push(']');
            }
            Json::Object(fields) => {
                out.push('{');
                for (i, (key, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    key.render(out);
                    out.push(':');
                    value.render_at(out, depth + 1);
                }
                out.push('}');
            }
            Json::Deep(n, arrays, inner) => {
                let levels = 100 + usize::from(*n) % 60;
                for _ in 0..levels {
                    out.push_str(if *arrays { "[" } else { "{\"x\":" });
                }
                inner.render_at(out, depth + levels);
                for _ in 0..levels {
                    out.push(if *arrays { ']' } else { '}' });
                }
            }
        }
    }
}

/// A field's value: 7 in 10 of the right kind, else missing, null or anything.
#[derive(Debug, Clone)]
pub enum Field<T> {
    Right(T),
    Missing,
    Null,
    Other(Json),
}

impl<'a, T: Arbitrary<'a>> Arbitrary<'a> for Field<T> {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        // Out of bytes, 0: the right kind.
        Ok(match u.int_in_range(0..=9u8)? {
            7 => Field::Missing,
            8 => Field::Null,
            9 => Field::Other(u.arbitrary()?),
            _ => Field::Right(u.arbitrary()?),
        })
    }
}

/// Something that renders as a JSON value.
pub trait Render {
    fn render(&self, out: &mut String);
}

impl Render for Str {
    fn render(&self, out: &mut String) {
        Str::render(self, out)
    }
}

impl Render for Json {
    fn render(&self, out: &mut String) {
        Json::render(self, out)
    }
}

impl Render for bool {
    fn render(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" });
    }
}

impl<T: Render> Render for Vec<T> {
    fn render(&self, out: &mut String) {
        out.push('[');
        for (i, item) in self.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            item.render(out);
        }
        out.push(']');
    }
}

/// A word from a list, or any string.
#[derive(Arbitrary, Debug, Clone)]
pub enum Choice {
    Known(u8),
    Known2(u8),
    Any(Str),
}

impl Choice {
    fn render_from(&self, list: &[&str], out: &mut String) {
        match self {
            Choice::Known(i) | Choice::Known2(i) => quote_into(out, pick(list, *i)),
            Choice::Any(s) => s.render(out),
        }
    }
}

macro_rules! choice {
    ($name:ident, $list:expr) => {
        #[derive(Arbitrary, Debug, Clone)]
        pub struct $name(pub Choice);
        impl Render for $name {
            fn render(&self, out: &mut String) {
                self.0.render_from(&$list, out)
            }
        }
    };
}

// Offer ids repeat often (s1..s4), so offers collide and settlements find them.
choice!(Id, ["s1", "s2", "s3", "s4", "s1 ", "S1", ""]);
choice!(Agent, ["top-level", "helper"]);
choice!(Status, ["pending", "in_progress", "completed"]);
choice!(OutcomeWord, ["started", "drafted", "dismissed", "restored"]);
choice!(Role, ["user", "assistant", "system"]);
choice!(SourceKind, ["suggestion"]);
choice!(Permission, ["read-only", "ask", "auto", "full-access", "root"]);
choice!(ChatId, ["c", "c1", "c.s1", "c.s2"]);

/// Writes an object field by field; a missing field is left out.
struct Object<'a> {
    out: &'a mut String,
    empty: bool,
}

impl<'a> Object<'a> {
    fn open(out: &'a mut String) -> Self {
        out.push('{');
        Object { out, empty: true }
    }

    fn key(&mut self, name: &str) {
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
        quote_into(self.out, name);
        self.out.push(':');
    }

    fn raw(&mut self, name: &str, token: &str) -> &mut Self {
        self.key(name);
        self.out.push_str(token);
        self
    }

    fn field<T: Render>(&mut self, name: &str, field: &Field<T>) -> &mut Self {
        match field {
            Field::Right(value) => {
                self.key(name);
                value.render(self.out);
            }
            Field::Missing => {}
            Field::Null => {
                self.raw(name, "null");
            }
            Field::Other(json) => {
                self.key(name);
                json.render(self.out);
            }
        }
        self
    }

    fn version(&mut self, v: &Version) -> &mut Self {
        match v {
            Version::Absent | Version::Absent2 | Version::Absent3 => {}
            Version::One | Version::One2 | Version::One3 | Version::One4 | Version::One5 => {
                self.raw("v", "1");
            }
            Version::Two => {
                self.raw("v", "2");
            }
            Version::Zero => {
                self.raw("v", "0");
            }
            Version::Odd(i) => {
                self.raw("v", pick(ODD_NUMBERS, *i));
            }
            Version::Text => {
                self.raw("v", "\"1\"");
            }
            Version::Any(json) => {
                self.key("v");
                json.render(self.out);
            }
        }
        self
    }

    fn extra(&mut self, fields: &[(Str, Json)]) -> &mut Self {
        for (key, value) in fields {
            if !self.empty {
                self.out.push(',');
            }
            self.empty = false;
            key.render(self.out);
            self.out.push(':');
            value.render(self.out);
        }
        self
    }

    fn close(&mut self) {
        self.out.push('}');
    }
}

/// `v`: mostly (8 in 13) absent or 1.
#[derive(Arbitrary, Debug, Clone)]
pub enum Version {
    Absent,
    Absent2,
    Absent3,
    One,
    One2,
    One3,
    One4,
    One5,
    Two,
    Zero,
    Odd(u8),
    Text,
    Any(Json),
}

#[derive(Arbitrary, Debug, Clone)]
pub struct Settings {
    pub preset: Field<Str>,
    pub model: Field<Str>,
    pub permission: Field<Permission>,
    pub sandbox: Field<Json>,
    pub approval: Field<Json>,
}

impl Render for Settings {
    fn render(&self, out: &mut String) {
        Object::open(out)
            .field("preset", &self.preset)
            .field("model", &self.model)
            .field("permission", &self.permission)
            .field("sandbox", &self.sandbox)
            .field("approval", &self.approval)
            .close();
    }
}

#[derive(Arbitrary, Debug, Clone)]
pub struct OriginOf {
    pub chat_id: Field<ChatId>,
    pub suggestion_id: Field<Id>,
}

impl OriginOf {
    /// Its two fields, written into an origin or a message's source.
    fn fields<'o, 'a>(&self, object: &'o mut Object<'a>) -> &'o mut Object<'a> {
        object
            .field("chatId", &self.chat_id)
            .field("suggestionId", &self.suggestion_id)
    }
}

impl Render for OriginOf {
    fn render(&self, out: &mut String) {
        self.fields(&mut Object::open(out)).close();
    }
}

#[derive(Arbitrary, Debug, Clone)]
pub struct Source {
    pub kind: Field<SourceKind>,
    pub origin: OriginOf,
}

impl Render for Source {
    fn render(&self, out: &mut String) {
        self.origin.fields(Object::open(out).field("kind", &self.kind)).close();
    }
}

#[derive(Arbitrary, Debug, Clone)]
pub struct Item {
    pub content: Field<Str>,
    pub status: Field<Status>,
    pub extra: Vec<(Str, Json)>,
}

impl Render for Item {
    fn render(&self, out: &mut String) {
        Object::open(out)
            .field("content", &self.content)
            .field("status", &self.status)
            .extra(&self.extra)
            .close();
    }
}

/// Who made a person's edit: `{ name? }`, maybe with more members.
#[derive(Arbitrary, Debug, Clone)]
pub struct By {
    pub name: Field<Str>,
    pub extra: Vec<(Str, Json)>,
}

impl Render for By {
    fn render(&self, out: &mut String) {
        Object::open(out).field("name", &self.name).extra(&self.extra).close();
    }
}

/// One log entry, plausible or not.
#[derive(Arbitrary, Debug, Clone)]
pub enum Entry {
    Session {
        v: Version,
        chat_id: Field<ChatId>,
        title: Field<Str>,
        workspace: Field<Str>,
        scheduled: Field<bool>,
        agent: Field<Agent>,
        settings: Field<Settings>,
        origin: Field<OriginOf>,
        extra: Vec<(Str, Json)>,
    },
    TurnStarted {
        v: Version,
        extra: Vec<(Str, Json)>,
    },
    TurnStarted2 {
        v: Version,
    },
    TurnEnded {
        v: Version,
        extra: Vec<(Str, Json)>,
    },
    TodoUpdate {
        v: Version,
        todos: Field<Vec<Item>>,
    },
    /// A person's edit of the list.
    TodoEdit {
        v: Version,
        todos: Field<Vec<Item>>,
        by: Field<By>,
    },
    /// The record that the model was told of a person's edit.
    Told {
        v: Version,
        text: Field<Str>,
    },
    Offer {
        v: Version,
        id: Field<Id>,
        title: Field<Str>,
        tldr: Field<Str>,
        brief: Field<Str>,
    },
    Offer2 {
        v: Version,
        id: Field<Id>,
    },
    Settled {
        v: Version,
        id: Field<Id>,
        outcome: Field<OutcomeWord>,
        chat_id: Field<ChatId>,
    },
    Settled2 {
        v: Version,
        id: Field<Id>,
        outcome: Field<OutcomeWord>,
    },
    Message {
        v: Version,
        role: Field<Role>,
        text: Field<Str>,
        source: Field<Source>,
    },
    /// A message without a source: most messages.
    Message2 {
        v: Version,
        role: Field<Role>,
        text: Field<Str>,
    },
    Foreign {
        kind: Str,
        extra: Vec<(Str, Json)>,
    },
    /// Any JSON value (mostly not an object).
    NotObject(Json),
    /// Text that may not be JSON at all.
    Raw(String),
    /// An entry with one more key appended (a duplicate `type`, `id`, `v`...).
    Duplicate(Box<Entry>, Str, Json),
}

impl Entry {
    /// The entry as one line of JSON text (no raw newline or carriage return).
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out);
        out
    }

    fn render_into(&self, out: &mut String) {
        match self {
            Entry::Session {
                v,
                chat_id,
                title,
                workspace,
                scheduled,
                agent,
                settings,
                origin,
                extra,
            } => Object::open(out)
                .raw("type", "\"session\"")
                .version(v)
                .field("chatId", chat_id)
                .field("title", title)
                .field("workspace", workspace)
                .field("scheduledTaskFolder", scheduled)
                .field("agent", agent)
                .field("settings", settings)
                .field("origin", origin)
                .extra(extra)
                .close(),
            Entry::TurnStarted { v, extra } => Object::open(out)
                .raw("type", "\"turn_started\"")
                .version(v)
                .extra(extra)
                .close(),
            Entry::TurnStarted2 { v } => Object::open(out).raw("type", "\"turn_started\"").version(v).close(),
            Entry::TurnEnded { v, extra } => Object::open(out)
                .raw("type", "\"turn_ended\"")
                .version(v)
                .extra(extra)
                .close(),
            Entry::TodoUpdate { v, todos } => Object::open(out)
                .raw("type", "\"todo_update\"")
                .version(v)
                .field("todos", todos)
                .close(),
            Entry::TodoEdit { v, todos, by } => Object::open(out)
                .raw("type", "\"todo_update\"")
                .version(v)
                .field("todos", todos)
                .field("by", by)
                .close(),
            Entry::Told { v, text } => Object::open(out)
                .raw("type", "\"todo_told\"")
                .version(v)
                .field("text", text)
                .close(),
            Entry::Offer {
                v,
                id,
                title,
                tldr,
                brief,
            } => Object::open(out)
                .raw("type", "\"suggestion_offered\"")
                .version(v)
                .field("id", id)
                .field("title", title)
                .field("tldr", tldr)
                .field("brief", brief)
                .close(),
            Entry::Offer2 { v, id } => Object::open(out)
                .raw("type", "\"suggestion_offered\"")
                .version(v)
                .field("id", id)
                .raw("title", "\"T\"")
                .raw("tldr", "\"W\"")
                .raw("brief", "\"B\"")
                .close(),
            Entry::Settled {
                v,
                id,
                outcome,
                chat_id,
            } => Object::open(out)
                .raw("type", "\"suggestion_settled\"")
                .version(v)
                .field("id", id)
                .field("outcome", outcome)
                .field("chatId", chat_id)
                .close(),
            Entry::Settled2 { v, id, outcome } => Object::open(out)
                .raw("type", "\"suggestion_settled\"")
                .version(v)
                .field("id", id)
                .field("outcome", outcome)
                .close(),
            Entry::Message { v, role, text, source } => Object::open(out)
                .raw("type", "\"message\"")
                .version(v)
                .field("role", role)
                .field("text", text)
                .field("source", source)
                .close(),
            Entry::Message2 { v, role, text } => Object::open(out)
                .raw("type", "\"message\"")
                .version(v)
                .field("role", role)
                .field("text", text)
                .close(),
            Entry::Foreign { kind, extra } => {
                let mut object = Object::open(out);
                object.key("type");
                kind.render(object.out);
                object.extra(extra).close();
            }
            Entry::NotObject(json) => json.render(out),
            Entry::Raw(text) => out.push_str(&text.replace(['\n', '\r'], " ")),
            Entry::Duplicate(entry, key, value) => {
                entry.render_into(out);
                if out.ends_with('}') && out.len() > 2 {
                    out.pop();
                    out.push(',');
                    key.render(out);
                    out.push(':');
                    value.render(out);
                    out.push('}');
                }
            }
        }
    }
}

/// How a log is laid out as a JSONL file and fed to a reader.
#[derive(Arbitrary, Debug, Clone)]
pub struct Layout {
    /// Starts with a UTF-8 byte order mark.
    pub bom: bool,
    /// Per line (cycled): its line end, `\n`, `\r\n` or a lone `\r`.
    pub ends: Vec<u8>,
    /// Per line (cycled): blank lines written before it (0 to 2).
    pub blanks: Vec<u8>,
    /// The last line ends with a newline.
    pub terminated: bool,
    /// Chunk sizes (cycled) the bytes are fed in.
    pub chunks: Vec<u8>,
    /// Points (mod the log's length + 1) where the incremental fold is compared with a whole one.
    pub splits: Vec<u8>,
}

/// A drawn log and its layout.
#[derive(Arbitrary, Debug, Clone)]
pub struct Log {
    pub entries: Vec<Entry>,
    pub layout: Layout,
}

/// One line of a JSONL file: its 1-based number and text.
pub struct Line<'a> {
    pub number: usize,
    pub text: &'a str,
    /// The last line, without a newline after it.
    pub unterminated: bool,
}

impl Layout {
    /// The JSONL bytes of `texts`, and where each text's line sits.
    pub fn jsonl<'a>(&self, texts: &'a [String]) -> (Vec<u8>, Vec<Line<'a>>) {
        let mut bytes = if self.bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
        let mut lines = Vec::with_capacity(texts.len());
        let mut number = 0;
        let cycled = |list: &[u8], i: usize| list.get(i % list.len().max(1)).copied().unwrap_or(0);
        // An empty line right after a lone `\r` ends with `\r\n`: `\r` then `\n` is one line end.
        let end_after = |bytes: &[u8], newline: &'static [u8]| -> &'static [u8] {
            if newline == b"\n" && bytes.last() == Some(&b'\r') {
                b"\r\n"
            } else {
                newline
            }
        };
        for (i, text) in texts.iter().enumerate() {
            let newline: &'static [u8] = match cycled(&self.ends, i) % 3 {
                0 => b"\n",
                1 => b"\r\n",
                _ => b"\r",
            };
            for _ in 0..cycled(&self.blanks, i) % 3 {
                bytes.extend_from_slice(end_after(&bytes, newline));
                number += 1;
            }
            number += 1;
            bytes.extend_from_slice(text.as_bytes());
            let last = i + 1 == texts.len();
            if !last || self.terminated {
                let end = if text.is_empty() {
                    end_after(&bytes, newline)
                } else {
                    newline
                };
                bytes.extend_from_slice(end);
            }
            lines.push(Line {
                number,
                text,
                unterminated: last && !self.terminated,
            });
        }
        (bytes, lines)
    }

    /// `bytes` cut into the drawn chunk sizes (1 to 256 bytes), cycled.
    pub fn chunks<'b>(&self, bytes: &'b [u8]) -> Vec<&'b [u8]> {
        let mut out = Vec::new();
        let mut rest = bytes;
        let mut i = 0;
        while !rest.is_empty() {
            let size = self
                .chunks
                .get(i % self.chunks.len().max(1))
                .map_or(rest.len(), |s| usize::from(*s) + 1);
            let (chunk, tail) = rest.split_at(size.min(rest.len()));
            out.push(chunk);
            rest = tail;
            i += 1;
        }
        out
    }
}
