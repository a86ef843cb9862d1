// The storage contract every host store keeps (memory, JSONL files,
// IndexedDB, and later PostgreSQL). The core decides what to write; a store
// only has to make three operations atomic.
import type { LogEntry } from "../core/types.js";
import { entryFromText, entryTexts, faithfulJson, parseJson, stringifyJson } from "../core/entry-text.js";

/**
 * Where chats' logs live. Entries are JSON data: a store keeps a copy, so
 * later changes to the caller's objects never reach the stored log.
 *
 * @example
 * const store: Store = new MemoryStore();
 * await store.create("chat-1", [{ type: "session", chatId: "chat-1" }]); // true
 */
export interface Store {
  /** The chat's entries, oldest first, or `null` when the chat does not exist. */
  read(chatId: string): Promise<LogEntry[] | null>;
  /**
   * Optional: the chat's entries from index `from` on (`[]` when the log is
   * exactly `from` long), or `null` when the chat does not exist. Rejects with
   * a {@link StoreError} `store/truncated` when the log is shorter than
   * `from` (it was cut or replaced: read it whole again). A store without it
   * is read whole and sliced by {@link readFrom}.
   */
  readFrom?(chatId: string, from: number): Promise<LogEntry[] | null>;
  /**
   * Optional: as `readFrom`, the entries' JSON texts exactly as stored (a
   * file's or a database's text; a store of objects serialises what it holds).
   */
  readTextFrom?(chatId: string, from: number): Promise<string[] | null>;
  /**
   * Optional, for warm readers: the texts from `from` on and the store's
   * `mark` of the log read (a file's identity and bytes, a chat's epoch).
   * Given an earlier answer's mark, rejects with a {@link StoreError}
   * `store/replaced` when the log is no longer the one that mark was taken
   * of (read it whole again, with `mark` null).
   */
  readSince?(chatId: string, from: number, mark: string | null): Promise<LogRead | null>;
  /**
   * Appends `entries` atomically (all or none) and resolves to the new length.
   * With `expectedLength`, rejects with a {@link ConflictError} and writes
   * nothing when the log is not that long any more. Rejects with a
   * {@link StoreError} `store/missing-chat` when the chat does not exist.
   */
  append(chatId: string, entries: readonly LogEntry[], expectedLength?: number): Promise<number>;
  /**
   * Creates the chat with `entries` only if it does not exist; resolves to
   * whether this call created it. Never touches an existing chat.
   */
  create(chatId: string, entries: readonly LogEntry[]): Promise<boolean>;
  /**
   * Optional, the change feed: `onChange(length)` hears chat `chatId`'s new
   * log length after a write commits (from this process at once, and from
   * other processes where the engine allows: docs/stores.md says which).
   * Returns the function that stops watching. A listener that throws changes
   * no write. A store without it is polled.
   */
  watch?(chatId: string, onChange: (length: number) => void): () => void;
  /**
   * Optional, a chat's end: removes the chat and every entry of it, and
   * resolves to whether it existed. Its watchers hear `onChange(0)`. An append
   * racing it lands before it (and goes with the chat) or is refused; it never
   * brings back part of the chat. A chat created later under the same id is a
   * new chat: a mark taken of the old one answers `store/replaced`.
   */
  delete?(chatId: string): Promise<boolean>;
  /**
   * Optional: the chats whose ids start with `prefix`, newest first (by when
   * each was created), `limit` (default 50, at most 1000) a page; `cursor` is
   * the page before's `next`, which is `null` after the last page.
   */
  list?(options?: StoreListOptions): Promise<StoredChatPage>;
}

/**
 * What {@link Store.list} takes.
 *
 * @example
 * const memory = new MemoryStore();
 * const page = await memory.list({ prefix: "team-", limit: 20 });
 * const more = page.next === null ? null : await memory.list({ prefix: "team-", limit: 20, cursor: page.next });
 */
export interface StoreListOptions {
  /** Only chats whose ids start with it (default `""`: every chat). */
  prefix?: string;
  /** Chats in a page, 1 to 1000 (default 50). */
  limit?: number;
  /** The `next` of the page before; `null` or absent: the first page. */
  cursor?: string | null;
}

/**
 * One chat of a {@link StoredChatPage}: its id and its first entry (the
 * `session` entry `createChat` writes), `null` for a chat of no entries.
 *
 * @example
 * const { chats } = await new MemoryStore().list();
 * for (const { chatId, first } of chats) console.log(chatId, first?.type); // "chat-1" "session"
 */
export interface StoredChat {
  chatId: string;
  first: LogEntry | null;
}

/**
 * A page of {@link Store.list}: the chats, newest first, and the cursor of
 * the next page (`null` after the last).
 *
 * @example
 * const memory = new MemoryStore();
 * let page: StoredChatPage = await memory.list({ limit: 100 });
 * while (page.next !== null) page = await memory.list({ limit: 100, cursor: page.next });
 */
export interface StoredChatPage {
  chats: StoredChat[];
  next: string | null;
}

