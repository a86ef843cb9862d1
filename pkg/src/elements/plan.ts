// <oda-plan>: the chat's current plan, drawn from `view().plan`, with a live
// region that tells a screen reader what changed; with `editable`, the list
// the person steers: its items checked off at once, or edited as a whole.
import type { ChatScreen } from "../integrations/http/screen.js";
import type { TodoItem, TodoPlan } from "../core/types.js";
import { h, headingLevel, icon, keepFocus } from "./dom.js";
import { FollowingElement } from "./following.js";
import { editList, type EditAnswer } from "./live.js";
import { checkList, editForm, type EditRow } from "./plan-editor.js";
import { reapply, type DraftRow } from "./reapply.js";
import { todoItem } from "./todo-card.js";
import { STATUS } from "./words.js";
import { accepted, todoListProblem, todoPlanProblem } from "./shapes.js";

/**
 * What `oda-edit` carries: the whole list as the person left it, the log
 * length their screen showed, and `respond`, which the app that made the edit
 * (after `preventDefault()`, or with no `src`) calls with what it answered.
 *
 * @example
 * import { editTodos } from "oda-tasks";
 * document.querySelector("oda-plan")?.addEventListener("oda-edit", async (e) => {
 *   e.preventDefault(); // the app makes the edit
 *   const { todos, basedOn, respond } = (e as CustomEvent<EditEventDetail>).detail;
 *   const r = await editTodos(store, chatId, todos, { basedOn });
 *   respond(r.ok ? { ok: true } : { ok: false, message: r.error });
 * });
 */
export interface EditEventDetail {
  todos: TodoItem[];
  basedOn: number;
  /** The edit's outcome, which the element shows (and re-applies the edit on, when `changed`). */
  respond(answer: EditAnswer): void;
}

/** How many times an edit is re-applied to a list that changed under it before the person is asked. */
const REAPPLY_TRIES = 3;

/**
 * The plan: running while its turn runs, the finished checklist after the
 * turn ends, cleared when the next turn starts. Set `plan` (and `cardCount`,
 * so that a cleared plan reads "Cleared" rather than "No plan yet"). Each
 * change is announced politely ("Plan running, turn 3: 1 of 4 completed").
 * With `src` (a `chatHandler` chat URL) it follows the chat's event stream
 * and needs no property. `heading` replaces the heading's text "Plan" (and so
 * the region's name), for a page that shows more than one plan.
 *
 * With `editable`, the person steers the list: a check box per item checks
 * it off (or back), and "Edit list" rewords, adds, removes and reorders
 * items, saved as one edit of the whole list on the log length the screen
 * showed (`length`, and the chat's list `todos`, which `src` gives). With
 * `src` the element posts the edit itself (`POST …/todos`); without, it
 * dispatches `oda-edit` for the app to make. When the list changed meanwhile,
 * the edit is re-applied to it, or, where the same item changed on both
 * sides, the person is asked; every refusal is shown with its reason.
 *
 * @example
 * const { plan, cardCount } = state.view({ cards: 20 });
 * document.body.append(Object.assign(document.createElement("oda-plan"), { plan, cardCount }));
 * // or, live: <oda-plan src="/api/oda/chats/chat-1"></oda-plan>, editable: <oda-plan src="…" editable></oda-plan>
 */
export class OdaPlanElement extends FollowingElement {
  protected readonly fed = ["plan", "cardCount", "todos", "length"];
  #plan: TodoPlan | null = null;
  #cardCount = 0;
  #todos: TodoItem[] | null = null;
  #length: number | null = null;
  #live: HTMLElement | null = null;
  #body: HTMLElement | null = null;
  #heading: HTMLElement | null = null;
  #editArea: HTMLElement | null = null;
  #message: HTMLElement | null = null;
  /** The draft while the form is open: its rows, the list they were drawn from, and the length it was read at. */
  #draft: { rows: EditRow[]; base: TodoItem[]; basedOn: number } | null = null;
  #rowIds = 0;
  #saving = false;
  /** The app's answer to an `oda-edit` it took over. */
  #pending: ((answer: EditAnswer) => void) | null = null;

