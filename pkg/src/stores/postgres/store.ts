// The PostgreSQL store: chats shared by several app servers. Exported as
// `oda-tasks/postgres`; `pg` and `postgres` are optional peer dependencies,
// and `pg` is loaded only when the store is given a connection string. Beside
// it: the SQL (sql.ts), the sorting of failures (errors.ts), pooled clients
// with the one retry loop (client.ts), the drivers (drivers.ts) and the
// change feed (feed.ts).
import { BOOLEAN, readOptions, wholeNumber } from "../../core/options.js";
import { SqlStore, checkedLength, type IdRange, type ListRow, type ReadRow, type Written } from "../sql-store.js";
import { StoreError, type Store } from "../store.js";
import { backoffDelay, sleep } from "../backoff.js";
import { queued } from "../queue.js";
import { RETRY_BACKOFF, currentLength, giveBack, lease, retrying, rollback, type PgPool, type PgPoolClient, type Try } from "./client.js";
import { LOCK_TIMEOUT, STATEMENT_TIMEOUT, asError, databaseError, isFatal, isServerError, retryable, withCause } from "./errors.js";
import { databaseOf, poolFor, nodePostgres, type Database, type PostgresJsSql } from "./drivers.js";
import { ChangeFeed } from "./feed.js";
import {
  APPEND,
  CREATE,
  DELETE,
  DELETE_LOCK,
  MIGRATIONS,
  MIGRATION_LOCK,
  READ,
  appendSql,
  createSql,
  deleteSql,
  listQuery,
  migrationFiles,
} from "./sql.js";
import { STORE_KIND } from "../../telemetry/store-ops.js";

export type { PgPool, PgPoolClient } from "./client.js";
export type { PostgresJsSql, PostgresJsReserved, PostgresJsListening } from "./drivers.js";
export { POSTGRES_TABLES } from "./sql.js";

/**
 * Options of {@link PostgresStore}.
 *
 * @example
 * const store = new PostgresStore(pool, { attempts: 10 }); // ride out a longer failover
 */
export interface PostgresStoreOptions {
  /**
   * Tries per operation when the failure is known to have written nothing
   * (a lost connection, a serialization failure, a deadlock), and asks per
   * COMMIT whose answer was lost; default 6, 25 ms apart, doubling to 1 s.
   */
  attempts?: number;
  /**
   * How long (ms) a write waits for a chat's row that another database
   * session holds (`SELECT … FOR UPDATE`, a client idle in a transaction)
   * before it fails with `store/locked`, writing nothing; default 5 000.
   */
  lockTimeout?: number;
  /**
   * How long (ms) any one statement of the store may run before it fails
   * with `store/unavailable`; default 30 000. Over postgres.js, also how long
   * a try waits for a connection (it retries an unreachable server forever).
   */
  statementTimeout?: number;
  /**
   * Whether each write sends its notice (`pg_notify` in its transaction) and
   * `watch` listens for other processes' notices; default true. `false` on
   * every server of a deployment that writes faster than the notices' commit
   * lock allows: `watch` then reads the watched chats' lengths in one query
   * every `watchPollMs` instead.
   */
  notify?: boolean;
  /**
   * Where `watch` does not LISTEN (it could not, or `notify: false`), the
   * interval (ms) of the one query that reads every watched chat's length
   * instead; default 1 000.
   */
  watchPollMs?: number;
  /**
   * Hears the change feed's failures: its LISTEN connection lost, or LISTEN
   * not heard (a PgBouncer in transaction mode), and so polling until it
   * listens again. Default: `console.warn`.
   */
  onError?: (error: Error) => void;
}

const DEFAULTS = { attempts: 6, lockTimeout: 5_000, statementTimeout: 30_000, notify: true, watchPollMs: 1_000 };
/** How long a probe notice may take to come back before LISTEN counts as not working. */
const PROBE_MS = 2_000;
const FUNCTION = { expected: "a function", check: (v: unknown) => typeof v === "function" };
/** A listing's transaction plans each statement for its values (PostgreSQL 12 and later). */
const CUSTOM_PLAN = "; SET LOCAL plan_cache_mode = force_custom_plan";
let stores = 0;

