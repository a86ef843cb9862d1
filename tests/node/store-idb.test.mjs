// IndexedDbStore over fake-indexeddb: the Store contract (with and without
// Web Locks), the database layout, and the lock it takes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { IndexedDbStore } from "oda-tasks/browser";
import { contractOver } from "./support/contract.mjs";

/** A stand-in for `navigator.locks`: exclusive per name, and it records every request. */
function fakeLocks() {
  const tails = new Map();
  const names = [];
  let active = 0;
  let maxActive = 0;
  return {
    names,
    get maxActive() {
      return maxActive;
    },
    request(name, callback) {
      names.push(name);
      const run = (tails.get(name) ?? Promise.resolve()).then(async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        try {
          return await callback({ name, mode: "exclusive" });
        } finally {
          active--;
        }
      });
      tails.set(
        name,
        run.catch(() => {}),
      );
      return run;
    },
  };
}

let counter = 0;
function idbSetup(locks) {
  return () => {
    // A fresh factory is a fresh browser profile; the name is unique anyway.
    const indexedDB = new IDBFactory();
    const name = `db-${++counter}`;
    // One lock manager per "browser", shared by its tabs (the store objects).
    const lockManager = locks?.() ?? null;
    const opened = [];
    return {
      open: () => {
        const store = new IndexedDbStore(name, { indexedDB, IDBKeyRange, locks: lockManager });
        opened.push(store);
        return store;
      },
      done: async () => opened.forEach((s) => s.close()),
    };
  };
}

contractOver("IndexedDbStore", idbSetup(null));
contractOver("IndexedDbStore with Web Locks", idbSetup(fakeLocks));

test("IndexedDbStore: the layout is chats (id → { length, epoch }) and entries ([id, index] → entry)", async () => {
  const indexedDB = new IDBFactory();
  const store = new IndexedDbStore("layout", { indexedDB, IDBKeyRange, locks: null });
  await store.create("c", [{ type: "session" }]);
  await store.append("c", [{ type: "a" }, { type: "b" }], 1);
  await store.create("d", [{ type: "other" }]);
  store.close();
  const db = await new Promise((resolve, reject) => {
    const request = indexedDB.open("layout");
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  try {
    assert.deepEqual([...db.objectStoreNames].sort(), ["chats", "entries"]);
    const tx = db.transaction(["chats", "entries"], "readonly");
    const all = (storeName, method) =>
      new Promise((resolve) => {
        const request = tx.objectStore(storeName)[method]();
        request.onsuccess = () => resolve(request.result);
      });
    assert.deepEqual(await all("chats", "getAllKeys"), ["c", "d"]);
    const records = await all("chats", "getAll");
    assert.deepEqual(
      records.map((r) => r.length),
      [3, 1],
    );
    for (const r of records) assert.match(r.epoch, /^[0-9a-f]{24}$/, "each chat has a random epoch, set when it is created");
    assert.notEqual(records[0].epoch, records[1].epoch);
    assert.deepEqual(
      records.map((r) => Object.keys(r).sort()),
      [
        ["epoch", "length"],
        ["epoch", "length"],
      ],
    );
    assert.deepEqual(await all("entries", "getAllKeys"), [
      ["c", 0],
      ["c", 1],
      ["c", 2],
      ["d", 0],
    ]);
    assert.deepEqual(await all("entries", "getAll"), [{ type: "session" }, { type: "a" }, { type: "b" }, { type: "other" }]);
  } finally {
    db.close();
  }
});

test("IndexedDbStore: writes take the Web Lock oda-tasks:<name>:<chatId>, one at a time", async () => {
  const locks = fakeLocks();
  const store = new IndexedDbStore("locked", { indexedDB: new IDBFactory(), IDBKeyRange, locks });
  await store.create("c", [{ type: "session" }]);
  await Promise.allSettled(Array.from({ length: 10 }, (_, i) => store.append("c", [{ type: "x", i }], 1)));
  await store.read("c");
  assert.deepEqual(locks.names, Array(11).fill("oda-tasks:locked:c"), "every write, and no read, takes the lock");
  assert.equal(locks.maxActive, 1);
  assert.equal((await store.read("c")).length, 2);
  store.close();
});

test("IndexedDbStore: two stores on one database (two tabs) append atomically", async () => {
  const indexedDB = new IDBFactory();
  // A "lock" that excludes nothing: the transaction alone must keep the
  // conditional append atomic.
  const noLock = { request: (_name, callback) => callback() };
  const tabs = [0, 1].map(() => new IndexedDbStore("tabs", { indexedDB, IDBKeyRange, locks: noLock }));
  await tabs[0].create("c", []);
  const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => tabs[i % 2].append("c", [{ type: "x", i }], 0)));
  assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
  assert.equal((await tabs[1].read("c")).length, 1);
  tabs.forEach((t) => t.close());
});

test("IndexedDbStore: with no IndexedDB it says what to pass", () => {
  assert.throws(() => new IndexedDbStore("x"), /pass options\.indexedDB/);
});

test("IndexedDbStore: a closed store reopens on next use; another connection can delete the database", async () => {
  const indexedDB = new IDBFactory();
  const store = new IndexedDbStore("closing", { indexedDB, IDBKeyRange, locks: null });
  await store.create("c", [{ type: "session" }]);
  store.close();
  assert.deepEqual(await store.read("c"), [{ type: "session" }]);
  // A deletion from elsewhere is not blocked by the open connection.
  await new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase("closing");
    request.onsuccess = resolve;
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new Error("blocked by the store's connection"));
  });
  assert.equal(await store.read("c"), null);
  store.close();
});
