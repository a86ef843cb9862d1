//! The tolerant reader of one stored entry: one serde pass over the entry's
//! members, then each known type's fields checked and copied as written.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::{
    Copied, Editor, Entry, KnownType, Message, Offer, Origin, Outcome, Read, SessionEntry, Settings, Settlement,
    Source, TodoItem, TodoStatus, TodoUpdate, Told, FORMAT_VERSION, TOP_LEVEL,
};
use crate::text::{kind_of_text, quote, Text, LONE_SURROGATE, MAX_DEPTH};

/// Every field any known entry has, by its place in [`Fields`].
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
    By,
    Text,
    Name,
}

impl Field {
    /// The field a member name is. A match on the bytes compiles to a switch
    /// on the length, then byte tests, where a scan of the 19 names compared each.
    fn of(name: &str) -> Option<Field> {
        Some(match name.as_bytes() {
            b"type" => Field::Type,
            b"v" => Field::V,
            b"chatId" => Field::ChatId,
            b"title" => Field::Title,
            b"workspace" => Field::Workspace,
            b"scheduledTaskFolder" => Field::ScheduledTaskFolder,
            b"agent" => Field::Agent,
            b"settings" => Field::Settings,
            b"origin" => Field::Origin,
            b"todos" => Field::Todos,
            b"id" => Field::Id,
            b"tldr" => Field::Tldr,
            b"brief" => Field::Brief,
            b"outcome" => Field::Outcome,
            b"role" => Field::Role,
            b"source" => Field::Source,
            b"by" => Field::By,
            b"text" => Field::Text,
            b"name" => Field::Name,
            _ => return None,
        })
    }
}

/// Stored todo items as read: content and status, not yet checked.
type Items<'a> = Vec<(Cow<'a, str>, Cow<'a, str>)>;

/// Every known field of an entry, captured unparsed (`null` reads as absent;
/// a repeated member's last value counts, as `JSON.parse` keeps it). Members no
/// known type has are skipped (`IgnoredAny`) at any depth, without being built.
#[derive(Default)]
struct Fields<'a> {
    raw: [Option<&'a RawValue>; 19],
    /// A `todo_update`'s items, read in the same pass when `type` came first.
    items: Option<Items<'a>>,
}

impl<'a> Fields<'a> {
    fn get(&self, name: Field) -> Option<&'a str> {
        self.raw.get(name as usize).copied().flatten().map(RawValue::get)
    }
}

/// A member name, as a known field.
struct Key(Option<Field>);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
                Ok(Key(Field::of(key)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// Reads an entry's members; `fast` also reads a `todo_update`'s items in the
/// same pass (any error there makes the caller read again without it).
struct FieldsVisitor {
    fast: bool,
}

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = Fields<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("struct Fields")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Fields<'de>, M::Error> {
        let mut fields = Fields::default();
        while let Some(Key(k)) = map.next_key()? {
            let Some(k) = k else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            let todos = matches!(k, Field::Todos);
            let k = k as usize;
            if todos && self.fast && fields.get(Field::Type) == Some("\"todo_update\"") {
                fields.items = map
                    .next_value::<Option<Vec<FastItem>>>()?
                    .map(|items| items.into_iter().map(|item| (item.content, item.status)).collect());
                if let Some(slot) = fields.raw.get_mut(k) {
                    *slot = None;
                }
                continue;
            }
            let value: Option<&'de RawValue> = map.next_value()?;
            if todos {
                fields.items = None;
            }
            if let Some(slot) = fields.raw.get_mut(k) {
                *slot = value;
            }
        }
        Ok(fields)
    }
}

/// An item as the core writes it, read with checked strings (the fast path).
#[derive(Deserialize)]
struct FastItem<'a> {
    #[serde(borrow)]
    content: Cow<'a, str>,
    #[serde(borrow)]
    status: Cow<'a, str>,
}

fn read_fields(text: &str, fast: bool) -> Result<Fields<'_>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let fields = de.deserialize_map(FieldsVisitor { fast })?;
    de.end()?;
    Ok(fields)
}

