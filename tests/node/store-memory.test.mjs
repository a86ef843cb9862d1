// MemoryStore against the packaged Store contract (oda-tasks/testing).
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryStore, ConflictError } from "oda-tasks";
import { storeContract } from "oda-tasks/testing";

// A MemoryStore's data lives in the object, so "reopen" does not apply.
storeContract({ name: "MemoryStore", makeStore: () => new MemoryStore(), test });

test("MemoryStore: two stores share nothing", async () => {
  const a = new MemoryStore();
  const b = new MemoryStore();
  await a.create("c", [{ type: "session" }]);
  assert.equal(await b.read("c"), null);
  assert.equal(await b.create("c", []), true);
});

test("MemoryStore: a conditional append checks and writes in one step", async () => {
  const store = new MemoryStore();
  await store.create("c", []);
  // Started in the same tick: if anything were awaited between the check and
  // the write, more than one would see length 0.
  const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => store.append("c", [{ type: "x", i }], 0)));
  assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
  assert.ok(results.every((r) => r.status === "fulfilled" || r.reason instanceof ConflictError));
  assert.equal((await store.read("c")).length, 1);
});

test("storeContract refuses options it does not know or cannot use, before registering any test", async () => {
  const { storeContract } = await import("oda-tasks/testing");
  const registered = [];
  const collect = (name) => registered.push(name);
  for (const [options, message] of [
    [{ test: collect }, "oda-tasks: invalid arguments of storeContract: `makeStore` must be a function (got undefined)"],
    [{ makeStore: () => new MemoryStore() }, "oda-tasks: invalid arguments of storeContract: `test` must be a function (got undefined)"],
    [
      { makeStore: () => new MemoryStore(), test: collect, reopen: true },
      "oda-tasks: invalid arguments of storeContract: `reopen` must be a function (got true)",
    ],
    [
      { makeStore: () => new MemoryStore(), test: collect, only: true },
      "oda-tasks: invalid arguments of storeContract: unknown option `only`",
    ],
  ]) {
    assert.throws(() => storeContract(options), { name: "TypeError", message });
  }
  assert.deepEqual(registered, []);
  storeContract({ name: "collected", makeStore: () => new MemoryStore(), test: collect });
  assert.ok(registered.length >= 16 && registered.every((name) => name.startsWith("collected: ")), registered.join("\n"));
  assert.ok(!registered.some((name) => name.includes("reopen")), "without reopen, no test needs a second store object");
});

test("storeContract's watch checks fail a feed that hears twice, never stops, leaks other chats, or lets a throw through", async () => {
  /** Runs the contract's watch tests over `makeStore`; answers each test's title and error (or null). */
  const outcomes = async (makeStore) => {
    const tests = [];
    storeContract({ name: "broken", makeStore, test: (title, fn) => tests.push({ title, fn }) });
    const out = {};
    for (const { title, fn } of tests.filter((t) => t.title.includes("watch"))) {
      out[title.replace("broken: ", "")] = await fn().then(
        () => null,
        (e) => e,
      );
    }
    return out;
  };
  /** A MemoryStore whose watch hands each notice to `deliver(listener, chatId, length)`, and whose stop is `stopper(stop)`. */
  const broken = ({ deliver, stopper = (stop) => stop }) => {
    const store = new MemoryStore();
    const watchers = new Set();
    const notify = (chatId, length) => {
      for (const w of [...watchers]) deliver(w, chatId, length);
    };
    const { append, create, delete: remove } = store;
    store.append = async (chatId, entries, expected) => {
      const length = await append.call(store, chatId, entries, expected);
      if (entries.length > 0) notify(chatId, length);
      return length;
    };
    store.create = async (chatId, entries) => {
      const made = await create.call(store, chatId, entries);
      if (made) notify(chatId, entries.length);
      return made;
    };
    store.delete = async (chatId) => {
      const deleted = await remove.call(store, chatId);
      if (deleted) notify(chatId, 0);
      return deleted;
    };
    store.watch = (chatId, onChange) => {
      store.read(chatId).catch(() => undefined);
      if (typeof onChange !== "function") throw new TypeError("oda-tasks: onChange must be a function");
      const w = { chatId, onChange };
      watchers.add(w);
      return stopper(() => watchers.delete(w));
    };
    // Bad ids: as the real store refuses them (the checks under test here are the feed's).
    const real = new MemoryStore();
    const watch = store.watch;
    store.watch = (chatId, onChange) => {
      real.watch(chatId, () => undefined)();
      return watch(chatId, onChange);
    };
    return store;
  };
  const failing = async (deliver, stopper) =>
    Object.keys(Object.fromEntries(Object.entries(await outcomes(() => broken({ deliver, stopper }))).filter(([, e]) => e !== null)));
  const ok = (w, chatId, length) => {
    try {
      if (w.chatId === chatId) w.onChange(length);
    } catch {}
  };
  // Each store of its own, all at once: a broken feed's checks wait out their time to hear.
  const [good, correct, twice, leaky, unstoppable, throwing] = await Promise.all([
    outcomes(() => new MemoryStore()),
    failing(ok),
    failing((w, chatId, length) => {
      ok(w, chatId, length);
      ok(w, chatId, length);
    }),
    failing((w, _chatId, length) => ok(w, w.chatId, length)),
    failing(ok, () => () => undefined),
    failing((w, chatId, length) => {
      if (w.chatId === chatId) w.onChange(length); // a listener's throw reaches the write
    }),
  ]);
  assert.ok(Object.keys(good).length >= 5);
  assert.deepEqual(
    Object.values(good),
    Object.values(good).map(() => null),
    "MemoryStore passes every watch test",
  );
  assert.deepEqual(correct, [], "the wrapper itself is a correct feed");
  assert.ok(
    twice.some((t) => t.includes("heard once")),
    twice.join("\n"),
  );
  assert.ok(
    leaky.some((t) => t.includes("no other chat")),
    leaky.join("\n"),
  );
  assert.ok(
    unstoppable.some((t) => t.includes("stop really stops")),
    unstoppable.join("\n"),
  );
  assert.ok(
    throwing.some((t) => t.includes("throws")),
    throwing.join("\n"),
  );
});

