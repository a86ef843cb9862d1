// Options are checked before anything is written, read as own properties
// only: an ill-typed or unknown option of any entry point is an `oda-tasks:`
// TypeError and the chat's log is as it was; a polluted Object.prototype
// supplies no option.
import { test } from "node:test";
import assert from "node:assert/strict";
import { indexedDB, IDBKeyRange } from "fake-indexeddb";
import { ChatStateCache, createChat, MemoryStore, runTool } from "oda-tasks";
import { IndexedDbStore } from "oda-tasks/browser";
import { aiTurn } from "oda-tasks/ai";

const isOptionError = (e) => e instanceof TypeError && e.message.startsWith("oda-tasks: ");

async function chat() {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  return store;
}

test("aiTurn with a bad everyTurns or maxInputLength rejects before its turn is written", async () => {
  for (const bad of [
    { everyTurns: 0 },
    { everyTurns: "3" },
    { everyTurns: 1.5 },
    { everyTurns: -2 },
    { maxInputLength: -1 },
    { maxInputLength: "big" },
    { oneActive: "no" },
    { remind: "sometimes" },
    { cache: {} },
    { bogus: true },
  ]) {
    const store = await chat();
    let called = false;
    await assert.rejects(
      aiTurn({ store, chatId: "c", ...bad }, () => (called = true)),
      isOptionError,
      JSON.stringify(bad),
    );
    assert.equal(called, false, JSON.stringify(bad));
    assert.deepEqual(
      (await store.read("c")).map((e) => e.type),
      ["session"],
      `${JSON.stringify(bad)}: nothing written`,
    );
  }
});

test("runTool reads no option through Object.prototype: a polluted oneActive or maxInputLength changes nothing", async (t) => {
  const store = await chat();
  const two = {
    todos: [
      { content: "a", status: "in_progress" },
      { content: "b", status: "in_progress" },
    ],
  };
  const big = { todos: [{ content: "x".repeat(3 * (1 << 20)), status: "pending" }] };
  t.after(() => {
    delete Object.prototype.oneActive;
    delete Object.prototype.maxInputLength;
  });
  Object.prototype.oneActive = false;
  Object.prototype.maxInputLength = 1 << 30;
  for (const options of [undefined, null, {}]) {
    const r = await runTool(store, "c", { name: "todo_write", input: two }, options);
    assert.deepEqual(r, { ok: false, error: "Error: invalid todos: at most one task may be in_progress (got 2)" }, String(options));
    const long = await runTool(store, "c", { name: "todo_write", input: big }, options);
    assert.equal(long.ok, false, String(options));
    assert.match(long.error, /longer than|at most|too long|1048576/i);
  }
  assert.deepEqual(
    (await store.read("c")).map((e) => e.type),
    ["session"],
  );
});

test("runTool with an ill-typed option refuses before anything is written", async () => {
  for (const bad of [{ oneActive: "no" }, { maxInputLength: 1.5 }, { maxInputLength: -1 }, { cache: 5 }, { oneactive: false }]) {
    const store = await chat();
    await assert.rejects(runTool(store, "c", { name: "todo_write", input: { todos: [] } }, bad), isOptionError, JSON.stringify(bad));
    assert.deepEqual(
      (await store.read("c")).map((e) => e.type),
      ["session"],
    );
  }
});

test("IndexedDbStore and ChatStateCache refuse unknown and ill-typed options", () => {
  const idb = { indexedDB, IDBKeyRange };
  for (const bad of [{ bogus: 1 }, { locks: 5 }, { openTimeout: "soon" }, { openTimeout: 0 }, { indexedDB: "db" }]) {
    assert.throws(() => new IndexedDbStore("x", { ...idb, ...bad }), isOptionError, JSON.stringify(bad));
  }
  assert.throws(() => new IndexedDbStore("x", [idb]), isOptionError);
  const store = new MemoryStore();
  for (const bad of [{ bogus: 1 }, { size: 0 }, { size: "8" }, { Size: 8 }]) {
    assert.throws(() => new ChatStateCache(store, bad), isOptionError, JSON.stringify(bad));
  }
  assert.throws(() => new ChatStateCache(store, 8), isOptionError);
});
