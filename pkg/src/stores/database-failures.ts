// The failure model of the database stores beyond PostgreSQL's own
// (stores/postgres/errors.ts, whose builders and retry spacing it reuses):
// the StoreErrors of an unmigrated or damaged database, worded as
// PostgreSQL's, and a retry loop for a store with no pool to lease from.
import { backoffDelay, sleep } from "./backoff.js";
import { RETRY_BACKOFF } from "./postgres/client.js";
import { asError, unavailable, withCause } from "./postgres/errors.js";
import { StoreError } from "./store.js";

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
 * The store's tables are missing or older than the store.
 *
 * @internal
 */
export function notMigrated(chatId: string, e: unknown): StoreError {
  return withCause(
    new StoreError(
      "store/not-migrated",
      `the oda-tasks tables are missing or old: run await store.migrate() (${asError(e).message})`,
      chatId,
    ),
    e,
  );
}

/**
 * The database refused a duplicate entry key: an entry already sits past the chat's length.
 *
 * @internal
 */
export function entryPastLength(chatId: string, e: unknown): StoreError {
  return withCause(
    new StoreError(
      "store/corrupt",
      `chat "${chatId}" is damaged in the database: an entry already sits past its length (${asError(e).message})`,
      chatId,
    ),
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
