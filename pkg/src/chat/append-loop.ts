// The one loop every write of the host layer goes through: lease the chat's
// state (read only what is new) → decide → append at the length decided on →
// on a conflict, catch up and decide again (at once, then after a growing,
// jittered wait, so that writers in other processes fall out of step).
import { backoffDelay, sleep, type Backoff } from "../stores/backoff.js";
import { isConflict, StoreError } from "../stores/store.js";
import type { ChatState } from "../core/chat-state.js";
import type { ChatStateCache } from "./state-cache.js";
import type { LogEntry } from "../core/types.js";
import { storeOperation } from "../telemetry/store-ops.js";

/**
 * How many times a write is decided again after another writer appended to
 * the same chat first, before it gives up with an Error.
 *
 * @example
 * console.log(MAX_ATTEMPTS); // 20
 */
export const MAX_ATTEMPTS = 20;

/** The wait before a write's third and later attempts: 2 ms growing to 50 (about 0.6 s over all 20). */
const CONFLICT_BACKOFF: Backoff = { first: 2, factor: 1.5, max: 50, jitter: true };

/** What a decision asks for: stop with `done`, or append `entries` and then answer `then`. */
export type Step<T> = { done: T } | { append: readonly LogEntry[]; then: T };

/**
 * Decides on the chat's state and appends the decision at the length it was
 * made on; a conflict means another writer came first: decide again on the
 * new state. `decide` gets `null` for a chat that does not exist. After
 * MAX_ATTEMPTS lost races it throws a `StoreError` coded `store/contended`.
 *
 * @example
 * await decideAndAppend(cache, "chat-1", "dismiss of s1", (state) => ({ append: [entry], then: undefined }));
 */
export async function decideAndAppend<T>(
  cache: ChatStateCache,
  chatId: string,
  what: string,
  decide: (state: ChatState | null) => Step<T> | Promise<Step<T>>,
): Promise<T> {
  for (let attempt = 0, wait = 0; attempt < MAX_ATTEMPTS; attempt++) {
    // Waited with the chat's lease released, so writers of this process go on meanwhile.
    if (wait > 0) await sleep(wait);
    const lease = await cache.lease(chatId);
    try {
      // The length the decision is made on (`decide` decides before it awaits anything).
      const at = lease.state?.length;
      const step = await decide(lease.state);
      // Own properties only: a polluted Object.prototype changes no decision.
      if (Object.hasOwn(step, "done")) return (step as { done: T }).done;
      if (at === undefined) {
        throw new Error(`oda-tasks: ${what} decided to write to chat "${chatId}", which does not exist`);
      }
      const { append, then } = step as { append: readonly LogEntry[]; then: T };
      let length: number;
      try {
        // Seen as the store's work: a span under the caller's (a lost race its error), its time told.
        length = await storeOperation(
          cache.store,
          "append",
          () => cache.store.append(chatId, append, at),
          (span) => attempt > 0 && span.set("oda_tasks.store.retry_count", attempt),
        );
      } catch (e) {
        if (!isConflict(e)) throw e;
        wait = attempt > 0 ? backoffDelay(CONFLICT_BACKOFF, attempt - 1) : 0;
        continue;
      }
      lease.appended(at, append, length);
      return then;
    } finally {
      lease.release();
    }
  }
  throw new StoreError("store/contended", `oda-tasks: the ${what} lost ${MAX_ATTEMPTS} races to other writers; try again`, chatId);
}
