// The thin layer per SQLite driver: each runs the store's statements (one
// read, or a list in one transaction) and hands back plain rows. The
// drivers are the app's; the package imports none of them.
import type { Statement } from "./sql.js";

/** A row as the drivers give it: column name → value. */
export type Row = Record<string, unknown>;

/**
 * What the store needs of a database: the statements of one transaction run
 * in order, all or none, each answering its rows (`[]` for a write).
 */
export interface SqlDriver {
  /** Where the database lives, for messages: "file", "d1" or "durable-object". */
  readonly kind: "file" | "d1" | "durable-object";
  /** Runs `statements` in one transaction (a file's write lock taken first); resolves to each statement's rows. */
  transaction(statements: readonly Statement[]): Row[][] | Promise<Row[][]>;
  /** Runs one reading statement on its own (one statement is one snapshot). */
  query(statement: Statement): Row[] | Promise<Row[]>;
  /** Done once by migrate() before its transaction: a file database turns on WAL. */
  beforeMigrate(): void | Promise<void>;
}

/**
 * A synchronous SQLite connection: `node:sqlite`'s `DatabaseSync`,
 * `better-sqlite3`'s `Database` and `bun:sqlite`'s `Database` all have this shape.
 *
 * @example
 * import { DatabaseSync } from "node:sqlite";
 * const db: SqliteConnection = new DatabaseSync("chats.db");
 */
export interface SqliteConnection {
  /** Runs SQL text with no values (BEGIN, COMMIT, PRAGMA). */
  exec(sql: string): unknown;
  /** A prepared statement of one SQL text. */
  prepare(sql: string): SqlitePrepared;
}

/**
 * A prepared statement of a synchronous driver.
 *
 * @example
 * const rows = db.prepare("SELECT 1 AS one").all(); // [{ one: 1 }]
 */
export interface SqlitePrepared {
  /** Runs it with its values, for a statement that writes. */
  run(...params: unknown[]): unknown;
  /** Runs it with its values and answers its rows. */
  all(...params: unknown[]): unknown[];
}

/**
 * Cloudflare D1's database binding (`env.DB`), as far as the store uses it.
 *
 * @example
 * export default { fetch: (request: Request, env: { DB: D1Like }) => new SqliteStore(env.DB).read("c") };
 */
export interface D1Like {
  /** A statement of one SQL text. */
  prepare(sql: string): D1PreparedLike;
  /** Runs bound statements as one transaction, all or none; answers each one's result. */
  batch(statements: D1StatementLike[]): Promise<{ results?: unknown[] }[]>;
}

/**
 * A D1 statement before its values are bound.
 *
 * @example
 * const statement = env.DB.prepare("SELECT ? AS one").bind(1);
 */
export interface D1PreparedLike {
  /** The statement with its values. */
  bind(...values: unknown[]): D1StatementLike;
}

/**
 * A bound D1 statement.
 *
 * @example
 * const statement: D1StatementLike = env.DB.prepare("SELECT 1").bind();
 */
export interface D1StatementLike {
  /** Runs it and answers its rows in `results`. */
  all(): Promise<{ results?: unknown[] }>;
}

/**
 * A Durable Object's SQL storage (`ctx.storage.sql`).
 *
 * @example
 * const sql: DurableObjectSqlLike = ctx.storage.sql;
 */
export interface DurableObjectSqlLike {
  /** Runs one statement with its values; the cursor holds its rows. */
  exec(sql: string, ...bindings: unknown[]): DurableObjectCursorLike;
}

/**
 * What a Durable Object's `sql.exec` answers.
 *
 * @example
 * const rows = ctx.storage.sql.exec("SELECT 1 AS one").toArray();
 */
export interface DurableObjectCursorLike {
  /** Every row, read to the end. */
  toArray(): unknown[];
}

/**
 * A Durable Object's storage (`ctx.storage`): its SQL, and `transactionSync`
 * that runs a function's statements all or none.
 *
 * @example
 * const storage: DurableObjectStorageLike = ctx.storage;
 */
export interface DurableObjectStorageLike {
  /** The object's SQLite database. */
  sql: DurableObjectSqlLike;
  /** Runs `fn` as one transaction: when it throws, nothing it wrote stays. */
  transactionSync<T>(fn: () => T): T;
}

