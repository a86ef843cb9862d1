//! What a chat shows, answered from the fold: the todo replay (every card),
//! the suggestion replay, and the first screen with the last cards (`view`).

use serde::Serialize;

use crate::chat::Chat;
use crate::entry::{Skipped, TodoItem};
use crate::suggest::Listed;
use crate::todo::{Card, Plan};

/// `replayTodos`: the list, every card and the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TodoReplay {
    pub todos: Vec<TodoItem>,
    pub cards: Vec<Card>,
    pub plan: Plan,
    pub skipped: Vec<Skipped>,
}

impl TodoReplay {
    pub fn of(chat: &Chat) -> TodoReplay {
        TodoReplay {
            todos: chat.todos.todos.clone(),
            cards: chat.todos.cards(0, chat.todos.card_count()),
            plan: chat.todos.plan(),
            skipped: chat.skipped.clone(),
        }
    }
}

/// `replaySuggestions`: open offers newest first, settled ones in offer order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SuggestionReplay {
    pub open: Vec<Listed>,
    pub settled: Vec<Listed>,
    pub skipped: Vec<Skipped>,
}

impl SuggestionReplay {
    pub fn of(chat: &Chat) -> SuggestionReplay {
        let (open, settled) = chat.suggestions.list();
        SuggestionReplay {
            open,
            settled,
            skipped: chat.skipped.clone(),
        }
    }
}

/// `view({ cards: n })`: a chat's first screen in one answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct View<'a> {
    pub todos: &'a [TodoItem],
    pub plan: Plan,
    pub open: Vec<Listed>,
    pub settled: Vec<Listed>,
    pub card_count: usize,
    /// The last `n` cards, in log order.
    pub cards: Vec<Card>,
    pub skipped: &'a [Skipped],
}

impl View<'_> {
    /// The first screen of `chat` with its last `cards` cards.
    ///
    /// # Examples
    ///
    /// ```
    /// let chat = oda_tasks::Chat::new(true);
    /// assert_eq!(oda_tasks::replay::View::of(&chat, 50).card_count, 0);
    /// ```
    pub fn of(chat: &Chat, cards: usize) -> View<'_> {
        let count = chat.todos.card_count();
        let (open, settled) = chat.suggestions.list();
        View {
            todos: &chat.todos.todos,
            plan: chat.todos.plan(),
            open,
            settled,
            card_count: count,
            cards: chat.todos.cards(count.saturating_sub(cards), count),
            skipped: &chat.skipped,
        }
    }
}

/// `cards(from, to)` with `Array.prototype.slice` semantics: negative
/// numbers count from the end, each is clamped to `0..=count`.
///
/// # Examples
///
/// ```
/// assert_eq!(oda_tasks::replay::slice_range(-2.0, f64::INFINITY, 5), (3, 5));
/// ```
pub fn slice_range(from: f64, to: f64, count: usize) -> (usize, usize) {
    let at = |n: f64| -> usize {
        let n = if n.is_nan() { 0.0 } else { n.trunc() };
        let len = count as f64;
        let n = if n < 0.0 { (len + n).max(0.0) } else { n.min(len) };
        n as usize
    };
    let (from, to) = (at(from), at(to));
    (from, to.max(from))
}
