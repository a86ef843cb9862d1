// The thin layer per PostgreSQL driver: a node-postgres `Pool` (and the
// pools shaped like it: Neon's serverless `Pool`, `@vercel/postgres`) or a
// postgres.js `Sql`, each seen as pooled sessions that run SQL text, plus a
// LISTEN. The drivers are the app's; the package imports neither on this
// path (`pg` is loaded only for a connection string).
import { leasedQuery, type PgPool, type PgPoolClient } from "./client.js";
import { asError, isBug, isFatal, isServerError, withCause } from "./errors.js";

/**
 * What the store needs of a postgres.js `Sql` (what `postgres(url)` returns).
 *
 * @example
 * import postgres from "postgres";
 * const sql: PostgresJsSql = postgres(process.env.DATABASE_URL!);
 */
export interface PostgresJsSql {
  /** A connection of its own until `release()`: the store's transaction runs on it. */
  reserve(): Promise<PostgresJsReserved>;
  /** Runs SQL text; with no values, by the simple protocol (several statements at once). */
  unsafe(text: string, values?: unknown[], options?: { prepare?: boolean }): PromiseLike<unknown[]>;
  /** LISTEN on a connection of postgres.js's own, re-listened by it after a lost connection (calling `onListen` again). */
  listen(channel: string, onNotice: (payload: string) => void, onListen?: () => void): Promise<PostgresJsListening>;
  /** Its transactions: the store does not use them (it must know a transaction's id before COMMIT). */
  begin: unknown;
  /** Closes every connection: {@link PostgresStore.end} calls it only on a client the store made itself. */
  end(options?: { timeout?: number }): Promise<void>;
  /** Its options: `prepare: false` (for a PgBouncer) is kept. */
  options?: { prepare?: boolean };
}

/**
 * A reserved postgres.js connection.
 *
 * @example
 * const reserved: PostgresJsReserved = await sql.reserve();
 * reserved.release();
 */
export interface PostgresJsReserved {
  /** Runs SQL text on this connection. */
  unsafe(text: string, values?: unknown[], options?: { prepare?: boolean }): PromiseLike<unknown[]>;
  /** Hands the connection back to the `Sql`'s pool. */
  release(): void;
}

/**
 * What `sql.listen` resolves to.
 *
 * @example
 * const { unlisten }: PostgresJsListening = await sql.listen("oda_tasks", (payload: string) => console.log(payload));
 */
export interface PostgresJsListening {
  /** Stops this listener (postgres.js keeps its LISTEN connection until `sql.end()`). */
  unlisten(): Promise<unknown>;
}

/** A LISTEN in place; `stop` ends it and hands its connection back. */
export interface Listening {
  stop(): Promise<void>;
}

/**
 * The one dedicated LISTEN connection of a store: `onNotice` hears the
 * channel's payloads; `onLost` the connection's loss (not called after `stop`);
 * `onListen` each time the driver re-listened on a new connection by itself.
 */
export type Listen = (
  channel: string,
  onNotice: (payload: string) => void,
  onLost: (error: Error) => void,
  onListen: () => void,
) => Promise<Listening>;

/** A client as the store uses it: pooled sessions, one statement outside them, and a LISTEN. */
export interface Database {
  pool: PgPool;
  /** One statement outside any transaction (the change feed's reads and notices); its rows. */
  query(text: string, values?: unknown[]): Promise<unknown[]>;
  listen: Listen;
}

