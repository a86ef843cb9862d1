// The in-memory store: for tests, previews and single-process servers that
// keep nothing across restarts.
import type { LogEntry } from "../core/functions.js";
import { ConflictError, checkChatId, checkFrom, copyEntries, jsonCopy, missingChat, textsOf, truncated, type Store } from "./store.js";
import { ChangeListeners } from "./watchers.js";

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
  readonly #chats = new Map<string, LogEntry[]>();
  readonly #listeners = new ChangeListeners();

  /**
   * The change feed: `onChange(length)` after each write to chat `chatId`
   * commits (at once, in this process). Returns the function that stops it.
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
    const log = this.#chats.get(chatId);
    return log === undefined ? null : jsonCopy(log);
  }

  async readFrom(chatId: string, from: number): Promise<LogEntry[] | null> {
    checkChatId(chatId);
    checkFrom(from);
    const log = this.#chats.get(chatId);
    if (log === undefined) return null;
    if (log.length < from) throw truncated(chatId, from, log.length);
    return jsonCopy(log.slice(from));
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

  async append(chatId: string, entries: readonly LogEntry[], expectedLength?: number): Promise<number> {
    checkChatId(chatId);
    // Copy first: an entry that is not JSON data fails here, before anything is written.
    const copies = copyEntries(entries);
    const log = this.#chats.get(chatId);
    if (log === undefined) throw missingChat(chatId);
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
    this.#chats.set(chatId, copies);
    this.#listeners.notify(chatId, copies.length);
    return true;
  }
}
