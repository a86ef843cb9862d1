// IndexedDbStore over fake-indexeddb: the Store contract (with and without
// Web Locks), the database layout, and the lock it takes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { IDBCursor, IDBFactory, IDBKeyRange, IDBObjectStore } from "fake-indexeddb";
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

test("IndexedDbStore: the layout is chats (id → { length, epoch, created }, indexed on created) and entries ([id, index] → entry)", async () => {
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
    assert.equal(db.version, 2);
    const tx = db.transaction(["chats", "entries"], "readonly");
    assert.deepEqual([...tx.objectStore("chats").indexNames], ["created"]);
    assert.equal(tx.objectStore("chats").index("created").keyPath, "created");
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
        ["created", "epoch", "length"],
        ["created", "epoch", "length"],
      ],
    );
    assert.deepEqual(
      records.map((r) => r.created),
      [1, 2],
      "each chat's place in the order of creation",
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

/** Opens database `name` of `indexedDB` at `version` (creating `stores` on an upgrade); resolves to the connection. */
function rawOpen(indexedDB, name, version, stores = []) {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name, version);
    request.onupgradeneeded = () => stores.forEach((s) => request.result.createObjectStore(s));
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** Runs `fill(tx)` in one read-write transaction over `stores` of `db`. */
function rawWrite(db, stores, fill) {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(stores, "readwrite");
    fill(tx);
    tx.oncomplete = resolve;
    tx.onerror = () => reject(tx.error);
  });
}

/** Everything database `name` holds: its version, indexes and records. */
async function dump(indexedDB, name) {
  const db = await rawOpen(indexedDB, name);
  try {
    const tx = db.transaction([...db.objectStoreNames], "readonly");
    const all = (store, method) =>
      new Promise((resolve) => {
        const request = tx.objectStore(store)[method]();
        request.onsuccess = () => resolve(request.result);
      });
    const out = { version: db.version, stores: [...db.objectStoreNames] };
    for (const store of db.objectStoreNames) {
      out[store] = {
        keys: await all(store, "getAllKeys"),
        values: await all(store, "getAll"),
        indexes: [...tx.objectStore(store).indexNames],
      };
    }
    return out;
  } finally {
    db.close();
  }
}

test("IndexedDbStore: a database of version 1 is upgraded: its chats get creation numbers (in the order of their ids) and its index, and list, delete and a new chat work", async () => {
  const indexedDB = new IDBFactory();
  // What version 1 of the store wrote: chats (id → { length, epoch }) and entries, no index.
  const old = await rawOpen(indexedDB, "v1", 1, ["chats", "entries"]);
  await rawWrite(old, ["chats", "entries"], (tx) => {
    tx.objectStore("chats").put({ length: 2, epoch: "aaaaaaaaaaaaaaaaaaaaaaaa" }, "b");
    tx.objectStore("chats").put({ length: 1 }, "a"); // made before epochs
    tx.objectStore("entries").put({ type: "session", chatId: "b" }, ["b", 0]);
    tx.objectStore("entries").put({ type: "x" }, ["b", 1]);
    tx.objectStore("entries").put({ type: "session", chatId: "a" }, ["a", 0]);
  });
  old.close();
  const store = new IndexedDbStore("v1", { indexedDB, IDBKeyRange, locks: null });
  const mark = (await store.readSince("b", 0, null)).mark;
  assert.equal(mark, "i1:aaaaaaaaaaaaaaaaaaaaaaaa", "the chat's epoch is kept");
  assert.deepEqual(await store.list(), {
    chats: [
      { chatId: "b", first: { type: "session", chatId: "b" } },
      { chatId: "a", first: { type: "session", chatId: "a" } },
    ],
    next: null,
  });
  assert.equal(await store.create("c", [{ type: "session", chatId: "c" }]), true);
  assert.deepEqual(
    (await store.list()).chats.map((c) => c.chatId),
    ["c", "b", "a"],
    "a chat made after the upgrade comes first",
  );
  assert.equal(await store.delete("b"), true);
  assert.deepEqual(
    (await store.list()).chats.map((c) => c.chatId),
    ["c", "a"],
  );
  assert.equal(await store.append("a", [{ type: "y" }], 1), 2);
  store.close();
  const after = await dump(indexedDB, "v1");
  assert.equal(after.version, 2);
  assert.deepEqual(after.chats.indexes, ["created"]);
  assert.deepEqual(after.chats.keys, ["a", "c"]);
  assert.deepEqual(
    after.chats.values.map((r) => r.created),
    [1, 3],
    "a and b numbered 1 and 2 in the order of their ids; c made after them",
  );
  assert.deepEqual(after.entries.keys, [
    ["a", 0],
    ["a", 1],
    ["c", 0],
  ]);
});