/**
 * A {@link Store} in PostgreSQL, for chats shared by several app servers.
 * Every operation is one transaction on one pooled connection, so the store
 * never holds more connections than the pool allows; the length check and
 * the write happen in the database (a locked row, a primary key), so two
 * servers appending at the same expected length give exactly one winner.
 * Call `await store.migrate()` once at start-up (safe on every server at once).
 * `readTextFrom` gives the `json` column's texts as written; `readSince`'s
 * mark is the id of the transaction that wrote the chat's first entry.
 *
 * @example
 * import pg from "pg";
 * import { PostgresStore } from "oda-tasks/postgres";
 * const store = new PostgresStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 * await store.migrate();
 * await store.create("chat-1", [{ type: "session", workspace: null }]);
 * const log = (await store.read("chat-1")) ?? [];
 * await store.append("chat-1", [{ type: "turn_started" }], log.length);
 */
export class PostgresStore extends SqlStore implements Store {
  /** Internal: the kind its operations' spans and metrics name. */
  get [STORE_KIND](): string {
    return "postgresql";
  }

  readonly #db: Promise<Database>;
  readonly #pool: Promise<PgPool>;
  readonly #owned: boolean;
  readonly #feed: ChangeFeed;
  readonly #append: string;
  readonly #create: string;
  readonly #delete: string;
  readonly #attempts: number;
  readonly #lockTimeout: number;
  readonly #statementTimeout: number;
  /** This store's prefix of the in-process write queues (one per chat). */
  readonly #queueKey = `oda-tasks/postgres#${++stores}:`;

  /**
   * `client`: the app's own client, which the app ends: a node-postgres
   * `Pool` (or one that follows it: Neon's serverless `Pool`,
   * `@vercel/postgres`'s `createPool()`), a postgres.js `Sql`, or Drizzle's
   * `db` over either (its `$client` is used). Or a connection string: the
   * store makes a `pg` pool with pg's defaults and {@link end} ends it.
   */
  constructor(client: PgPool | PostgresJsSql | { $client: PgPool | PostgresJsSql } | string, options: PostgresStoreOptions = {}) {
    super("p1");
    const {
      attempts = DEFAULTS.attempts,
      lockTimeout = DEFAULTS.lockTimeout,
      statementTimeout = DEFAULTS.statementTimeout,
      notify = DEFAULTS.notify,
      watchPollMs = DEFAULTS.watchPollMs,
      onError = (error: Error) => console.warn(error.message),
    } = readOptions<PostgresStoreOptions>("PostgresStore", options, {
      attempts: wholeNumber(1),
      lockTimeout: wholeNumber(1),
      statementTimeout: wholeNumber(1),
      notify: BOOLEAN,
      watchPollMs: wholeNumber(1),
      onError: FUNCTION,
    });
    this.#attempts = attempts;
    this.#lockTimeout = lockTimeout;
    this.#statementTimeout = statementTimeout;
    this.#append = appendSql(notify);
    this.#create = createSql(notify);
    this.#delete = deleteSql(notify);
    if (typeof client === "string") {
      this.#owned = true;
      this.#db = poolFor(client).then(nodePostgres);
      this.#db.catch(() => undefined); // reported by the first operation
    } else {
      const db = databaseOf(client, statementTimeout);
      if (db === null) {
        throw new TypeError("oda-tasks: PostgresStore needs a pg.Pool, a postgres.js Sql, Drizzle's db over one, or a connection string");
      }
      this.#owned = false;
      this.#db = Promise.resolve(db);
    }
    this.#pool = this.#db.then((db) => db.pool);
    this.#pool.catch(() => undefined);
    this.#feed = new ChangeFeed(this.#db, { listen: notify, pollMs: watchPollMs, probeMs: PROBE_MS, onError });
  }

  /**
   * The change feed: `onChange(length)` after each write to chat `chatId`
   * commits, from this store at once and from other processes through
   * PostgreSQL's LISTEN (one connection per store, while anything is
   * watched), or by polling where LISTEN does not work (`onError` says so).
   * Returns the function that stops it.
   *
   * @example
   * const stop = new PostgresStore(pool).watch("chat-1", (length) => console.log("now", length));
   * stop();
   */
  watch(chatId: string, onChange: (length: number) => void): () => void {
    return this.#feed.watch(chatId, onChange);
  }

