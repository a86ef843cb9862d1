//! `suggest_task`: offering an out-of-scope follow-up, and the ledger of
//! offers and their settlements rebuilt from the log.

use crate::chat::Chat;
use crate::entry::{Offer, Outcome, Settlement, FORMAT_VERSION};
use crate::error::SuggestError;
use crate::json::write::{cat, uint_text};
use crate::json::{quote, Input, Out, ToJson, Value};
use crate::table::TextTable;

/// A chat's lifetime allowance of offers.
pub const CHAT_LIMIT: usize = 10;
/// Offers that may wait for the person at once (also the restore ceiling).
pub const OPEN_LIMIT: usize = 3;

/// The three fields, in the order they are checked, with their limits in
/// characters (Unicode code points of the trimmed text).
pub const FIELDS: [(&str, usize); 3] = [("title", 60), ("tldr", 240), ("brief", 4000)];

/// A successful call: the entry to append and the text the model sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuggestTask {
    pub entry: Offer,
    pub output: String,
}

/// Checks a `suggest_task` call against a chat, in the SPEC's order: who and
/// where, then the open turn, then the count limits (most lasting first),
/// then the fields.
pub fn suggest_task(chat: Option<&Chat>, input: &Input) -> Result<SuggestTask, SuggestError> {
    let Some(chat) = chat else {
        return Err(SuggestError::NoSession);
    };
    if chat.is_helper() {
        return Err(SuggestError::Helper);
    }
    if chat.in_scheduled_folder() {
        return Err(SuggestError::ScheduledFolder);
    }
    if !chat.turns.open {
        return Err(SuggestError::NoOpenTurn);
    }
    let ledger = &chat.suggestions;
    if ledger.recorded >= CHAT_LIMIT {
        return Err(SuggestError::ChatLimit(CHAT_LIMIT));
    }
    if ledger.open_count() >= OPEN_LIMIT {
        return Err(SuggestError::OpenLimit(OPEN_LIMIT));
    }
    if chat.turns.offered_this_turn {
        return Err(SuggestError::TurnLimit);
    }
    let input = match input {
        Input::Json(value) => value,
        Input::Unreadable(why) => return Err(SuggestError::Unreadable(why.clone())),
    };
    let [title, tldr, brief] = fields(input)?;
    let output = cat(&[
        "Suggested \"",
        &title,
        "\". The user decides whether to start it; do not start it yourself.",
    ]);
    Ok(SuggestTask {
        entry: Offer {
            v: FORMAT_VERSION,
            id: ledger.next_id(),
            title,
            tldr,
            brief,
        },
        output,
    })
}

fn fields(input: &Value) -> Result<[String; 3], SuggestError> {
    let Some(obj) = input.as_object() else {
        return Err(SuggestError::InputNotObject);
    };
    if let Some(field) = obj.first_key(|k| !FIELDS.iter().any(|(name, _)| *name == k)) {
        return Err(SuggestError::UnknownField(quote(field).into_owned()));
    }
    let mut out: [String; 3] = Default::default();
    for (slot, (name, limit)) in out.iter_mut().zip(FIELDS) {
        let Some(text) = obj.get(name).and_then(Value::as_str) else {
            return Err(SuggestError::NotString(name));
        };
        let text = text.trim();
        if text.is_empty() {
            return Err(SuggestError::Empty(name));
        }
        let got = crate::json::char_count(text);
        if got > limit {
            return Err(SuggestError::TooLong {
                field: name,
                limit,
                got,
            });
        }
        *slot = text.to_string();
    }
    Ok(out)
}

/// Where an offer stands now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    Open,
    Started { chat_id: String },
    Drafted,
    Dismissed,
}

impl Standing {
    /// The outcome word of a settled offer (`None` while open).
    pub fn outcome(&self) -> Option<&'static str> {
        match self {
            Standing::Open => None,
            Standing::Started { .. } => Some(Outcome::Started.as_str()),
            Standing::Drafted => Some(Outcome::Drafted.as_str()),
            Standing::Dismissed => Some(Outcome::Dismissed.as_str()),
        }
    }
}

/// One offer and where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tracked {
    /// Position of the offer in the log: "when it was offered".
    pub index: usize,
    pub offer: Offer,
    pub standing: Standing,
}

/// Offers in the order they appeared, with their standing. Lookups by id
/// and the open count are kept as the log is read, so replay is linear.
#[derive(Debug, Clone, Default)]
pub struct SuggestionLedger {
    pub offers: Vec<Tracked>,
    /// Position in `offers` of each readable offer by id, or [`TAKEN`] for
    /// an id only offers replay could not use (unreadable or repeated) hold.
    by_id: TextTable<String>,
    /// Offers currently open.
    open: usize,
    /// Every `suggestion_offered` entry, readable or not, duplicate id or
    /// not: each is an offer made, and counts toward the chat's limit.
    pub recorded: usize,
}

/// The position of an id no usable offer holds.
const TAKEN: usize = usize::MAX;

impl SuggestionLedger {
    pub fn get(&self, id: &str) -> Option<&Tracked> {
        self.offers.get(self.by_id.get(id)?)
    }

