// What the SQL stores (PostgresStore, SqliteStore) share: the checks of ids,
// offsets, marks, list options and cursors, the read, append, create, delete
// and list steps around an engine's SQL, and what a change feed tells when a
// chat was deleted or made again. The SQL, the driver and the retries stay in
// each engine's folder.
import type { LogEntry } from "../core/types.js";
import { entryFromText, entryTexts } from "../core/entry-text.js";
import { entriesMissing } from "./database-failures.js";
import { cursorPosition, listOptions, makeCursor } from "./list.js";
import {
  ConflictError,
  checkChatId,
  checkFrom,
  checkMark,
  epochRead,
  expectedForQuery,
  MAX_CHAT_ID_LENGTH,
  missingChat,
  truncated,
  type LogRead,
  type StoreListOptions,
  type StoredChatPage,
} from "./store.js";

/**
 * One row of a read: the chat's `length` and `epoch`, joined to one entry
 * (`seq`, `entry` as its JSON text) or, for a chat with none from `from` on, to none.
 *
 * @internal
 */
export type ReadRow = Record<string, unknown>;

/**
 * The length an append without entries (or a write that matched no row)
 * finds: `store/missing-chat` when there is no chat, a conflict when it is
 * not the expected one.
 *
 * @internal
 * @example
 * checkedLength("chat-1", 2, 2, 2); // 2 (a chat of 2 entries, as expected)
 */
export function checkedLength(chatId: string, length: number | null, expected: number | null, expectedLength?: number): number {
  if (length === null) throw missingChat(chatId);
  if (expected !== null && length !== expected) throw new ConflictError(chatId, expectedLength as number, length);
  return length;
}

/**
 * One row of a listing: the chat's id (`chat_id`), its place in the order of
 * creation (`created`: unique, larger for a chat made later) and its first
 * entry's JSON text (`first`, null for a chat with none).
 *
 * @internal
 */
export type ListRow = Record<string, unknown>;

/**
 * What a write left of a chat: its new length and, where the engine knows
 * it, the epoch of the chat's incarnation (for the change feed).
 *
 * @internal
 */
export interface Written {
  length: number;
  epoch?: string;
}

/**
 * The chat ids that start with a prefix, as one range of an index on
 * `chat_id`: every id `>= from` and, unless `below` is null, `< below`. Ids
 * compare byte for byte in UTF-8 (PostgreSQL's COLLATE "C", SQLite's
 * BINARY), which is the order of their code points.
 *
 * @internal
 * @example
 * const range: IdRange = { from: "team-", below: "team." };
 */
export interface IdRange {
  from: string;
  below: string | null;
}

/** The code point after `c` that a string can hold (no surrogates), or null after U+10FFFF. */
function nextCodePoint(c: number): number | null {
  if (c === 0xd7ff) return 0xe000;
  return c >= 0x10ffff ? null : c + 1;
}

/** The least string above every string that starts with `s` (well-formed); null when there is none ("", or only U+10FFFF). */
function above(s: string): string | null {
  const points = [...s];
  while (points.length > 0) {
    const next = nextCodePoint((points.pop() as string).codePointAt(0) as number);
    if (next !== null) return points.join("") + String.fromCodePoint(next);
  }
  return null;
}

/**
 * The range of the chat ids that start with `prefix` (code unit for code
 * unit), or null when no chat id can: a prefix longer than an id, or holding
 * what no id holds (a control character, `/`, `\`, a surrogate without its
 * pair before the end). A prefix that ends in a high surrogate takes the ids
 * whose next character is one of the pairs it begins.
 *
 * @internal
 * @example
 * idRange("team-"); // { from: "team-", below: "team." }
 * idRange(""); // { from: "", below: null }: every id
 */
export function idRange(prefix: string): IdRange | null {
  if (prefix.length > MAX_CHAT_ID_LENGTH || /[/\\\u0000-\u001f\u007f]/.test(prefix)) return null;
  const last = prefix.charCodeAt(prefix.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) {
    const head = prefix.slice(0, -1);
    if (/[\uD800-\uDFFF]/u.test(head)) return null;
    const first = 0x10000 + (last - 0xd800) * 0x400;
    const end = first + 0x400;
    return { from: head + String.fromCodePoint(first), below: end > 0x10ffff ? above(head) : head + String.fromCodePoint(end) };
  }
  // With the `u` flag a surrogate range matches only a surrogate without its pair.
  if (/[\uD800-\uDFFF]/u.test(prefix)) return null;
  return { from: prefix, below: above(prefix) };
}

