// The one retry delay of the host layer: the file lock's waiters and the
// PostgreSQL store's retries both wait by it.

/**
 * How a retry loop spaces its tries: `first` ms, times `factor` per try, at
 * most `max`; with `jitter`, spread evenly over half to one and a half of
 * that, so that waiters started together do not stay in step.
 *
 * @example
 * const lockBackoff: Backoff = { first: 2, factor: 1.5, max: 50, jitter: true };
 */
export interface Backoff {
  first: number;
  factor: number;
  max: number;
  jitter: boolean;
}

/**
 * The delay before retry number `retry` (0 for the first retry).
 *
 * @example
 * backoffDelay({ first: 25, factor: 2, max: 1000, jitter: false }, 2); // 100
 */
export function backoffDelay(backoff: Backoff, retry: number): number {
  const base = Math.min(backoff.first * backoff.factor ** retry, backoff.max);
  return backoff.jitter ? base / 2 + Math.random() * base : base;
}

/**
 * Resolves after `ms` milliseconds.
 *
 * @example
 * for (let attempt = 0; attempt < 3; attempt++) await sleep(backoffDelay({ first: 25, factor: 2, max: 1000, jitter: true }, attempt));
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
