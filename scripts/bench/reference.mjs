// The plain-JavaScript replay an app developer would write instead of using
// the package: JSON.parse per line, then the same fold (list, cards with
// their changes, plan; offers and settlements). For comparison only: it
// trusts its input (no version, shape or Unicode checks), so it does less.

const NEW_LIST = { pending: 0, inProgress: 0, completed: 0 };

/** Calls `each` with every non-empty line of JSONL bytes (a Buffer), parsed by JSON.parse, as plain JS would. */
export function forEachEntry(bytes, each) {
  const text = bytes.toString("utf8");
  for (let start = 0; ; ) {
    const end = text.indexOf("\n", start);
    if (end < 0) break;
    if (end > start) each(JSON.parse(text.slice(start, end)));
    start = end + 1;
  }
}

/** Replays JSONL bytes (a Buffer) to `{ todos: {todos, cards, plan}, suggestions: {open, settled} }`. */
export function referenceReplayJsonl(bytes) {
  const fold = new ReferenceFold();
  forEachEntry(bytes, (entry) => fold.entry(entry));
  return fold.answers();
}

/**
 * The first screen by plain JavaScript written well: the fold keeps each
 * update's list, and diffs only the last `n` cards shown.
 */
export function referenceFirstScreenJsonl(bytes, n) {
  const fold = new ReferenceFold({ diffs: false });
  forEachEntry(bytes, (entry) => fold.entry(entry));
  const { todos, suggestions } = fold.answers();
  const from = Math.max(0, fold.cards.length - n);
  const cards = fold.cards.slice(from).map((card, k) => {
    const prev = from + k > 0 ? fold.cards[from + k - 1].todos : [];
    return { ...card, counts: counts(card.todos), changes: diff(prev, card.todos) };
  });
  return { todos: todos.todos, plan: todos.plan, ...suggestions, cardCount: fold.cards.length, cards };
}

/** The fold over parsed entries (`diffs: false`: cards hold their lists only). */
export class ReferenceFold {
  constructor({ diffs = true } = {}) {
    this.diffs = diffs;
  }

  index = 0;
  turns = 0;
  turnOpen = false;
  todos = [];
  cards = [];
  planState = "none";
  planTurn = null;
  offers = [];
  byId = new Map();

  entry(e) {
    const index = this.index++;
    switch (e.type) {
      case "turn_started":
        this.turns++;
        this.turnOpen = true;
        this.planState = "none";
        this.planTurn = null;
        break;
      case "turn_ended":
        this.turnOpen = false;
        if (this.planState === "running") this.planState = "finished";
        break;
      case "todo_update": {
        const todos = e.todos.map((t) => ({ content: t.content, status: t.status }));
        const turn = this.turnOpen ? this.turns : null;
        this.cards.push(
          this.diffs ? { index, turn, todos, counts: counts(todos), changes: diff(this.todos, todos) } : { index, turn, todos },
        );
        this.todos = todos;
        this.planState = "running";
        this.planTurn = turn;
        break;
      }
      case "suggestion_offered":
        if (!this.byId.has(e.id)) {
          const offer = { id: e.id, title: e.title, tldr: e.tldr, brief: e.brief, standing: "open", chatId: undefined };
          this.byId.set(e.id, offer);
          this.offers.push(offer);
        }
        break;
      case "suggestion_settled": {
        const offer = this.byId.get(e.id);
        if (offer === undefined) break;
        if (offer.standing === "open" && e.outcome === "started" && typeof e.chatId === "string") {
          offer.standing = "started";
          offer.chatId = e.chatId;
        } else if (offer.standing === "open" && (e.outcome === "drafted" || e.outcome === "dismissed")) {
          offer.standing = e.outcome;
        } else if (offer.standing === "dismissed" && e.outcome === "restored") {
          offer.standing = "open";
        }
        break;
      }
      default:
        break;
    }
  }

  answers() {
    const listed = (o) => {
      const out = { id: o.id, title: o.title, tldr: o.tldr, brief: o.brief };
      if (o.standing !== "open") out.outcome = o.standing;
      if (o.chatId !== undefined) out.chatId = o.chatId;
      return out;
    };
    const open = [];
    for (let i = this.offers.length - 1; i >= 0; i--) if (this.offers[i].standing === "open") open.push(listed(this.offers[i]));
    const settled = this.offers.filter((o) => o.standing !== "open").map(listed);
    return {
      todos: {
        todos: this.todos,
        cards: this.cards,
        plan: { state: this.planState, todos: this.planState === "none" ? [] : this.todos, turn: this.planTurn },
      },
      suggestions: { open, settled },
    };
  }
}

function counts(todos) {
  const c = { ...NEW_LIST };
  for (const t of todos) {
    if (t.status === "pending") c.pending++;
    else if (t.status === "in_progress") c.inProgress++;
    else c.completed++;
  }
  return c;
}

/** What changed, matching items by text; `moved`: the kept items outside one longest increasing run. */
function diff(prev, next) {
  const prevAt = new Map();
  prev.forEach((t, i) => {
    if (!prevAt.has(t.content)) prevAt.set(t.content, i);
  });
  const nextAt = new Map();
  next.forEach((t, j) => {
    if (!nextAt.has(t.content)) nextAt.set(t.content, j);
  });
  const added = [];
  const removed = [];
  const statusChanged = [];
  const kept = [];
  next.forEach((t, j) => {
    if (nextAt.get(t.content) !== j) return;
    const i = prevAt.get(t.content);
    if (i === undefined) added.push({ content: t.content, status: t.status, position: j });
    else {
      if (prev[i].status !== t.status) statusChanged.push({ content: t.content, from: prev[i].status, to: t.status });
      kept.push([i, j]);
    }
  });
  prev.forEach((t, i) => {
    if (prevAt.get(t.content) === i && !nextAt.has(t.content)) removed.push({ content: t.content, status: t.status, position: i });
  });
  const stays = longestIncreasing(kept.map(([i]) => i));
  const moved = [];
  kept.forEach(([i, j], k) => {
    if (!stays[k]) moved.push({ content: next[j].content, from: i, to: j });
  });
  return { added, removed, statusChanged, moved };
}

function longestIncreasing(xs) {
  const tails = [];
  const parent = new Array(xs.length).fill(-1);
  xs.forEach((x, n) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (xs[tails[mid]] < x) lo = mid + 1;
      else hi = mid;
    }
    parent[n] = lo > 0 ? tails[lo - 1] : -1;
    tails[lo] = n;
  });
  const marks = new Array(xs.length).fill(false);
  for (let at = tails.length > 0 ? tails[tails.length - 1] : -1; at >= 0; at = parent[at]) marks[at] = true;
  return marks;
}
