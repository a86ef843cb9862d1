//! The stored entry format (a leaf: it knows no fold and no rule).
//!
//! A log is an ordered list of JSON objects with a string `type`. Entries the
//! core writes carry `v` ([`FORMAT_VERSION`]); an entry without it is read as
//! version 1. Reading is tolerant: [`read_entry`] turns one entry's JSON text
//! into a known entry, an app's own entry, or a reason to skip it.

use std::borrow::Cow;

use crate::json::read::{Parser, Shape};
use crate::json::write::{cat, uint_text};
use crate::json::{data, kind_of_text, quote, Data, Error, Out, ToJson, LONE_SURROGATE};

/// Version of the entries this core writes. Bump it when a stored field
/// changes meaning; readers skip (and report) entries from a newer version.
pub const FORMAT_VERSION: u32 = 1;

/// The `agent` value of a top-level chat; anything else is a helper.
pub const TOP_LEVEL: &str = "top-level";

/// Every entry type the core reads, as written. Field names are the stored format.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Session(SessionEntry),
    TurnStarted {},
    TurnEnded {},
    TodoUpdate(TodoUpdate),
    SuggestionOffered(Offer),
    SuggestionSettled(Settlement),
    Message(Message),
}

/// The chat itself; the host writes it first (the core writes it for a started chat).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionEntry {
    pub v: u32,
    pub chat_id: Option<String>,
    pub title: Option<String>,
    pub workspace: Option<String>,
    pub scheduled_task_folder: bool,
    pub agent: String,
    pub settings: Settings,
    /// Set on a chat started from a suggestion: where it came from.
    pub origin: Option<Origin>,
}

impl SessionEntry {
    /// What a session that cannot be read stands for: the least a chat may
    /// do (a helper, in a scheduled folder, no workspace, no permission).
    pub fn fail_closed() -> SessionEntry {
        SessionEntry {
            v: FORMAT_VERSION,
            chat_id: None,
            title: None,
            workspace: None,
            scheduled_task_folder: true,
            agent: "helper".to_string(),
            settings: Settings::default(),
            origin: None,
        }
    }
}

/// What a chat runs as. `sandbox` and `approval` are opaque: copied as they are.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    pub preset: Option<String>,
    pub model: Option<String>,
    pub permission: Option<String>,
    pub sandbox: Option<Data>,
    pub approval: Option<Data>,
}

/// The offering chat and suggestion a started chat (or its brief) comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Origin {
    pub chat_id: String,
    pub suggestion_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

impl TodoStatus {
    pub fn parse(text: &str) -> Option<TodoStatus> {
        match text {
            "pending" => Some(TodoStatus::Pending),
            "in_progress" => Some(TodoStatus::InProgress),
            "completed" => Some(TodoStatus::Completed),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TodoStatus::Pending => "pending",
            TodoStatus::InProgress => "in_progress",
            TodoStatus::Completed => "completed",
        }
    }
}

/// An item is its text and its state; nothing else travels with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TodoItem {
    pub content: String,
    pub status: TodoStatus,
}

/// One recorded `todo_write` update: the whole list.
#[derive(Debug, Clone, PartialEq)]
pub struct TodoUpdate {
    pub v: u32,
    pub todos: Vec<TodoItem>,
}

/// One recorded `suggest_task` offer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    pub v: u32,
    pub id: String,
    pub title: String,
    pub tldr: String,
    pub brief: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Started,
    Drafted,
    Dismissed,
    Restored,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Started => "started",
            Outcome::Drafted => "drafted",
            Outcome::Dismissed => "dismissed",
            Outcome::Restored => "restored",
        }
    }
}

/// A settlement of an offer; `chat_id` only with `started`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settlement {
    pub v: u32,
    pub id: String,
    pub outcome: Outcome,
    pub chat_id: Option<String>,
}

/// A chat message. A `user` message without `source` is the person's own;
/// one with a suggestion `source` is a brief the core wrote for a started chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub v: u32,
    pub role: String,
    pub text: Option<String>,
    pub source: Option<Source>,
}

/// Who a message is attributed to when it is not the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Suggestion(Origin),
}