/// Reads one entry from its JSON text.
///
/// # Examples
///
/// ```
/// assert!(matches!(oda_tasks::entry::read_entry(r#"{"type":"app"}"#), oda_tasks::entry::Read::Foreign));
/// ```
pub fn read_entry(text: &str) -> Read {
    let got = kind_of_text(text);
    if got != "an object" {
        return match serde_json::from_str::<IgnoredAny>(text) {
            Ok(_) => Read::Skip {
                kind: None,
                reason: format!("an entry must be an object (got {got})"),
            },
            Err(e) => Read::NotJson(quote(&e.to_string()).into_owned()),
        };
    }
    let fields = match read_fields(text, true).or_else(|_| read_fields(text, false)) {
        Ok(fields) => fields,
        Err(e) if e.is_data() => {
            return Read::Skip {
                kind: None,
                reason: format!("not a readable entry ({})", quote(&e.to_string())),
            }
        }
        Err(e) => return Read::NotJson(quote(&e.to_string()).into_owned()),
    };
    read_known(fields)
}

/// Whether `text` is one JSON value of any depth (a torn last line is not).
pub fn is_json(text: &str) -> bool {
    serde_json::from_str::<IgnoredAny>(text).is_ok()
}

fn read_known(mut fields: Fields) -> Read {
    let Some(kind) = fields.get(Field::Type).and_then(|raw| read_text(raw).ok()) else {
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
        KnownType::TodoTold => read_told(&fields, v).map(Entry::TodoTold),
        KnownType::TurnStarted | KnownType::TurnEnded => return Read::Foreign, // handled above
    };
    match read {
        Ok(entry) => Read::Entry(entry),
        Err(reason) => skip(reason),
    }
}

/// `v`, read by its value: absent is 1; a number equal to 1 (`1`, `1.0`,
/// `1e0`) is version 1; a whole number above it (written in digits, or of
/// magnitude below 2^53) is a newer version, reported; anything else (`1.5`,
/// `1e400`, `"1"`, `0`, `-1`) cannot be read. Both fail the entry closed.
fn version(raw: Option<&str>) -> Result<u32, String> {
    let Some(text) = raw else { return Ok(1) };
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    let number = match text.bytes().next() {
        Some(b'-' | b'0'..=b'9') => serde_json::from_str::<f64>(text).ok().filter(|n| n.is_finite()),
        _ => None,
    };
    const SAFE: f64 = 9_007_199_254_740_992.0; // 2^53
    let newer = |n: f64| n > f64::from(FORMAT_VERSION) && n.fract() == 0.0 && n < SAFE;
    match number {
        Some(n) if n == f64::from(FORMAT_VERSION) => Ok(FORMAT_VERSION),
        Some(n) if newer(n) || (digits && n > 1.0) => Err(format!(
            "written in format v{}; this version reads up to v{FORMAT_VERSION}",
            quote(text)
        )),
        _ => Err(format!("`v` must be a whole number from 1 (got {})", quote(text))),
    }
}

fn read_text(raw: &str) -> Result<Cow<'_, str>, serde_json::Error> {
    serde_json::from_str::<Text>(raw).map(|t| t.0)
}

/// Why a field cannot be read: a lone surrogate by name, else its kind.
fn field_error(name: &str, what: &str, raw: &str, e: &serde_json::Error) -> String {
    if e.to_string().contains(LONE_SURROGATE) {
        format!("`{name}`: {LONE_SURROGATE}")
    } else {
        format!("`{name}` must be {what} (got {})", kind_of_text(raw))
    }
}

/// A required field read by `read`, or why not.
fn required<'a, T>(
    raw: Option<&'a str>,
    name: &str,
    what: &str,
    read: impl FnOnce(&'a str) -> Result<T, serde_json::Error>,
) -> Result<T, String> {
    let raw = raw.ok_or_else(|| format!("missing field `{name}`"))?;
    read(raw).map_err(|e| field_error(name, what, raw, &e))
}

fn text(raw: Option<&str>, name: &str) -> Result<String, String> {
    required(raw, name, "a string", read_text).map(Cow::into_owned)
}

