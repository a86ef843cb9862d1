//! `todo_write`: the agent's task list.
//!
//! Every update carries the whole list and replaces the previous one. The
//! model's input is checked strictly (each check over the whole list before
//! the next, so the reported error does not depend on item order); a list
//! already in the log is taken as recorded.

pub use crate::entry::{Editor, TodoItem, TodoStatus};
use crate::entry::{TodoUpdate, FORMAT_VERSION};
use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::TodoError;
use crate::input::Input;
use crate::intern::Interner;
use crate::text::{char_count, kind, quote, quoted};

/// Host options of `todo_write`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TodoOptions {
    /// At most one item `in_progress` per update (the product default).
    pub one_active: bool,
}

impl Default for TodoOptions {
    fn default() -> Self {
        TodoOptions { one_active: true }
    }
}

/// A successful call: the entry to append and the text the model sees.
#[derive(Debug, Clone, PartialEq)]
pub struct TodoWrite {
    pub entry: TodoUpdate,
    pub output: String,
}

/// Checks a `todo_write` call. Only whether the call has an owning session
/// matters of the chat: each update carries the whole list, so no entry is read.
pub fn todo_write(has_session: bool, input: &Input, options: TodoOptions) -> Result<TodoWrite, TodoError> {
    if !has_session {
        return Err(TodoError::NoSession);
    }
    let input = match input {
        Input::Json(value) => value,
        Input::Unreadable(why) => return Err(TodoError::Unreadable(why.clone())),
    };
    let todos = validate(input, options)?;
    let output = summary(&todos);
    Ok(TodoWrite {
        entry: TodoUpdate {
            v: FORMAT_VERSION,
            todos,
            by: None,
        },
        output,
    })
}

const ITEM_FIELDS: [&str; 2] = ["content", "status"];

fn validate(input: &Value, options: TodoOptions) -> Result<Vec<TodoItem>, TodoError> {
    let Some(obj) = input.as_object() else {
        return Err(TodoError::InputNotObject);
    };
    if let Some(field) = obj.keys().find(|k| *k != "todos") {
        return Err(TodoError::UnknownInputField(quote(field).into_owned()));
    }
    let items = match obj.get("todos") {
        Some(Value::Array(items)) => items,
        Some(other) => return Err(TodoError::TodosNotArray(kind(other).to_string())),
        None => return Err(TodoError::TodosNotArray("nothing".to_string())),
    };

    // Shape, over the whole list: objects, then fields, then statuses.
    let mut objects: Vec<&Map<String, Value>> = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        match item.as_object() {
            Some(obj) => objects.push(obj),
            None => {
                return Err(TodoError::ItemNotObject {
                    index,
                    got: kind(item).to_string(),
                })
            }
        }
    }
    for (index, obj) in objects.iter().enumerate() {
        if let Some(field) = obj.keys().find(|k| !ITEM_FIELDS.contains(&k.as_str())) {
            return Err(TodoError::UnknownItemField {
                index,
                field: quote(field).into_owned(),
            });
        }
    }
    let mut statuses = Vec::with_capacity(objects.len());
    for (index, obj) in objects.iter().enumerate() {
        let got = obj.get("status");
        match got.and_then(Value::as_str).and_then(TodoStatus::parse) {
            Some(status) => statuses.push(status),
            None => {
                return Err(TodoError::BadStatus {
                    index,
                    got: match got {
                        Some(value) => describe_status(value),
                        None => "nothing".to_string(),
                    },
                })
            }
        }
    }

    // Content: trimmed, non-empty, then unique.
    let mut contents = Vec::with_capacity(objects.len());
    for obj in &objects {
        match obj.get("content").and_then(Value::as_str).map(str::trim) {
            Some(text) if !text.is_empty() => contents.push(text),
            _ => return Err(TodoError::EmptyContent),
        }
    }
    // A tree, not a hash table: texts chosen to collide cannot make it quadratic.
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, text) in contents.iter().enumerate() {
        if seen.insert(text, i).is_some() {
            return Err(TodoError::DuplicateContent(quote(text).into_owned()));
        }
    }

    if options.one_active {
        let active = statuses.iter().filter(|s| **s == TodoStatus::InProgress).count();
        if active > 1 {
            return Err(TodoError::TooManyActive(active));
        }
    }

    Ok(contents
        .into_iter()
        .zip(statuses)
        .map(|(content, status)| TodoItem {
            content: content.to_string(),
            status,
        })
        .collect())
}