/**
 * What {@link Store.readSince} answers: the texts read and where the reader now stands.
 *
 * @example
 * const read: LogRead | null = await new JsonlStore("./chats").readSince("chat-1", 0, null);
 * if (read) state.ingestTexts(0, read.texts); // read.mark: where the next readSince goes on
 */
export interface LogRead {
  texts: string[];
  mark: string;
}

/**
 * The length a conditional append expects, as a query compares it: one that is
 * not a whole number never matches (-1, so a conflict, as in every store);
 * `null` for an append with no condition.
 *
 * @example
 * expectedForQuery(2); // 2
 * expectedForQuery(2.5); // -1
 * expectedForQuery(undefined); // null
 */
export function expectedForQuery(expectedLength: number | undefined): number | null {
  if (expectedLength === undefined) return null;
  return Number.isSafeInteger(expectedLength) && expectedLength >= 0 ? expectedLength : -1;
}

/**
 * Why a store operation was refused: the `code` of a {@link StoreError}.
 *
 * @example
 * if (e instanceof StoreError && e.code === "store/missing-chat") await store.create(chatId, [session]);
 */
export type StoreErrorCode =
  | "store/conflict"
  | "store/missing-chat"
  | "store/bad-chat-id"
  | "store/truncated"
  /** The log is not the one a warm reader's mark was taken of (renamed over, rewritten, recreated): read it whole again. */
  | "store/replaced"
  /** A line the store holds could not be read this time (an app-wrapped JSON.parse threw): nothing is counted; read again. */
  | "store/read-failed"
  /** A file store's lock shows no sign of life for the store's lock wait: the message names what to remove. */
  | "store/locked"
  /** Something other than a regular file sits at a chat's path (a directory, a FIFO, a dangling symlink). */
  | "store/not-a-file"
  /** The chat's file or directory may be read but not written by this process. */
  | "store/read-only"
  /** The chat's file or directory may not even be read by this process (EACCES, EPERM): the message names which. */
  | "store/no-access"
  /** A database store could not reach its server in time, or a file store's directory is gone; nothing was written. */
  | "store/unavailable"
  /** The connection was lost while a write committed: it may or may not be recorded (read to see). */
  | "store/outcome-unknown"
  /** A database store's tables are missing: run its migrate(). */
  | "store/not-migrated"
  /** The database refused the operation for another reason (the message quotes it). */
  | "store/database"
  /** The stored log contradicts itself (rows missing under its length): nothing is returned. */
  | "store/corrupt"
  /** The database could not be opened in time: another tab holds it open through a deletion or an upgrade. */
  | "store/blocked"
  /** A database of the store's name is not the store's (another app's, or a newer version's): the message says what was found. */
  | "store/incompatible"
  /** Other writers appended to the chat first on every one of a write's attempts: nothing was written; try again. */
  | "store/contended"
  /** A `list` cursor the store did not make (or made for another prefix). */
  | "store/bad-cursor";

/**
 * A store operation refused; `code` says why.
 *
 * @example
 * try { await store.append("chat-9", entries); }
 * catch (e) { if (!(e instanceof StoreError) || e.code !== "store/missing-chat") throw e; }
 */
export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    readonly chatId: string,
  ) {
    super(message);
    this.name = "StoreError";
  }
}

/**
 * An `append` whose `expectedLength` no longer holds: read again and retry.
 *
 * @example
 * let log = (await store.read("chat-1")) ?? [];
 * try { await store.append("chat-1", [entry], log.length); }
 * catch (e) { if (e instanceof ConflictError) log = (await store.read("chat-1")) ?? []; else throw e; }
 */
export class ConflictError extends StoreError {
  constructor(
    chatId: string,
    readonly expectedLength: number,
    readonly actualLength: number,
  ) {
    super("store/conflict", `chat "${chatId}" has ${actualLength} entries, not the expected ${expectedLength}`, chatId);
    this.name = "ConflictError";
  }
}

/**
 * Longest chat id a store accepts (ids become file names and keys).
 *
 * @example
 * const chatId = `chat-${crypto.randomUUID()}`; // 41 characters, within MAX_CHAT_ID_LENGTH
 */
export const MAX_CHAT_ID_LENGTH = 200;

/**
 * Refuses a chat id that could escape a store's directory or key space:
 * empty, too long, `.` or `..`, holding `/`, `\`, NUL or another control
 * character, or not well-formed Unicode (a lone surrogate, which file names
 * and UTF-8 keys would turn into U+FFFD and so into another chat's id).
 * Every store calls this, so an id that works in memory also works on disk.
 *
 * @example
 * checkChatId("chat-1"); // passes
 * checkChatId("chat\uD800"); // throws StoreError store/bad-chat-id
 */
export function checkChatId(chatId: unknown): asserts chatId is string {
  const bad = (why: string): never => {
    throw new StoreError("store/bad-chat-id", `invalid chat id ${JSON.stringify(String(chatId))}: ${why}`, String(chatId));
  };
  if (typeof chatId !== "string") bad("it must be a string");
  const id = chatId as string;
  if (id.length === 0) bad("it is empty");
  if (id.length > MAX_CHAT_ID_LENGTH) bad(`it is longer than ${MAX_CHAT_ID_LENGTH} characters`);
  if (id === "." || id === "..") bad("it names a directory");
  if (/[/\\\u0000-\u001f\u007f]/.test(id)) bad("it holds a path separator or a control character");
  // With the `u` flag a surrogate range matches only a surrogate without its pair.
  if (/[\uD800-\uDFFF]/u.test(id)) bad("it is not well-formed Unicode (a lone surrogate)");
}

