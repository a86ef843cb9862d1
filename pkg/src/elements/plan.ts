// <oda-plan>: the chat's current plan, drawn from `view().plan`, with a live
// region that tells a screen reader what changed.
import type { ChatScreen } from "../integrations/http/screen.js";
import type { TodoPlan } from "../core/types.js";
import { h, headingLevel, icon } from "./dom.js";
import { FollowingElement } from "./following.js";
import { todoItem } from "./todo-card.js";
import { STATUS } from "./words.js";
import { accepted, todoPlanProblem } from "./shapes.js";

/**
 * The plan: running while its turn runs, the finished checklist after the
 * turn ends, cleared when the next turn starts. Set `plan` (and `cardCount`,
 * so that a cleared plan reads "Cleared" rather than "No plan yet"). Each
 * change is announced politely ("Plan running, turn 3: 1 of 4 completed").
 * With `src` (a `chatHandler` chat URL) it follows the chat's event stream
 * and needs no property. `heading` replaces the heading's text "Plan" (and so
 * the region's name), for a page that shows more than one plan.
 *
 * @example
 * const { plan, cardCount } = state.view({ cards: 20 });
 * document.body.append(Object.assign(document.createElement("oda-plan"), { plan, cardCount }));
 * // or, live: <oda-plan src="/api/oda/chats/chat-1"></oda-plan>
 */
export class OdaPlanElement extends FollowingElement {
  protected readonly fed = ["plan", "cardCount"];
  #plan: TodoPlan | null = null;
  #cardCount = 0;
  #live: HTMLElement | null = null;
  #body: HTMLElement | null = null;
  #heading: HTMLElement | null = null;

  /** The attributes watched: `src`, and `heading`. */
  static override get observedAttributes(): string[] {
    return [...FollowingElement.observedAttributes, "heading"];
  }

  /** A new `heading` draws again; a new `src` follows it. */
  override attributeChangedCallback(name: string, before: string | null, after: string | null): void {
    super.attributeChangedCallback(name, before, after);
    if (name === "heading" && before !== after && this.isConnected) this.redraw();
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

  /** A pushed screen: its plan and card count. */
  protected screen(screen: ChatScreen): void {
    this.#plan = screen.plan;
    this.#cardCount = screen.cardCount;
    this.redraw();
  }

  /** Renders the plan from `plan` and `cardCount`. */
  protected draw(): void {
    const level = headingLevel(this, 2);
    if (this.#body === null || this.#live === null || this.#heading === null) {
      // The live region is made once and stays, so that its changes are announced.
      this.#body = h("div", { class: "body" });
      this.#live = h("p", { class: "vh", part: "announcement", role: "status", "aria-live": "polite" });
      this.#heading = h(`h${level}`, { id: "heading", class: "heading", part: "heading" });
      this.root.replaceChildren(
        h("section", { class: "panel", part: "plan", "aria-labelledby": "heading" }, this.#heading, this.#body, this.#live),
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
    this.#body.replaceChildren(
      ...[
        h("p", { class: `state ${p.state}`, part: "state", "data-state": p.state }, icon(p.state), h("span", { text: state })),
        shown ? h("p", { class: "counts", part: "counts", text: counts }) : null,
        shown && p.todos.length ? bar(done / p.todos.length) : null,
        shown
          ? h(
              "ul",
              { class: "todos", part: "list", "aria-label": "Plan items" },
              p.todos.map((t) => todoItem(t)),
            )
          : null,
      ].filter((n): n is HTMLElement => n !== null),
    );
    const active = p.todos.find((t) => t.status === "in_progress");
    const said =
      p.state === "none"
        ? `Plan: ${state}.`
        : `Plan ${p.state === "running" ? "running" : "finished"}${p.turn !== null ? `, turn ${p.turn}` : ""}: ${counts}` +
          (active ? `; ${STATUS.in_progress.toLowerCase()}: ${active.content}.` : ".");
    if (this.#live.textContent !== said) this.#live.textContent = said;
  }
}

/** A bar for the eye (the counts above say it in words); width set through CSSOM, so a strict CSP allows it. */
function bar(share: number): HTMLElement {
  const fill = h("span");
  fill.style.width = `${Math.round(100 * share)}%`;
  return h("div", { class: "progress-bar", part: "progress-bar", "aria-hidden": "true" }, fill);
}
