// <oda-suggestions>: a chat's suggested tasks, drawn from the service's
// `list()` answer. Its buttons dispatch events; the app does the writing,
// unless the element has a `src`: then it posts the action itself (when no
// listener called preventDefault) and announces the outcome.
import type { ChatScreen } from "../integrations/http/screen.js";
import type { ListedSuggestion, SuggestionList } from "../chat/service.js";
import type { Suggestion } from "../core/types.js";
import { h, headingLevel, icon, keepFocus } from "./dom.js";
import { FollowingElement } from "./following.js";
import { act } from "./live.js";
import { OUTCOME } from "./words.js";
import { accepted, suggestionListProblem } from "./shapes.js";

/**
 * What Start, Draft, Dismiss and Restore dispatch: the suggestion's id.
 *
 * @example
 * document.querySelector("oda-suggestions")?.addEventListener("oda-dismiss", (e) => service.dismiss(chatId, e.detail.id));
 */
export interface SuggestionEventDetail {
  id: string;
}

/**
 * What Open chat dispatches: the suggestion's id and the chat it started.
 *
 * @example
 * document.querySelector("oda-suggestions")?.addEventListener("oda-open-chat", (e) => location.assign(`/chats/${e.detail.chatId}`));
 */
export interface OpenChatEventDetail {
  id: string;
  chatId: string;
}

/**
 * The events of `<oda-suggestions>`, by name. They bubble, cross shadow
 * roots and are cancelable: with `src`, `preventDefault()` keeps the element
 * from posting the action itself.
 *
 * @example
 * const onStart = (e: OdaSuggestionsEventMap["oda-start"]) => service.start(chatId, e.detail.id);
 */
export interface OdaSuggestionsEventMap {
  "oda-start": CustomEvent<SuggestionEventDetail>;
  "oda-draft": CustomEvent<SuggestionEventDetail>;
  "oda-dismiss": CustomEvent<SuggestionEventDetail>;
  "oda-restore": CustomEvent<SuggestionEventDetail>;
  "oda-open-chat": CustomEvent<OpenChatEventDetail>;
}

type Action = "start" | "draft" | "dismiss" | "restore";

/** What the live region says while an action runs, and once it is done. */
const ING: Record<Action, string> = { start: "Starting", draft: "Drafting", dismiss: "Dismissing", restore: "Restoring" };
const DONE: Record<Action, string> = { start: "Started", draft: "Drafted", dismiss: "Dismissed", restore: "Restored" };

