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
