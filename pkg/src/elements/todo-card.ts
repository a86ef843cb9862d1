// <oda-todo-card>: one "Update to-do list" card of a chat's timeline, drawn
// from a card of the core's answers (`view().cards`, `cards(from, to)`).
import type { TodoCard, TodoEditor, TodoItem } from "../core/types.js";
import type { PreviewCard } from "./preview-card.js";
import { AnswerElement, h, headingLevel, hidden, icon } from "./dom.js";
import { plural, STATUS } from "./words.js";
import { accepted, previewCardProblem, todoCardProblem } from "./shapes.js";

/**
 * The card of one recorded `todo_write` update: the list that was sent, each
 * item's state as an icon and a word, and what changed (added, state
 * changed, moved, removed) as a word and an icon; a person's edit says so
 * ("Edited by you", or "Edited by" the name the app gave). Set `card`; `position` and
 * `total` (optional) add "2 of 4". While the model still writes the call,
 * set `preview` to `previewCard(part.input, lastCard)`: the tentative card,
 * marked "Not yet recorded", until `card` (which wins) replaces it.
 *
 * @example
 * const el = document.createElement("oda-todo-card");
 * el.card = state.view({ cards: 1 }).cards[0];
 * el.position = 4; el.total = 4;
 */
export class OdaTodoCardElement extends AnswerElement {
  protected readonly fed = ["card", "preview", "position", "total"];
  #card: TodoCard | null = null;
  #preview: PreviewCard | null = null;
  #position: number | null = null;
  #total: number | null = null;

  /** The card drawn: an item of `view().cards` or `cards(from, to)`. */
  get card(): TodoCard | null {
    return this.#card;
  }
  set card(value: TodoCard | null) {
    this.#card = accepted<TodoCard>("oda-todo-card", "card", "a card of view().cards or cards(from, to)", value, todoCardProblem);
    this.redraw();
  }

  /** The tentative card of an input still streaming (`previewCard(part.input, lastCard)`); drawn while `card` is null. */
  get preview(): PreviewCard | null {
    return this.#preview;
  }
  set preview(value: PreviewCard | null) {
    this.#preview = accepted<PreviewCard>("oda-todo-card", "preview", "a card of previewCard(input, lastCard)", value, previewCardProblem);
    this.redraw();
  }

  /** Which card of the chat this is, from 1 (optional). */
  get position(): number | null {
    return this.#position;
  }
  set position(value: number | null) {
    this.#position = typeof value === "number" ? value : null;
    this.redraw();
  }

  /** How many cards the chat has: `cardCount` (optional). */
  get total(): number | null {
    return this.#total;
  }
  set total(value: number | null) {
    this.#total = typeof value === "number" ? value : null;
    this.redraw();
  }

  /** Renders the card from `card` (else `preview`), `position` and `total`. */
  protected draw(): void {
    const c: TodoCard | PreviewCard | null = this.#card ?? this.#preview;
    const tentative = this.#card === null;
    if (c === null) {
      this.root.replaceChildren();
      return;
    }
    const { added, removed, statusChanged, moved } = c.changes;
    const addedSet = new Set(added.map((a) => a.content));
    const changed = new Map(statusChanged.map((s) => [s.content, s]));
    const movedBy = new Map(moved.map((m) => [m.content, m]));
    const summary =
      [
        added.length && `${added.length} added`,
        removed.length && `${removed.length} removed`,
        statusChanged.length && `${statusChanged.length} state changed`,
        moved.length && `${moved.length} moved`,
      ]
        .filter(Boolean)
        .join(", ") || "no change";
    const where = [
      tentative
        ? null
        : this.#position !== null
          ? `${count(this.#position)}${this.#total !== null ? ` of ${count(this.#total)}` : ""}`
          : null,
      c.turn !== null ? `turn ${c.turn}` : null,
    ]
      .filter(Boolean)
      .join(" · ");
    const items = c.todos.map((t) => {
      const marks: HTMLElement[] = [];
      if (addedSet.has(t.content)) marks.push(mark("added", "Added"));
      const s = changed.get(t.content);
      if (s) marks.push(mark("changed", `${STATUS[s.from]} → ${STATUS[s.to]}`));
      const m = movedBy.get(t.content);
      if (m) marks.push(mark("moved", `Moved from ${m.from + 1} to ${m.to + 1}`));
      return todoItem(t, marks);
    });
    const gone = removed.map((r) =>
      h(
        "li",
        { class: "todo removed", part: "item item-removed" },
        icon("removed"),
        h(
          "span",
          { class: "line" },
          hidden("Removed: "),
          h("del", { class: "text", text: r.content }),
          h("span", { class: "marks", "aria-hidden": "true" }, mark("removed", "Removed")),
        ),
      ),
    );
    const level = headingLevel(this, 3);
    this.root.replaceChildren(
      h(
        "article",
        {
          class: tentative ? "card preview" : "card",
          part: tentative ? "card preview" : "card",
          "aria-labelledby": "title",
          "aria-busy": tentative ? "true" : null,
          "data-preview": tentative,
        },
        h(
          "header",
          { part: "header" },
          h(`h${level}`, { id: "title", class: "title", part: "title" }, icon("card"), "Update to-do list"),
          tentative ? h("span", { class: "position pending-mark", part: "preview-mark", text: NOT_RECORDED }) : null,
          !tentative && this.#card?.by !== undefined ? h("span", { class: "by", part: "by", text: editedBy(this.#card.by) }) : null,
          where ? h("span", { class: "position", part: "position", text: where }) : null,
        ),
        h(
          "p",
          { class: "summary", part: "summary" },
          h("span", {
            class: "counts-line",
            text: `${c.counts.pending} pending · ${c.counts.inProgress} in progress · ${c.counts.completed} completed`,
          }),
          h("span", { class: "changes", part: "changes", text: summary }),
        ),
        h(
          "ul",
          {
            class: "todos",
            part: "list",
            "aria-label": `The list sent, ${plural(c.todos.length, "item")}${removed.length ? `, ${removed.length} removed` : ""}`,
          },
          items,
          gone,
        ),
      ),
    );
  }
}

/**
 * A to-do item: its state as an icon and (for screen readers) a word, its
 * text, then any change marks (the plan draws its items with it too).
 *
 * @example
 * todoItem({ content: "Write tests", status: "in_progress" });
 */
export function todoItem(item: TodoItem, marks: HTMLElement[] = []): HTMLElement {
  return h(
    "li",
    { class: `todo s-${item.status}`, part: `item item-${item.status}` },
    icon(item.status),
    h(
      "span",
      { class: "line" },
      hidden(`${STATUS[item.status]}: `),
      h("span", { class: "text", text: item.content }),
      marks.length ? h("span", { class: "marks" }, marks) : null,
    ),
  );
}

/** Who made a person's edit, as the card says it: "Edited by Ada", or with no name "Edited by you". */
function editedBy(by: TodoEditor): string {
  return `Edited by ${by.name ?? "you"}`;
}

/** What a preview says of itself: the model is still writing the call; nothing is recorded yet. */
const NOT_RECORDED = "Not yet recorded";

/** A number as the words around it are written: English, with thousands grouped. */
const count = (n: number): string => n.toLocaleString("en");

function mark(kind: "added" | "removed" | "changed" | "moved", text: string): HTMLElement {
  return h("span", { class: `mark m-${kind}`, part: `mark mark-${kind}` }, icon(kind), text);
}
