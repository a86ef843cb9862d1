// A number JSON cannot hold (1e400, which JSON.parse makes Infinity) fails
// closed the same way whether the core reads the stored bytes or the entries
// parsed from them: never read as `null` (a `v` of 1, a field absent). A
// store given such an entry to write refuses it; nothing is written.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { indexedDB, IDBKeyRange } from "fake-indexeddb";
import { ChatState, createChat, MemoryStore, replayTodos, runTool, StoreError } from "oda-tasks";
import { JsonlStore } from "oda-tasks/node";
import { IndexedDbStore } from "oda-tasks/browser";

const session = { type: "session", v: 1, chatId: "c", workspace: "/w", scheduledTaskFolder: false, agent: "top-level" };
const lines = [
  JSON.stringify(session),
  '{"type":"turn_started"}',
  '{"type":"todo_update","v":1e400,"todos":[{"content":"from a bad version","status":"in_progress"}]}',
  '{"type":"todo_update","v":1,"todos":[{"content":"a","status":"pending"}],"at":-1e999}',
];
const bytes = Buffer.from(lines.join("\n") + "\n");

function fromBytes() {
  const state = ChatState.fromJsonl(bytes);
  try {
    return state.replayTodos().todos;
  } finally {
    state.free();
  }
}

test("replaying the parsed entries of a log with 1e400 gives what its bytes give: the entry is not read as v 1", () => {
  const parsed = lines.map((l) => JSON.parse(l));
  assert.equal(parsed[2].v, Infinity);
  const fromEntries = replayTodos(parsed);
  assert.deepEqual(fromBytes(), [{ content: "a", status: "pending" }], "the bytes: the 1e400 update skipped, the next one read");
  assert.deepEqual(fromEntries.todos, fromBytes());
  assert.deepEqual(
    fromEntries.skipped.map((s) => s.index),
    [2],
  );
  const state = ChatState.fromLog(parsed);
  try {
    assert.deepEqual(state.replayTodos().todos, fromBytes());
  } finally {
    state.free();
  }
});

test("JsonlStore: a stored line with 1e400 replays the same through read(), readTextFrom() and the tool's warm state", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "oda-numbers-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = new JsonlStore(dir);
  await createChat(store, "c", { workspace: "/w" });
  writeFileSync(join(dir, `${encodeURIComponent("c")}.jsonl`), bytes);
  const read = await store.read("c");
  const viaRead = replayTodos(read).todos;
  const texts = await store.readTextFrom("c", 0);
  const state = ChatState.empty();
  state.ingestTexts(0, texts);
  assert.deepEqual(viaRead, fromBytes());
  assert.deepEqual(state.replayTodos().todos, fromBytes());
  state.free();
  // The warm state runTool decides on reads the same log.
  const r = await runTool(store, "c", { name: "todo_write", input: { todos: [{ content: "next", status: "in_progress" }] } });
  assert.equal(r.output, "Updated todo list: 0 pending, 1 in progress, 0 completed");
  assert.deepEqual(
    replayTodos(await store.read("c"))
      .cards.at(-1)
      .changes.removed.map((x) => x.content),
    ["a"],
  );
});

test("IndexedDbStore keeps Infinity in its structured clones: readTextFrom hands it over as 1e400, so it fails closed too", async () => {
  const store = new IndexedDbStore(`numbers-${Date.now()}`, { indexedDB, IDBKeyRange, locks: null });
  await store.create("c", [session, { type: "turn_started" }]);
  // Another writer of the same database (an older app) stored Infinity.
  const db = await new Promise((resolve) => {
    const r = indexedDB.open(store.name);
    r.onsuccess = () => resolve(r.result);
  });
  await new Promise((resolve) => {
    const tx = db.transaction(["chats", "entries"], "readwrite");
    tx.objectStore("entries").put({ type: "todo_update", v: Infinity, todos: [{ content: "x", status: "pending" }] }, ["c", 2]);
    tx.objectStore("chats").get("c").onsuccess = (e) => tx.objectStore("chats").put({ ...e.target.result, length: 3 }, "c");
    tx.oncomplete = resolve;
  });
  db.close();
  const texts = await store.readTextFrom("c", 0);
  assert.equal(texts[2], '{"type":"todo_update","v":1e400,"todos":[{"content":"x","status":"pending"}]}');
  assert.deepEqual(replayTodos(await store.read("c")).todos, []);
  store.close();
});

test("a store asked to write an entry holding Infinity or NaN refuses it with a TypeError; nothing is written", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "oda-numbers-w-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const store of [new MemoryStore(), new JsonlStore(dir)]) {
    await createChat(store, "c", { workspace: "/w" });
    for (const entry of [
      { type: "app", score: Infinity },
      { type: "app", nested: [{ x: NaN }] },
    ]) {
      await assert.rejects(
        store.append("c", [entry]),
        (e) =>
          e instanceof TypeError &&
          !(e instanceof StoreError) &&
          /^oda-tasks: (the )?entry 0 is not JSON data \(it holds Infinity or NaN, which JSON would store as null\)$/.test(e.message),
      );
    }
    assert.equal((await store.read("c")).length, 1);
  }
});
