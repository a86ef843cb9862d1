// IndexedDbStore (over fake-indexeddb) against what a browser hands it: a
// transaction that aborts half-way, and a database deleted and filled again by
// another tab under a warm state. JsonlStore's faults are in
// store-jsonl-faults.test.mjs; the contract in real Chromium is store-idb-browser.
import { test } from "node:test";
import assert from "node:assert/strict";
import { IDBFactory, IDBKeyRange, IDBObjectStore } from "fake-indexeddb";
import { runTool } from "oda-tasks";
import { IndexedDbStore } from "oda-tasks/browser";
import { abortThirdPut } from "./support/idb-faults.mjs";
import { HELLO, HELPER, OPEN_TURN, SUGGEST, TODO, TOP, freshDecision } from "./support/warm-state.mjs";

const a = { type: "a", text: "é ✓ 😀" };
const b = { type: "b" };
const c = { type: "c", n: 3 };
const d = { type: "d" };

test("IndexedDbStore: a transaction that aborts half-way leaves the chat as it was", async () => {
  const store = new IndexedDbStore("aborts", { indexedDB: new IDBFactory(), IDBKeyRange, locks: null });
  await store.create("c", [a, b]);
  const faults = abortThirdPut(IDBObjectStore);
  try {
    await assert.rejects(store.append("c", [c, d, c, d], 2), { message: "oda-tasks: IndexedDB transaction aborted" });
    faults.again();
    await assert.rejects(store.create("e", [a, b, c]), { message: "oda-tasks: IndexedDB transaction aborted" });
  } finally {
    faults.restore();
  }
  assert.deepEqual(await store.read("c"), [a, b]);
  assert.deepEqual(await store.readFrom("c", 2), []);
  assert.equal(await store.read("e"), null);
  assert.equal(await store.append("c", [c], 2), 3, "the length is still 2");
  assert.equal(await store.create("e", [a]), true);
  assert.deepEqual(await store.read("c"), [a, b, c]);
  store.close();
});

test("a warm IndexedDB state notices the database was deleted and the chat imported again in another tab", async () => {
  const indexedDB = new IDBFactory();
  const tab1 = new IndexedDbStore("app", { indexedDB, IDBKeyRange, locks: null });
  await tab1.create("c", [TOP, OPEN_TURN]);
  assert.equal((await runTool(tab1, "c", TODO)).ok, true, "warm in tab 1");
  const tab2 = new IndexedDbStore("app", { indexedDB, IDBKeyRange, locks: null });
  await new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase("app"); // tab 1's connection closes on versionchange
    request.onsuccess = resolve;
    request.onerror = () => reject(request.error);
  });
  assert.equal(await tab2.create("c", [HELPER, OPEN_TURN, HELLO, HELLO]), true, "imported again, now a helper's chat");
  const expected = await freshDecision(tab1, "c", SUGGEST);
  assert.equal(expected.ok, false);
  assert.deepEqual(await runTool(tab1, "c", SUGGEST), expected);
  assert.equal((await tab2.read("c")).length, 4, "nothing recorded");
  tab1.close();
  tab2.close();
});
