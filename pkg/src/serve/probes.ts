// `/livez` and `/readyz`: alive while the process runs, touching nothing; ready
// while the store answers a bounded probe and the server is not draining.
// From SIGTERM on, `/readyz` answers 503 so a load balancer takes the
// instance out before it stops; other requests are served as before.
import { failure, json } from "../integrations/http/replies.js";
import type { Store } from "../stores/store.js";
import { storeOperation } from "../telemetry/store-ops.js";

/** How long the store's probe may take before the answer is 503. */
export const PROBE_MS = 1000;

/**
 * Whether a `serve` takes traffic: its store answers and it is not draining.
 *
 * @example
 * const readiness = new Readiness(store);
 * process.once("SIGTERM", () => readiness.drain());
 * const response = await readiness.answer(); // 200, or 503 once draining
 */
export class Readiness {
  readonly #store: Store;
  readonly #probeMs: number;
  #draining = false;
  /** The probe under way: requests meanwhile share it, so a store that hangs holds one probe, not one per request. */
  #probe: Promise<boolean> | null = null;

  constructor(store: Store, probeMs = PROBE_MS) {
    this.#store = store;
    this.#probeMs = probeMs;
  }

  /** From now on `/readyz` answers 503. */
  drain(): void {
    this.#draining = true;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** `/readyz`'s answer: 200 `{ ok: true }`, or 503 `http/unavailable` saying why. */
  async answer(): Promise<Response> {
    if (this.#draining) return failure(503, "http/unavailable", "the server is stopping", { "retry-after": "1" });
    if (await this.#probeOnce()) return json(200, { ok: true });
    return failure(503, "http/unavailable", "the store does not answer", { "retry-after": "1" });
  }

  #probeOnce(): Promise<boolean> {
    this.#probe ??= this.#probeStore().finally(() => {
      this.#probe = null;
    });
    return this.#probe;
  }

  /** A page of one chat (a folder listed, a query run), or a read where the store cannot list: `true` if it answers within the bound. */
  async #probeStore(): Promise<boolean> {
    const store = this.#store;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.#probeMs);
    });
    const asked = storeOperation(store, "probe", async () => {
      if (typeof store.list === "function") await store.list({ limit: 1 });
      else await store.read("oda-tasks-readiness-probe");
    }).then(
      () => true,
      () => false,
    );
    try {
      return await Promise.race([asked, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * `/livez`'s answer: 200 while the process runs (it asks nothing of the store).
 *
 * @example
 * const answer: Response = alive(); // 200 {"ok":true}
 */
export function alive(): Response {
  return json(200, { ok: true });
}