/// An entry replay could not use, and why. Reported, never fatal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Position in the log.
    pub index: usize,
    pub kind: Option<String>,
    pub reason: String,
}

/// One entry as read: what the fold gets.
#[derive(Debug, Clone, PartialEq)]
pub enum Read {
    Entry(Entry),
    /// An app's own entry (a type the core does not read): ignored silently.
    Foreign,
    /// Text that is not JSON at all (a damaged line of a file), and why.
    NotJson(String),
    /// A known or unusable entry that cannot be read: reported, and still
    /// counted where its mere presence matters (an offer, a session).
    Skip {
        kind: Option<KnownType>,
        reason: String,
    },
    /// A session that cannot be read as written: `session` is what it stands
    /// for (its fields read one by one, restrictively, or
    /// [`SessionEntry::fail_closed`] as a whole).
    FailedSession {
        session: SessionEntry,
        reason: String,
    },
}

/// The entry types the core reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnownType {
    Session,
    TurnStarted,
    TurnEnded,
    TodoUpdate,
    SuggestionOffered,
    SuggestionSettled,
    Message,
}

impl KnownType {
    fn parse(text: &str) -> Option<KnownType> {
        Some(match text {
            "session" => KnownType::Session,
            "turn_started" => KnownType::TurnStarted,
            "turn_ended" => KnownType::TurnEnded,
            "todo_update" => KnownType::TodoUpdate,
            "suggestion_offered" => KnownType::SuggestionOffered,
            "suggestion_settled" => KnownType::SuggestionSettled,
            "message" => KnownType::Message,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            KnownType::Session => "session",
            KnownType::TurnStarted => "turn_started",
            KnownType::TurnEnded => "turn_ended",
            KnownType::TodoUpdate => "todo_update",
            KnownType::SuggestionOffered => "suggestion_offered",
            KnownType::SuggestionSettled => "suggestion_settled",
            KnownType::Message => "message",
        }
    }
}

/// Every field any known entry has, in the order [`Fields`] holds them.
const FIELD_NAMES: [&str; 16] = [
    "type",
    "v",
    "chatId",
    "title",
    "workspace",
    "scheduledTaskFolder",
    "agent",
    "settings",
    "origin",
    "todos",
    "id",
    "tldr",
    "brief",
    "outcome",
    "role",
    "source",
];

const FIELDS: Shape = Shape {
    expecting: "struct Fields",
    fields: &FIELD_NAMES,
    deny_unknown: false,
    last_wins: true,
    optional: u32::MAX,
    defaulted: 0,
};

/// Every field any known entry has, captured unparsed (`null` reads as
/// absent): one pass over the entry finds them, fields no known type has are
/// skipped without being built, and each type then reads only its own.
#[derive(Default)]
struct Fields<'a> {
    raw: [Option<&'a [u8]>; 16],
    /// A `todo_update`'s items, read in the same pass when `type` came first.
    items: Option<Items<'a>>,
}

/// Stored todo items as read: content and status, not yet checked.
type Items<'a> = Vec<(Cow<'a, str>, Cow<'a, str>)>;

impl<'a> Fields<'a> {
    fn get(&self, name: Field) -> Option<&'a [u8]> {
        self.raw.get(name as usize).copied().flatten()
    }
}

/// A field's place in [`FIELD_NAMES`].
#[derive(Clone, Copy)]
enum Field {
    Type,
    V,
    ChatId,
    Title,
    Workspace,
    ScheduledTaskFolder,
    Agent,
    Settings,
    Origin,
    Todos,
    Id,
    Tldr,
    Brief,
    Outcome,
    Role,
    Source,
}

/// Reads an entry's fields: the whole text is checked, its known fields kept.
fn read_fields(bytes: &[u8]) -> Result<Fields<'_>, Error> {
    let mut p = Parser::new(bytes);
    let fields = fields_of(&mut p)?;
    p.end()?;
    Ok(fields)
}

