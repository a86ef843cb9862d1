// Waiting for something another connection or process does, with a deadline.

/**
 * Calls `check` every `every` ms until it gives a truthy value, which it resolves to;
 * throws after `ms` ms naming `what`.
 *
 * @example
 * await until("the first read after listening", () => heard.length === 1);
 */
export async function until(what, check, ms = 10_000, every = 25) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
