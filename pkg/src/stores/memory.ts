// The in-memory store: for tests, previews and single-process servers that
// keep nothing across restarts.
import type { LogEntry } from "../core/functions.js";
import { faithfulJson } from "../core/entry-text.js";
import {
  ConflictError,
  checkChatId,
  checkFrom,
  checkMark,
  copyEntries,
  jsonCopy,
  missingChat,
  replaced,
  textsOf,
  truncated,
  type LogRead,
  type Store,
  type StoreListOptions,
  type StoredChatPage,
} from "./store.js";
import { cursorPosition, listOptions, makeCursor } from "./list.js";
import { ChangeListeners } from "./watchers.js";
import { STORE_KIND } from "../telemetry/store-ops.js";

/** One chat: its entries, and its place in the order of creation (also its epoch: a chat made again has another). */
interface Chat {
  log: LogEntry[];
  created: number;
}

/**
 * A {@link Store} held in a `Map`. Each operation runs synchronously from its
 * check to its write (nothing is awaited in between), so operations on one
 * store never interleave; entries go in and come out as JSON copies, just as
 * they would through a file or a database.
 *
 * @example
 * import { MemoryStore } from "oda-tasks";
 * const store = new MemoryStore();
 * await store.create("chat-1", [{ type: "session", workspace: null }]);
 * await store.append("chat-1", [{ type: "turn_started" }], 1); // resolves to 2
 * const log = await store.read("chat-1");
 */
export class MemoryStore implements Store {
  /** Internal: the kind its operations' spans and metrics name. */
  get [STORE_KIND](): string {
    return "memory";
  }

  readonly #chats = new Map<string, Chat>();
  readonly #listeners = new ChangeListeners();
  /** The creation counter: the last chat created has the highest number. */
  #created = 0;

  /**
   * The change feed: `onChange(length)` after each write to chat `chatId`
   * commits (at once, in this process), and `onChange(0)` after its
   * deletion. Returns the function that stops it.
   *
   * @example
   * const memory = new MemoryStore();
   * await memory.create("chat-1", [{ type: "session", workspace: null }]);
   * const stop = memory.watch("chat-1", (length) => console.log("now", length));
   * await memory.append("chat-1", [{ type: "turn_started" }]); // logs "now 2"
   * stop();
   */
  watch(chatId: string, onChange: (length: number) => void): () => void {
    return this.#listeners.watch(chatId, onChange);
  }

  async read(chatId: string): Promise<LogEntry[] | null> {
    checkChatId(chatId);
    const chat = this.#chats.get(chatId);
    return chat === undefined ? null : jsonCopy(chat.log);
  }

  async readFrom(chatId: string, from: number): Promise<LogEntry[] | null> {
    checkChatId(chatId);
    checkFrom(from);
    const chat = this.#chats.get(chatId);
    if (chat === undefined) return null;
    if (chat.log.length < from) throw truncated(chatId, from, chat.log.length);
    return jsonCopy(chat.log.slice(from));
  }

  /**
   * As `readFrom`, the entries as JSON texts (serialised from the copies held).
   *
   * @example
   * const store = new MemoryStore();
   * await store.create("chat-1", [{ type: "session", workspace: null }]);
   * await store.readTextFrom("chat-1", 0); // ['{"type":"session","workspace":null}']
   */
  async readTextFrom(chatId: string, from: number): Promise<string[] | null> {
    return textsOf(this.readFrom(chatId, from));
  }

  /**
   * For warm readers: the texts from `from` on and the chat's mark
   * (`m1:<n>`, the chat's place in the order of creation, so a chat deleted
   * and created again has another); rejects `store/replaced` when `mark` was
   * taken of a chat that is gone or was made again since.
   *
   * @example
   * const store = new MemoryStore();
   * await store.create("chat-1", [{ type: "session", workspace: null }]);
   * const first = await store.readSince("chat-1", 0, null); // { texts: [...], mark: "m1:1" }
   */
  async readSince(chatId: string, from: number, mark: string | null): Promise<LogRead | null> {
    checkChatId(chatId);
    checkFrom(from);
    checkMark(mark);
    const chat = this.#chats.get(chatId);
    const now = chat === undefined ? null : `m1:${chat.created}`;
    // The mark first: a chat made again (or gone) is not the log it was taken of, whatever its length.
    if (mark !== null && mark !== now) throw replaced(chatId);
    if (chat === undefined) return null;
    if (chat.log.length < from) throw truncated(chatId, from, chat.log.length);
    return { texts: chat.log.slice(from).map((entry) => faithfulJson(entry) ?? "null"), mark: now as string };
  }

  async append(chatId: string, entries: readonly LogEntry[], expectedLength?: number): Promise<number> {
    checkChatId(chatId);
    // Copy first: an entry that is not JSON data fails here, before anything is written.
    const copies = copyEntries(entries);
    const chat = this.#chats.get(chatId);
    if (chat === undefined) throw missingChat(chatId);
    const { log } = chat;
    if (expectedLength !== undefined && expectedLength !== log.length) {
      throw new ConflictError(chatId, expectedLength, log.length);
    }
    log.push(...copies);
    const length = log.length;
    this.#listeners.notify(chatId, length);
    return length;
  }

  async create(chatId: string, entries: readonly LogEntry[]): Promise<boolean> {
    checkChatId(chatId);
    const copies = copyEntries(entries);
    if (this.#chats.has(chatId)) return false;
    this.#chats.set(chatId, { log: copies, created: ++this.#created });
    this.#listeners.notify(chatId, copies.length);
    return true;
  }

  /**
   * Removes the chat and every entry of it; resolves to whether it existed.
   * Its watchers hear `onChange(0)`; a chat created later under the id is a new one.
   *
   * @example
   * const store = new MemoryStore();
   * await store.create("chat-1", [{ type: "session", workspace: null }]);
   * await store.delete("chat-1"); // true
   * await store.read("chat-1"); // null
   */
  async delete(chatId: string): Promise<boolean> {
    checkChatId(chatId);
    if (!this.#chats.delete(chatId)) return false;
    this.#listeners.notify(chatId, 0);
    return true;
  }

  /**
   * The chats whose ids start with `prefix`, newest first by creation (a
   * counter), `limit` a page; `next` is the cursor of the next page, `null`
   * after the last. A page sorts the chats of the prefix, so costs their number.
   *
   * @example
   * const store = new MemoryStore();
   * await store.create("chat-1", [{ type: "session", workspace: null }]);
   * await store.list({ prefix: "chat-" }); // { chats: [{ chatId: "chat-1", first: { type: "session", workspace: null } }], next: null }
   */
  async list(options?: StoreListOptions): Promise<StoredChatPage> {
    const { prefix, limit, cursor } = listOptions(options);
    const before = cursor === null ? Infinity : (cursorPosition("m1", prefix, cursor, ["count"])[0] as number);
    const matching: [string, Chat][] = [];
    for (const [chatId, chat] of this.#chats) {
      if (chat.created < before && chatId.startsWith(prefix)) matching.push([chatId, chat]);
    }
    matching.sort((a, b) => b[1].created - a[1].created);
    const page = matching.slice(0, limit);
    const last = page[page.length - 1];
    return {
      chats: page.map(([chatId, chat]) => ({ chatId, first: chat.log.length === 0 ? null : jsonCopy(chat.log[0] as LogEntry) })),
      next: matching.length > limit && last !== undefined ? makeCursor("m1", prefix, [last[1].created]) : null,
    };
  }
}