/// The entry of a JSONL line at the start of `bytes` and the line's length,
/// when the line is one object followed by its line end (`\n` or `\r`), read
/// in one pass with finding that end: line ends are not whitespace here, so
/// such a read covers exactly what the line alone would. `None`: anything
/// else (an error, no line end yet), and the caller splits the line first.
pub(crate) fn read_line_entry(bytes: &[u8]) -> Option<(Read, usize)> {
    let mut p = Parser::new(bytes);
    p.one_line();
    let fields = fields_of(&mut p).ok()?;
    let end = p.line_end()?;
    Some((read_known(fields), end))
}

fn fields_of<'a>(p: &mut Parser<'a>) -> Result<Fields<'a>, Error> {
    let mut fields = Fields::default();
    p.read_struct(&FIELDS, &mut |p, k| {
        if p.null()? {
            // A repeated field's last value counts, a null one too (absent).
            if let Some(slot) = fields.raw.get_mut(k) {
                *slot = None;
            }
            if k == Field::Todos as usize {
                fields.items = None;
            }
            return Ok(());
        }
        let raw = if k == Field::Todos as usize && fields.raw.first() == Some(&Some(b"\"todo_update\"")) {
            // The items are read as they are checked (one pass, not two).
            let (raw, items) = p.checked(todo_items)?;
            fields.items = items;
            raw
        } else {
            p.raw_value()?
        };
        if let Some(slot) = fields.raw.get_mut(k) {
            *slot = Some(raw);
        }
        Ok(())
    })?;
    Ok(fields)
}

/// Reads one entry from its JSON text.
pub fn read_entry(text: &str) -> Read {
    // Text is UTF-8, so this is always an entry.
    read_entry_bytes(text.as_bytes()).unwrap_or_else(|| Read::NotJson(String::from("not UTF-8 text")))
}

/// Reads one entry from bytes; `None` when they are not UTF-8 text. Strings
/// are checked for UTF-8 as they are read, so an entry read to its end needs
/// no second pass; one that stops early is checked whole before it is judged.
pub(crate) fn read_entry_bytes(bytes: &[u8]) -> Option<Read> {
    let got = match bytes.first() {
        // Not whitespace of any kind: the first byte says the kind.
        Some(&b) if b.is_ascii() && !b.is_ascii_whitespace() && b != 0x0b => kind_of_text(ascii(b)),
        _ => kind_of_text(std::str::from_utf8(bytes).ok()?),
    };
    let utf8 = || std::str::from_utf8(bytes).is_ok();
    if got != "an object" {
        // Checked first: a struct would also accept an array, by position.
        return match crate::json::validate(bytes) {
            Ok(()) => Some(Read::Skip {
                kind: None,
                reason: cat(&["an entry must be an object (got ", got, ")"]),
            }),
            Err(_) if !utf8() => None,
            Err(e) => Some(Read::NotJson(quote(&e.text()).into_owned())),
        };
    }
    let fields = match read_fields(bytes) {
        Ok(fields) => fields,
        Err(_) if !utf8() => return None,
        Err(e) if e.is_data() => {
            return Some(Read::Skip {
                kind: None,
                reason: cat(&["not a readable entry (", &quote(&e.text()), ")"]),
            })
        }
        Err(e) => return Some(Read::NotJson(quote(&e.text()).into_owned())),
    };
    Some(read_known(fields))
}

/// The one-character text of an ASCII byte.
fn ascii(b: u8) -> &'static str {
    const ALL: &str = "\0\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\x7f";
    let at = usize::from(b);
    ALL.get(at..at + 1).unwrap_or_default()
}