test("IndexedDbStore: another app's database of version 1 is neither upgraded nor written: store/incompatible, its version kept", async () => {
  const indexedDB = new IDBFactory();
  const notes = await rawOpen(indexedDB, "notes", 1, ["notes"]);
  notes.close();
  const store = new IndexedDbStore("notes", { indexedDB, IDBKeyRange, locks: null });
  for (const call of [() => store.read("c"), () => store.list(), () => store.delete("c")]) {
    await assert.rejects(call(), {
      name: "StoreError",
      code: "store/incompatible",
      message:
        'IndexedDB "notes" was not made by this store: it holds the object stores "notes", not "chats" and "entries" (another app uses that name); give IndexedDbStore another name',
    });
  }
  const found = await dump(indexedDB, "notes");
  assert.equal(found.version, 1, "the other app's database keeps its version");
  assert.deepEqual(found.stores, ["notes"]);
});

test("IndexedDbStore: a database at this store's version without its index (another app's) is store/incompatible", async () => {
  const indexedDB = new IDBFactory();
  const other = await rawOpen(indexedDB, "other-v2", 2, ["chats", "entries"]);
  other.close();
  const store = new IndexedDbStore("other-v2", { indexedDB, IDBKeyRange, locks: null });
  await assert.rejects(store.list(), {
    code: "store/incompatible",
    message:
      'IndexedDB "other-v2" is at version 2 without the index "created" of "chats" that this store makes (another app made it at that version); give IndexedDbStore another name',
  });
});

test("IndexedDbStore: delete leaves nothing of the chat in the database, and its creation number goes with it", async () => {
  const indexedDB = new IDBFactory();
  const store = new IndexedDbStore("clean", { indexedDB, IDBKeyRange, locks: null });
  await store.create("c", [{ type: "session" }, { type: "a" }]);
  await store.create("c.s1", [{ type: "session" }]);
  await store.create("d", [{ type: "session" }]);
  assert.equal(await store.delete("c"), true);
  store.close();
  const left = await dump(indexedDB, "clean");
  assert.deepEqual(left.chats.keys, ["c.s1", "d"]);
  assert.deepEqual(left.entries.keys, [
    ["c.s1", 0],
    ["d", 0],
  ]);
});

test("IndexedDbStore: a listing without a prefix reads its page from the index, never every chat's record; with one, only the prefix's", async () => {
  const indexedDB = new IDBFactory();
  const store = new IndexedDbStore("paged", { indexedDB, IDBKeyRange, locks: null });
  for (let i = 0; i < 120; i++) await store.create(`${i < 100 ? "a" : "b"}${String(i).padStart(3, "0")}`, [{ type: "session" }]);
  // Count what the listings read: every record a getAll answers, every step of a cursor.
  const read = { records: 0, steps: 0 };
  const getAll = IDBObjectStore.prototype.getAll;
  const advance = IDBCursor.prototype.continue;
  IDBObjectStore.prototype.getAll = function (...args) {
    const request = getAll.apply(this, args);
    request.addEventListener("success", () => (read.records += request.result.length));
    return request;
  };
  IDBCursor.prototype.continue = function (...args) {
    read.steps++;
    return advance.apply(this, args);
  };
  try {
    const first = await store.list({ limit: 10 });
    assert.deepEqual(first.chats[0].chatId, "b119");
    const second = await store.list({ limit: 10, cursor: first.next });
    assert.deepEqual(second.chats[0].chatId, "b109");
    assert.deepEqual(
      read,
      { records: 0, steps: 20 },
      "two pages of 10: 10 steps of the index each (to the 11th chat, which says there is more), no record besides",
    );
    const prefixed = await store.list({ prefix: "b", limit: 5 });
    assert.deepEqual(
      prefixed.chats.map((c) => c.chatId),
      ["b119", "b118", "b117", "b116", "b115"],
    );
    assert.equal(read.records, 20, "the prefix's 20 records, not the other 100");
  } finally {
    IDBObjectStore.prototype.getAll = getAll;
    IDBCursor.prototype.continue = advance;
    store.close();
  }
});

test("IndexedDbStore: the feed tells a chat's deletion in this tab, and a chat made again, with its own lengths", async () => {
  const indexedDB = new IDBFactory();
  const a = new IndexedDbStore("fed", { indexedDB, IDBKeyRange, locks: null });
  const b = new IndexedDbStore("fed", { indexedDB, IDBKeyRange, locks: null });
  await a.create("c", [{ type: "session" }, { type: "x" }]);
  // Watched once the chat exists: its deletion is still told.
  const heard = [];
  const stop = b.watch("c", (length) => heard.push(length));
  try {
    assert.equal(await a.delete("c"), true);
    assert.deepEqual(heard, [0], "told before delete resolves");
    assert.equal(await a.delete("c"), false);
    assert.equal(await b.create("c", [{ type: "session" }]), true);
    assert.equal(await a.append("c", [{ type: "x" }], 1), 2);
    assert.deepEqual(heard, [0, 1, 2]);
  } finally {
    stop();
    a.close();
    b.close();
  }
});