/**
 * A deep copy as JSON data: what every store keeps and hands out.
 *
 * @example
 * const kept = jsonCopy(entries); // later changes to `entries` do not reach `kept`
 */
export function jsonCopy<T>(value: T): T {
  return parseJson(stringifyJson(value)) as T;
}

/**
 * The entries of chat `chatId` from index `from` on, through the store's own
 * `readFrom` when it has one (a file store seeks, a database reads a key
 * range), else by reading the whole log and slicing it.
 *
 * @example
 * const fresh = await readFrom(store, "chat-1", state.length); // only what is new
 */
export async function readFrom(store: Store, chatId: string, from: number): Promise<LogEntry[] | null> {
  checkFrom(from);
  if (typeof store.readFrom === "function") return store.readFrom(chatId, from);
  const log = await store.read(chatId);
  if (log === null) return null;
  if (log.length < from) throw truncated(chatId, from, log.length);
  return log.slice(from);
}

/**
 * Internal, shared by the stores: refuses a `from` that is not a whole number >= 0.
 *
 * @internal
 */
export function checkFrom(from: unknown): asserts from is number {
  if (typeof from !== "number" || !Number.isSafeInteger(from) || from < 0) {
    throw new TypeError(`oda-tasks: readFrom needs a whole number >= 0 (got ${String(from)})`);
  }
}

/**
 * Internal, shared by the stores: the `store/truncated` refusal of a read from past the end.
 *
 * @internal
 */
export function truncated(chatId: string, from: number, length: number): StoreError {
  return new StoreError("store/truncated", `chat "${chatId}" has ${length} entries, fewer than the ${from} already read`, chatId);
}

/**
 * Internal, shared by the stores: the `store/replaced` refusal of a mark that no longer holds.
 *
 * @internal
 */
export function replaced(chatId: string): StoreError {
  return new StoreError(
    "store/replaced",
    `chat "${chatId}" is not the log that was read before (it was replaced or rewritten): read it whole again`,
    chatId,
  );
}

/**
 * Internal, shared by the stores: refuses a mark that is neither a string nor null.
 *
 * @internal
 */
export function checkMark(mark: unknown): asserts mark is string | null {
  if (mark !== null && typeof mark !== "string") throw new TypeError("oda-tasks: readSince needs a mark string or null");
}

/**
 * Internal, shared by the stores that mark a chat by an epoch (IndexedDB,
 * PostgreSQL): the answer of `readSince` for what was read now, or
 * `store/replaced` when `mark` was taken of another epoch (or of a chat that is gone).
 *
 * @internal
 */
export function epochRead(chatId: string, mark: string | null, now: { texts: string[]; mark: string } | null): LogRead | null {
  if (now === null) {
    if (mark !== null) throw replaced(chatId); // it existed when the mark was taken
    return null;
  }
  if (mark !== null && mark !== now.mark) throw replaced(chatId);
  return now;
}

/**
 * Whether a store refused an append because its `expectedLength` no longer
 * holds. Also recognises a `store/conflict` error from a second copy of this
 * package (a store shipped by another bundle), where `instanceof` fails.
 *
 * @example
 * try { await store.append(id, [entry], log.length); } catch (e) { if (!isConflict(e)) throw e; }
 */
export function isConflict(error: unknown): boolean {
  return error instanceof ConflictError || (error instanceof Error && (error as { code?: unknown }).code === "store/conflict");
}

/**
 * Internal, shared by the stores: the `store/missing-chat` refusal.
 *
 * @example
 * if (log === undefined) throw missingChat(chatId);
 */
export function missingChat(chatId: string): StoreError {
  return new StoreError("store/missing-chat", `chat "${chatId}" does not exist`, chatId);
}

/**
 * Internal, shared by the stores: the entries as fresh JSON objects, read
 * back from their stored texts ({@link entryTexts}: an object with a string
 * `type`, on one line; in a JSONL file only an object line can never be
 * mistaken for a cut-off longer one, `12` being a prefix of `123`).
 *
 * @example
 * const copies = copyEntries(entries); // throws before anything is written
 */
export function copyEntries(entries: readonly LogEntry[]): LogEntry[] {
  return entryTexts(entries).map((text) => entryFromText(text) as LogEntry);
}

/**
 * Internal, shared by the stores that hold objects (memory, IndexedDB): their
 * `readTextFrom`, the texts of what `readFrom` answers.
 *
 * @example
 * const texts = await textsOf(new MemoryStore().readFrom("chat-1", 0)); // null: no chat-1 yet
 */
export async function textsOf(entries: Promise<LogEntry[] | null>): Promise<string[] | null> {
  const read = await entries;
  return read === null ? null : read.map((entry) => faithfulJson(entry) ?? "null");
}
