// A store operation as it is seen: a child span (`oda_tasks.store.<op>`) when
// it runs inside a span of this package, and its time and outcome told to the
// observers. The host layer calls every store through here at the few places
// each operation passes (the append loop, the warm-state cache's reads, the
// creates and deletes of a chat's lifecycle); a store only says its kind
// (`STORE_KIND`).
import { inLeafSpan, type SpanHandle } from "./otel.js";
import { observed, tell, type StoreOutcome } from "./observe.js";

/**
 * The property by which a store of the package says its kind (`memory`,
 * `jsonl`, `indexeddb`, `postgresql`, `sqlite`); an app's own store, which
 * has none, is `custom`.
 */
export const STORE_KIND: unique symbol = Symbol.for("oda-tasks.store-kind");

/** The operations told. */
export type StoreOperation = "read" | "append" | "create" | "delete" | "list" | "probe";

/** Kinds already read, by store (a span or a measure is made for every store operation). */
const kinds = new WeakMap<object, string>();

/**
 * The kind of `store`, from {@link STORE_KIND}.
 *
 * @example
 * storeKind(new MemoryStore()); // "memory"
 */
export function storeKind(store: object): string {
  let kind = kinds.get(store);
  if (kind === undefined) {
    const said = (store as { [STORE_KIND]?: unknown })[STORE_KIND];
    kind = typeof said === "string" && /^[a-z][a-z0-9-]{0,30}$/.test(said) ? said : "custom";
    kinds.set(store, kind);
  }
  return kind;
}

/** The spans' names, by operation. */
const NAMES: Record<StoreOperation, string> = {
  read: "oda_tasks.store.read",
  append: "oda_tasks.store.append",
  create: "oda_tasks.store.create",
  delete: "oda_tasks.store.delete",
  list: "oda_tasks.store.list",
  probe: "oda_tasks.store.probe",
};

/**
 * Runs `run`, store `store`'s `operation`, seen: a child span with the store's
 * kind (and what `note` sets on it) inside a span of this package, failed
 * with the error's code (`store/conflict` for a lost race), its outcome and
 * time told to the observers (`conflict`: a lost race, not a failure).
 *
 * @example
 * const length = await storeOperation(store, "append", () => store.append(chatId, entries, log.length), (span) => span.set("oda_tasks.store.retry_count", 2));
 */
export function storeOperation<T>(
  store: object,
  operation: StoreOperation,
  run: () => Promise<T>,
  note?: (span: SpanHandle) => void,
): Promise<T> {
  const started = observed() ? performance.now() : -1;
  const traced = inLeafSpan(
    NAMES[operation],
    () => ({ "oda_tasks.store.kind": storeKind(store) }),
    (span) => {
      if (span !== null) note?.(span);
      return run();
    },
  );
  return started < 0 ? traced : measured(store, operation, started, traced);
}

/** `operation` of `store` (begun at `started`) told to the observers once it settles: its outcome and time. */
async function measured<T>(store: object, operation: StoreOperation, started: number, running: Promise<T>): Promise<T> {
  let outcome: StoreOutcome = "error";
  try {
    const value = await running;
    outcome = "ok";
    return value;
  } catch (e) {
    if (typeof e === "object" && e !== null && (e as { code?: unknown }).code === "store/conflict") outcome = "conflict";
    throw e;
  } finally {
    tell("storeOperation", storeKind(store), operation, outcome, (performance.now() - started) / 1000);
  }
}