/**
 * Open suggestions newest first, each a chip with Start, Draft and Dismiss
 * (and its brief to unfold); settled ones in offer order, marked Started,
 * Drafted or Dismissed with a word and an icon, a dismissed one with
 * Restore, a started one with Open chat and, when the list carries it, how
 * far its chat got ("3 of 5 completed"). Set `list` to `service.list()`'s
 * answer; or set `src` to a `chatHandler` chat URL: the element then follows
 * the chat's event stream, performs Start, Draft, Dismiss and Restore itself
 * and announces each outcome in a live region. With `offer` (an offer's id),
 * it draws that one offer alone, open or settled: a `suggest_task` call's chip.
 * `heading` replaces the heading's text "Suggestions" (and the region's name).
 *
 * @example
 * const el = document.body.appendChild(document.createElement("oda-suggestions"));
 * el.list = await service.list(chatId, { progress: true });
 * el.addEventListener("oda-start", async (e) => location.assign(`/chats/${(await service.start(chatId, e.detail.id)).chatId}`));
 * // or, live: <oda-suggestions src="/api/oda/chats/chat-1"></oda-suggestions>
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface below only adds typed overloads of addEventListener, which the class has
export class OdaSuggestionsElement extends FollowingElement {
  protected readonly fed = ["list"];
  #list: SuggestionList | null = null;
  #live: HTMLElement | null = null;
  #section: HTMLElement | null = null;
  readonly #pending = new Set<string>();

  /** The attributes watched: `src`, `offer` and `heading`. */
  static override get observedAttributes(): string[] {
    return [...FollowingElement.observedAttributes, "offer", "heading"];
  }

  /** The one offer drawn (its id), open or settled, as a tool call's chip; `null`: every offer. */
  get offer(): string | null {
    return this.getAttribute("offer");
  }
  set offer(value: string | null) {
    if (value === null || value === undefined || value === "") this.removeAttribute("offer");
    else this.setAttribute("offer", String(value));
  }

  /** A new `offer` or `heading` draws again; a new `src` follows it. */
  override attributeChangedCallback(name: string, before: string | null, after: string | null): void {
    super.attributeChangedCallback(name, before, after);
    if ((name === "offer" || name === "heading") && before !== after && this.isConnected) this.redraw();
  }

  /** The suggestions: `service.list(chatId)` (or `replaySuggestions()`). */
  get list(): SuggestionList | null {
    return this.#list;
  }
  set list(value: SuggestionList | null) {
    const list = accepted<SuggestionList>(
      "oda-suggestions",
      "list",
      "a list of service.list() ({ open, settled })",
      value,
      suggestionListProblem,
    );
    if (!this.streamed) this.#show(list); // following `src`: the chat's stream draws
  }

  /** Draws `list`, the keyboard's focus kept on the button it was on (or the next one of that offer). */
  #show(list: SuggestionList | null): void {
    this.#list = list;
    keepFocus(
      this.root,
      () => this.redraw(),
      (key) => this.#nextFocus(key),
    );
  }

  /** Where the keyboard goes when its button went away: the same offer's next action, else the heading. */
  #nextFocus(key: string): HTMLElement | null {
    const id = key.slice(key.indexOf(":") + 1);
    for (const action of ["start", "restore", "open"]) {
      const el = this.root.querySelector<HTMLElement>(`[data-key="${CSS.escape(`${action}:${id}`)}"]`);
      if (el !== null) return el;
    }
    return this.root.getElementById("heading");
  }

  /** A pushed screen: its open and settled suggestions (with progress). */
  protected screen(screen: ChatScreen): void {
    this.#show({ open: screen.open, settled: screen.settled });
  }

  /** Dispatches an event; `false` when a listener called preventDefault. */
  #fire(name: keyof OdaSuggestionsEventMap, detail: SuggestionEventDetail | OpenChatEventDetail): boolean {
    return this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable: true }));
  }

  /** Posts `action` of `s` to `src` and says how it went in the live region. */
  async #perform(src: string, action: Action, s: Suggestion): Promise<void> {
    const key = `${action}:${s.id}`;
    if (this.#pending.has(key)) return;
    this.#pending.add(key);
    this.#announce(`${ING[action]} “${s.title}”…`);
    try {
      const answer = await act(src, action, s.id);
      this.#announce(
        answer.ok
          ? `${DONE[action]} “${s.title}”${action === "start" ? " in a new chat" : ""}.`
          : `Could not ${action} “${s.title}”: ${answer.message}.`,
      );
    } finally {
      this.#pending.delete(key);
    }
  }

  #announce(text: string): void {
    if (this.#live !== null) this.#live.textContent = text;
  }

  #button(action: Action, s: Suggestion, primary = false): HTMLElement {
    const word = action.charAt(0).toUpperCase() + action.slice(1);
    return h("button", {
      type: "button",
      class: primary ? "primary" : null,
      part: `button ${action}-button`,
      "data-key": `${action}:${s.id}`,
      "aria-label": `${word}: ${s.title}`,
      text: word,
      onclick: () => {
        const src = this.src;
        if (this.#fire(`oda-${action}`, { id: s.id }) && src !== null && src !== "") void this.#perform(src, action, s);
      },
    });
  }

  /** Renders the open and settled offers from `list`. */
  protected draw(): void {
    const level = headingLevel(this, 2);
    const only = this.offer;
    const shown = (s: Suggestion) => only === null || s.id === only;
    const open = (this.#list?.open ?? []).filter(shown);
    const settled = (this.#list?.settled ?? []).filter(shown);
    const chips = open.map((s) =>
      h(
        "li",
        { class: "chip", part: "chip", "data-id": s.id, "aria-labelledby": `t-${s.id}` },
        h(`h${level + 1}`, { class: "chip-title", part: "chip-title", id: `t-${s.id}` }, icon("suggestion"), h("span", { text: s.title })),
        h("p", { class: "tldr", part: "tldr", text: s.tldr }),
        h(
          "details",
          { part: "brief", "data-key": `brief:${s.id}` },
          h("summary", { text: "Brief" }),
          h("p", { class: "brief", text: s.brief }),
        ),
        h(
          "div",
          { class: "actions", part: "actions" },
          this.#button("start", s, true),
          this.#button("draft", s),
          this.#button("dismiss", s),
        ),
      ),
    );
    const items = settled.map((s) => this.#settledItem(s));
    // One offer (a tool call's chip): the chip alone, its heading for screen readers only.
    const whole = only === null;
    const section = h(
      "section",
      { class: "panel", part: "suggestions", "aria-labelledby": "heading" },
      h(`h${level}`, {
        id: "heading",
        class: whole ? "heading" : "heading vh",
        part: "heading",
        tabindex: "-1",
        text: this.getAttribute("heading") || (whole ? "Suggestions" : "Suggestion"),
      }),
      whole ? h("p", { class: "counts", part: "counts", text: `${open.length} open · ${settled.length} settled` }) : null,
      open.length ? h("ul", { class: "chips", part: "open-list", "aria-label": "Open suggestions" }, chips) : null,
      settled.length && whole ? h(`h${level + 1}`, { class: "sub", part: "settled-heading", text: "Settled" }) : null,
      settled.length ? h("ul", { class: "settled", part: "settled-list", "aria-label": "Settled suggestions" }, items) : null,
      open.length + settled.length === 0 && whole ? h("p", { class: "empty", text: "No suggestions yet." }) : null,
    );
    if (this.#live === null || this.#section === null) {
      // The live region is made once and stays, so that its changes are announced.
      this.#live = h("p", { class: "vh", part: "announcement", role: "status", "aria-live": "polite" });
      this.root.replaceChildren(section, this.#live);
    } else {
      this.#section.replaceWith(section);
    }
    this.#section = section;
  }

  #settledItem(s: ListedSuggestion): HTMLElement {
    const progress = s.outcome === "started" && s.progress ? s.progress : null;
    const { chatId } = s;
    return h(
      "li",
      { class: `settled-item o-${s.outcome}`, part: `settled settled-${s.outcome}`, "data-id": s.id },
      h("span", { class: "outcome", part: "outcome" }, icon(s.outcome), OUTCOME[s.outcome]),
      h("span", { class: "name", text: s.title }),
      s.outcome === "dismissed" ? this.#button("restore", s) : null,
      s.outcome === "started" && chatId !== undefined
        ? h("button", {
            type: "button",
            part: "button open-button",
            "data-key": `open:${s.id}`,
            "aria-label": `Open chat: ${s.title}`,
            text: "Open chat",
            onclick: () => this.#fire("oda-open-chat", { id: s.id, chatId }),
          })
        : null,
      progress
        ? h("span", {
            class: "progress",
            part: "progress",
            text: progress.total === 0 ? "No to-do list yet" : `${progress.completed} of ${progress.total} completed`,
          })
        : null,
    );
  }
}

// The events in the element's addEventListener, typed by name.
export interface OdaSuggestionsElement {
  /** Listens for one of the element's events, typed by name (`oda-start`, `oda-dismiss`, ...). */
  addEventListener<K extends keyof OdaSuggestionsEventMap>(
    type: K,
    listener: (this: OdaSuggestionsElement, event: OdaSuggestionsEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  /** Listens for any other event, as on every element. */
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  /** Stops listening for one of the element's events. */
  removeEventListener<K extends keyof OdaSuggestionsEventMap>(
    type: K,
    listener: (this: OdaSuggestionsElement, event: OdaSuggestionsEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  /** Stops listening for any other event. */
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}