/** A `pg` client as far as LISTEN needs it (a `pg.PoolClient` is one). */
interface PgListenClient {
  query(text: string): Promise<unknown>;
  release(error?: Error | boolean): void;
  on(event: string, listener: (...args: never[]) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
}

/** A `pg.Client` of the pool's own kind. */
interface PgOwnClient extends PgListenClient {
  connect(): Promise<void>;
  end(): Promise<void>;
}

/**
 * The database behind what the app passed: a postgres.js `Sql` (a function
 * with `reserve` and `unsafe`), Drizzle's `db` (its `$client`), or a pool
 * with `connect` (node-postgres and the pools that follow it); `null` for
 * anything else.
 */
export function databaseOf(client: unknown, connectWait: number): Database | null {
  if (isPostgresJs(client)) return postgresJs(client, connectWait);
  if (isPool(client)) return nodePostgres(client);
  const inner = (client as { $client?: unknown } | null)?.$client;
  if (typeof client === "object" && client !== null && inner !== undefined && inner !== client) return databaseOf(inner, connectWait);
  return null;
}

function isPostgresJs(client: unknown): client is PostgresJsSql {
  const c = client as Partial<PostgresJsSql> | null;
  return (
    typeof client === "function" && typeof c?.reserve === "function" && typeof c.unsafe === "function" && typeof c.listen === "function"
  );
}

function isPool(client: unknown): client is PgPool {
  return typeof client === "object" && client !== null && typeof (client as PgPool).connect === "function";
}

/**
 * node-postgres: its pool as it is. LISTEN on a connection of its own, made
 * by the pool's `Client` with the pool's options (so it takes no place in
 * the pool, and `stop` closes it); from `pool.connect()` where a pool has no
 * `Client` (given back by `stop`).
 */
export function nodePostgres(pool: PgPool): Database {
  return {
    pool,
    query: (text, values) => leasedQuery(pool, text, values),
    async listen(channel, onNotice, onLost) {
      const { Client, options } = pool as { Client?: new (config: object) => PgOwnClient; options?: object };
      let client: PgListenClient;
      let dispose: (error?: Error) => Promise<void>;
      if (typeof Client === "function" && typeof options === "object" && options !== null) {
        const own = new Client(options);
        own.on("error", ignore); // a lost connection also fails the LISTEN or is heard by "end"
        client = own;
        dispose = () => own.end().catch(() => undefined);
        try {
          await own.connect();
        } catch (e) {
          await dispose();
          throw e;
        }
      } else {
        const leased = (await pool.connect()) as unknown as PgListenClient;
        leased.on("error", ignore);
        client = leased;
        dispose = async (error) => {
          if (error !== undefined) return leased.release(error);
          try {
            await leased.query("UNLISTEN *");
            leased.removeListener("error", ignore);
            leased.release();
          } catch (e) {
            leased.release(asError(e));
          }
        };
      }
      let over = false;
      const onNotification = (message: { channel: string; payload?: string }) => {
        if (!over && message.channel === channel) onNotice(message.payload ?? "");
      };
      const lose = (error: Error) => {
        if (over) return;
        over = true;
        client.removeListener("notification", onNotification);
        void dispose(error);
        onLost(error);
      };
      const onError = (error: Error) => lose(asError(error));
      const onEnd = () => lose(new Error("the LISTEN connection ended"));
      client.on("notification", onNotification);
      client.on("error", onError);
      client.on("end", onEnd);
      try {
        await client.query(`LISTEN ${channel}`);
      } catch (e) {
        over = true;
        client.removeListener("notification", onNotification);
        client.removeListener("end", onEnd);
        await dispose(asError(e));
        throw e;
      }
      return {
        async stop() {
          if (over) return;
          over = true;
          client.removeListener("notification", onNotification);
          client.removeListener("end", onEnd);
          client.removeListener("error", onError);
          await dispose();
        },
      };
    },
  };
}

function ignore(): void {}

/**
 * postgres.js: `reserve()` for a session, `unsafe()` for its SQL (bind
 * values as they are; `SET LOCAL` is sent as literals), its SQLSTATE already
 * in `error.code` and `error.severity`; LISTEN through `sql.listen`. A
 * server it cannot reach makes postgres.js try again forever: a lease waits
 * `connectWait` ms at most, and fails as a lost connection does. A statement
 * outside a transaction reserves nothing: an `sql.end()` that overlaps a
 * reserved connection never resolves (postgres.js 3.4), and the app's
 * `stop(); await sql.end()` may overlap the feed's last read.
 */
export function postgresJs(sql: PostgresJsSql, connectWait: number): Database {
  const prepare = sql.options?.prepare !== false;
  const pool: PgPool = {
    async connect(): Promise<PgPoolClient> {
      const reserved = await within(sql.reserve(), connectWait);
      return {
        async query(text, values) {
          const statement = typeof text === "string" ? { text, values } : text;
          const params = statement.values ?? [];
          // With no values, unsafe() uses the simple protocol (several statements in one text).
          const rows = await reserved.unsafe(statement.text, params, params.length > 0 ? { prepare } : {});
          return { rows: [...rows] };
        },
        release: (error) => {
          if (!(error instanceof Error)) return reserved.release();
          // postgres.js has closed a lost connection already (and opens it again on next use):
          // releasing it would hand the closed one out again.
          if (isFatal(error) || (!isServerError(error) && !isBug(error))) return;
          // The connection stands, maybe inside a transaction: end it before it goes back.
          Promise.resolve(reserved.unsafe("ROLLBACK")).then(
            () => reserved.release(),
            () => undefined,
          );
        },
      };
    },
    end: () => sql.end({ timeout: 5 }),
  };
  return {
    pool,
    async query(text, values = []) {
      return [...(await sql.unsafe(text, values, values.length > 0 ? { prepare } : {}))];
    },
    async listen(channel, onNotice, _onLost, onListen) {
      let first = true;
      let over = false;
      const { unlisten } = await sql.listen(
        channel,
        (payload) => {
          if (!over) onNotice(payload);
        },
        () => {
          if (first) first = false;
          else if (!over) onListen();
        },
      );
      return {
        async stop() {
          if (over) return;
          over = true;
          await unlisten();
        },
      };
    },
  };
}

/** `reserving`, or an Error after `ms` (the connection it brings later goes straight back). */
async function within(reserving: Promise<PostgresJsReserved>, ms: number): Promise<PostgresJsReserved> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let late = false;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      late = true;
      reject(new Error(`postgres.js gave no connection within ${ms} ms`));
    }, ms);
  });
  reserving.then(
    (reserved) => late && reserved.release(),
    () => undefined,
  );
  try {
    return await Promise.race([reserving, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A pool of pg's own for a connection string; its idle connections' errors (a server restart) are expected. */
export async function poolFor(connectionString: string): Promise<PgPool> {
  const specifier = "pg"; // not a literal: bundlers must not pull `pg` into browser builds
  let mod: { default?: unknown; Pool?: unknown };
  try {
    mod = (await import(specifier)) as { default?: unknown; Pool?: unknown };
  } catch (e) {
    throw withCause(new Error("oda-tasks: PostgresStore needs the `pg` package for a connection string: npm install pg"), e);
  }
  const Pool = ((mod.default as { Pool?: unknown } | undefined)?.Pool ?? mod.Pool) as new (
    config: object,
  ) => PgPool & {
    on(event: "error", listener: () => void): void;
  };
  const pool = new Pool({ connectionString });
  pool.on("error", () => undefined);
  return pool;
}