/// The string members of a struct stored as an object (or, by position, an
/// array): unknown members ignored, the last of a repeated one counts.
struct Strings<const N: usize>(&'static [&'static str; N]);

impl<'de, const N: usize> DeserializeSeed<'de> for Strings<N> {
    type Value = [Cow<'de, str>; N];

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, const N: usize> Visitor<'de> for Strings<N> {
    type Value = [Cow<'de, str>; N];

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of strings")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut out: [Option<Cow<'de, str>>; N] = std::array::from_fn(|_| None);
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match self.0.iter().position(|name| *name == key) {
                Some(k) => {
                    let Text(text) = map.next_value()?;
                    if let Some(slot) = out.get_mut(k) {
                        *slot = Some(text);
                    }
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let mut done: [Cow<'de, str>; N] = std::array::from_fn(|_| Cow::Borrowed(""));
        for (k, (slot, value)) in done.iter_mut().zip(out).enumerate() {
            match value {
                Some(value) => *slot = value,
                None => return Err(de::Error::missing_field(self.0.get(k).copied().unwrap_or_default())),
            }
        }
        Ok(done)
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        let mut done: [Cow<'de, str>; N] = std::array::from_fn(|_| Cow::Borrowed(""));
        for (k, slot) in done.iter_mut().enumerate() {
            match seq.next_element::<Text>()? {
                Some(Text(text)) => *slot = text,
                None => return Err(de::Error::invalid_length(k, &self)),
            }
        }
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(N + 1, &self));
        }
        Ok(done)
    }
}

fn read_strings<'a, const N: usize>(
    raw: &'a str,
    names: &'static [&'static str; N],
) -> Result<[Cow<'a, str>; N], serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(raw);
    let out = Strings(names).deserialize(&mut de)?;
    de.end()?;
    Ok(out)
}

/// A stored list: an array of `{ content, status }` (or `[content, status]`).
fn todo_items(raw: &str) -> Result<Items<'_>, serde_json::Error> {
    struct ItemsVisitor;
    impl<'de> Visitor<'de> for ItemsVisitor {
        type Value = Items<'de>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an array of items")
        }
        fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Items<'de>, S::Error> {
            let mut items = Vec::new();
            while let Some([content, status]) = seq.next_element_seed(Strings(&["content", "status"]))? {
                items.push((content, status));
            }
            Ok(items)
        }
    }
    let mut de = serde_json::Deserializer::from_str(raw);
    let items = de.deserialize_seq(ItemsVisitor)?;
    de.end()?;
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
            let status =
                TodoStatus::parse(&status).ok_or_else(|| format!("todos[{i}]: unknown status {}", quote(&status)))?;
            Ok(TodoItem {
                content: content.into_owned(),
                status,
            })
        })
        .collect::<Result<_, String>>()?;
    let by = match f.get(Field::By) {
        None => None,
        Some(raw) => Some(required(Some(raw), "by", "an object { name? }", read_editor)?),
    };
    Ok(TodoUpdate { v, todos, by })
}

/// A `by` as stored: an object `{ "name"?: string }` (other members ignored).
fn read_editor(raw: &str) -> Result<Editor, serde_json::Error> {
    let fields = read_fields(raw, false)?;
    let name = fields.get(Field::Name).map(read_text).transpose()?;
    Ok(Editor {
        name: name.map(Cow::into_owned),
    })
}

/// A `todo_told`: the text the model read (kept as written; replay reads only that the record is there).
fn read_told(f: &Fields, v: u32) -> Result<Told, String> {
    Ok(Told {
        v,
        text: text(f.get(Field::Text), "text")?,
    })
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
    let fields = read_fields(text, false).ok()?;
    read_text(fields.get(Field::Id)?).ok().map(Cow::into_owned)
}