fn read_known(mut fields: Fields) -> Read {
    let Some(kind) = fields.get(Field::Type).and_then(|raw| text_of(raw).ok()) else {
        return Read::Skip {
            kind: None,
            reason: "an entry must have a string `type`".to_string(),
        };
    };
    let Some(known) = KnownType::parse(&kind) else {
        return Read::Foreign;
    };
    let skip = |reason: String| Read::Skip {
        kind: Some(known),
        reason,
    };
    // Turn markers carry nothing the core reads, so any version of one is
    // used as it is: skipping one would misplace every offer and plan after it.
    let v = match known {
        KnownType::TurnStarted => return Read::Entry(Entry::TurnStarted {}),
        KnownType::TurnEnded => return Read::Entry(Entry::TurnEnded {}),
        _ => match version(fields.get(Field::V)) {
            Ok(v) => v,
            Err(reason) if known == KnownType::Session => {
                return Read::FailedSession {
                    session: SessionEntry::fail_closed(),
                    reason,
                }
            }
            Err(reason) => return skip(reason),
        },
    };
    let read = match known {
        KnownType::Session => return read_session(&fields, v),
        KnownType::TodoUpdate => read_todo_update(&mut fields, v).map(Entry::TodoUpdate),
        KnownType::SuggestionOffered => read_offer(&fields, v).map(Entry::SuggestionOffered),
        KnownType::SuggestionSettled => read_settlement(&fields, v).map(Entry::SuggestionSettled),
        KnownType::Message => read_message(&fields, v).map(Entry::Message),
        KnownType::TurnStarted | KnownType::TurnEnded => return Read::Foreign, // handled above
    };
    match read {
        Ok(entry) => Read::Entry(entry),
        Err(reason) => skip(reason),
    }
}

/// A captured field's text (a JSON value the first pass checked).
fn raw_text(raw: &[u8]) -> &str {
    std::str::from_utf8(raw).unwrap_or_default()
}

/// `v`: absent is 1; a whole number up to this version is read; a newer one
/// is reported; anything else (`1.5`, `"1"`, `0`, `-1`) cannot be read.
fn version(raw: Option<&[u8]>) -> Result<u32, String> {
    let Some(raw) = raw else { return Ok(1) };
    let text = raw_text(raw);
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        match text.parse::<u64>() {
            Ok(1) => return Ok(1),
            Ok(v) if v > u64::from(FORMAT_VERSION) => return Err(newer(&uint_text(v))),
            Err(_) => return Err(newer(&quote(text))),
            Ok(_) => {}
        }
    }
    Err(cat(&["`v` must be a whole number from 1 (got ", &quote(text), ")"]))
}

fn newer(v: &str) -> String {
    cat(&[
        "written in format v",
        v,
        "; this version reads up to v",
        &uint_text(u64::from(FORMAT_VERSION)),
    ])
}

/// Reads a captured value with `read`, which must use it all.
fn read_raw<'a, T>(raw: &'a [u8], read: impl FnOnce(&mut Parser<'a>) -> Result<T, Error>) -> Result<T, Error> {
    let mut p = Parser::new(raw);
    let value = read(&mut p)?;
    p.end()?;
    Ok(value)
}

/// A string that must be well-formed Unicode (read as serde_json reads bytes).
fn text_of(raw: &[u8]) -> Result<Cow<'_, str>, Error> {
    read_raw(raw, |p| p.loose_text("a string", LONE_SURROGATE))
}

/// Why a field cannot be read: a lone surrogate by name, else its kind.
fn field_error(name: &str, what: &str, raw: &[u8], e: &Error) -> String {
    if crate::json::contains(e.message(), LONE_SURROGATE) {
        cat(&["`", name, "`: ", LONE_SURROGATE])
    } else {
        cat(&[
            "`",
            name,
            "` must be ",
            what,
            " (got ",
            kind_of_text(raw_text(raw)),
            ")",
        ])
    }
}

/// A required field read by `read`, or why not.
fn required<'a, T>(
    raw: Option<&'a [u8]>,
    name: &str,
    what: &str,
    read: impl FnOnce(&mut Parser<'a>) -> Result<T, Error>,
) -> Result<T, String> {
    let raw = raw.ok_or_else(|| cat(&["missing field `", name, "`"]))?;
    read_raw(raw, read).map_err(|e| field_error(name, what, raw, &e))
}

fn text(raw: Option<&[u8]>, name: &str) -> Result<String, String> {
    required(raw, name, "a string", |p| p.loose_text("a string", LONE_SURROGATE)).map(Cow::into_owned)
}