  /**
   * Creates or upgrades the tables: runs each SQL file of `oda-tasks/sql`
   * not yet recorded in oda_tasks_schema_migrations, all in one transaction
   * under an advisory lock, so servers migrating at once take turns and the
   * second finds nothing to do. Resolves to the versions this call applied.
   *
   * @example
   * const applied = await new PostgresStore(pool).migrate(); // [1, 2] the first time, [] after
   */
  async migrate(): Promise<number[]> {
    const files = await migrationFiles();
    // Blind retry is safe: the versions are recorded in the same transaction
    // as the schema change, so a run that did commit makes the next a no-op
    // (which then reports [] for what the lost try applied).
    return this.#retrying("", "migration", async (client) => {
      await client.query("BEGIN");
      try {
        await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS} (
          version integer PRIMARY KEY,
          name text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`);
        const { rows } = await client.query(`SELECT version FROM ${MIGRATIONS}`);
        const done = new Set((rows as { version: number }[]).map((r) => r.version));
        const applied: number[] = [];
        for (const file of files) {
          if (done.has(file.version)) continue;
          await client.query(file.sql);
          await client.query(`INSERT INTO ${MIGRATIONS} (version, name) VALUES ($1, $2)`, [file.version, file.name]);
          applied.push(file.version);
        }
        await client.query("COMMIT");
        return applied;
      } catch (e) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw e;
      }
    });
  }

  /** @internal */
  protected async readRows(chatId: string, from: number): Promise<readonly ReadRow[]> {
    return this.#retrying(chatId, "read", async (client, deadline) => {
      const { rows } = await this.#bounded(client, deadline, () =>
        client.query({ name: "oda-tasks-read", text: READ, values: [chatId, from] }),
      );
      return rows as ReadRow[];
    });
  }

  /** @internal */
  protected lengthNow(chatId: string): Promise<number | null> {
    return this.#retrying(chatId, "read", (client, deadline) => this.#bounded(client, deadline, () => currentLength(client, chatId)));
  }

  /** @internal */
  protected appendTexts(chatId: string, texts: string[], expected: number | null, expectedLength?: number): Promise<Written> {
    return this.#writing(chatId, async (client) => {
      // Twice at most: a chat created after this statement's snapshot is
      // invisible to the UPDATE but seen by the next statement.
      for (let round = 0; ; round++) {
        const { rows } = await client.query({
          name: this.#append === APPEND ? "oda-tasks-append" : "oda-tasks-append-quiet",
          text: this.#append,
          values: [chatId, texts, texts.length, expected],
        });
        const row = rows[0] as { length: string; xid: string } | undefined;
        if (row !== undefined) return { value: { length: Number(row.length) }, xid: row.xid };
        checkedLength(chatId, await currentLength(client, chatId), expected, expectedLength);
        if (round > 0) throw new StoreError("store/database", `chat "${chatId}": the append matched no row twice`, chatId);
      }
    });
  }

  /** @internal */
  protected createTexts(chatId: string, texts: string[]): Promise<Written | null> {
    return this.#writing(chatId, async (client) => {
      const { rows } = await client.query({
        name: this.#create === CREATE ? "oda-tasks-create" : "oda-tasks-create-quiet",
        text: this.#create,
        values: [chatId, texts, texts.length],
      });
      const row = rows[0] as { xid: string } | undefined;
      if (row === undefined) return { value: null, xid: null };
      // The epoch (READ's): the 32-bit id of the transaction that wrote entry 0, this one's.
      return { value: { length: texts.length, epoch: texts.length === 0 ? undefined : xid32(row.xid) }, xid: row.xid };
    });
  }

  /** @internal */
  protected deleteRows(chatId: string): Promise<boolean> {
    return this.#writing(chatId, async (client) => {
      const locked = await client.query({ name: "oda-tasks-delete-lock", text: DELETE_LOCK, values: [chatId] });
      if (locked.rows.length === 0) return { value: false, xid: null };
      const { rows } = await client.query({
        name: this.#delete === DELETE ? "oda-tasks-delete" : "oda-tasks-delete-quiet",
        text: this.#delete,
        values: [chatId],
      });
      const row = rows[0] as { xid: string } | undefined;
      if (row === undefined) throw new StoreError("store/database", `chat "${chatId}": the delete found no row under its lock`, chatId);
      return { value: true, xid: row.xid };
    });
  }

  /** @internal */
  protected listRows(range: IdRange, before: string | null, count: number): Promise<readonly ListRow[]> {
    const { text, values } = listQuery(range.from, range.below, before, count);
    return this.#retrying("", "listing", async (client, deadline) => {
      // Planned for its own values each time: a prepared statement's generic plan (postgres.js prepares
      // each text) would not know how few chats a prefix holds, and may read the whole order of creation.
      const { rows } = await this.#bounded(client, deadline, () => client.query(text, values), CUSTOM_PLAN);
      return rows as ListRow[];
    });
  }

  /** @internal */
  protected told(chatId: string, length: number, epoch: string | null | undefined): void {
    this.#feed.told(chatId, length, epoch);
  }

  /**
   * Stops the change feed, and ends the pool when the store made it from a
   * connection string; an app's own client is left to the app.
   *
   * @example
   * await new PostgresStore(process.env.DATABASE_URL!).end();
   */
  async end(): Promise<void> {
    await this.#feed.close();
    if (this.#owned) await (await this.#pool).end();
  }

  /**
   * Runs `work` (a statement that writes and reports the transaction id, or
   * throws a refusal) in one READ COMMITTED transaction and commits it.
   *
   * Failures: anything before COMMIT is sent leaves nothing written (the
   * transaction was never committed), so a lost connection, a serialization
   * failure or a deadlock is tried again on a fresh connection. A COMMIT
   * whose answer is lost is NOT tried blindly (that could write twice): the
   * transaction's id, known before COMMIT, is looked up on a new connection
   * with pg_xact_status. Committed: the write is done, resolve. Aborted:
   * nothing was written, try again. Still unknown when the database cannot
   * be asked in time: reject `store/outcome-unknown` (read the chat to see).
   */
  async #writing<T>(chatId: string, work: (client: PgPoolClient) => Promise<{ value: T; xid: string | null }>): Promise<T> {
    // The deadline runs from the call, through its wait behind this process's
    // earlier writes to the chat: one connection per chat waits on its row.
    const deadline = this.#deadline();
    return queued(`${this.#queueKey}${chatId}`, () => this.#write(chatId, deadline, work));
  }

  async #write<T>(chatId: string, deadline: number, work: (client: PgPoolClient) => Promise<{ value: T; xid: string | null }>): Promise<T> {
    const pool = await this.#pool; // rejects only when `pg` cannot be loaded
    return retrying<T>(
      pool,
      this.#attempts,
      chatId,
      (e) => this.#refusal(chatId, e),
      async (client): Promise<Try<T>> => {
        let done: { value: T; xid: string | null };
        try {
          await client.query(`BEGIN ISOLATION LEVEL READ COMMITTED; ${this.#limits(deadline)}`);
          done = await work(client);
        } catch (e) {
          // Not committed: roll back (or drop the connection), then refuse or try again.
          await rollback(client, e);
          if (e instanceof StoreError || !retryable(e)) throw e instanceof StoreError ? e : this.#refusal(chatId, e);
          return { again: e };
        }
        if (done.xid === null) {
          // Nothing written (create found the chat): no commit to lose.
          await rollback(client);
          return { done: done.value };
        }
        try {
          await client.query("COMMIT");
          giveBack(client);
          return { done: done.value };
        } catch (e) {
          giveBack(client, asError(e));
          const status = await this.#outcome(pool, done.xid);
          if (status === "committed") return { done: done.value };
          if (status === "aborted") {
            if (isServerError(e) && !retryable(e)) throw this.#refusal(chatId, e);
            return { again: e };
          }
          throw withCause(
            new StoreError(
              "store/outcome-unknown",
              `chat "${chatId}": the connection was lost while committing, so this write may or may not be recorded; read the chat to see`,
              chatId,
            ),
            e,
          );
        }
      },
    );
  }

  /** A store/* refusal for a bound that passed, or the database's own refusal. */
  #refusal(chatId: string, e: unknown, what = "write"): Error {
    if (isServerError(e) && e.code === LOCK_TIMEOUT) {
      return withCause(
        new StoreError(
          "store/locked",
          `chat "${chatId}": another database session held a lock this ${what} needs (the chat's row, or a table) for the whole lock timeout (${this.#lockTimeout} ms); nothing was written`,
          chatId,
        ),
        e,
      );
    }
    if (isServerError(e) && e.code === STATEMENT_TIMEOUT) {
      return withCause(
        new StoreError(
          "store/unavailable",
          `the database did not finish the ${what}${chatId === "" ? "" : ` for chat "${chatId}"`} within the statement timeout (${this.#statementTimeout} ms); nothing was written`,
          chatId,
        ),
        e,
      );
    }
    return databaseError(chatId, e, what);
  }

