// The packaged Store contract suite (oda-tasks/testing) over a test file's
// own set-up: `setup()` resolves to `{ open, done }`, `open()` a new store
// object over the same data each call, `done()` the clean-up after the test,
// and, with `notices`, `notice(chatId, length)` an out-of-band message on the
// store's own channel, sent from outside the store.
import { test } from "node:test";
import { storeContract } from "oda-tasks/testing";

export function contractOver(name, setup, { reopen = true, notices = false } = {}) {
  const contexts = new WeakMap(); // store → its test's set-up
  const opened = async (ctx) => {
    const store = await ctx.open();
    contexts.set(store, ctx);
    return store;
  };
  storeContract({
    name,
    test,
    makeStore: async () => {
      const ctx = await setup();
      const store = await opened(ctx);
      ctx.first = store;
      return store;
    },
    ...(reopen ? { reopen: (store) => opened(contexts.get(store)) } : {}),
    ...(notices ? { notice: (store, chatId, length) => contexts.get(store).notice(chatId, length) } : {}),
    // Called for the reopened stores first, then for the first one: the set-up ends with it.
    cleanup: async (store) => {
      const ctx = contexts.get(store);
      if (ctx.first === store) await ctx.done();
    },
  });
}