/// Reads the string fields of a struct stored as an object (or, as serde
/// read it, an array by position), each well-formed Unicode.
fn strings<'a, const N: usize>(p: &mut Parser<'a>, shape: &Shape) -> Result<[Cow<'a, str>; N], Error> {
    let mut out: [Cow<'a, str>; N] = std::array::from_fn(|_| Cow::Borrowed(""));
    p.read_struct(shape, &mut |p, k| {
        let text = p.loose_text("a string", LONE_SURROGATE)?;
        if let Some(slot) = out.get_mut(k) {
            *slot = text;
        }
        Ok(())
    })?;
    Ok(out)
}

const STORED_ITEM: Shape = Shape {
    expecting: "struct StoredItem",
    fields: &["content", "status"],
    deny_unknown: false,
    last_wins: true,
    optional: 0,
    defaulted: 0,
};

/// A stored list: an array of `{ content, status }` (or `[content, status]`).
fn todo_items<'a>(p: &mut Parser<'a>) -> Result<Items<'a>, Error> {
    let mut items = Vec::new();
    p.read_seq(&mut |p| {
        // Most items are as the core wrote them: read those directly.
        if let Some((content, status)) = p.plain_pair(b"{\"content\":\"", b",\"status\":\"") {
            items.push((Cow::Borrowed(content), Cow::Borrowed(status)));
            return Ok(());
        }
        let [content, status] = strings::<2>(p, &STORED_ITEM)?;
        items.push((content, status));
        Ok(())
    })?;
    Ok(items)
}

fn read_todo_update(f: &mut Fields, v: u32) -> Result<TodoUpdate, String> {
    let items = match f.items.take() {
        Some(items) => items,
        None => required(
            f.get(Field::Todos),
            "todos",
            "an array of { content, status }",
            todo_items,
        )?,
    };
    let todos = items
        .into_iter()
        .enumerate()
        .map(|(i, (content, status))| {
            let status = TodoStatus::parse(&status)
                .ok_or_else(|| cat(&["todos[", &uint_text(i as u64), "]: unknown status ", &quote(&status)]))?;
            Ok(TodoItem {
                content: content.into_owned(),
                status,
            })
        })
        .collect::<Result<_, String>>()?;
    Ok(TodoUpdate { v, todos })
}

fn read_offer(f: &Fields, v: u32) -> Result<Offer, String> {
    Ok(Offer {
        v,
        id: text(f.get(Field::Id), "id")?,
        title: text(f.get(Field::Title), "title")?,
        tldr: text(f.get(Field::Tldr), "tldr")?,
        brief: text(f.get(Field::Brief), "brief")?,
    })
}

/// The id of an offer entry that cannot be read, where it has a readable one.
pub fn offer_id(text: &str) -> Option<String> {
    let fields = read_fields(text.as_bytes()).ok()?;
    text_of(fields.get(Field::Id)?).ok().map(Cow::into_owned)
}

fn read_settlement(f: &Fields, v: u32) -> Result<Settlement, String> {
    let outcome = required(f.get(Field::Outcome), "outcome", "a string", |p| {
        p.loose_text("a string", LONE_SURROGATE)
    })?;
    let outcome = match outcome.as_ref() {
        "started" => Outcome::Started,
        "drafted" => Outcome::Drafted,
        "dismissed" => Outcome::Dismissed,
        "restored" => Outcome::Restored,
        other => return Err(cat(&["unknown outcome ", &quote(other)])),
    };
    let id = text(f.get(Field::Id), "id")?;
    let chat_id = match f.get(Field::ChatId) {
        None => None,
        Some(raw) => Some(text(Some(raw), "chatId")?),
    };
    Ok(Settlement {
        v,
        id,
        outcome,
        chat_id,
    })
}

const STORED_SOURCE: Shape = Shape {
    expecting: "struct StoredSource",
    fields: &["kind", "chatId", "suggestionId"],
    deny_unknown: false,
    last_wins: true,
    optional: 0,
    defaulted: 0,
};

