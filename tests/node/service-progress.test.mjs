// service.list(chatId, { progress: true }): a started offer carries how far
// its chat got, read through the warm-state cache: a started chat the cache
// holds costs only the catch-up of what is new, never a whole read.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ChatStateCache, MemoryStore, runTool, SuggestionService } from "oda-tasks";
import { offerTurns } from "./support/entries.mjs";

/** A MemoryStore that counts its reads per chat: whole reads and reads from an index. */
class CountingStore extends MemoryStore {
  reads = [];
  async read(chatId) {
    this.reads.push(["read", chatId]);
    return super.read(chatId);
  }
  async readFrom(chatId, from) {
    // From 0 is a whole read, whichever method asks for it (the cache reads a new chat that way).
    this.reads.push(from === 0 ? ["read", chatId] : ["readFrom", chatId, from]);
    return super.readFrom(chatId, from);
  }
  async readSince(chatId, from, mark) {
    // The warm reader's read: counted as readFrom is.
    this.reads.push(from === 0 ? ["read", chatId] : ["readFrom", chatId, from]);
    return super.readSince(chatId, from, mark);
  }
  take() {
    const r = this.reads;
    this.reads = [];
    return r.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
}

const list = (completed, total) =>
  Array.from({ length: total }, (_, i) => ({
    content: `Step ${i + 1}`,
    status: i < completed ? "completed" : i === completed ? "in_progress" : "pending",
  }));

async function setUp() {
  const store = new CountingStore();
  await store.create("c", [
    { type: "session", v: 1, chatId: "c", workspace: "/w", agent: "top-level", settings: { permission: "ask" } },
    ...offerTurns(["First", "Second", "Third", "Fourth"]),
    // A started settlement whose chat is not in the store: it gets no progress.
    { type: "suggestion_settled", v: 1, id: "s4", outcome: "started", chatId: "elsewhere" },
  ]);
  const service = new SuggestionService({ store });
  const { chatId: first } = await service.start("c", "s1");
  const { chatId: second } = await service.start("c", "s2");
  await service.draft("c", "s3");
  await store.append(first, [{ type: "turn_started" }]);
  const r = await runTool(store, first, { name: "todo_write", input: { todos: list(3, 5) } });
  assert.equal(r.ok, true);
  return { store, service, first, second };
}

test("list(chatId, { progress: true }): started offers carry their chat's completed and total items; others carry none", async () => {
  const { service, first, second } = await setUp();
  const { open, settled } = await service.list("c", { progress: true });
  assert.deepEqual(open, []);
  assert.deepEqual(
    settled.map(({ id, outcome, chatId, progress }) => ({ id, outcome, chatId, progress })),
    [
      { id: "s1", outcome: "started", chatId: first, progress: { completed: 3, total: 5 } },
      { id: "s2", outcome: "started", chatId: second, progress: { completed: 0, total: 0 } },
      { id: "s3", outcome: "drafted", chatId: undefined, progress: undefined },
      { id: "s4", outcome: "started", chatId: "elsewhere", progress: undefined },
    ],
  );
  assert.equal("progress" in settled[3], false, "a missing chat: no progress at all");
  // Without the option the answer is as before: no progress anywhere.
  const plain = await service.list("c");
  assert.ok(plain.settled.every((s) => !("progress" in s)));
  assert.deepEqual(await service.list("nobody", { progress: true }), { open: [], settled: [] });
});

test("progress reads through the warm-state cache: chats it holds cost a catch-up from their length, never a whole read", async () => {
  const { store, service, first, second } = await setUp();
  await service.list("c", { progress: true });
  store.take();
  const lengths = {
    c: (await store.read("c")).length,
    [first]: (await store.read(first)).length,
    [second]: (await store.read(second)).length,
  };
  store.take();

  await service.list("c", { progress: true });
  assert.deepEqual(
    store.take(),
    [
      ["read", "elsewhere"], // not in the store, so not in the cache: asked again each time
      ["readFrom", "c", lengths.c],
      ["readFrom", first, lengths[first]],
      ["readFrom", second, lengths[second]],
    ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  );

  // Another writer moves the started chat on; the next list reads only that entry.
  await store.append(first, [{ type: "todo_update", v: 1, todos: list(5, 5) }]);
  store.take();
  const { settled } = await service.list("c", { progress: true });
  assert.deepEqual(settled[0].progress, { completed: 5, total: 5 });
  assert.deepEqual(
    store.take().filter(([, chatId]) => chatId === first),
    [["readFrom", first, lengths[first]]],
  );
});

test("a cold cache reads each started chat whole once, then only what is new", async () => {
  const { store, first, second } = await setUp();
  const service = new SuggestionService({ store, cache: new ChatStateCache(store) });
  store.take();
  await service.list("c", { progress: true });
  const whole = store
    .take()
    .filter(([kind]) => kind === "read")
    .map(([, chatId]) => chatId)
    .sort();
  assert.deepEqual(whole, ["c", "elsewhere", first, second].sort());
  await service.list("c", { progress: true });
  assert.deepEqual(
    store.take().filter(([kind, chatId]) => kind === "read" && chatId !== "elsewhere"),
    [],
  );
});

test("list's options are checked: an unknown option or a progress that is not a boolean throws", async () => {
  const { service } = await setUp();
  await assert.rejects(service.list("c", { progres: true }), {
    name: "TypeError",
    message: "oda-tasks: invalid arguments of service.list: unknown option `progres`",
  });
  await assert.rejects(service.list("c", { progress: "yes" }), {
    name: "TypeError",
    message: 'oda-tasks: invalid arguments of service.list: `progress` must be a boolean (got "yes")',
  });
  await assert.rejects(service.list("c", 1), {
    name: "TypeError",
    message: "oda-tasks: invalid arguments of service.list: options must be an object (got number)",
  });
});
