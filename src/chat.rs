//! The one fold every decision reads: a chat, built from its log entry by
//! entry. It sits above the entry format and the two ledgers, and a host keeps
//! one alive (the WASM `ChatState`) and feeds it only what is new.

use std::collections::BTreeSet;

use crate::entry::{
    read_entry, Editor, Entry, KnownType, Origin, Read, SessionEntry, Settings, Skipped, Source, TodoItem, TOP_LEVEL,
};
use crate::suggest::SuggestionLedger;
use crate::todo::{self, Card, TodoLedger};

/// Where the chat's turns stand.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Turns {
    /// How many turns have started (the current turn's number, 1-based).
    pub started: usize,
    /// A turn has started and not ended.
    pub open: bool,
    /// An offer entry (any, readable or not) was recorded since the latest `turn_started`.
    pub offered_this_turn: bool,
    /// `started` when the latest `todo_update` was read; `None` before any (the host's reminder counts from it).
    pub started_at_update: Option<usize>,
}

/// The origins of the briefs present in a chat (a set).
#[derive(Debug, Clone, Default)]
pub struct Briefs(BTreeSet<Origin>);

impl Briefs {
    pub fn insert(&mut self, origin: Origin) -> bool {
        self.0.insert(origin)
    }

    pub fn contains(&self, origin: &Origin) -> bool {
        self.0.contains(origin)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The origins, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Origin> {
        self.0.iter()
    }
}

/// Everything the core knows about a chat, folded from its log front to back.
#[derive(Debug, Clone, Default)]
pub struct Chat {
    pub session: Option<SessionEntry>,
    pub turns: Turns,
    pub todos: TodoLedger,
    pub suggestions: SuggestionLedger,
    /// The person has written a message of their own in this chat.
    pub person_spoke: bool,
    /// Briefs present in this chat, by their origin.
    pub briefs: Briefs,
    pub skipped: Vec<Skipped>,
    /// Number of entries folded (the log's length).
    pub len: usize,
}

impl Chat {
    /// An empty chat. `cards` asks for the todo cards (a diff per update),
    /// which only display needs.
    pub fn new(cards: bool) -> Chat {
        Chat {
            todos: TodoLedger::new(cards),
            ..Chat::default()
        }
    }

    /// The card a `todo_update` of `todos` (by `by`, a person, or the model)
    /// makes when appended now (at the log's end, in the current turn): what
    /// a UI shows for a recorded call.
    pub fn next_card(&self, todos: Vec<TodoItem>, by: Option<Editor>) -> Card {
        Card {
            index: self.len,
            turn: self.turns.open.then_some(self.turns.started),
            counts: todo::counts(&todos),
            changes: todo::diff(&self.todos.todos, &todos),
            todos,
            by,
        }
    }

    /// Folds a whole log of JSON values (native callers and tests; the
    /// binding feeds entries as text).
    pub fn from_values(log: &[serde_json::Value], cards: bool) -> Chat {
        let mut chat = Chat::new(cards);
        for value in log {
            chat.ingest_value(value);
        }
        chat
    }

    pub fn ingest_value(&mut self, value: &serde_json::Value) {
        // A Value always serialises; its text is what a store would hold.
        self.ingest(&serde_json::to_string(value).unwrap_or_default());
    }

    /// Folds one more entry, given as its JSON text.
    pub fn ingest(&mut self, text: &str) {
        match read_entry(text) {
            Read::NotJson(reason) => {
                let index = self.len;
                self.len += 1;
                self.skip(index, None, format!("not JSON ({reason})"));
            }
            read => self.fold(read, text),
        }
    }

    /// Folds one line of a JSONL file: a line that is not JSON is no entry
    /// (it takes no index), and why is returned.
    pub fn ingest_json_line(&mut self, text: &str) -> Result<(), String> {
        match read_entry(text) {
            Read::NotJson(reason) => Err(reason),
            read => {
                self.fold(read, text);
                Ok(())
            }
        }
    }

    /// `raw` is the entry's text, read again only for an offer that cannot be read.
    fn fold(&mut self, read: Read, raw: &str) {
        let index = self.len;
        self.len += 1;
        let entry = match read {
            Read::Entry(entry) => entry,
            Read::Foreign | Read::NotJson(_) => return,
            Read::Skip { kind, reason } => {
                if kind == Some(KnownType::SuggestionOffered) {
                    // An offer this version cannot read is still an offer made.
                    self.suggestions.unusable_offer(crate::entry::offer_id(raw));
                    self.turns.offered_this_turn = true;
                }
                self.skip(index, kind.map(KnownType::as_str), reason);
                return;
            }
            Read::FailedSession { session, reason } => {
                self.skip(index, Some("session"), reason);
                if self.session.is_none() {
                    self.session = Some(session);
                }
                return;
            }
        };
        match entry {
            Entry::Session(session) => {
                if self.session.is_none() {
                    self.session = Some(session);
                } else {
                    let reason = "a second `session` entry; the first one counts".to_string();
                    self.skip(index, Some("session"), reason);
                }
            }
            Entry::TurnStarted {} => {
                self.turns.started += 1;
                self.turns.open = true;
                self.turns.offered_this_turn = false;
                self.todos.turn_started();
            }
            Entry::TurnEnded {} => {
                self.turns.open = false;
                self.todos.turn_ended();
            }
            Entry::TodoUpdate(update) => {
                let turn = self.turns.open.then_some(self.turns.started);
                self.turns.started_at_update = Some(self.turns.started);
                self.todos.record(index, turn, update.todos, update.by);
            }
            Entry::TodoTold(_) => self.todos.told(),
            Entry::SuggestionOffered(offer) => {
                // Any offer entry fills the turn, even one whose id repeats.
                self.turns.offered_this_turn = true;
                if let Err(reason) = self.suggestions.offer(index, offer) {
                    self.skip(index, Some("suggestion_offered"), reason);
                }
            }
            Entry::SuggestionSettled(settlement) => {
                if let Err(reason) = self.suggestions.settle(settlement) {
                    self.skip(index, Some("suggestion_settled"), reason);
                }
            }
            Entry::Message(message) => match message.source {
                Some(Source::Suggestion(origin)) => {
                    self.briefs.insert(origin);
                }
                None if message.role == "user" => self.person_spoke = true,
                None => {}
            },
        }
    }

    fn skip(&mut self, index: usize, kind: Option<&str>, reason: String) {
        self.skipped.push(Skipped {
            index,
            kind: kind.map(str::to_string),
            reason,
        });
    }

    /// The chat is a helper (subagent or forked helper), not the top-level agent.
    pub fn is_helper(&self) -> bool {
        self.session.as_ref().is_some_and(|s| s.agent != TOP_LEVEL)
    }

    pub fn in_scheduled_folder(&self) -> bool {
        self.session.as_ref().is_some_and(|s| s.scheduled_task_folder)
    }

    pub fn workspace(&self) -> Option<&str> {
        self.session.as_ref().and_then(|s| s.workspace.as_deref())
    }

    pub fn settings(&self) -> Settings {
        self.session.as_ref().map(|s| s.settings.clone()).unwrap_or_default()
    }
}
