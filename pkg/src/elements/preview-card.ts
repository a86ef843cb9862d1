// The tentative card of a `todo_write` input the model is still writing: pure
// JS over the partial list (no WASM round trip per token), so it runs in the
// browser entry. The recorded card, the core's, replaces it.
import type { TodoCard, TodoChanges, TodoCounts, TodoItem, TodoStatus } from "../core/types.js";

/**
 * A card drawn from an input still streaming: the shape of a {@link TodoCard}
 * with `preview: true` and no log position or turn (nothing is recorded yet).
 *
 * @example
 * const card: PreviewCard = previewCard({ todos: [{ content: "Write te" }] });
 * card.preview; // true
 */
export interface PreviewCard extends Omit<TodoCard, "index" | "turn"> {
  preview: true;
  index: null;
  turn: null;
}

const STATUSES: readonly string[] = ["pending", "in_progress", "completed"];

/**
 * The card a `todo_write` input would make, from a partial input as the AI
 * SDK hands it during `input-streaming` (`part.input`): each item with some
 * text so far (trimmed; a missing or unfinished status keeps the item's
 * status in `lastCard`, else reads `pending`), compared with `lastCard`'s
 * list as the core compares lists (by text).
 * Never throws: what cannot be read is left out.
 *
 * @example
 * import { previewCard } from "oda-tasks/elements";
 * const tentative = previewCard({ todos: [{ content: "Ship", status: "in_pro" }] }, card); // card: the last recorded one
 * // <oda-todo-card preview={tentative} />, until the tool part's output.card arrives
 */
export function previewCard(partialInput: unknown, lastCard?: { todos?: unknown } | null): PreviewCard {
  const previous = items(field(lastCard, "todos"), null);
  const todos = items(field(partialInput, "todos"), new Map(previous.map((t) => [t.content, t.status])));
  return { preview: true, index: null, turn: null, todos, counts: counts(todos), changes: diff(previous, todos) };
}

/** `value[key]` when `value` is an object that has it as its own, else `undefined`; a throwing getter reads as missing. */
function field(value: unknown, key: string): unknown {
  try {
    return typeof value === "object" && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The readable items of a list: a recorded one (`was` null: items with a
 * status), or a partial one (any text so far; with no status yet, the one it had).
 */
function items(list: unknown, was: ReadonlyMap<string, TodoStatus> | null): TodoItem[] {
  const out: TodoItem[] = [];
  if (!Array.isArray(list)) return out;
  let length = 0;
  try {
    length = list.length;
  } catch {
    return out;
  }
  for (let i = 0; i < length; i++) {
    let item: unknown;
    try {
      item = list[i];
    } catch {
      continue;
    }
    const content = field(item, "content");
    const status = field(item, "status");
    if (typeof content !== "string") continue;
    const text = was !== null ? content.trim() : content;
    if (text === "") continue;
    if (typeof status === "string" && STATUSES.includes(status)) out.push({ content: text, status: status as TodoStatus });
    else if (was !== null) out.push({ content: text, status: was.get(text) ?? "pending" });
  }
  return out;
}

function counts(todos: readonly TodoItem[]): TodoCounts {
  const c = { pending: 0, inProgress: 0, completed: 0 };
  for (const t of todos) {
    if (t.status === "pending") c.pending++;
    else if (t.status === "in_progress") c.inProgress++;
    else c.completed++;
  }
  return c;
}

/**
 * What `next` changed against `prev`, items matched by their text (a repeat
 * speaks through its first occurrence); `moved` is the fewest kept items that
 * explain the new order. The core's card rule (src/todo.rs `diff`), ported:
 * tests/node/preview-card.test.mjs checks both agree on every list it makes.
 */
function diff(prev: readonly TodoItem[], next: readonly TodoItem[]): TodoChanges {
  const prevAt = firstIndex(prev);
  const nextAt = firstIndex(next);
  const changes: TodoChanges = { added: [], removed: [], statusChanged: [], moved: [] };
  const kept: [number, number][] = [];
  next.forEach((item, j) => {
    if (nextAt.get(item.content) !== j) return;
    const i = prevAt.get(item.content);
    if (i === undefined) {
      changes.added.push({ content: item.content, status: item.status, position: j });
      return;
    }
    const before = prev[i] as TodoItem;
    if (before.status !== item.status) changes.statusChanged.push({ content: item.content, from: before.status, to: item.status });
    kept.push([i, j]);
  });
  prev.forEach((item, i) => {
    if (prevAt.get(item.content) === i && !nextAt.has(item.content)) {
      changes.removed.push({ content: item.content, status: item.status, position: i });
    }
  });
  const stays = longestIncreasing(kept.map(([i]) => i));
  kept.forEach(([i, j], n) => {
    if (!stays[n]) changes.moved.push({ content: (next[j] as TodoItem).content, from: i, to: j });
  });
  return changes;
}

function firstIndex(list: readonly TodoItem[]): Map<string, number> {
  const at = new Map<string, number>();
  list.forEach((item, i) => {
    if (!at.has(item.content)) at.set(item.content, i);
  });
  return at;
}

/** Marks one longest strictly increasing subsequence of `xs` (O(n log n)), choosing as the core does. */
function longestIncreasing(xs: readonly number[]): boolean[] {
  const tails: number[] = [];
  const parent: (number | undefined)[] = new Array(xs.length);
  xs.forEach((x, n) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((xs[tails[mid] as number] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    parent[n] = lo > 0 ? tails[lo - 1] : undefined;
    tails[lo] = n;
  });
  const marks = new Array<boolean>(xs.length).fill(false);
  let at = tails.at(-1);
  while (at !== undefined) {
    marks[at] = true;
    at = parent[at];
  }
  return marks;
}