  /**
   * Whether transaction `xid` committed, asked on fresh connections until it
   * is settled; `null` when that is still unknown after `attempts` tries.
   */
  async #outcome(pool: PgPool, xid: string): Promise<"committed" | "aborted" | null> {
    for (let attempt = 0; attempt < this.#attempts; attempt++) {
      if (attempt > 0) await sleep(backoffDelay(RETRY_BACKOFF, attempt - 1));
      let client: PgPoolClient;
      try {
        client = await lease(pool);
      } catch {
        continue;
      }
      try {
        const { rows } = await client.query("SELECT pg_xact_status($1::xid8) AS status", [xid]);
        giveBack(client);
        const status = (rows[0] as { status: string | null }).status;
        // "in progress": the old connection's server process has not yet noticed it is gone.
        if (status === "committed" || status === "aborted") return status;
      } catch (e) {
        giveBack(client, asError(e));
      }
    }
    return null;
  }

  /**
   * When an operation's waits for locks must end: `lockTimeout` after it
   * began, however long it then waits for a pooled connection or tries again.
   * The pool serves waiters in turn and every call ahead began earlier, so it
   * gave up earlier: queued calls never add their waits up.
   */
  #deadline(): number {
    return Date.now() + this.#lockTimeout;
  }

  /**
   * The store's bounds on waiting, for the current transaction only (the app's
   * sessions keep their settings): locks until the operation's deadline (1 ms
   * at least: 0 would mean no bound), each statement `statementTimeout`.
   */
  #limits(deadline: number): string {
    const lockWait = Math.max(1, Math.ceil(deadline - Date.now()));
    return `SET LOCAL lock_timeout = ${lockWait}; SET LOCAL statement_timeout = ${this.#statementTimeout}`;
  }

  /** Runs reads in one READ ONLY transaction with the store's bounds (and `settings`, SET LOCAL statements); the transaction ends either way. */
  async #bounded<T>(client: PgPoolClient, deadline: number, work: () => Promise<T>, settings = ""): Promise<T> {
    await client.query(`BEGIN READ ONLY; ${this.#limits(deadline)}${settings}`);
    let value: T;
    try {
      value = await work();
    } catch (e) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw e;
    }
    await client.query("COMMIT");
    return value;
  }

  /** Runs `work` (reads, or a transaction safe to repeat) with a pooled client, trying again after a retryable failure. */
  async #retrying<T>(chatId: string, what: string, work: (client: PgPoolClient, deadline: number) => Promise<T>): Promise<T> {
    const deadline = this.#deadline();
    const pool = await this.#pool; // rejects only when `pg` cannot be loaded
    return retrying<T>(
      pool,
      this.#attempts,
      chatId,
      (e) => this.#refusal(chatId, e, what),
      async (client): Promise<Try<T>> => {
        try {
          const value = await work(client, deadline);
          giveBack(client);
          return { done: value };
        } catch (e) {
          if (e instanceof StoreError) {
            giveBack(client);
            throw e;
          }
          giveBack(client, isServerError(e) && !isFatal(e) ? undefined : asError(e));
          if (!retryable(e)) throw this.#refusal(chatId, e, what);
          return { again: e };
        }
      },
    );
  }
}

/** A transaction's 32-bit id (what `xmin` shows) from its 64-bit one (`pg_current_xact_id()`). */
function xid32(xid: string): string {
  return String(BigInt(xid) & 0xffff_ffffn);
}
