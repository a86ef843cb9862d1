// The failure model shared by the database stores (PostgreSQL, SQLite): the
// StoreErrors of a database that is unreachable, unmigrated, damaged or
// refusing, the one retry spacing, and the one retry loop.
import { backoffDelay, sleep, type Backoff } from "./backoff.js";
import { StoreError } from "./store.js";

/**
 * Retries of a database store: 25 ms, doubling, at most 1 s.
 *
 * @internal
 */
export const RETRY_BACKOFF: Backoff = { first: 25, factor: 2, max: 1000, jitter: false };

/**
 * Runs `attempt` up to `attempts` times, RETRY_BACKOFF apart. After a
 * failure `decide(e)` says "retry" (nothing was done: try again) or gives
 * the error to reject with; when every try was retried, `store/unavailable`.
 *
 * @internal
 */
export async function withRetries<T>(
  chatId: string,
  attempts: number,
  attempt: () => Promise<T>,
  decide: (e: unknown) => "retry" | Error,
): Promise<T> {
  let last: unknown;
  for (let n = 1; n <= attempts; n++) {
    if (n > 1) await sleep(backoffDelay(RETRY_BACKOFF, n - 2));
    try {
      return await attempt();
    } catch (e) {
      const decision = decide(e);
      if (decision !== "retry") throw decision;
      last = e;
    }
  }
  throw unavailable(chatId, last, attempts);
}

/**
 * A mistake in code (ours, a pool's or a driver's use), not a database's or a network's failure: passed on as it is.
 *
 * @internal
 */
export function isBug(e: unknown): boolean {
  return e instanceof TypeError || e instanceof RangeError || e instanceof ReferenceError || e instanceof SyntaxError;
}

/**
 * Every try failed with the database out of reach.
 *
 * @internal
 */
export function unavailable(chatId: string, e: unknown, attempts: number): StoreError {
  return withCause(
    new StoreError(
      "store/unavailable",
      `the database is unavailable${chatId === "" ? "" : ` for chat "${chatId}"`} after ${attempts} attempt${attempts === 1 ? "" : "s"}; nothing was written (${asError(e).message})`,
      chatId,
    ),
    e,
  );
}

/**
 * The store's tables are missing or older than the store.
 *
 * @internal
 */
export function notMigrated(chatId: string, e: unknown): StoreError {
  return withCause(new StoreError("store/not-migrated", `the oda-tasks tables are missing or old: run await store.migrate() (${asError(e).message})`, chatId), e);
}

/**
 * The database refused a duplicate entry key: an entry already sits past the chat's length.
 *
 * @internal
 */
export function entryPastLength(chatId: string, e: unknown): StoreError {
  return withCause(
    new StoreError("store/corrupt", `chat "${chatId}" is damaged in the database: an entry already sits past its length (${asError(e).message})`, chatId),
    e,
  );
}

/**
 * Rows missing under the chat's length.
 *
 * @internal
 */
export function entriesMissing(chatId: string, from: number, length: number): StoreError {
  return new StoreError(
    "store/corrupt",
    `chat "${chatId}" is damaged in the database: its length is ${length} but entries ${from}..${length - 1} are not all there`,
    chatId,
  );
}

/**
 * `error`, with `cause` as its cause.
 *
 * @internal
 */
export function withCause<E extends Error>(error: E, cause: unknown): E {
  error.cause = cause;
  return error;
}

/**
 * `e` as an Error (a thrown string becomes one).
 *
 * @internal
 */
export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
