// The chat's timeline, drawn a page at a time: the latest entries first, older
// ones as the person scrolls up (or presses "Show earlier entries"). Cards come
// from the state's `cards(from, to)`, only those of the entries on screen, so
// a chat of 100k entries costs the DOM of one page.
import { entryNode, h } from "./view.js";

/** Entries drawn per page. */
export const PAGE = 100;
/** Cards asked for per `cards(from, to)` call while looking for a page's cards. */
const CARD_PAGE = 50;

export class Timeline {
  /** `list`: the <ol> to draw into; `onOpen(chatId)`: opens a chat named in an entry. */
  constructor(list, onOpen) {
    this.list = list;
    this.onOpen = onOpen;
    this.chatId = null;
    this.start = 0;
    this.observer = new IntersectionObserver((seen) => {
      // A keyboard user who moved to the button presses it: its coming into view is not a request.
      const focused = seen.some((e) => e.target.contains(document.activeElement));
      if (seen.some((e) => e.isIntersecting) && this.armed && !focused) this.earlier();
    });
    this.armed = false;
  }

  /**
   * Draws chat `chatId` from `start` on: its log, its state (for cards), the
   * first screen's answer `view` and the skipped entries. A chat drawn anew
   * opens at its latest page.
   */
  show(chatId, log, state, view) {
    const fresh = chatId !== this.chatId;
    if (fresh) {
      this.chatId = chatId;
      this.start = Math.max(0, log.length - PAGE);
    }
    this.log = log;
    this.state = state;
    this.view = view;
    this.#draw();
    if (fresh && this.start > 0) this.list.lastElementChild?.scrollIntoView({ block: "end" });
    // Only what the person does loads more: not the first draw, not our own scrolling.
    this.#rearm();
  }

  /** Draws the page before the first entry shown, keeping what is on screen where it is. */
  earlier() {
    if (this.start === 0) return;
    const anchor = this.list.querySelector("li[data-index]");
    const top = anchor?.getBoundingClientRect().top ?? 0;
    const pressed = this.list.querySelector("li.older")?.contains(document.activeElement) ?? false;
    this.start = Math.max(0, this.start - PAGE);
    this.#draw();
    // The keyboard stays on the button (or, with nothing earlier left, goes to the timeline).
    if (pressed) (this.list.querySelector("li.older button") ?? this.list.closest("[tabindex]"))?.focus({ preventScroll: true });
    if (anchor) {
      const same = this.list.querySelector(`li[data-index="${anchor.dataset.index}"]`);
      window.scrollBy(0, (same?.getBoundingClientRect().top ?? top) - top);
    }
    this.#rearm();
  }

  /** Loads wait for the person again: the new page's own appearance (or our scrolling) loads nothing. */
  #rearm() {
    this.armed = false;
    requestAnimationFrame(() => requestAnimationFrame(() => (this.armed = true)));
  }

  #draw() {
    const { log, state, view, start } = this;
    const cards = cardsFrom(state, view, start);
    const skipped = new Map(view.skipped.map((s) => [s.index, s.reason]));
    // Turns are numbered from the chat's start, not the page's.
    let turn = 0;
    for (let i = 0; i < start; i++) if (log[i]?.type === "turn_started") turn++;
    const ctx = { cards, total: view.cardCount, skipped, onOpen: this.onOpen, turn };
    const nodes = [];
    for (let index = start; index < log.length; index++) nodes.push(entryNode(log[index], index, ctx));
    this.observer.disconnect();
    if (start > 0) {
      const button = h("button", {
        type: "button",
        className: "quiet",
        text: `Show earlier entries (${start.toLocaleString("en")} more)`,
        onclick: () => this.earlier(),
      });
      const older = h("li", { className: "older" }, button);
      nodes.unshift(older);
      this.observer.observe(older);
    }
    this.list.replaceChildren(...nodes);
  }
}

/**
 * The cards of the entries from log index `start` on, by entry index, with
 * their number among the chat's cards: the first screen's cards, then
 * earlier pages of `cards(from, to)` until one reaches before `start`.
 */
function cardsFrom(state, view, start) {
  const found = new Map();
  let to = view.cardCount;
  let page = view.cards;
  let from = to - page.length;
  for (;;) {
    for (let i = page.length - 1; i >= 0; i--) {
      if (page[i].index < start) return found;
      found.set(page[i].index, { card: page[i], n: from + i + 1 });
    }
    to = from;
    if (to <= 0) return found;
    from = Math.max(0, to - CARD_PAGE);
    page = state.cards(from, to);
  }
}
