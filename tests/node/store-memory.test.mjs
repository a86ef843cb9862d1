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