  /** The attributes watched: `src`, `heading` and `editable`. */
  static override get observedAttributes(): string[] {
    return [...FollowingElement.observedAttributes, "heading", "editable"];
  }

  /** A new `heading` or `editable` draws again; a new `src` follows it. */
  override attributeChangedCallback(name: string, before: string | null, after: string | null): void {
    super.attributeChangedCallback(name, before, after);
    if (name === "editable" && after === null) this.#draft = null;
    if ((name === "heading" || name === "editable") && before !== after && this.isConnected) this.redraw();
  }

  /** Whether the person may edit the list here (the `editable` attribute): off wherever the app's authorization reads only. */
  get editable(): boolean {
    return this.hasAttribute("editable");
  }
  set editable(value: boolean) {
    this.toggleAttribute("editable", Boolean(value));
  }

  /** The plan: `view().plan` (or `replayTodos().plan`). */
  get plan(): TodoPlan | null {
    return this.#plan;
  }
  set plan(value: TodoPlan | null) {
    const plan = accepted<TodoPlan>("oda-plan", "plan", "a plan of view().plan", value, todoPlanProblem);
    if (this.streamed) return; // following `src`: the chat's stream draws
    this.#plan = plan;
    this.redraw();
  }

  /** How many cards the chat has (`view().cardCount`): a plan of `none` with cards was cleared. */
  get cardCount(): number {
    return this.#cardCount;
  }
  set cardCount(value: number) {
    if (this.streamed) return;
    this.#cardCount = typeof value === "number" ? value : 0;
    this.redraw();
  }

  /** The chat's list (`view().todos`), which "Edit list" edits; by default the plan's items. */
  get todos(): TodoItem[] | null {
    return this.#todos;
  }
  set todos(value: TodoItem[] | null) {
    const todos = accepted<TodoItem[]>("oda-plan", "todos", "a list of view().todos", value, todoListProblem);
    if (this.streamed) return;
    this.#todos = todos;
    this.#answered();
    this.redraw();
  }

  /** The log's length the list was read at (a screen's `length`, `ChatState#length`): an edit is made on it. */
  get length(): number | null {
    return this.#length;
  }
  set length(value: number | null) {
    if (this.streamed) return;
    this.#length = typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;
    this.#answered();
    this.redraw();
  }

  /** A pushed screen: its plan, card count, list and length. */
  protected screen(screen: ChatScreen): void {
    this.#plan = screen.plan;
    this.#cardCount = screen.cardCount;
    this.#todos = screen.todos;
    this.#length = screen.length;
    this.redraw();
  }