/**
 * What a change feed last told of a watched chat: the length, and which
 * incarnation of the chat it was (`epoch`; null once it was deleted,
 * undefined while not known).
 *
 * @internal
 * @example
 * const told: Told = { length: 3, epoch: "s1-epoch" };
 */
export interface Told {
  length: number;
  epoch: string | null | undefined;
}

/**
 * What a feed tells when it finds a chat as `now` (null: not there) after it
 * told `last`: the lengths to tell, in order, and what it has told then. A
 * chat that is gone is told 0, once (`existed`: the feed's own deletion, which
 * is told even when nothing was told of the chat before); a chat found under
 * another epoch was deleted and made again between two looks: 0, then its
 * length; a chat found again after a deletion, its length; else its length
 * when it moved. So only what was read back, never a message, is told.
 *
 * @internal
 * @example
 * nextTold({ length: 3, epoch: "a" }, { length: 1, epoch: "b" }).tell; // [0, 1]
 */
export function nextTold(last: Told | undefined, now: Told | null, existed = false): { tell: number[]; told: Told | undefined } {
  if (now === null) {
    if (last?.epoch === null || (last === undefined && !existed)) return { tell: [], told: last };
    return { tell: [0], told: { length: 0, epoch: null } };
  }
  if (last === undefined || last.epoch === null) return { tell: [now.length], told: now };
  if (now.epoch !== undefined && now.epoch !== null && last.epoch !== undefined && now.epoch !== last.epoch) {
    return { tell: [0, now.length], told: now };
  }
  return { tell: now.length === last.length ? [] : [now.length], told: { length: now.length, epoch: now.epoch ?? last.epoch } };
}

/**
 * The public methods both SQL stores have, written once over the engine's
 * steps below (each one query or transaction in the engine's SQL).
 *
 * @internal
 * @example
 * const sqlStore: SqlStore = new SqliteStore(db); // PostgresStore and SqliteStore are SqlStores
 */
export abstract class SqlStore {
  /** The mark's prefix: the engine and its epoch's version ("p1", "s1"); a listing's cursors carry it too. */
  readonly #markPrefix: string;

  /** @internal */
  protected constructor(markPrefix: string) {
    this.#markPrefix = markPrefix;
  }

  /** @internal The rows of one read of chat `chatId` from `from` on (see {@link ReadRow}); none when there is no chat. */
  protected abstract readRows(chatId: string, from: number): Promise<readonly ReadRow[]>;

  /** @internal The chat's length, or null when there is no chat. */
  protected abstract lengthNow(chatId: string): Promise<number | null>;

  /** @internal Writes `texts` (one or more) after the chat's entries in one transaction; the new length, or missing-chat/conflict. */
  protected abstract appendTexts(chatId: string, texts: string[], expected: number | null, expectedLength?: number): Promise<Written>;

  /** @internal Makes the chat with `texts` unless it exists; what it made, or null when the chat existed. */
  protected abstract createTexts(chatId: string, texts: string[]): Promise<Written | null>;

  /** @internal Removes the chat's entries and its row in one transaction; whether there was a chat. */
  protected abstract deleteRows(chatId: string): Promise<boolean>;

  /** @internal Up to `count` chats of `range`, made before the place `before` (null: from the newest), newest first (see {@link ListRow}). */
  protected abstract listRows(range: IdRange, before: string | null, count: number): Promise<readonly ListRow[]>;

  /** @internal Tells this process's watchers the chat's new length after a write (`epoch`: its incarnation when known; null: it was deleted). */
  protected abstract told(chatId: string, length: number, epoch: string | null | undefined): void;

  read(chatId: string): Promise<LogEntry[] | null> {
    return this.readFrom(chatId, 0);
  }

  async readFrom(chatId: string, from: number): Promise<LogEntry[] | null> {
    const texts = await this.readTextFrom(chatId, from);
    return texts === null ? null : texts.map((text) => entryFromText(text) as LogEntry);
  }

  /**
   * As `readFrom`, the entries' JSON texts exactly as stored (the column
   * keeps its text: numbers, key order, repeated keys).
   *
   * @example
   * const texts = await new SqliteStore(db).readTextFrom("chat-1", 0);
   */
  async readTextFrom(chatId: string, from: number): Promise<string[] | null> {
    checkChatId(chatId);
    checkFrom(from);
    const read = await this.#read(chatId, from);
    return read === null ? null : read.texts;
  }