test("storeContract's notice check fails a feed that trusts the length an outside message claims, and passes one that reads it back", async () => {
  /** A MemoryStore with a feed of its own; `hear(chatId, claimed)` is an outside message, trusted or read back. */
  const withFeed = (trusting) => {
    const store = new MemoryStore();
    const known = new Map();
    const listeners = new Map();
    const tell = (chatId, length) => {
      // The trusting feed keeps "lengths only grow": a claimed 999999 drops every later length.
      if (trusting ? length <= (known.get(chatId) ?? -1) : length === known.get(chatId)) return;
      known.set(chatId, length);
      for (const listener of [...(listeners.get(chatId) ?? [])]) {
        try {
          listener(length);
        } catch {}
      }
    };
    const { append, create } = store;
    store.append = async (chatId, entries, expected) => {
      const length = await append.call(store, chatId, entries, expected);
      if (entries.length > 0) tell(chatId, length);
      return length;
    };
    store.create = async (chatId, entries) => {
      const made = await create.call(store, chatId, entries);
      if (made) tell(chatId, entries.length);
      return made;
    };
    store.watch = (chatId, onChange) => {
      new MemoryStore().watch(chatId, onChange)(); // the real checks of the id and the listener
      const set = listeners.get(chatId) ?? new Set();
      listeners.set(chatId, set);
      const entry = (length) => onChange(length);
      set.add(entry);
      return () => set.delete(entry);
    };
    store.hear = async (chatId, claimed) => {
      if (trusting) {
        if (Number.isSafeInteger(claimed)) tell(chatId, claimed);
        return;
      }
      const log = await store.read(chatId);
      if (log !== null) tell(chatId, log.length);
    };
    return store;
  };
  const outcome = async (trusting) => {
    const tests = [];
    storeContract({
      name: "fed",
      makeStore: () => withFeed(trusting),
      test: (title, fn) => tests.push({ title, fn }),
      notice: (store, chatId, length) => store.hear(chatId, length),
    });
    const hint = tests.filter((t) => t.title.includes("is a hint"));
    assert.equal(hint.length, 1);
    return hint[0].fn().then(
      () => null,
      (e) => e,
    );
  };
  assert.equal(await outcome(false), null, "a feed that reads the length back passes");
  const failed = await outcome(true);
  assert.ok(failed instanceof Error, "a feed that trusts the claimed length fails");
  assert.match(failed.message, /heard|only lengths/);
});

