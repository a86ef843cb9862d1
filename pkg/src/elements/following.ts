// The base of the elements that take `src`: while connected with a `src`
// they follow that chat's screen (live.ts) and hand each one to `screen()`;
// without one they draw what their properties are set to, as before. Once the
// chat's stream gave a screen, it alone is drawn: a property set later (a chat
// UI's snapshot rendered late) would show an older state that no event fixes.
// Once the stream says the chat was deleted, the element says so instead.
import type { ChatScreen } from "../integrations/http/screen.js";
import { AnswerElement, h } from "./dom.js";
import { follow } from "./live.js";

/**
 * An element fed by property or, with `src` (a `chatHandler` chat URL), by
 * the chat's screen and its event stream.
 *
 * @example
 * class Mine extends FollowingElement { protected readonly fed = ["value"]; protected draw() {} protected screen() {} }
 */
export abstract class FollowingElement extends AnswerElement {
  #stop: (() => void) | null = null;
  #streamed = false;
  /** The notice shown once the followed chat was deleted (`null`: it was not). */
  #deleted: HTMLElement | null = null;

  /** The attributes watched: `src`. */
  static get observedAttributes(): string[] {
    return ["src"];
  }

  /** The chat URL of a `chatHandler` (`/api/oda/chats/chat-1`); `null`: fed by property only. */
  get src(): string | null {
    return this.getAttribute("src");
  }
  set src(value: string | null) {
    if (value === null || value === undefined || value === "") this.removeAttribute("src");
    else this.setAttribute("src", String(value));
  }

  /** On connect: draws, then follows `src` if set. */
  override connectedCallback(): void {
    super.connectedCallback();
    this.#restart();
  }

  /** On disconnect: stops following (the stream closes once no element follows it). */
  disconnectedCallback(): void {
    this.#stop?.();
    this.#stop = null;
  }

  /** A new `src`: follows it instead. */
  attributeChangedCallback(name: string, before: string | null, after: string | null): void {
    if (name === "src" && before !== after && this.isConnected) this.#restart();
  }

  #restart(): void {
    this.#stop?.();
    this.#stop = null;
    this.#streamed = false;
    if (this.#deleted !== null) {
      this.#deleted.remove();
      this.#deleted = null;
      this.redraw();
    }
    const src = this.src;
    if (src !== null && src !== "")
      this.#stop = follow(src, (screen) => {
        this.#streamed = true;
        if (screen !== null) this.screen(screen);
        else if (this.#deleted === null) {
          this.#deleted = h("p", { class: "panel deleted", part: "deleted", role: "status", text: "This chat was deleted." });
          this.redraw();
        }
      });
  }

  /** Draws the element; once its chat was deleted, only the notice that says so. */
  protected override redraw(): void {
    super.redraw();
    const notice = this.#deleted;
    if (notice === null) return;
    for (const child of Array.from(this.root.children))
      if (child !== notice && child.localName !== "style") (child as HTMLElement).hidden = true;
    if (notice.parentNode !== this.root) this.root.append(notice);
  }

  /**
   * Whether the followed chat's stream gave a screen: the properties are then
   * checked but not drawn (the stream is newer than any snapshot).
   *
   * @example
   * // in a subclass's setter: if (this.streamed) return;
   */
  protected get streamed(): boolean {
    return this.#streamed;
  }

  /** Takes a screen the chat's stream pushed. */
  protected abstract screen(screen: ChatScreen): void;
}
