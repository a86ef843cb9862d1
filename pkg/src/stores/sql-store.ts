// What the SQL stores (PostgresStore, SqliteStore) share: the checks of ids,
// offsets and marks, and the read, append and create steps around an
// engine's SQL. The SQL, the driver and the retries stay in each engine's folder.
import type { LogEntry } from "../core/types.js";
import { entryFromText, entryTexts } from "../core/entry-text.js";
import { entriesMissing } from "./database-failures.js";
import {
  ConflictError,
  checkChatId,
  checkFrom,
  checkMark,
  epochRead,
  expectedForQuery,
  missingChat,
  truncated,
  type LogRead,
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
 * The public methods both SQL stores have, written once over the engine's
 * steps below (each one query or transaction in the engine's SQL).
 *
 * @internal
 * @example
 * const sqlStore: SqlStore = new SqliteStore(db); // PostgresStore and SqliteStore are SqlStores
 */
export abstract class SqlStore {
  /** The mark's prefix: the engine and its epoch's version ("p1", "s1"). */
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
  protected abstract appendTexts(chatId: string, texts: string[], expected: number | null, expectedLength?: number): Promise<number>;

  /** @internal Makes the chat with `texts` unless it exists; whether this call made it. */
  protected abstract createTexts(chatId: string, texts: string[]): Promise<boolean>;

  /** @internal Tells this process's watchers the chat's new length after a write. */
  protected abstract told(chatId: string, length: number): void;

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
    const length = await this.appendTexts(chatId, texts, expected, expectedLength);
    this.told(chatId, length);
    return length;
  }

  async create(chatId: string, entries: readonly LogEntry[]): Promise<boolean> {
    checkChatId(chatId);
    const texts = entryTexts(entries);
    const created = await this.createTexts(chatId, texts);
    if (created) this.told(chatId, texts.length);
    return created;
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