  /** The list "Edit list" edits: the chat's, else the plan's items. */
  #list(): TodoItem[] {
    return this.#todos ?? this.#plan?.todos ?? [];
  }

  /** Renders the plan from `plan` and `cardCount`, and with `editable` what edits the list. */
  protected draw(): void {
    const level = headingLevel(this, 2);
    if (this.#body === null || this.#live === null || this.#heading === null || this.#editArea === null || this.#message === null) {
      // The live region is made once and stays, so that its changes are announced.
      this.#body = h("div", { class: "body" });
      this.#editArea = h("div", { class: "edit-area" });
      this.#message = h("p", { class: "edit-message", part: "edit-message", role: "status", hidden: true });
      this.#live = h("p", { class: "vh", part: "announcement", role: "status", "aria-live": "polite" });
      this.#heading = h(`h${level}`, { id: "heading", class: "heading", part: "heading" });
      this.root.replaceChildren(
        h(
          "section",
          { class: "panel", part: "plan", "aria-labelledby": "heading" },
          this.#heading,
          this.#body,
          this.#editArea,
          this.#live,
          this.#message,
        ),
      );
    }
    this.#heading.textContent = this.getAttribute("heading") || "Plan";
    const p = this.#plan ?? { state: "none", todos: [], turn: null };
    const done = p.todos.filter((t) => t.status === "completed").length;
    const state =
      p.state === "running"
        ? `Running · turn ${p.turn ?? "–"}`
        : p.state === "finished"
          ? `Finished · turn ${p.turn ?? "–"}`
          : this.#cardCount > 0
            ? "Cleared: a new turn started"
            : "No plan yet";
    const counts = `${done} of ${p.todos.length} completed`;
    const shown = p.state !== "none";
    const editing = this.#editing();
    const body = this.#body;
    keepFocus(
      this.root,
      () => {
        body.replaceChildren(
          ...[
            h("p", { class: `state ${p.state}`, part: "state", "data-state": p.state }, icon(p.state), h("span", { text: state })),
            shown ? h("p", { class: "counts", part: "counts", text: counts }) : null,
            shown && p.todos.length ? bar(done / p.todos.length) : null,
            shown && !editing && this.#canEdit()
              ? checkList(p.todos, (i) => this.#toggle(p.todos, i), this.#saving)
              : shown && !editing
                ? h(
                    "ul",
                    { class: "todos", part: "list", "aria-label": "Plan items" },
                    p.todos.map((t) => todoItem(t)),
                  )
                : null,
          ].filter((n): n is HTMLElement => n !== null),
        );
        this.#drawEditArea();
      },
      () => this.#editArea?.querySelector<HTMLElement>("[data-key=edit], [data-key=new]") ?? null,
    );
    const active = p.todos.find((t) => t.status === "in_progress");
    const said =
      p.state === "none"
        ? `Plan: ${state}.`
        : `Plan ${p.state === "running" ? "running" : "finished"}${p.turn !== null ? `, turn ${p.turn}` : ""}: ${counts}` +
          (active ? `; ${STATUS.in_progress.toLowerCase()}: ${active.content}.` : ".");
    if (this.#live.textContent !== said) this.#live.textContent = said;
  }

  /** Whether the list can be edited here: `editable`, a length to edit on, and a chat shown. */
  #canEdit(): boolean {
    return this.editable && this.#length !== null;
  }

  #editing(): boolean {
    return this.#draft !== null && this.#canEdit();
  }

  /** "Edit list", or the form while the person edits. */
  #drawEditArea(): void {
    const area = this.#editArea;
    if (area === null) return;
    if (!this.#canEdit()) {
      area.replaceChildren();
      return;
    }
    const draft = this.#draft;
    if (draft === null) {
      area.replaceChildren(
        h("button", {
          type: "button",
          class: "edit-button",
          part: "button edit-button",
          "data-key": "edit",
          "aria-disabled": this.#saving ? "true" : null,
          text: "Edit list",
          onclick: () => this.#open(),
        }),
      );
      return;
    }
    // The form is drawn again only when its rows change: text being typed stays where the caret is.
    if (area.firstElementChild?.getAttribute("data-rows") === this.#formKey()) return;
    const form = editForm(draft.rows, this.#actions, this.#saving);
    form.setAttribute("data-rows", this.#formKey());
    area.replaceChildren(form);
  }

  /** What the form shows: its rows' order and states, whether it saves; a change draws it again. */
  #formKey(): string {
    const d = this.#draft;
    return `${this.#saving}|${d?.rows.map((r) => `${r.id}:${r.status}`).join(",") ?? ""}`;
  }

  /** Opens the form on the list as it stands. */
  #open(): void {
    if (this.#saving || this.#length === null) return;
    const base = this.#list().map((t) => ({ ...t }));
    this.#draft = { rows: base.map((t, i) => this.#row(t.content, t.status, i)), base, basedOn: this.#length };
    this.#say(null);
    this.redraw();
    this.root.querySelector<HTMLElement>("[data-key^='text:'], [data-key=new]")?.focus();
  }

  #row(content: string, status: TodoItem["status"], origin: number | null): EditRow {
    return { id: ++this.#rowIds, content, status, origin };
  }

  /** What the form's controls do to the draft. */
  readonly #actions = {
    set: (id: number, change: Partial<Pick<EditRow, "content" | "status">>) => {
      const row = this.#draft?.rows.find((r) => r.id === id);
      if (row !== undefined) Object.assign(row, change);
      if (change.status !== undefined) this.redraw();
    },
    move: (id: number, by: -1 | 1) => {
      const rows = this.#draft?.rows;
      const at = rows?.findIndex((r) => r.id === id) ?? -1;
      const to = at + by;
      if (rows === undefined || at < 0 || to < 0 || to >= rows.length) return;
      [rows[at], rows[to]] = [rows[to] as EditRow, rows[at] as EditRow];
      this.redraw();
      this.#focus(`${by < 0 ? "up" : "down"}:${id}`, `${by < 0 ? "down" : "up"}:${id}`);
      this.#say(`Moved item ${at + 1} to ${to + 1}.`);
    },
    remove: (id: number) => {
      const rows = this.#draft?.rows;
      const at = rows?.findIndex((r) => r.id === id) ?? -1;
      if (rows === undefined || at < 0) return;
      const [gone] = rows.splice(at, 1);
      this.redraw();
      const next = rows[at] ?? rows[at - 1];
      this.#focus(next === undefined ? "new" : `text:${next.id}`);
      this.#say(`Removed “${gone?.content ?? ""}”.`);
    },
    add: (content: string) => {
      const draft = this.#draft;
      if (draft === null || content.trim() === "") return;
      draft.rows.push(this.#row(content, "pending", null));
      this.redraw();
      const field = this.root.querySelector<HTMLInputElement>("[data-key=new]");
      if (field !== null) {
        field.value = "";
        field.focus();
      }
      this.#say(`Added “${content}”.`);
    },
    save: () => {
      const draft = this.#draft;
      if (draft !== null) void this.#commit(draft.base, draft.rows, draft.basedOn);
    },
    cancel: () => {
      this.#draft = null;
      this.#say(null);
      this.redraw();
      this.#focus("edit");
    },
  };

  /** Checks item `i` of `list` off, or back to pending: an edit of that one item, saved at once. */
  #toggle(list: TodoItem[], i: number): void {
    if (this.#length === null) return;
    const rows = list.map((t, k) => this.#row(t.content, k === i ? (t.status === "completed" ? "pending" : "completed") : t.status, k));
    void this.#commit(list, rows, this.#length);
  }

  /**
   * Saves the rows, made from `base` on log length `basedOn`. A list changed
   * meanwhile gets the edit re-applied (a few times, should it keep
   * changing); where both sides changed an item, the form stays open on the
   * list as it stands, and the person decides.
   */
  async #commit(base: TodoItem[], rows: EditRow[], basedOn: number): Promise<void> {
    if (this.#saving) return;
    this.#saving = true;
    this.#say("Saving your edit…");
    this.redraw();
    let reapplied = false;
    try {
      for (let tries = 0; ; tries++) {
        const answer = await this.#send(
          rows.map((r) => ({ content: r.content, status: r.status })),
          basedOn,
        );
        if (answer.ok) {
          const wasOpen = this.#draft !== null;
          this.#draft = null;
          this.#say(reapplied ? "The list had changed meanwhile: your edit was made again on it, and saved." : "Saved your edit.");
          this.#saving = false;
          this.redraw();
          if (wasOpen) this.#focus("edit");
          return;
        }
        if (answer.changed === undefined) {
          this.#keep(base, rows, basedOn);
          this.#say(`Could not save your edit: ${answer.message}.`);
          return;
        }
        const theirs = answer.changed.todos;
        const merged = tries < REAPPLY_TRIES ? reapply(base, rows, theirs) : null;
        if (merged === null) {
          // Both sides changed the same items: the form, on the list as it stands, with the person's rows.
          this.#keep(
            theirs,
            rebased(rows, base, theirs, (c, s, o) => this.#row(c, s, o)),
            answer.changed.length,
          );
          this.#say(
            `Not saved: the list changed while you edited, in items you changed too. It now reads: ${
              theirs.map((t) => `${t.content} (${STATUS[t.status].toLowerCase()})`).join("; ") || "nothing"
            }. Check your edit below and save it again, or cancel.`,
          );
          return;
        }
        reapplied = true;
        base = theirs;
        rows = merged.map((t) =>
          this.#row(
            t.content,
            t.status,
            theirs.findIndex((x) => x.content === t.content),
          ),
        );
        for (const r of rows) if (r.origin !== null && r.origin < 0) r.origin = null;
        basedOn = answer.changed.length;
      }
    } finally {
      this.#saving = false;
      this.redraw();
    }
  }

  /** Keeps the form open on `rows` (made from `base` on `basedOn`) after a refusal. */
  #keep(base: TodoItem[], rows: EditRow[], basedOn: number): void {
    this.#draft = { rows, base, basedOn };
  }

  /** Sends the edit: posted to `src`, or `oda-edit` for the app (always without `src`; with it, when a listener prevents the post). */
  #send(todos: TodoItem[], basedOn: number): Promise<EditAnswer> {
    const src = this.src;
    let respond: (answer: EditAnswer) => void = () => undefined;
    const answered = new Promise<EditAnswer>((resolve) => (respond = resolve));
    const detail: EditEventDetail = { todos, basedOn, respond: (answer) => respond(answer) };
    const posting = this.dispatchEvent(new CustomEvent("oda-edit", { detail, bubbles: true, composed: true, cancelable: true }));
    if (posting && src !== null && src !== "") return editList(src, todos, basedOn);
    this.#pending = respond;
    return answered;
  }

  /** New `todos` or `length` from the app after an `oda-edit` it made: the edit was made. */
  #answered(): void {
    const pending = this.#pending;
    this.#pending = null;
    pending?.({ ok: true });
  }

  /** Says `text` under the plan (a refusal's reason, an outcome), or nothing. */
  #say(text: string | null): void {
    if (this.#message === null) return;
    this.#message.textContent = text ?? "";
    this.#message.hidden = text === null;
  }

  /** Moves the keyboard to the control keyed `key`, else `fallback`'s. */
  #focus(key: string, fallback?: string): void {
    const find = (k: string) => this.root.querySelector<HTMLElement>(`[data-key="${CSS.escape(k)}"]`);
    const el = find(key);
    (el !== null && el.getAttribute("aria-disabled") !== "true" ? el : fallback === undefined ? el : find(fallback))?.focus();
  }
}

/** The person's rows, drawn afresh on `theirs`: a row keeps the item it came from where `theirs` still has it, else counts as added. */
function rebased(
  rows: readonly DraftRow[],
  base: readonly TodoItem[],
  theirs: readonly TodoItem[],
  row: (content: string, status: TodoItem["status"], origin: number | null) => EditRow,
): EditRow[] {
  return rows.map((r) => {
    const from = r.origin === null ? undefined : base[r.origin]?.content;
    const at = from === undefined ? -1 : theirs.findIndex((t) => t.content === from);
    return row(r.content, r.status, at < 0 ? null : at);
  });
}

/** A bar for the eye (the counts above say it in words); width set through CSSOM, so a strict CSP allows it. */
function bar(share: number): HTMLElement {
  const fill = h("span");
  fill.style.width = `${Math.round(100 * share)}%`;
  return h("div", { class: "progress-bar", part: "progress-bar", "aria-hidden": "true" }, fill);
}
