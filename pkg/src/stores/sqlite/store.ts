// The SQLite store: one store over node:sqlite, better-sqlite3, bun:sqlite,
// Cloudflare D1 and a Durable Object's SQL storage, all given by the app.
// Exported as `oda-tasks/sqlite`; no driver is a dependency of the package.
import { oneOf, readOptions, wholeNumber } from "../../core/options.js";
import { withRetries } from "../database-failures.js";
import { SqlStore, type IdRange, type ListRow, type ReadRow, type Written } from "../sql-store.js";
import { ConflictError, missingChat, checkChatId, type Store } from "../store.js";
import { driverFor, type SqlDriver, type SqliteDatabase } from "./drivers.js";
import { isConnectionLost, isRefusedBeforeRunning, outcomeUnknown, storeRefusal } from "./errors.js";
import {
  CREATE_MIGRATIONS,
  MIGRATED,
  MIGRATIONS_SQL,
  appendStatements,
  createStatements,
  deleteStatements,
  lengthOf,
  listStatement,
  readStatement,
  recordMigration,
  type Statement,
} from "./sql.js";
import { announce, databaseKey, watchDatabase } from "./watch.js";
import { STORE_KIND } from "../../telemetry/store-ops.js";

/**
 * Options of {@link SqliteStore}.
 *
 * @example
 * const store = new SqliteStore(db, { busyTimeout: 2_000 }); // refuse with store/locked after 2 s
 */
export interface SqliteStoreOptions {
  /**
   * How long (ms) an operation on a database file waits for another
   * connection's write lock before it fails with `store/locked`, writing
   * nothing; default 5 000 (SQLite's `busy_timeout`, set on the connection).
   */
  busyTimeout?: number;
  /** Tries per operation when D1 reports it overloaded or a read's connection lost; default 6, 25 ms apart, doubling to 1 s. */
  attempts?: number;
  /**
   * How a database file's `watch` hears other connections: `"fs-watch"` (the
   * default), one `fs.watch` on the file's folder (its WAL or journal
   * changed: `PRAGMA data_version` is asked, and once a second all the
   * same), falling back to the interval where it fails; `"poll"`: the
   * interval only (a file system where `fs.watch` misses other machines' writes).
   */
  watchMode?: "fs-watch" | "poll";
  /**
   * How often (ms) `watch` asks the database for other connections' writes
   * when it polls: a file's `PRAGMA data_version` (default 100), D1's
   * watched lengths (default 1 000). A Durable Object needs no asking.
   */
  watchPollMs?: number;
}

const DEFAULTS = { busyTimeout: 5_000, attempts: 6 };
const WATCH_POLL_MS = { file: 100, d1: 1_000, "durable-object": 1_000 } as const;
const stringify = JSON.stringify; // as at load: an app's wrapper never sees the store's texts

/**
 * A {@link Store} in SQLite. Entries are kept as their exact JSON text; an
 * append's length check and its write are one transaction in the database
 * (a file's write lock from `BEGIN IMMEDIATE`, a D1 batch, a Durable
 * Object's `transactionSync`), so processes sharing one file, or Workers
 * sharing one D1 database, give exactly one winner. Call `await
 * store.migrate()` once at start-up. `readTextFrom` gives the TEXT column's
 * texts as written; `readSince`'s mark is the epoch drawn when the chat was made.
 *
 * @example
 * import { DatabaseSync } from "node:sqlite";
 * import { SqliteStore } from "oda-tasks/sqlite";
 * const store = new SqliteStore(new DatabaseSync("chats.db"));
 * await store.migrate();
 * await store.create("chat-1", [{ type: "session", workspace: null }]);
 * await store.append("chat-1", [{ type: "turn_started" }], 1); // resolves to 2
 */
export class SqliteStore extends SqlStore implements Store {
  /** Internal: the kind its operations' spans and metrics name. */
  get [STORE_KIND](): string {
    return "sqlite";
  }

  readonly #driver: SqlDriver;
  readonly #busyTimeout: number;
  readonly #attempts: number;
  readonly #watchPollMs: number;
  readonly #watchMode: "fs-watch" | "poll";
  readonly #db: object;
  #key: unknown;

