// A person's edit re-applied to a list that changed under it (someone else,
// or the agent, wrote first): each change the person made is made again on
// the list as it stands, when nobody else changed that item; otherwise the
// person is asked. Items are known by their text, as everywhere in the list.
import type { TodoItem } from "../core/types.js";

/**
 * A row of a person's draft: its text and state, and the item of the list
 * it was drawn from (`origin`, its index there), or `null` for an item added.
 *
 * @example
 * const row: DraftRow = { content: "Ship", status: "completed", origin: 1 };
 */
export interface DraftRow {
  content: string;
  status: TodoItem["status"];
  origin: number | null;
}

/**
 * The draft re-applied to `theirs` (the list now), given `base` (the list the
 * draft was made from): the list to save, or `null` when an item the person
 * changed was also changed (or removed) by the other side, or both added one
 * that says the same, so the person must decide.
 *
 * @example
 * reapply([{ content: "a", status: "pending" }], [{ content: "a", status: "completed", origin: 0 }], [{ content: "a", status: "pending" }, { content: "b", status: "pending" }]);
 * // [{ content: "a", status: "completed" }, { content: "b", status: "pending" }]
 */
export function reapply(base: readonly TodoItem[], draft: readonly DraftRow[], theirs: readonly TodoItem[]): TodoItem[] | null {
  const theirIndex = new Map(theirs.map((t, i) => [t.content, i]));
  const kept = new Set<number>();
  // Both sides reordered the items: whose order is the person's to decide.
  const draftOrder = draft.flatMap((r) => (r.origin === null ? [] : [r.origin]));
  const theirOrder = base.map((b, i) => [theirIndex.get(b.content), i] as const).filter(([at]) => at !== undefined);
  theirOrder.sort(([a], [b]) => (a as number) - (b as number));
  if (!ascending(draftOrder) && !ascending(theirOrder.map(([, i]) => i))) return null;
  // Each base item the person kept: changed by them, by the other side, or by neither.
  const result: (TodoItem | null)[] = theirs.map((t) => ({ ...t }));
  for (const row of draft) {
    if (row.origin === null) continue;
    kept.add(row.origin);
    const was = base[row.origin];
    if (was === undefined) return null;
    const mine = row.content !== was.content || row.status !== was.status;
    const at = theirIndex.get(was.content);
    const now = at === undefined ? undefined : theirs[at];
    if (!mine) continue;
    // The other side removed, reworded or changed the state of the item the person changed: theirs to decide.
    if (at === undefined || now === undefined || now.status !== was.status) return null;
    result[at] = { content: row.content, status: row.status };
  }
  // Items the person removed: gone, unless the other side changed them since.
  for (const [i, was] of base.entries()) {
    if (kept.has(i)) continue;
    const at = theirIndex.get(was.content);
    if (at === undefined) continue;
    if (theirs[at]?.status !== was.status) return null;
    result[at] = null;
  }
  const list = result.filter((t): t is TodoItem => t !== null);
  // The person's order of the items both lists hold, if they reordered; the other side's new items stay after the item they follow.
  const ordered = ascending(draftOrder) ? list : order(draft, list);
  // Items the person added, each after the row it follows in the draft.
  for (const [k, row] of draft.entries()) {
    if (row.origin !== null) continue;
    if (ordered.some((t) => t.content === row.content)) return null; // both sides wrote it: the person decides
    const before = draft.slice(0, k).reverse();
    const anchor = before.map((r) => ordered.findIndex((t) => t.content === r.content)).find((i) => i >= 0);
    ordered.splice(anchor === undefined ? 0 : anchor + 1, 0, { content: row.content, status: row.status });
  }
  return ordered;
}

/** Whether `xs` keeps its order (each after the one before). */
function ascending(xs: readonly number[]): boolean {
  return xs.every((x, i) => i === 0 || (xs[i - 1] as number) < x);
}

/** `list` with the person's draft order for the items the draft kept; the rest after the item they follow in `list`. */
function order(draft: readonly DraftRow[], list: TodoItem[]): TodoItem[] {
  const drafted = draft.filter((r) => r.origin !== null).map((r) => r.content);
  const byText = new Map(list.map((t) => [t.content, t]));
  const out: TodoItem[] = drafted.map((c) => byText.get(c)).filter((t): t is TodoItem => t !== undefined);
  const placed = new Set(out.map((t) => t.content));
  for (const [i, t] of list.entries()) {
    if (placed.has(t.content)) continue;
    // An item only the other side holds (added, or one the person's draft no longer names): after its predecessor in `list`.
    const prev = list
      .slice(0, i)
      .reverse()
      .find((p) => placed.has(p.content));
    const at = prev === undefined ? 0 : out.findIndex((o) => o.content === prev.content) + 1;
    out.splice(at, 0, t);
    placed.add(t.content);
  }
  return out;
}
