//! `todo_write`: the agent's task list.
//!
//! Every update carries the whole list and replaces the previous one. The
//! model's input is checked strictly (each check over the whole list before
//! the next, so the reported error does not depend on item order); a list
//! already in the log is taken as recorded.

pub use crate::entry::{TodoItem, TodoStatus};
use crate::entry::{TodoUpdate, FORMAT_VERSION};
use crate::error::TodoError;
use crate::json::write::{cat, uint_text};
use crate::json::{kind, quote, quoted, Input, Object, Out, ToJson, Value};
use crate::table::TextTable;

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
        },
        output,
    })
}

const ITEM_FIELDS: [&str; 2] = ["content", "status"];

fn validate(input: &Value, options: TodoOptions) -> Result<Vec<TodoItem>, TodoError> {
    let Some(obj) = input.as_object() else {
        return Err(TodoError::InputNotObject);
    };
    if let Some(field) = obj.first_key(|k| k != "todos") {
        return Err(TodoError::UnknownInputField(quote(field).into_owned()));
    }
    let items = match obj.get("todos") {
        Some(Value::Array(items)) => items,
        Some(other) => return Err(TodoError::TodosNotArray(kind(other).to_string())),
        None => return Err(TodoError::TodosNotArray("nothing".to_string())),
    };

    // Shape, over the whole list: objects, then fields, then statuses.
    let mut objects: Vec<&Object> = Vec::with_capacity(items.len());
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
        if let Some(field) = obj.first_key(|k| !ITEM_FIELDS.contains(&k)) {
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
    let mut seen: TextTable<&str> = TextTable::with_capacity(contents.len());
    for (i, text) in contents.iter().enumerate() {
        if !seen.insert_new(text, i) {
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
        Value::String(s) if crate::json::char_count(s) <= 40 => quoted(s),
        Value::String(_) => "a long string".to_string(),
        other => kind(other).to_string(),
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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
    let c = counts(todos);
    let n = |n: usize| uint_text(n as u64);
    cat(&[
        "Updated todo list: ",
        &n(c.pending),
        " pending, ",
        &n(c.in_progress),
        " in progress, ",
        &n(c.completed),
        " completed",
    ])
}

/// One "Update to-do list" card: the list an update sent and what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    /// Position of the `todo_update` entry in the log.
    pub index: usize,
    /// The turn it was recorded in (1-based), or `None` outside any turn.
    pub turn: Option<usize>,
    pub todos: Vec<TodoItem>,
    pub counts: Counts,
    pub changes: Changes,
}

/// What an update changed against the previous list. Items are matched by
/// their text, the only identity an item has.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    pub content: String,
    pub status: TodoStatus,
    pub position: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusChange {
    pub content: String,
    pub from: TodoStatus,
    pub to: TodoStatus,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    pub content: String,
    pub from: usize,
    pub to: usize,
}

/// Compares two lists. Texts are unique within a list the core wrote; a
/// stored list with repeats (an older or foreign writer) matches the first.
pub fn diff(prev: &[TodoItem], next: &[TodoItem]) -> Changes {
    let mut prev_at: TextTable<&str> = TextTable::with_capacity(prev.len());
    for (i, item) in prev.iter().enumerate() {
        prev_at.insert_new(item.content.as_str(), i);
    }
    let mut next_at: TextTable<&str> = TextTable::with_capacity(next.len());
    for (i, item) in next.iter().enumerate() {
        next_at.insert_new(item.content.as_str(), i);
    }

    let mut changes = Changes::default();
    // Kept items in new order, with their old positions.
    let mut kept: Vec<(usize, usize)> = Vec::new();
    for (j, item) in next.iter().enumerate() {
        if next_at.get(item.content.as_str()) != Some(j) {
            continue; // a repeat within the new list: its first occurrence speaks for it
        }
        match prev_at.get(item.content.as_str()) {
            None => changes.added.push(Placed {
                content: item.content.clone(),
                status: item.status,
                position: j,
            }),
            Some(i) => {
                // ok: `i` comes from `prev_at`, built over `prev`'s own indices.
                if prev[i].status != item.status {
                    changes.status_changed.push(StatusChange {
                        content: item.content.clone(),
                        from: prev[i].status,
                        to: item.status,
                    });
                }
                kept.push((i, j));
            }
        }
    }
    for (i, item) in prev.iter().enumerate() {
        if prev_at.get(item.content.as_str()) == Some(i) && !next_at.contains(item.content.as_str()) {
            changes.removed.push(Placed {
                content: item.content.clone(),
                status: item.status,
                position: i,
            });
        }
    }
    let olds: Vec<usize> = kept.iter().map(|(i, _)| *i).collect();
    let stays = longest_increasing(&olds);
    for (k, (i, j)) in kept.iter().enumerate() {
        // ok: `stays` has one mark per kept item.
        if !stays[k] {
            changes.moved.push(Move {
                content: next[*j].content.clone(),
                from: *i,
                to: *j,
            });
        }
    }
    changes
}

/// Marks one longest strictly increasing subsequence of `xs` (O(n log n)):
/// the kept items that did not move. Every index used below is one this
/// function pushed (`tails`, `parent` and `marks` hold indices into `xs`, and
/// `k - 1` is read only when `k > 0`), so none can be out of bounds.
fn longest_increasing(xs: &[usize]) -> Vec<bool> {
    // tails[k]: index into xs of the smallest tail of an increasing run of length k+1.
    let mut tails: Vec<usize> = Vec::new();
    let mut parent: Vec<Option<usize>> = vec![None; xs.len()];
    for (n, &x) in xs.iter().enumerate() {
        let k = tails.partition_point(|&t| xs[t] < x);
        parent[n] = if k > 0 { Some(tails[k - 1]) } else { None };
        if k == tails.len() {
            tails.push(n);
        } else {
            tails[k] = n;
        }
    }
    let mut marks = vec![false; xs.len()];
    let mut at = tails.last().copied();
    while let Some(n) = at {
        marks[n] = true;
        at = parent[n];
    }
    marks
}

/// What the chat shows as the current plan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PlanState {
    /// Nothing to show: no update yet, or a new turn started since.
    #[default]
    None,
    /// The turn that recorded the plan is still running.
    Running,
    /// That turn ended; its finished checklist stays visible.
    Finished,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    pub state: PlanState,
    /// The plan's items (empty when `state` is `none`).
    pub todos: Vec<TodoItem>,
    /// The turn that recorded it, or `None` for an update outside any turn.
    pub turn: Option<usize>,
}

/// The task list as folded from the log.
#[derive(Debug, Clone, Default)]
pub struct TodoLedger {
    with_cards: bool,
    /// The latest recorded list: the list.
    pub todos: Vec<TodoItem>,
    pub cards: Vec<Card>,
    /// The plan's state and turn; its items are always the latest list.
    plan_state: PlanState,
    plan_turn: Option<usize>,
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

    pub fn record(&mut self, index: usize, turn: Option<usize>, todos: Vec<TodoItem>) {
        if self.with_cards {
            self.cards.push(Card {
                index,
                turn,
                changes: diff(&self.todos, &todos),
                counts: counts(&todos),
                todos: todos.clone(),
            });
        }
        self.plan_state = PlanState::Running;
        self.plan_turn = turn;
        self.todos = todos;
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
}

/// `replayTodos`: the list, its cards and the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TodoReplay {
    pub todos: Vec<TodoItem>,
    pub cards: Vec<Card>,
    pub plan: Plan,
    pub skipped: Vec<crate::entry::Skipped>,
}

impl TodoReplay {
    pub fn of(chat: &crate::chat::Chat) -> TodoReplay {
        TodoReplay {
            todos: chat.todos.todos.clone(),
            cards: chat.todos.cards.clone(),
            plan: chat.todos.plan(),
            skipped: chat.skipped.clone(),
        }
    }
}

// ---- writing: what replay answers ------------------------------------------

impl ToJson for Counts {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| {
            out.field("pending", &self.pending);
            out.field("inProgress", &self.in_progress);
            out.field("completed", &self.completed);
        });
    }
}

