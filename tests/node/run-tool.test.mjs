// runTool: the core decides, the host appends at the length it read and
// retries when another writer came first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ConflictError, runTool, StoreError, suggestTask, todoWrite } from "oda-tasks";
import { MemoryStore, makeChat } from "./support/service-helpers.mjs";

const todos = (...items) => ({ todos: items.map(([content, status]) => ({ content, status })) });

async function freshChat(id = "c") {
  const store = new MemoryStore();
  await makeChat(store, id);
  return store;
}

test("todo_write success appends exactly the core's entry and returns its output", async () => {
  const store = await freshChat();
  const before = await store.read("c");
  const input = todos(["Read code", "completed"], ["Write tests", "in_progress"], ["Ship", "pending"]);
  const r = await runTool(store, "c", { name: "todo_write", input });
  assert.deepEqual(r, { ok: true, output: "Updated todo list: 1 pending, 1 in progress, 1 completed" });
  const after = await store.read("c");
  assert.equal(after.length, before.length + 1);
  assert.deepEqual(after.slice(0, before.length), before);
  const expected = todoWrite(before, input, {});
  assert.ok(expected.ok);
  assert.deepEqual(after.at(-1), expected.entry);
});

test("suggest_task success appends exactly the core's entry and returns its output", async () => {
  const store = await freshChat();
  const before = await store.read("c");
  const input = { title: "  Add retries  ", tldr: "Uploads fail on flaky networks", brief: "In upload.ts, retry 3 times." };
  const r = await runTool(store, "c", { name: "suggest_task", input });
  assert.deepEqual(r, {
    ok: true,
    output: 'Suggested "Add retries". The user decides whether to start it; do not start it yourself.',
  });
  const after = await store.read("c");
  assert.equal(after.length, before.length + 1);
  const expected = suggestTask(before, input);
  assert.ok(expected.ok);
  assert.deepEqual(after.at(-1), expected.entry);
  assert.equal(after.at(-1).id, "s1");
});

test("a refusal returns the core's exact text and appends nothing", async () => {
  const store = await freshChat();
  const before = await store.read("c");
  const cases = [
    [
      { name: "todo_write", input: todos(["a", "pending"], ["b", "doing"]) },
      todoWrite(before, todos(["a", "pending"], ["b", "doing"]), {}).error,
    ],
    [{ name: "todo_write", input: todos(["  ", "pending"]) }, "Error: invalid todo: `content` must be a non-empty string"],
    [{ name: "todo_write", input: todos(["x", "pending"], [" x ", "completed"]) }, 'Error: invalid todos: duplicate content "x"'],
    [{ name: "todo_write", input: { todo: [] } }, todoWrite(before, { todo: [] }, {}).error],
    [{ name: "suggest_task", input: { title: " ", tldr: "t", brief: "b" } }, "suggest_task: title must not be empty"],
    [
      { name: "suggest_task", input: { title: "x".repeat(61), tldr: "t", brief: "b" } },
      "suggest_task: title must be at most 60 characters (got 61)",
    ],
  ];
  for (const [call, error] of cases) {
    assert.equal(typeof error, "string");
    assert.deepEqual(await runTool(store, "c", call), { ok: false, error });
    assert.deepEqual(await store.read("c"), before);
  }
});

test("a missing chat is no owning session, refused with the exact texts, and nothing is created", async () => {
  const store = new MemoryStore();
  assert.deepEqual(await runTool(store, "nope", { name: "todo_write", input: todos(["a", "pending"]) }), {
    ok: false,
    error: "Error: todo_write requires an owning agent session",
  });
  assert.deepEqual(await runTool(store, "nope", { name: "suggest_task", input: { title: "a", tldr: "b", brief: "c" } }), {
    ok: false,
    error: "suggest_task requires an owning agent session",
  });
  assert.equal(await store.read("nope"), null);
});

/** Before each of the first `n` appends, a rival writer appends first, so the conditional append really conflicts. */
class RivalStore {
  constructor(inner, n) {
    this.inner = inner;
    this.left = n;
    this.conflicts = 0;
  }
  read(id) {
    return this.inner.read(id);
  }
  create(id, entries) {
    return this.inner.create(id, entries);
  }
  async append(id, entries, expectedLength) {
    if (this.left > 0) {
      this.left--;
      await this.inner.append(id, [{ type: "app_note", n: this.left }]);
      try {
        return await this.inner.append(id, entries, expectedLength);
      } catch (e) {
        if (e instanceof ConflictError) this.conflicts++;
        throw e;
      }
    }
    return this.inner.append(id, entries, expectedLength);
  }
}