/// A bad status as the model sent it: a string quoted (as JSON), other
/// values by kind, so a long or odd value cannot flood the message.
fn describe_status(value: &Value) -> String {
    match value {
        Value::String(s) if char_count(s) <= 40 => quoted(s),
        Value::String(_) => "a long string".to_string(),
        other => kind(other).to_string(),
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub pending: usize,
    pub in_progress: usize,
    pub completed: usize,
}

pub fn counts(todos: &[TodoItem]) -> Counts {
    let mut c = Counts::default();
    for item in todos {
        match item.status {
            TodoStatus::Pending => c.pending += 1,
            TodoStatus::InProgress => c.in_progress += 1,
            TodoStatus::Completed => c.completed += 1,
        }
    }
    c
}

fn summary(todos: &[TodoItem]) -> String {
    format!("Updated todo list: {}", counts(todos))
}

impl std::fmt::Display for Counts {
    /// `2 pending, 1 in progress, 0 completed`: the counts as the model reads them.
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "{} pending, {} in progress, {} completed",
            self.pending, self.in_progress, self.completed
        )
    }
}

/// One "Update to-do list" card: the list an update sent and what changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Card {
    /// Position of the `todo_update` entry in the log.
    pub index: usize,
    /// The turn it was recorded in (1-based), or `None` outside any turn.
    pub turn: Option<usize>,
    pub todos: Vec<TodoItem>,
    pub counts: Counts,
    pub changes: Changes,
    /// A person's edit: who (absent for the model's `todo_write`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<Editor>,
}

