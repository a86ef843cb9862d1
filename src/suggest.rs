//! `suggest_task`: offering an out-of-scope follow-up, and the ledger of
//! offers and their settlements rebuilt from the log.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::entry::{Offer, Outcome, Settlement};
use crate::error::SuggestError;
use crate::text::{char_count, quote};

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

/// The offer's three texts, checked: trimmed, non-empty, within their limits.
pub fn fields(input: &Value) -> Result<[String; 3], SuggestError> {
    let Some(obj) = input.as_object() else {
        return Err(SuggestError::InputNotObject);
    };
    if let Some(field) = obj.keys().find(|k| !FIELDS.iter().any(|(name, _)| *name == k.as_str())) {
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
        let got = char_count(text);
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
    by_id: BTreeMap<String, usize>,
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
        self.offers.get(*self.by_id.get(id)?)
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
            let id = format!("s{n}");
            if !self.by_id.contains_key(&id) {
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
            self.by_id.entry(id).or_insert(TAKEN);
        }
    }

    pub fn offer(&mut self, index: usize, offer: Offer) -> Result<(), String> {
        self.recorded += 1;
        if self.by_id.get(&offer.id).is_some_and(|&at| at != TAKEN) {
            return Err(format!(
                "offer id \"{}\" is already used by an earlier offer",
                quote(&offer.id)
            ));
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
        let Some(tracked) = self.by_id.get(&s.id).and_then(|&at| self.offers.get_mut(at)) else {
            return Err(format!("names no offer \"{}\"", quote(&s.id)));
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
                return Err(format!(
                    "`{}` does not fit offer \"{}\", which is {}",
                    outcome.as_str(),
                    quote(&s.id),
                    standing.outcome().unwrap_or("open")
                ))
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    pub id: String,
    pub title: String,
    pub tldr: String,
    pub brief: String,
    /// `started`, `drafted` or `dismissed`; absent while open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<&'static str>,
    /// The started chat.
    #[serde(skip_serializing_if = "Option::is_none")]
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

impl SuggestionLedger {
    /// Open offers newest first, settled ones in offer order.
    pub fn list(&self) -> (Vec<Listed>, Vec<Listed>) {
        let open = self
            .offers
            .iter()
            .rev()
            .filter(|t| t.standing == Standing::Open)
            .map(Listed::from)
            .collect();
        let settled = self
            .offers
            .iter()
            .filter(|t| t.standing != Standing::Open)
            .map(Listed::from)
            .collect();
        (open, settled)
    }
}
