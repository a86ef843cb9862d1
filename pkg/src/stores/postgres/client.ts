// Pooled clients: what the store needs of pg's, leasing one, handing it back,
// and the one retry loop every operation runs in.
import { backoffDelay, sleep, type Backoff } from "../backoff.js";
import { StoreError } from "../store.js";
import { asError, isFatal, isServerError, retryable, unavailable } from "./errors.js";
import { LENGTH } from "./sql.js";

/**
 * What the store needs of a pooled `pg` client (a `pg.PoolClient` is one).
 *
 * @example
 * import pg from "pg";
 * const client: PgPoolClient = await new pg.Pool().connect();
 */
export interface PgPoolClient {
  /** Runs one statement, as text or as a named statement with its values, and resolves to its rows. */
  query(text: string | { name?: string; text: string; values?: unknown[] }, values?: unknown[]): Promise<{ rows: unknown[] }>;
  /** Back to the pool; with an error, the connection is closed instead. */
  release(error?: Error | boolean): void;
  /** pg emits a lost connection here too, beside failing the query: the store listens while it holds the client. */
  on?(event: "error", listener: (error: Error) => void): unknown;
  /** Stops the store's listener when it hands a healthy client back. */
  removeListener?(event: "error", listener: (error: Error) => void): unknown;
}

/**
 * What the store needs of a `pg.Pool` (a `pg.Pool` is one).
 *
 * @example
 * import pg from "pg";
 * const pool: PgPool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 */
export interface PgPool {
  /** Lends a client; the store hands it back with `release`. */
  connect(): Promise<PgPoolClient>;
  /** Closes the pool: {@link PostgresStore.end} calls it only on a pool the store made itself. */
  end(): Promise<void>;
}

/**
 * A client from the pool. While the store holds it, a connection lost under
 * it is also emitted as an "error" event (pg does both): heard here, or it
 * would crash the process; the failing query reports it.
 */
export async function lease(pool: PgPool): Promise<PgPoolClient> {
  const client = await pool.connect();
  client.on?.("error", ignore);
  return client;
}

/** Hands a leased client back; with an error the pool closes it (and the listener stays for its last events). */
export function giveBack(client: PgPoolClient, error?: Error): void {
  if (error === undefined) client.removeListener?.("error", ignore);
  client.release(error);
}

function ignore(): void {}

/**
 * One statement outside any transaction on a client leased for it, handed
 * back after (closed on a failure); resolves to its rows.
 *
 * @example
 * import pg from "pg";
 * const rows = await leasedQuery(new pg.Pool(), "SELECT pg_notify($1, $2)", ["oda_tasks", "hello"]);
 */
export async function leasedQuery(pool: PgPool, text: string, values?: unknown[]): Promise<unknown[]> {
  const client = await lease(pool);
  try {
    const { rows } = await client.query(text, values);
    giveBack(client);
    return rows;
  } catch (e) {
    giveBack(client, asError(e));
    throw e;
  }
}

/** The chat's length, or `null` when it does not exist. */
export async function currentLength(client: PgPoolClient, chatId: string): Promise<number | null> {
  const { rows } = await client.query({ name: "oda-tasks-length", text: LENGTH, values: [chatId] });
  const row = rows[0] as { length: string } | undefined;
  return row === undefined ? null : Number(row.length);
}

/** Ends an open transaction and hands the client back, or closes it when the connection is unusable. */
export async function rollback(client: PgPoolClient, cause?: unknown): Promise<void> {
  if (cause !== undefined && !(cause instanceof StoreError) && !(isServerError(cause) && !isFatal(cause))) {
    giveBack(client, asError(cause));
    return;
  }
  try {
    await client.query("ROLLBACK");
    giveBack(client);
  } catch (e) {
    giveBack(client, asError(e));
  }
}

/** Retries: 25 ms, doubling, at most 1 s. */
export const RETRY_BACKOFF: Backoff = { first: 25, factor: 2, max: 1000, jitter: false };

/** What one try answers: the value, or the failure after which trying again is safe. */
export type Try<T> = { done: T } | { again: unknown };

/**
 * The one retry loop of every operation: leases a client and runs `attempt`
 * up to `attempts` times, backing off between tries. A lease that fails for
 * good is `refuse`d; a thrown error ends the loop; after the last `again`,
 * `store/unavailable`.
 */
export async function retrying<T>(
  pool: PgPool,
  attempts: number,
  chatId: string,
  refuse: (e: unknown) => Error,
  attempt: (client: PgPoolClient) => Promise<Try<T>>,
): Promise<T> {
  let last: unknown;
  for (let n = 1; n <= attempts; n++) {
    if (n > 1) await sleep(backoffDelay(RETRY_BACKOFF, n - 2));
    let client: PgPoolClient;
    try {
      client = await lease(pool);
    } catch (e) {
      last = e;
      if (!retryable(e)) throw refuse(e);
      continue;
    }
    const outcome = await attempt(client);
    if ("done" in outcome) return outcome.done;
    last = outcome.again;
  }
  throw unavailable(chatId, last, attempts);
}
