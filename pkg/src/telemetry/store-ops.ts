// A store operation as it is seen: a child span (`oda_tasks.store.<op>`) when
// it runs inside a span of this package, and its time and outcome told to the
// observers. The host layer calls every store through here at the few places
// each operation passes (the append loop, the warm-state cache's reads, the
// creates and deletes of a chat's lifecycle), so no store is edited for it.
import { inScope, inSpan, type SpanHandle } from "./otel.js";
import { observed, tell, type StoreOutcome } from "./observe.js";

/**
 * The property by which a store of the package says its kind (`memory`,
 * `jsonl`, `indexeddb`, `postgresql`, `sqlite`); an app's own store, which
 * has none, is `custom`.
 */
export const STORE_KIND: unique symbol = Symbol.for("oda-tasks.store-kind");

/** The operations told. */
export type StoreOperation = "read" | "append" | "create" | "delete" | "list" | "probe";

/**
 * The kind of `store`, from {@link STORE_KIND}.
 *
 * @example
 * storeKind(new MemoryStore()); // "memory"
 */
export function storeKind(store: object): string {
  const kind = (store as { [STORE_KIND]?: unknown })[STORE_KIND];
  return typeof kind === "string" && /^[a-z][a-z0-9-]{0,30}$/.test(kind) ? kind : "custom";
}

/**
 * Runs `run`, store `store`'s `operation`, seen: a child span with the store's
 * kind (and what `note` sets on it) inside a span of this package, failed
 * with the error's code (`store/conflict` for a lost race), its outcome and
 * time told to the observers (`conflict`: a lost race, not a failure).
 *
 * @example
 * const length = await storeOperation(store, "append", () => store.append(chatId, entries, at), (span) => span.set("oda_tasks.store.retry_count", 2));
 */
export async function storeOperation<T>(
  store: object,
  operation: StoreOperation,
  run: () => Promise<T>,
  note?: (span: SpanHandle) => void,
): Promise<T> {
  const traced = inScope();
  if (!traced && !observed()) return run();
  const kind = storeKind(store);
  const started = performance.now();
  let outcome: StoreOutcome = "error";
  try {
    const value = await (traced
      ? inSpan(`oda_tasks.store.${operation}`, { attributes: { "oda_tasks.store.kind": kind } }, (span) => {
          note?.(span);
          return run();
        })
      : run());
    outcome = "ok";
    return value;
  } catch (e) {
    if (conflict(e)) outcome = "conflict";
    throw e;
  } finally {
    tell("storeOperation", kind, operation, outcome, (performance.now() - started) / 1000);
  }
}

function conflict(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { code?: unknown }).code === "store/conflict";
}
