// One queue per key inside one process or page: the stores run their own
// operations on a chat one at a time here, instead of contending for the
// cross-process (file) or cross-tab (Web Locks) lock with themselves.

const queues = new Map<string, Promise<void>>();

/**
 * Runs `fn` after every earlier call with the same key has finished.
 *
 * @example
 * await queued("chat-1", () => store.append("chat-1", [entry], log.length)); // after every earlier call for chat-1
 */
export async function queued<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const before = queues.get(key) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const tail = before.then(() => mine);
  queues.set(key, tail);
  await before;
  try {
    return await fn();
  } finally {
    done();
    if (queues.get(key) === tail) queues.delete(key);
  }
}