/// A message's text is not read (replay needs only who wrote it), so a
/// long message costs one skip over its bytes.
fn read_message(f: &Fields, v: u32) -> Result<Message, String> {
    let role = text(f.get(Field::Role), "role")?;
    let source = match f.get(Field::Source) {
        None => None,
        Some(raw) => {
            let [kind, chat_id, suggestion_id] =
                required(Some(raw), "source", "{ kind, chatId, suggestionId }", |p| {
                    strings::<3>(p, &STORED_SOURCE)
                })?;
            if kind != "suggestion" {
                return Err(cat(&["unknown source kind ", &quote(&kind)]));
            }
            Some(Source::Suggestion(Origin {
                chat_id: chat_id.into_owned(),
                suggestion_id: suggestion_id.into_owned(),
            }))
        }
    };
    Ok(Message {
        v,
        role,
        text: None,
        source,
    })
}

const STORED_ORIGIN: Shape = Shape {
    expecting: "struct StoredOrigin",
    fields: &["chatId", "suggestionId"],
    deny_unknown: false,
    last_wins: true,
    optional: 0,
    defaulted: 0,
};

/// Reads a `session` entry field by field: who the chat is decides what it
/// may do, so a field of the wrong type reads as the most restrictive value
/// (a helper, in a scheduled folder, no workspace, no permission) and the
/// entry is reported. `null` reads as absent.
fn read_session(f: &Fields, v: u32) -> Read {
    let mut odd: Vec<&str> = Vec::new();
    let mut text_field = |raw: Option<&[u8]>, name: &'static str| -> Option<String> {
        match text_of(raw?) {
            Ok(t) => Some(t.into_owned()),
            Err(_) => {
                odd.push(name);
                None
            }
        }
    };
    let chat_id = text_field(f.get(Field::ChatId), "chatId");
    let title = text_field(f.get(Field::Title), "title");
    let workspace = text_field(f.get(Field::Workspace), "workspace");
    let agent = match f.get(Field::Agent).map(text_of) {
        None => TOP_LEVEL.to_string(),
        Some(Ok(a)) => a.into_owned(),
        Some(Err(_)) => {
            odd.push("agent");
            "helper".to_string()
        }
    };
    let scheduled_task_folder = match f
        .get(Field::ScheduledTaskFolder)
        .map(|raw| read_raw(raw, Parser::boolean))
    {
        None => false,
        Some(Ok(b)) => b,
        Some(Err(_)) => {
            odd.push("scheduledTaskFolder");
            true
        }
    };
    let Ok(settings) = read_settings(f.get(Field::Settings)) else {
        return Read::FailedSession {
            session: SessionEntry::fail_closed(),
            reason: "`settings` cannot be read; the session fails closed".to_string(),
        };
    };
    let origin = match f
        .get(Field::Origin)
        .map(|raw| read_raw(raw, |p| strings::<2>(p, &STORED_ORIGIN)))
    {
        None => None,
        Some(Ok([chat_id, suggestion_id])) => Some(Origin {
            chat_id: chat_id.into_owned(),
            suggestion_id: suggestion_id.into_owned(),
        }),
        Some(Err(_)) => {
            odd.push("origin");
            None
        }
    };
    let session = SessionEntry {
        v,
        chat_id,
        title,
        workspace,
        scheduled_task_folder,
        agent,
        settings,
        origin,
    };
    if odd.is_empty() {
        Read::Entry(Entry::Session(session))
    } else {
        let mut reason = String::new();
        for (i, name) in odd.iter().enumerate() {
            if i > 0 {
                reason.push_str(", ");
            }
            reason.push('`');
            reason.push_str(name);
            reason.push('`');
        }
        reason.push_str(" cannot be read; read as the most restrictive value");
        Read::FailedSession { reason, session }
    }
}

const STORED_SETTINGS: Shape = Shape {
    expecting: "struct StoredSettings",
    fields: &["preset", "model", "permission", "sandbox", "approval"],
    deny_unknown: false,
    last_wins: true,
    optional: u32::MAX,
    defaulted: 0,
};