  /**
   * For warm readers: the texts from `from` on and the chat's mark (its
   * epoch); `store/replaced` when the chat was deleted and made again since
   * `mark` was taken.
   *
   * @example
   * const { texts, mark } = (await new SqliteStore(db).readSince("chat-1", 0, null)) ?? { texts: [], mark: null };
   */
  async readSince(chatId: string, from: number, mark: string | null): Promise<LogRead | null> {
    checkChatId(chatId);
    checkFrom(from);
    checkMark(mark);
    const read = await this.#read(chatId, from);
    return epochRead(chatId, mark, read && { texts: read.texts, mark: `${this.#markPrefix}:${read.epoch}` });
  }

  async append(chatId: string, entries: readonly LogEntry[], expectedLength?: number): Promise<number> {
    checkChatId(chatId);
    const texts = entryTexts(entries);
    const expected = expectedForQuery(expectedLength);
    if (texts.length === 0) return checkedLength(chatId, await this.lengthNow(chatId), expected, expectedLength);
    const { length, epoch } = await this.appendTexts(chatId, texts, expected, expectedLength);
    this.told(chatId, length, epoch);
    return length;
  }

  async create(chatId: string, entries: readonly LogEntry[]): Promise<boolean> {
    checkChatId(chatId);
    const texts = entryTexts(entries);
    const made = await this.createTexts(chatId, texts);
    if (made === null) return false;
    this.told(chatId, made.length, made.epoch);
    return true;
  }

  /**
   * Removes the chat: its entries and its row, in one transaction. Resolves
   * to whether it existed; its watchers hear 0. An append racing it either
   * committed first (and went with the chat) or finds no chat
   * (`store/missing-chat`); a chat made later under the id is a new one
   * (another epoch: a warm reader's mark answers `store/replaced`).
   *
   * @example
   * const deleted = await new SqliteStore(db).delete("chat-1"); // true, or false when there was no chat-1
   */
  async delete(chatId: string): Promise<boolean> {
    checkChatId(chatId);
    const existed = await this.deleteRows(chatId);
    if (existed) this.told(chatId, 0, null);
    return existed;
  }

  /**
   * The chats whose ids start with `prefix`, newest first by when each was
   * made, `limit` (1 to 1000, default 50) a page, each with its first entry
   * (`null` for a chat of none). `next` is the cursor of the next page, or
   * `null` after the last; a cursor this store did not make for this prefix
   * is `store/bad-cursor`. A page reads the index on the order of creation
   * from the cursor on (no prefix) or the prefix's range of ids, and its own
   * chats' first entries: never a log.
   *
   * @example
   * const page = await new SqliteStore(db).list({ prefix: "team-", limit: 20 });
   * const more = page.next === null ? [] : (await new SqliteStore(db).list({ prefix: "team-", limit: 20, cursor: page.next })).chats;
   */
  async list(options?: StoreListOptions): Promise<StoredChatPage> {
    const { prefix, limit, cursor } = listOptions(options);
    const before = cursor === null ? null : String(cursorPosition(this.#markPrefix, prefix, cursor, ["count"])[0]);
    const range = idRange(prefix);
    if (range === null) return { chats: [], next: null };
    // One more than the page: whether there is a next page, without a count.
    const rows = await this.listRows(range, before, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      chats: page.map((row) => ({
        chatId: String(row.chat_id),
        first: row.first === null || row.first === undefined ? null : (entryFromText(String(row.first)) as LogEntry),
      })),
      next: rows.length > limit && last !== undefined ? makeCursor(this.#markPrefix, prefix, [Number(last.created)]) : null,
    };
  }

  /** The texts from `from` on, all there and in order, and the chat's epoch; null when there is no chat. */
  async #read(chatId: string, from: number): Promise<{ texts: string[]; epoch: string } | null> {
    const rows = await this.readRows(chatId, from);
    const first = rows[0];
    if (first === undefined) return null;
    const length = Number(first.length);
    if (length < from) throw truncated(chatId, from, length);
    const texts: string[] = [];
    for (const row of rows) {
      if (row.seq === null || row.seq === undefined) continue; // the chat's row, joined to no entry
      if (Number(row.seq) !== from + texts.length || typeof row.entry !== "string") break;
      texts.push(row.entry);
    }
    if (texts.length !== length - from) throw entriesMissing(chatId, from, length);
    return { texts, epoch: first.epoch === null || first.epoch === undefined ? "" : String(first.epoch) };
  }
}
