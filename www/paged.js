// TEMPORARY bridge until the core's paged answers (ChatState#view, #cards,
// #cardCount) are merged from the core branch: the same shapes from
// replayTodos/replaySuggestions. Deleted at that merge.
export function firstScreen(state, n) {
  if (typeof state.view === "function") return state.view({ cards: n });
  const todos = state.replayTodos();
  const offers = state.replaySuggestions();
  const skipped = [...new Map([...todos.skipped, ...offers.skipped].map((s) => [s.index, s])).values()].sort((a, b) => a.index - b.index);
  return { todos: todos.todos, plan: todos.plan, open: offers.open, settled: offers.settled, cardCount: todos.cards.length,
    cards: todos.cards.slice(-n), skipped };
}

export function cardPages(state) {
  return typeof state.cards === "function" ? state : { cards: (from, to) => state.replayTodos().cards.slice(from, to) };
}