test("storeContract's delete and list checks fail stores that break them, and pass MemoryStore", async () => {
  /** Runs the contract's delete and list tests (those whose title holds `only`) over `makeStore`; answers each failing test's title (without the name). */
  const failing = async (makeStore, only = "") => {
    const tests = [];
    storeContract({ name: "broken", makeStore, test: (title, fn) => tests.push({ title, fn }) });
    const failed = [];
    for (const { title, fn } of tests.filter((t) => /delete|list/.test(t.title) && t.title.includes(only))) {
      if (
        (await fn().then(
          () => null,
          (e) => e,
        )) !== null
      )
        failed.push(title.replace("broken: ", ""));
    }
    return failed;
  };
  /** A MemoryStore with some of its methods replaced: `change(real)` answers the replacements. */
  const broken = (change) => () => {
    const real = new MemoryStore();
    const store = new MemoryStore();
    for (const method of ["read", "readFrom", "readTextFrom", "readSince", "append", "create", "watch", "delete", "list"]) {
      store[method] = real[method].bind(real);
    }
    return Object.assign(store, change(real));
  };
  assert.deepEqual(await failing(() => new MemoryStore()), [], "MemoryStore passes every delete and list test");
  const cases = {
    "a delete that says true for a chat that is not there": [
      (real) => ({ delete: async (id) => (await real.delete(id)) || true }),
      "true when it existed, false when not",
    ],
    "a delete whose chat comes back with its old entries when made again": [
      (real) => {
        const kept = new Map();
        return {
          delete: async (id) => {
            kept.set(id, await real.read(id));
            return real.delete(id);
          },
          create: async (id, entries) => real.create(id, [...(kept.get(id) ?? []), ...entries]),
        };
      },
      "a chat created again under the id is a new chat",
    ],
    "a readSince whose mark stays the same for a chat made again": [
      (real) => ({
        readSince: async (id, from) =>
          (await real.readSince(id, from, null)) === null ? null : { texts: await real.readTextFrom(id, from), mark: "same" },
      }),
      "a mark taken of the old one is store/replaced",
    ],
    "an append that makes a deleted chat again": [
      (real) => ({
        append: async (id, entries, expected) => {
          if ((await real.read(id)) === null) await real.create(id, []);
          return real.append(id, entries, expected);
        },
      }),
      "none brings back part of the chat",
    ],
    "a feed that tells no deletion": [
      (real) => ({ watch: (id, onChange) => real.watch(id, (length) => length !== 0 && onChange(length)) }),
      "watchers hear 0",
    ],
    "a listing oldest first": [
      (real) => ({
        list: async (options) => {
          const page = await real.list(options);
          return { ...page, chats: page.chats.reverse() };
        },
      }),
      "newest first by creation",
    ],
    "a listing by id": [
      (real) => ({
        list: async (options) => {
          const page = await real.list(options);
          return { ...page, chats: page.chats.sort((a, b) => (a.chatId < b.chatId ? -1 : 1)) };
        },
      }),
      "newest first by creation",
    ],
    "a listing that ignores the prefix": [
      (real) => ({ list: (options) => real.list({ ...options, prefix: undefined }) }),
      "prefix keeps the ids",
    ],
    "a listing whose entries are shared, not copies": [
      (real) => {
        const firsts = new Map();
        return {
          list: async (options) => {
            const page = await real.list(options);
            for (const chat of page.chats) {
              if (!firsts.has(chat.chatId)) firsts.set(chat.chatId, chat.first);
              chat.first = firsts.get(chat.chatId);
            }
            return page;
          },
        };
      },
      "each with its first entry",
    ],
    "a listing that pages by offset": [
      (real) => ({
        list: async ({ limit = 50, cursor = null, ...rest } = {}) => {
          const all = (await real.list({ ...rest, limit: 1000 })).chats;
          const from = cursor === null ? 0 : Number(cursor);
          return { chats: all.slice(from, from + limit), next: from + limit < all.length ? String(from + limit) : null };
        },
      }),
      "paging is stable",
    ],
    "a listing that takes any cursor for the first page": [
      (real) => ({
        list: (options) =>
          real.list(options).catch((e) => (e.code === "store/bad-cursor" ? real.list({ ...options, cursor: null }) : Promise.reject(e))),
      }),
      "a cursor the store did not make",
    ],
    "a listing with an empty page after the last chat": [
      (real) => ({
        list: async (options) => {
          if (options?.cursor === "end") return { chats: [], next: null };
          const page = await real.list(options);
          return page.next === null && page.chats.length === (options?.limit ?? 50) ? { ...page, next: "end" } : page;
        },
      }),
      "next is null after the last",
    ],
    "a listing that lets options through unchecked": [
      (real) => ({
        list: (options) =>
          real.list(
            typeof options === "object" && options !== null ? { prefix: typeof options.prefix === "string" ? options.prefix : "" } : {},
          ),
      }),
      "bad options are an oda-tasks: TypeError",
    ],
    "a listing that still shows a deleted chat": [
      (real) => {
        const gone = [];
        return {
          delete: async (id) => {
            const deleted = await real.delete(id);
            if (deleted) gone.push({ chatId: id, first: null });
            return deleted;
          },
          list: async (options) => {
            const page = await real.list(options);
            return { ...page, chats: [...page.chats, ...gone.filter((g) => !page.chats.some((c) => c.chatId === g.chatId))] };
          },
        };
      },
      "a deleted chat leaves the listing",
    ],
  };
  // Each case's store of its own, all at once.
  const results = await Promise.all(Object.values(cases).map(([change, expected]) => failing(broken(change), expected)));
  for (const [i, [what, [, expected]]] of Object.entries(cases).entries()) {
    // The test that checks the rule, alone: a store that keeps the rule passes it (MemoryStore above).
    const failed = results[i];
    assert.ok(
      failed.some((title) => title.includes(expected)),
      `${what}: expected a failure of "${expected}", got ${JSON.stringify(failed)}`,
    );
  }
});