/// What an update changed against the previous list. Items are matched by
/// their text, the only identity an item has.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Changes {
    /// New items, with their position in the new list.
    pub added: Vec<Placed>,
    /// Items gone, with their position in the previous list.
    pub removed: Vec<Placed>,
    pub status_changed: Vec<StatusChange>,
    /// Items whose place among the kept items changed: the fewest items that
    /// explain the new order (the rest keep their relative order).
    pub moved: Vec<Move>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Placed {
    pub content: String,
    pub status: TodoStatus,
    pub position: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatusChange {
    pub content: String,
    pub from: TodoStatus,
    pub to: TodoStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Move {
    pub content: String,
    pub from: usize,
    pub to: usize,
}

/// Compares two lists. Texts are unique within a list the core wrote; a
/// stored list with repeats (an older or foreign writer) matches the first.
/// Both lists are numbered as the ledger keeps its cards, and compared as its cards are.
pub fn diff(prev: &[TodoItem], next: &[TodoItem]) -> Changes {
    let mut texts = Interner::default();
    let mut packed = |list: &[TodoItem]| -> Vec<u32> {
        list.iter()
            .map(|item| texts.intern(&item.content) << 2 | status_bits(item.status))
            .collect()
    };
    let (prev, next) = (packed(prev), packed(next));
    diff_packed(&texts, &prev, &next)
}

/// [`diff`] of two lists kept as numbers (`text << 2 | state`) whose texts `texts` holds.
fn diff_packed(texts: &Interner, prev: &[u32], next: &[u32]) -> Changes {
    let show = |bits: &u32| {
        let text = texts.get(bits >> 2).map(String::from).unwrap_or_default();
        (text, status_of(*bits))
    };
    diff_by(prev, next, |bits| bits >> 2, show)
}

/// [`diff`] over any items with an ordered key (an interned text's number).
fn diff_by<'t, T, K: Ord>(
    prev: &'t [T],
    next: &'t [T],
    key: impl Fn(&'t T) -> K,
    show: impl Fn(&T) -> (String, TodoStatus),
) -> Changes {
    // Trees, not hash tables: texts chosen to collide cannot make a diff quadratic.
    let mut prev_at: BTreeMap<K, usize> = BTreeMap::new();
    for (i, item) in prev.iter().enumerate() {
        prev_at.entry(key(item)).or_insert(i);
    }
    let mut next_at: BTreeMap<K, usize> = BTreeMap::new();
    for (j, item) in next.iter().enumerate() {
        next_at.entry(key(item)).or_insert(j);
    }
    let mut changes = Changes::default();
    // Kept items in new order, with their old positions.
    let mut kept: Vec<(usize, usize)> = Vec::new();
    for (j, item) in next.iter().enumerate() {
        let k = key(item);
        if next_at.get(&k) != Some(&j) {
            continue; // a repeat within the new list: its first occurrence speaks for it
        }
        let (content, status) = show(item);
        match prev_at.get(&k).and_then(|&i| Some((i, prev.get(i)?))) {
            None => changes.added.push(Placed {
                content,
                status,
                position: j,
            }),
            Some((i, before)) => {
                let (_, from) = show(before);
                if from != status {
                    changes.status_changed.push(StatusChange {
                        content,
                        from,
                        to: status,
                    });
                }
                kept.push((i, j));
            }
        }
    }
    for (i, item) in prev.iter().enumerate() {
        let k = key(item);
        if prev_at.get(&k) == Some(&i) && !next_at.contains_key(&k) {
            let (content, status) = show(item);
            changes.removed.push(Placed {
                content,
                status,
                position: i,
            });
        }
    }
    let olds: Vec<usize> = kept.iter().map(|(i, _)| *i).collect();
    let stays = longest_increasing(&olds);
    for ((i, j), stays) in kept.iter().zip(stays) {
        if !stays {
            if let Some(item) = next.get(*j) {
                changes.moved.push(Move {
                    content: show(item).0,
                    from: *i,
                    to: *j,
                });
            }
        }
    }
    changes
}

/// Marks one longest strictly increasing subsequence of `xs` (O(n log n)):
/// the kept items that did not move.
fn longest_increasing(xs: &[usize]) -> Vec<bool> {
    // tails[k]: index into xs of the smallest tail of an increasing run of length k+1.
    let mut tails: Vec<usize> = Vec::new();
    let mut parent: Vec<Option<usize>> = vec![None; xs.len()];
    for (n, &x) in xs.iter().enumerate() {
        let k = tails.partition_point(|&t| xs.get(t).is_some_and(|&v| v < x));
        if let Some(slot) = parent.get_mut(n) {
            *slot = k.checked_sub(1).and_then(|p| tails.get(p).copied());
        }
        match tails.get_mut(k) {
            Some(tail) => *tail = n,
            None => tails.push(n),
        }
    }
    let mut marks = vec![false; xs.len()];
    let mut at = tails.last().copied();
    while let Some(n) = at {
        if let Some(mark) = marks.get_mut(n) {
            *mark = true;
        }
        at = parent.get(n).copied().flatten();
    }
    marks
}

/// What the chat shows as the current plan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanState {
    /// Nothing to show: no update yet, or a new turn started since.
    #[default]
    None,
    /// The turn that recorded the plan is still running.
    Running,
    /// That turn ended; its finished checklist stays visible.
    Finished,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Plan {
    pub state: PlanState,
    /// The plan's items (empty when `state` is `none`).
    pub todos: Vec<TodoItem>,
    /// The turn that recorded it, or `None` for an update outside any turn.
    pub turn: Option<usize>,
}

/// One update as the ledger keeps it: each item as its interned text's
/// number and its state (two bits), so a long chat's cards stay small.
#[derive(Debug, Clone)]
struct Update {
    index: usize,
    turn: Option<usize>,
    items: Box<[u32]>,
    by: Option<Editor>,
}

fn status_bits(status: TodoStatus) -> u32 {
    match status {
        TodoStatus::Pending => 0,
        TodoStatus::InProgress => 1,
        TodoStatus::Completed => 2,
    }
}

fn status_of(bits: u32) -> TodoStatus {
    match bits & 3 {
        1 => TodoStatus::InProgress,
        2 => TodoStatus::Completed,
        _ => TodoStatus::Pending,
    }
}

/// The task list as folded from the log.
#[derive(Debug, Clone, Default)]
pub struct TodoLedger {
    with_cards: bool,
    /// The latest recorded list: the list.
    pub todos: Vec<TodoItem>,
    /// Every text an update held, once.
    texts: Interner,
    updates: Vec<Update>,
    /// The plan's state and turn; its items are always the latest list.
    plan_state: PlanState,
    plan_turn: Option<usize>,
    /// Where the latest update sits in the log.
    pub last_update: Option<usize>,
    /// While a person's edit is the list's latest change and the model was not
    /// told of it: the list the model last knew (its own last update, or the
    /// list it was last told of).
    pub untold: Option<Vec<TodoItem>>,
}

impl TodoLedger {
    pub fn new(with_cards: bool) -> Self {
        TodoLedger {
            with_cards,
            ..TodoLedger::default()
        }
    }

    pub fn keeps_cards(&self) -> bool {
        self.with_cards
    }

    /// Records an update at `index`; `by` names a person's edit. A person's
    /// edit outside any turn keeps the plan's state (a finished checklist
    /// ticked between turns stays finished); every other update runs in its turn.
    pub fn record(&mut self, index: usize, turn: Option<usize>, todos: Vec<TodoItem>, by: Option<Editor>) {
        if self.with_cards {
            // Most updates repeat the previous list's items in place: those need no lookup.
            let texts = &mut self.texts;
            let prev: &[u32] = self.updates.last().map(|u| &u.items[..]).unwrap_or_default();
            let items = todos
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let same = prev
                        .get(i)
                        .map(|bits| bits >> 2)
                        .filter(|&id| texts.get(id) == Some(item.content.as_str()));
                    let id = same.unwrap_or_else(|| texts.intern(&item.content));
                    id << 2 | status_bits(item.status)
                })
                .collect();
            self.updates.push(Update {
                index,
                turn,
                items,
                by: by.clone(),
            });
        }
        if by.is_none() || turn.is_some() || self.plan_state == PlanState::None {
            self.plan_state = PlanState::Running;
            self.plan_turn = turn;
        }
        self.last_update = Some(index);
        let before = std::mem::replace(&mut self.todos, todos);
        match by {
            None => self.untold = None,
            Some(_) => {
                self.untold.get_or_insert(before);
            }
        }
    }

    /// The model was told of the list as it stands.
    pub fn told(&mut self) {
        self.untold = None;
    }

    pub fn turn_started(&mut self) {
        self.plan_state = PlanState::None;
        self.plan_turn = None;
    }

    pub fn turn_ended(&mut self) {
        if self.plan_state == PlanState::Running {
            self.plan_state = PlanState::Finished;
        }
    }

    pub fn plan(&self) -> Plan {
        Plan {
            state: self.plan_state,
            todos: if self.plan_state == PlanState::None {
                Vec::new()
            } else {
                self.todos.clone()
            },
            turn: self.plan_turn,
        }
    }

    /// The number of cards (one per update, when cards are kept).
    pub fn card_count(&self) -> usize {
        self.updates.len()
    }

    /// Card `k`, its diff computed now against the update before it.
    pub fn card(&self, k: usize) -> Option<Card> {
        let update = self.updates.get(k)?;
        let prev: &[u32] = match k.checked_sub(1) {
            Some(p) => self.updates.get(p).map(|u| &u.items[..]).unwrap_or_default(),
            None => &[],
        };
        let todos: Vec<TodoItem> = update
            .items
            .iter()
            .map(|bits| TodoItem {
                content: self.texts.get(bits >> 2).map(String::from).unwrap_or_default(),
                status: status_of(*bits),
            })
            .collect();
        Some(Card {
            index: update.index,
            turn: update.turn,
            counts: counts(&todos),
            changes: diff_packed(&self.texts, prev, &update.items),
            todos,
            by: update.by.clone(),
        })
    }

    /// Cards `from..to` (clamped to the cards there are).
    pub fn cards(&self, from: usize, to: usize) -> Vec<Card> {
        (from..to.min(self.card_count())).filter_map(|k| self.card(k)).collect()
    }
}