impl ToJson for Card {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| {
            out.field("index", &self.index);
            out.field("turn", &self.turn);
            out.field("todos", &self.todos);
            out.field("counts", &self.counts);
            out.field("changes", &self.changes);
        });
    }
}

impl ToJson for Changes {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| {
            out.field("added", &self.added);
            out.field("removed", &self.removed);
            out.field("statusChanged", &self.status_changed);
            out.field("moved", &self.moved);
        });
    }
}

impl ToJson for Placed {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| {
            out.field("content", &self.content);
            out.field("status", &self.status);
            out.field("position", &self.position);
        });
    }
}

impl ToJson for StatusChange {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| {
            out.field("content", &self.content);
            out.field("from", &self.from);
            out.field("to", &self.to);
        });
    }
}

impl ToJson for Move {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| {
            out.field("content", &self.content);
            out.field("from", &self.from);
            out.field("to", &self.to);
        });
    }
}

impl ToJson for PlanState {
    fn write_json(&self, out: &mut Out) {
        out.string(match self {
            PlanState::None => "none",
            PlanState::Running => "running",
            PlanState::Finished => "finished",
        });
    }
}

impl ToJson for Plan {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| {
            out.field("state", &self.state);
            out.field("todos", &self.todos);
            out.field("turn", &self.turn);
        });
    }
}

impl ToJson for TodoReplay {
    fn write_json(&self, out: &mut Out) {
        let plan = (self.plan.state, self.plan.todos.as_slice(), self.plan.turn);
        write_replay(out, &self.todos, &self.cards, plan, &self.skipped);
    }
}

impl TodoReplay {
    /// The JSON of `TodoReplay::of(chat)`, written from the chat itself
    /// (a long chat's cards are not copied first).
    pub fn json_of(chat: &crate::chat::Chat) -> String {
        let ledger = &chat.todos;
        let plan_todos: &[TodoItem] = if ledger.plan_state == PlanState::None {
            &[]
        } else {
            &ledger.todos
        };
        let mut out = Out::new();
        let plan = (ledger.plan_state, plan_todos, ledger.plan_turn);
        write_replay(&mut out, &ledger.todos, &ledger.cards, plan, &chat.skipped);
        out.finish()
    }
}

fn write_replay(
    out: &mut Out,
    todos: &[TodoItem],
    cards: &[Card],
    (state, plan_todos, turn): (PlanState, &[TodoItem], Option<usize>),
    skipped: &[crate::entry::Skipped],
) {
    out.object(|out| {
        out.field("todos", todos);
        out.field("cards", cards);
        out.key("plan");
        out.object(|out| {
            out.field("state", &state);
            out.field("todos", plan_todos);
            out.field("turn", &turn);
        });
        out.field("skipped", skipped);
    });
}