    pub fn open_count(&self) -> usize {
        self.open
    }

    /// `s<n>`: n is one more than the offers recorded, moved on past any id
    /// already taken, also by an offer replay could not read (a log written
    /// by another version or tool may use the same shape).
    pub fn next_id(&self) -> String {
        let mut n = self.offers.len() + 1;
        loop {
            let id = cat(&["s", &uint_text(n as u64)]);
            if !self.by_id.contains(&id) {
                return id;
            }
            n += 1;
        }
    }

    /// An offer entry that cannot be used (unreadable, or a repeated id):
    /// still an offer made, and its id, if any, stays taken.
    pub fn unusable_offer(&mut self, id: Option<String>) {
        self.recorded += 1;
        if let Some(id) = id {
            self.by_id.insert_new(id, TAKEN);
        }
    }

    pub fn offer(&mut self, index: usize, offer: Offer) -> Result<(), String> {
        self.recorded += 1;
        if self.by_id.get(&offer.id).is_some_and(|at| at != TAKEN) {
            return Err(cat(&[
                "offer id \"",
                &quote(&offer.id),
                "\" is already used by an earlier offer",
            ]));
        }
        self.by_id.insert(offer.id.clone(), self.offers.len());
        self.offers.push(Tracked {
            index,
            offer,
            standing: Standing::Open,
        });
        self.open += 1;
        Ok(())
    }

    /// Applies a recorded settlement where it fits the offer's standing.
    pub fn settle(&mut self, s: Settlement) -> Result<(), String> {
        let Some(tracked) = self.by_id.get(&s.id).and_then(|at| self.offers.get_mut(at)) else {
            return Err(cat(&["names no offer \"", &quote(&s.id), "\""]));
        };
        let next = match (s.outcome, &tracked.standing) {
            (Outcome::Started, Standing::Open) => match s.chat_id {
                Some(chat_id) => Standing::Started { chat_id },
                None => return Err("a `started` settlement must carry `chatId`".to_string()),
            },
            (Outcome::Drafted, Standing::Open) => Standing::Drafted,
            (Outcome::Dismissed, Standing::Open) => Standing::Dismissed,
            (Outcome::Restored, Standing::Dismissed) => Standing::Open,
            (outcome, standing) => {
                return Err(cat(&[
                    "`",
                    outcome.as_str(),
                    "` does not fit offer \"",
                    &quote(&s.id),
                    "\", which is ",
                    standing.outcome().unwrap_or("open"),
                ]))
            }
        };
        let was_open = tracked.standing == Standing::Open;
        let now_open = next == Standing::Open;
        tracked.standing = next;
        match (was_open, now_open) {
            (true, false) => self.open = self.open.saturating_sub(1),
            (false, true) => self.open += 1,
            _ => {}
        }
        Ok(())
    }
}

/// An offer as listed for display.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub id: String,
    pub title: String,
    pub tldr: String,
    pub brief: String,
    /// `started`, `drafted` or `dismissed`; absent while open.
    pub outcome: Option<&'static str>,
    /// The started chat.
    pub chat_id: Option<String>,
}

impl From<&Tracked> for Listed {
    fn from(t: &Tracked) -> Self {
        Listed {
            id: t.offer.id.clone(),
            title: t.offer.title.clone(),
            tldr: t.offer.tldr.clone(),
            brief: t.offer.brief.clone(),
            outcome: t.standing.outcome(),
            chat_id: match &t.standing {
                Standing::Started { chat_id } => Some(chat_id.clone()),
                _ => None,
            },
        }
    }
}

/// `replaySuggestions`: open offers newest first, settled ones in offer order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuggestionReplay {
    pub open: Vec<Listed>,
    pub settled: Vec<Listed>,
    pub skipped: Vec<crate::entry::Skipped>,
}

pub fn list(chat: &Chat) -> (Vec<Listed>, Vec<Listed>) {
    let offers = &chat.suggestions.offers;
    let open = offers
        .iter()
        .rev()
        .filter(|t| t.standing == Standing::Open)
        .map(Listed::from)
        .collect();
    let settled = offers
        .iter()
        .filter(|t| t.standing != Standing::Open)
        .map(Listed::from)
        .collect();
    (open, settled)
}

impl SuggestionReplay {
    pub fn of(chat: &Chat) -> SuggestionReplay {
        let (open, settled) = list(chat);
        SuggestionReplay {
            open,
            settled,
            skipped: chat.skipped.clone(),
        }
    }
}

// ---- writing: what replay answers ------------------------------------------

impl ToJson for Listed {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| {
            out.field("id", &self.id);
            out.field("title", &self.title);
            out.field("tldr", &self.tldr);
            out.field("brief", &self.brief);
            out.some("outcome", &self.outcome);
            out.some("chatId", &self.chat_id);
        });
    }
}

impl ToJson for SuggestionReplay {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| {
            out.field("open", &self.open);
            out.field("settled", &self.settled);
            out.field("skipped", &self.skipped);
        });
    }
}