fn read_settlement(f: &Fields, v: u32) -> Result<Settlement, String> {
    let outcome = required(f.get(Field::Outcome), "outcome", "a string", read_text)?;
    let outcome = match outcome.as_ref() {
        "started" => Outcome::Started,
        "drafted" => Outcome::Drafted,
        "dismissed" => Outcome::Dismissed,
        "restored" => Outcome::Restored,
        other => return Err(format!("unknown outcome {}", quote(other))),
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

/// A message's text is not read (replay needs only who wrote it), so a
/// long message costs one skip over its bytes.
fn read_message(f: &Fields, v: u32) -> Result<Message, String> {
    let role = text(f.get(Field::Role), "role")?;
    let source = match f.get(Field::Source) {
        None => None,
        Some(raw) => {
            let [kind, chat_id, suggestion_id] =
                required(Some(raw), "source", "{ kind, chatId, suggestionId }", |raw| {
                    read_strings(raw, &["kind", "chatId", "suggestionId"])
                })?;
            if kind != "suggestion" {
                return Err(format!("unknown source kind {}", quote(&kind)));
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

/// Reads a `session` entry field by field: who the chat is decides what it
/// may do, so a field of the wrong type reads as the most restrictive value
/// (a helper, in a scheduled folder, no workspace, no permission) and the
/// entry is reported. `null` reads as absent.
fn read_session(f: &Fields, v: u32) -> Read {
    let mut odd: Vec<&str> = Vec::new();
    let mut text_field = |raw: Option<&str>, name: &'static str| -> Option<String> {
        match read_text(raw?) {
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
    let agent = match f.get(Field::Agent).map(read_text) {
        None => TOP_LEVEL.to_string(),
        Some(Ok(a)) => a.into_owned(),
        Some(Err(_)) => {
            odd.push("agent");
            "helper".to_string()
        }
    };
    let scheduled_task_folder = match f.get(Field::ScheduledTaskFolder).map(serde_json::from_str::<bool>) {
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
        .map(|raw| read_strings(raw, &["chatId", "suggestionId"]))
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
        let names: Vec<String> = odd.iter().map(|name| format!("`{name}`")).collect();
        Read::FailedSession {
            reason: format!(
                "{} cannot be read; read as the most restrictive value",
                names.join(", ")
            ),
            session,
        }
    }
}

/// A session's `settings` as stored: strings, and two values copied as written.
#[derive(Deserialize)]
struct StoredSettings<'a> {
    #[serde(default, borrow)]
    preset: Option<Text<'a>>,
    #[serde(default, borrow)]
    model: Option<Text<'a>>,
    #[serde(default, borrow)]
    permission: Option<Text<'a>>,
    #[serde(default, borrow)]
    sandbox: Option<&'a RawValue>,
    #[serde(default, borrow)]
    approval: Option<&'a RawValue>,
}

/// Settings are copied into a started chat, so settings that cannot be read
/// fail the whole session closed rather than lose, say, a sandbox.
fn read_settings(raw: Option<&str>) -> Result<Settings, ()> {
    let Some(raw) = raw else { return Ok(Settings::default()) };
    if !raw.starts_with('{') {
        return Err(()); // an object only: a struct by position would read `[]` as no settings
    }
    let stored: StoredSettings = serde_json::from_str(raw).map_err(|_| ())?;
    // Copied as written, but it must be JSON data a reader can build (depth-limited, no lone surrogates).
    let copied = |raw: Option<&RawValue>| -> Result<Option<Copied>, ()> {
        match raw {
            None => Ok(None),
            Some(raw) if raw.get() == "null" => Ok(None),
            Some(raw) => {
                check_data(raw.get())?;
                Ok(Some(Copied(raw.to_owned())))
            }
        }
    };
    let text = |t: Option<Text>| t.map(|t| t.0.into_owned());
    Ok(Settings {
        preset: text(stored.preset),
        model: text(stored.model),
        permission: text(stored.permission),
        sandbox: copied(stored.sandbox)?,
        approval: copied(stored.approval)?,
    })
}

/// A copied value is JSON data a reader can build: nested less than
/// [`MAX_DEPTH`] levels, its strings well-formed Unicode (numbers are not
/// read at all: they are copied as written).
fn check_data(raw: &str) -> Result<(), ()> {
    if crate::text::nesting_depth(raw) >= MAX_DEPTH || !crate::text::lone_surrogate_escapes(raw).is_empty() {
        return Err(());
    }
    Ok(())
}