/**
 * The databases {@link SqliteStore} runs on.
 *
 * @example
 * import { DatabaseSync } from "node:sqlite";
 * const db: SqliteDatabase = new DatabaseSync("chats.db"); // or better-sqlite3, bun:sqlite, env.DB, ctx.storage
 */
export type SqliteDatabase = SqliteConnection | D1Like | DurableObjectStorageLike | DurableObjectSqlLike;

/** The driver for `db`, told apart by shape; `null` when `db` is none of them. */
export function driverFor(db: unknown, busyTimeout: number): SqlDriver | null {
  if (typeof db !== "object" || db === null) return null;
  const has = (name: string): boolean => typeof (db as Record<string, unknown>)[name] === "function";
  if (has("transactionSync") && typeof (db as { sql?: unknown }).sql === "object")
    return new DurableObjectDriver(db as DurableObjectStorageLike);
  if (has("batch") && has("prepare")) return new D1Driver(db as D1Like);
  if (has("prepare") && has("exec")) return new FileDriver(db as SqliteConnection, busyTimeout);
  // SqlStorage alone: no prepare, exec(sql, ...bindings) answering a cursor.
  if (has("exec") && "databaseSize" in db)
    return new DurableObjectDriver({ sql: db as unknown as DurableObjectSqlLike, transactionSync: (fn) => fn() });
  return null;
}

/**
 * A database file through a synchronous driver. A write takes the file's
 * write lock first (BEGIN IMMEDIATE), waiting at most the busy timeout for
 * another process's transaction; nothing is awaited inside, so the
 * process's own operations never interleave either.
 */
class FileDriver implements SqlDriver {
  readonly kind = "file";
  readonly #db: SqliteConnection;
  readonly #prepared = new Map<string, SqlitePrepared>();

  constructor(db: SqliteConnection, busyTimeout: number) {
    this.#db = db;
    db.exec(`PRAGMA busy_timeout = ${busyTimeout}`);
    // An acknowledged write is on disk, as JsonlStore's fsync (better-sqlite3 defaults WAL to NORMAL).
    db.exec("PRAGMA synchronous = FULL");
  }

  transaction(statements: readonly Statement[]): Row[][] {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const rows = statements.map((statement) => this.query(statement));
      this.#db.exec("COMMIT");
      return rows;
    } catch (e) {
      try {
        this.#db.exec("ROLLBACK");
      } catch {
        // BEGIN itself failed, or SQLite already rolled back: there is no transaction to end.
      }
      throw e;
    }
  }

  query(statement: Statement): Row[] {
    let prepared = this.#prepared.get(statement.sql);
    if (prepared === undefined) {
      prepared = this.#db.prepare(statement.sql);
      this.#prepared.set(statement.sql, prepared);
    }
    if (!statement.rows) {
      prepared.run(...statement.params);
      return [];
    }
    return prepared.all(...statement.params) as Row[];
  }

  beforeMigrate(): void {
    // Readers never wait for the writer, and a commit is one append to the WAL file.
    this.#db.exec("PRAGMA journal_mode = WAL");
  }
}

/** Cloudflare D1: a transaction is one `batch` (D1 runs it all or none). */
class D1Driver implements SqlDriver {
  readonly kind = "d1";
  readonly #db: D1Like;

  constructor(db: D1Like) {
    this.#db = db;
  }

  async transaction(statements: readonly Statement[]): Promise<Row[][]> {
    const results = await this.#db.batch(statements.map((s) => this.#db.prepare(s.sql).bind(...s.params)));
    return results.map((result) => (result.results ?? []) as Row[]);
  }

  async query(statement: Statement): Promise<Row[]> {
    const result = await this.#db
      .prepare(statement.sql)
      .bind(...statement.params)
      .all();
    return (result.results ?? []) as Row[];
  }

  beforeMigrate(): void {}
}

/**
 * A Durable Object's SQLite: statements run synchronously inside the object
 * (one request at a time between awaits), a transaction in `transactionSync`.
 */
class DurableObjectDriver implements SqlDriver {
  readonly kind = "durable-object";
  readonly #storage: DurableObjectStorageLike;

  constructor(storage: DurableObjectStorageLike) {
    this.#storage = storage;
  }

  transaction(statements: readonly Statement[]): Row[][] {
    return this.#storage.transactionSync(() => statements.map((statement) => this.query(statement)));
  }

  query(statement: Statement): Row[] {
    return this.#storage.sql.exec(statement.sql, ...statement.params).toArray() as Row[];
  }

  beforeMigrate(): void {}
}