test("conflicts on the first appends are retried: exactly one entry is recorded", async () => {
  const inner = await freshChat();
  const store = new RivalStore(inner, 5);
  const r = await runTool(store, "c", { name: "todo_write", input: todos(["a", "in_progress"]) });
  assert.deepEqual(r, { ok: true, output: "Updated todo list: 0 pending, 1 in progress, 0 completed" });
  assert.equal(store.conflicts, 5);
  const log = await inner.read("c");
  assert.equal(log.filter((e) => e.type === "todo_update").length, 1);
  assert.equal(log.filter((e) => e.type === "app_note").length, 5);
  assert.equal(log.at(-1).type, "todo_update");
});

test("a plain ConflictError injected on the first appends still records exactly one entry", async () => {
  const inner = await freshChat();
  let left = 3;
  const store = {
    read: (id) => inner.read(id),
    create: (id, e) => inner.create(id, e),
    async append(id, entries, expectedLength) {
      if (left-- > 0) throw new ConflictError(id, expectedLength, expectedLength + 1);
      return inner.append(id, entries, expectedLength);
    },
  };
  const r = await runTool(store, "c", { name: "suggest_task", input: { title: "T", tldr: "W", brief: "B" } });
  assert.equal(r.ok, true);
  assert.equal((await inner.read("c")).filter((e) => e.type === "suggestion_offered").length, 1);
});

test("a retry decides again on what the rival wrote (one suggestion per turn across racing calls)", async () => {
  const store = await freshChat();
  const calls = Array.from({ length: 10 }, (_, i) =>
    runTool(store, "c", { name: "suggest_task", input: { title: `T${i}`, tldr: "W", brief: "B" } }),
  );
  const results = await Promise.all(calls);
  assert.equal(results.filter((r) => r.ok).length, 1);
  for (const r of results.filter((r) => !r.ok)) {
    assert.equal(r.error, "suggest_task: one suggestion per turn; this turn already offered one");
  }
  assert.equal((await store.read("c")).filter((e) => e.type === "suggestion_offered").length, 1);
});

test("endless conflicts end in a store/contended StoreError after a bounded number of attempts, writing nothing", async () => {
  const inner = await freshChat();
  const before = await inner.read("c");
  let appends = 0;
  const store = {
    read: (id) => inner.read(id),
    create: (id, e) => inner.create(id, e),
    async append(id, _entries, expectedLength) {
      appends++;
      throw new ConflictError(id, expectedLength, expectedLength + 1);
    },
  };
  await assert.rejects(runTool(store, "c", { name: "todo_write", input: todos(["a", "pending"]) }), (e) => {
    assert.ok(e instanceof StoreError);
    assert.equal(e.code, "store/contended");
    assert.equal(e.chatId, "c");
    assert.match(e.message, /^oda-tasks: the todo_write on chat "c" lost 20 races to other writers; try again$/);
    return true;
  });
  assert.equal(appends, 20);
  assert.deepEqual(await inner.read("c"), before);
});

test("other store errors are not retried", async () => {
  const inner = await freshChat();
  let appends = 0;
  const boom = new Error("disk full");
  const store = {
    read: (id) => inner.read(id),
    create: (id, e) => inner.create(id, e),
    async append() {
      appends++;
      throw boom;
    },
  };
  await assert.rejects(runTool(store, "c", { name: "todo_write", input: todos(["a", "pending"]) }), (e) => e === boom);
  assert.equal(appends, 1);
});

test("oneActive passes through: on by default, off when asked", async () => {
  const store = await freshChat();
  const two = todos(["a", "in_progress"], ["b", "in_progress"]);
  assert.deepEqual(await runTool(store, "c", { name: "todo_write", input: two }), {
    ok: false,
    error: "Error: invalid todos: at most one task may be in_progress (got 2)",
  });
  assert.deepEqual(await runTool(store, "c", { name: "todo_write", input: two }, { oneActive: true }), {
    ok: false,
    error: "Error: invalid todos: at most one task may be in_progress (got 2)",
  });
  assert.deepEqual(await runTool(store, "c", { name: "todo_write", input: two }, { oneActive: false }), {
    ok: true,
    output: "Updated todo list: 0 pending, 2 in progress, 0 completed",
  });
  assert.equal((await store.read("c")).filter((e) => e.type === "todo_update").length, 1);
});

test("an unknown tool name is host misuse: a TypeError, and nothing is read or written", async () => {
  const inner = await freshChat();
  const before = await inner.read("c");
  let reads = 0;
  const store = { read: (id) => (reads++, inner.read(id)), append: () => assert.fail("append"), create: () => assert.fail("create") };
  await assert.rejects(runTool(store, "c", { name: "rm_rf", input: {} }), TypeError);
  await assert.rejects(runTool(store, "c", null), TypeError);
  assert.equal(reads, 0);
  assert.deepEqual(await inner.read("c"), before);
});
