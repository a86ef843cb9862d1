// What `<oda-plan editable>` draws to edit the list: a check box per item to
// check it off (or un-check it) at once, and "Edit list", a form to reword,
// add, remove and reorder items, saved as one edit. Drawn from the element's
// state by plain functions; every control has a name that says its item, and
// a `data-key` so the keyboard stays on it when the element draws again.
import type { TodoItem, TodoStatus } from "../core/types.js";
import { h, hidden, icon } from "./dom.js";
import type { DraftRow } from "./reapply.js";
import { STATUS } from "./words.js";

/** A row of the form: a draft row with an id of its own, stable while the person edits. */
export interface EditRow extends DraftRow {
  id: number;
}

/** What the form does with the person's input. */
export interface EditorActions {
  /** The row's text or state as the person set it (no redraw: the control holds it). */
  set(id: number, change: Partial<Pick<EditRow, "content" | "status">>): void;
  /** Moves a row up (-1) or down (+1). */
  move(id: number, by: -1 | 1): void;
  remove(id: number): void;
  add(content: string): void;
  save(): void;
  cancel(): void;
}

const STATES: TodoStatus[] = ["pending", "in_progress", "completed"];

/**
 * The plan's items as check boxes: checked is completed; checking one off (or
 * un-checking it, back to pending) is an edit of that one item, saved at once.
 */
export function checkList(todos: readonly TodoItem[], toggle: (index: number) => void, busy: boolean): HTMLElement {
  return h(
    "ul",
    { class: "todos", part: "list", "aria-label": "Plan items" },
    todos.map((t, i) =>
      h(
        "li",
        { class: `todo check s-${t.status}`, part: `item item-${t.status}` },
        h("input", {
          type: "checkbox",
          id: `done-${i}`,
          class: "done",
          part: "check",
          checked: t.status === "completed",
          "aria-disabled": busy ? "true" : null,
          "data-key": `done:${t.content}`,
          onclick: (e: Event) => {
            // While an edit is being saved the box stays as it is; else it is saved at once (a refusal draws it back).
            if (busy) e.preventDefault();
            else toggle(i);
          },
        }),
        h(
          "label",
          { for: `done-${i}`, class: "line" },
          icon(t.status),
          hidden(`${STATUS[t.status]}: `),
          h("span", { class: "text", text: t.content }),
        ),
      ),
    ),
  );
}

/** The form that edits the whole list: a row per item, a field to add one, Save and Cancel. */
export function editForm(rows: readonly EditRow[], actions: EditorActions, busy: boolean): HTMLElement {
  const n = rows.length;
  const add = h("input", {
    type: "text",
    class: "new-item",
    part: "new-item",
    "aria-label": "New item",
    placeholder: "New item",
    autocomplete: "off",
    "data-key": "new",
    onkeydown: (e: Event) => {
      if ((e as KeyboardEvent).key !== "Enter") return;
      e.preventDefault(); // Enter here adds the item; elsewhere it saves the list
      actions.add((e.target as HTMLInputElement).value);
    },
  }) as HTMLInputElement;
  const iconButton = (key: string, name: string, glyph: "up" | "down" | "dismissed", run: () => void, off = false) =>
    h(
      "button",
      {
        type: "button",
        class: "icon-button",
        part: `button ${glyph === "dismissed" ? "remove" : `move-${glyph}`}-button`,
        "aria-label": name,
        "aria-disabled": off || busy ? "true" : null,
        "data-key": key,
        onclick: () => {
          if (!off && !busy) run();
        },
      },
      icon(glyph),
    );
  return h(
    "form",
    {
      class: "editor",
      part: "editor",
      "aria-label": "Edit the list",
      "aria-busy": busy ? "true" : null,
      // Saved by its button or Enter in a row's text, never by a submission (a strict CSP's `form-action 'none'` blocks those).
      onsubmit: (e: Event) => e.preventDefault(),
      onkeydown: (e: Event) => {
        if ((e as KeyboardEvent).key === "Escape") {
          e.preventDefault();
          actions.cancel();
        }
      },
    },
    n === 0 ? h("p", { class: "empty", text: "The list is empty." }) : null,
    h(
      "ol",
      { class: "edit-rows", part: "edit-list", "aria-label": "Items" },
      rows.map((row, k) =>
        h(
          "li",
          { class: "edit-row", part: "edit-row" },
          h(
            "select",
            {
              "aria-label": `State of item ${k + 1}`,
              "data-key": `state:${row.id}`,
              onchange: (e: Event) => actions.set(row.id, { status: (e.target as HTMLSelectElement).value as TodoStatus }),
            },
            STATES.map((s) => h("option", { value: s, selected: s === row.status, text: STATUS[s] })),
          ),
          h("input", {
            type: "text",
            value: row.content,
            "aria-label": `Text of item ${k + 1}`,
            autocomplete: "off",
            "data-key": `text:${row.id}`,
            oninput: (e: Event) => actions.set(row.id, { content: (e.target as HTMLInputElement).value }),
            onkeydown: (e: Event) => {
              if ((e as KeyboardEvent).key !== "Enter") return;
              e.preventDefault();
              if (!busy) actions.save();
            },
          }),
          h(
            "span",
            { class: "row-buttons" },
            iconButton(`up:${row.id}`, `Move item ${k + 1} up`, "up", () => actions.move(row.id, -1), k === 0),
            iconButton(`down:${row.id}`, `Move item ${k + 1} down`, "down", () => actions.move(row.id, 1), k === n - 1),
            iconButton(`remove:${row.id}`, `Remove item ${k + 1}`, "dismissed", () => actions.remove(row.id)),
          ),
        ),
      ),
    ),
    h(
      "div",
      { class: "add-row" },
      add,
      h("button", { type: "button", part: "button add-button", "data-key": "add", text: "Add", onclick: () => actions.add(add.value) }),
    ),
    h(
      "div",
      { class: "actions" },
      h("button", {
        type: "button",
        class: "primary",
        part: "button save-button",
        "aria-disabled": busy ? "true" : null,
        "data-key": "save",
        text: busy ? "Saving…" : "Save",
        onclick: () => {
          if (!busy) actions.save();
        },
      }),
      h("button", { type: "button", part: "button cancel-button", "data-key": "cancel", text: "Cancel", onclick: () => actions.cancel() }),
    ),
  );
}
