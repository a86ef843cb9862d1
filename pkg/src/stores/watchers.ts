// The in-process half of every store's change feed: who watches which chat,
// and telling them a chat's new length once a write has committed.
import { checkChatId } from "./store.js";
import { keyed } from "./keyed.js";

/** Hears a chat's new log length after a write commits. */
export type ChangeListener = (length: number) => void;

/**
 * The listeners of one store (or of every store of one folder or file), by
 * chat. A listener that throws is isolated: the write stands and the other
 * listeners still hear it.
 *
 * @example
 * const listeners = new ChangeListeners();
 * const stop = listeners.watch("chat-1", (length) => console.log(length));
 * listeners.notify("chat-1", 3); // logs 3
 * stop();
 */
export class ChangeListeners {
  readonly #byChat = new Map<string, Set<ChangeListener>>();

  /** Adds `onChange` for chat `chatId`; returns the function that removes it (idempotent). */
  watch(chatId: string, onChange: ChangeListener): () => void {
    checkChatId(chatId);
    if (typeof onChange !== "function") throw new TypeError("oda-tasks: watch(chatId, onChange): onChange must be a function");
    // A wrapper per call, so the same function watching twice is stopped once per stop.
    const entry: ChangeListener = (length) => onChange(length);
    keyed(this.#byChat, chatId, () => new Set<ChangeListener>()).add(entry);
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      const now = this.#byChat.get(chatId);
      if (now === undefined) return;
      now.delete(entry);
      if (now.size === 0) this.#byChat.delete(chatId);
    };
  }

  /** The chats watched now. */
  chats(): string[] {
    return [...this.#byChat.keys()];
  }

  /** Whether anything watches chat `chatId`. */
  has(chatId: string): boolean {
    return this.#byChat.has(chatId);
  }

  /** Tells chat `chatId`'s listeners its new `length`; a listener's exception stays with it. */
  notify(chatId: string, length: number): void {
    const set = this.#byChat.get(chatId);
    if (set === undefined) return;
    for (const listener of [...set]) {
      try {
        listener(length);
      } catch {
        // The listener's own failure: the write has committed, the rest still hear it.
      }
    }
  }
}