  /** `db`: a `node:sqlite` DatabaseSync, a better-sqlite3 or bun:sqlite Database, a D1 binding, or a Durable Object's `ctx.storage` (or `ctx.storage.sql`). */
  constructor(db: SqliteDatabase, options: SqliteStoreOptions = {}) {
    super("s1");
    const {
      busyTimeout = DEFAULTS.busyTimeout,
      attempts = DEFAULTS.attempts,
      watchPollMs,
      watchMode = "fs-watch",
    } = readOptions<SqliteStoreOptions>("SqliteStore", options, {
      busyTimeout: wholeNumber(1),
      attempts: wholeNumber(1),
      watchPollMs: wholeNumber(1),
      watchMode: oneOf("fs-watch", "poll"),
    });
    this.#busyTimeout = busyTimeout;
    this.#attempts = attempts;
    const driver = driverFor(db, this.#busyTimeout);
    if (driver === null) {
      throw new TypeError(
        "oda-tasks: SqliteStore needs a node:sqlite DatabaseSync, a better-sqlite3 or bun:sqlite Database, a D1 binding, or a Durable Object's ctx.storage",
      );
    }
    this.#driver = driver;
    this.#db = db;
    this.#watchPollMs = watchPollMs ?? WATCH_POLL_MS[driver.kind];
    this.#watchMode = watchMode;
  }

  /**
   * The change feed: `onChange(length)` after each write to chat `chatId`.
   * Writes through any SqliteStore of this database in this process (the
   * same connection, another connection to the same file, the same D1
   * binding or Durable Object) are heard at once; other processes' by asking
   * (a file: `PRAGMA data_version` when fs.watch says it changed, or every
   * `watchPollMs`, then the watched lengths in one query only when it moved;
   * D1: the watched lengths every `watchPollMs`).
   * Returns the function that stops it.
   *
   * @example
   * const stop = new SqliteStore(db).watch("chat-1", (length) => console.log("now", length));
   * stop();
   */
  watch(chatId: string, onChange: (length: number) => void): () => void {
    checkChatId(chatId);
    return watchDatabase(this.#databaseKey(), this.#driver, { pollMs: this.#watchPollMs, mode: this.#watchMode }, chatId, onChange);
  }

  /** Which database this is, shared by every SqliteStore over it (asked once). */
  #databaseKey(): unknown {
    this.#key ??= databaseKey(this.#driver, this.#db);
    return this.#key;
  }

  /**
   * Creates or upgrades the tables: applies each schema version not yet
   * recorded in oda_tasks_schema_migrations, with its record, in one
   * transaction (a database file also turns on WAL). Concurrent calls are
   * safe: the second finds the versions recorded. Resolves to the versions this call applied.
   *
   * @example
   * const applied = await new SqliteStore(db).migrate(); // [1, 2] the first time, [] after
   */
  async migrate(): Promise<number[]> {
    await this.#reading("", "migration", () => this.#driver.beforeMigrate());
    await this.#writing("", "migration", [{ sql: CREATE_MIGRATIONS, params: [], rows: false }]);
    const recorded = async (): Promise<Set<number>> =>
      new Set((await this.#reading("", "migration", () => this.#driver.query(MIGRATED))).map((row) => Number(row.version)));
    const done = await recorded();
    const todo = MIGRATIONS_SQL.filter((m) => !done.has(m.version));
    if (todo.length === 0) return [];
    const at = new Date().toISOString();
    const statements: Statement[] = todo.flatMap((m) => [
      ...m.statements.map((sql) => ({ sql, params: [], rows: false })),
      recordMigration(m, at),
    ]);
    try {
      await this.#writing("", "migration", statements);
    } catch (e) {
      // Another migrate() applied them first (its tables were there, or its record was): nothing left to do.
      const now = await recorded();
      if (todo.every((m) => now.has(m.version))) return [];
      throw e;
    }
    return todo.map((m) => m.version);
  }

  /** @internal */
  protected async readRows(chatId: string, from: number): Promise<readonly ReadRow[]> {
    return this.#reading(chatId, "read", () => this.#driver.query(readStatement(chatId, from)));
  }

  /** @internal */
  protected async lengthNow(chatId: string): Promise<number | null> {
    const row = (await this.#reading(chatId, "read", () => this.#driver.query(lengthOf(chatId))))[0];
    return row === undefined ? null : Number(row.length);
  }

  /** @internal */
  protected async appendTexts(chatId: string, texts: string[], expected: number | null, expectedLength?: number): Promise<Written> {
    const results = await this.#writing(chatId, "write", appendStatements(chatId, stringify(texts), texts.length, expected));
    const row = results[2]?.[0];
    if (row === undefined) throw missingChat(chatId);
    const length = Number(row.length);
    if (Number(row.changed) !== 1) throw new ConflictError(chatId, expectedLength as number, length);
    return { length, epoch: String(row.epoch) };
  }

  /** @internal */
  protected async createTexts(chatId: string, texts: string[]): Promise<Written | null> {
    const epoch = globalThis.crypto.randomUUID();
    const results = await this.#writing(chatId, "write", createStatements(chatId, stringify(texts), texts.length, epoch));
    return results[2]?.[0]?.epoch === epoch ? { length: texts.length, epoch } : null;
  }

  /** @internal */
  protected async deleteRows(chatId: string): Promise<boolean> {
    const results = await this.#writing(chatId, "delete", deleteStatements(chatId));
    return Number(results[2]?.[0]?.deleted) === 1;
  }

  /** @internal */
  protected async listRows(range: IdRange, before: string | null, count: number): Promise<readonly ListRow[]> {
    const statement = listStatement(range.from, range.below, before === null ? null : Number(before), count);
    return this.#reading("", "listing", () => this.#driver.query(statement));
  }

  /** @internal */
  protected told(chatId: string, length: number, epoch: string | null | undefined): void {
    announce(() => this.#databaseKey(), chatId, length, epoch);
  }

  /**
   * Runs a read, trying again while D1 reports itself overloaded or the
   * connection lost (a read is safe to repeat); any other failure is refused
   * at once (a file's lock was already waited for, for the busy timeout).
   */
  async #reading<T>(chatId: string, what: string, work: () => T | Promise<T>): Promise<T> {
    return withRetries(
      chatId,
      this.#attempts,
      async () => work(),
      (e) => (isRefusedBeforeRunning(e) || isConnectionLost(e) ? "retry" : storeRefusal(chatId, e, what, this.#busyTimeout)),
    );
  }

  /**
   * Runs `statements` in one transaction. Tried again only when D1 refused
   * it before it ran; a lost answer is `store/outcome-unknown` (the batch
   * may have committed, and repeating it could write twice).
   */
  async #writing(chatId: string, what: string, statements: Statement[]): Promise<Record<string, unknown>[][]> {
    return withRetries(
      chatId,
      this.#attempts,
      async () => this.#driver.transaction(statements),
      (e) => {
        if (isRefusedBeforeRunning(e)) return "retry";
        if (isConnectionLost(e)) return chatId === "" ? "retry" : outcomeUnknown(chatId, e); // migrate() is safe to repeat
        return storeRefusal(chatId, e, what, this.#busyTimeout);
      },
    );
  }
}