/// Settings are copied into a started chat, so settings that cannot be read
/// fail the whole session closed rather than lose, say, a sandbox.
fn read_settings(raw: Option<&[u8]>) -> Result<Settings, ()> {
    let Some(raw) = raw else { return Ok(Settings::default()) };
    let mut stored: [Option<&[u8]>; 5] = [None; 5];
    read_raw(raw, |p| {
        p.read_struct(&STORED_SETTINGS, &mut |p, k| {
            if !p.null()? {
                if let Some(slot) = stored.get_mut(k) {
                    *slot = Some(p.raw_value()?);
                }
            }
            Ok(())
        })
    })
    .map_err(|_| ())?;
    let [preset, model, permission, sandbox, approval] = stored;
    let text = |raw: Option<&[u8]>| -> Result<Option<String>, ()> {
        raw.map(|raw| text_of(raw).map(Cow::into_owned).map_err(|_| ()))
            .transpose()
    };
    // Copied as it is, but it must be well-formed JSON data (depth-limited, no lone surrogates).
    let copied = |raw: Option<&[u8]>| -> Result<Option<Data>, ()> {
        raw.map(|raw| {
            crate::json::parse(raw_text(raw), None)
                .map(|value| data::data_of(&value))
                .map_err(|_| ())
        })
        .transpose()
    };
    Ok(Settings {
        preset: text(preset)?,
        model: text(model)?,
        permission: text(permission)?,
        sandbox: copied(sandbox)?,
        approval: copied(approval)?,
    })
}

// ---- writing: the stored format -------------------------------------------

impl ToJson for Entry {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| match self {
            Entry::Session(s) => {
                out.field("type", "session");
                s.members(out);
            }
            Entry::TurnStarted {} => out.field("type", "turn_started"),
            Entry::TurnEnded {} => out.field("type", "turn_ended"),
            Entry::TodoUpdate(u) => {
                out.field("type", "todo_update");
                out.field("v", &u.v);
                out.field("todos", &u.todos);
            }
            Entry::SuggestionOffered(o) => {
                out.field("type", "suggestion_offered");
                out.field("v", &o.v);
                out.field("id", &o.id);
                out.field("title", &o.title);
                out.field("tldr", &o.tldr);
                out.field("brief", &o.brief);
            }
            Entry::SuggestionSettled(s) => {
                out.field("type", "suggestion_settled");
                out.field("v", &s.v);
                out.field("id", &s.id);
                out.field("outcome", s.outcome.as_str());
                out.some("chatId", &s.chat_id);
            }
            Entry::Message(m) => {
                out.field("type", "message");
                out.field("v", &m.v);
                out.field("role", &m.role);
                out.some("text", &m.text);
                out.some("source", &m.source);
            }
        });
    }
}

impl SessionEntry {
    fn members(&self, out: &mut Out) {
        out.field("v", &self.v);
        out.field("chatId", &self.chat_id);
        out.some("title", &self.title);
        out.field("workspace", &self.workspace);
        out.field("scheduledTaskFolder", &self.scheduled_task_folder);
        out.field("agent", &self.agent);
        out.field("settings", &self.settings);
        out.some("origin", &self.origin);
    }
}

impl ToJson for Settings {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| {
            out.some("preset", &self.preset);
            out.some("model", &self.model);
            out.some("permission", &self.permission);
            out.some("sandbox", &self.sandbox);
            out.some("approval", &self.approval);
        });
    }
}

impl ToJson for Origin {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| self.members(out));
    }
}

impl Origin {
    fn members(&self, out: &mut Out) {
        out.field("chatId", &self.chat_id);
        out.field("suggestionId", &self.suggestion_id);
    }
}

impl ToJson for Source {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| match self {
            Source::Suggestion(origin) => {
                out.field("kind", "suggestion");
                origin.members(out);
            }
        });
    }
}

impl ToJson for TodoStatus {
    fn write_json(&self, out: &mut Out) {
        out.string(self.as_str());
    }
}

impl ToJson for TodoItem {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| {
            out.field("content", &self.content);
            out.field("status", &self.status);
        });
    }
}

impl ToJson for Skipped {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| {
            out.field("index", &self.index);
            out.field("type", &self.kind);
            out.field("reason", &self.reason);
        });
    }
}

#[cfg(test)]
#[path = "entry_oracle.rs"]
mod oracle;
