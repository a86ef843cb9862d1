// The chat's lifecycle in the host layer: createChat writes the session entry
// (checked field by field), beginTurn/endTurn the turn markers through the one
// write loop; and the list's reminder for the model's context.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  beginTurn,
  ChatState,
  ChatStateCache,
  createChat,
  endTurn,
  MemoryStore,
  reminderDue,
  runTool,
  suggestTask,
  todoListText,
  todoReminder,
  toolHandlers,
} from "oda-tasks";
import { JsonlStore } from "oda-tasks/node";

const todos = (...items) => ({ todos: items.map(([content, status]) => ({ content, status })) });
const suggestion = { title: "Add retries", tldr: "Uploads fail on flaky networks.", brief: "In upload.ts, retry failed uploads." };

test("createChat writes one session entry, resolves true; a second createChat touches nothing and resolves false", async () => {
  const store = new MemoryStore();
  assert.equal(
    await createChat(store, "c", { title: "Fix", workspace: "/w", settings: { model: "m", permission: "auto", sandbox: { net: false } } }),
    true,
  );
  const expected = [
    {
      type: "session",
      v: 1,
      chatId: "c",
      title: "Fix",
      workspace: "/w",
      scheduledTaskFolder: false,
      agent: "top-level",
      settings: { model: "m", permission: "auto", sandbox: { net: false } },
    },
  ];
  assert.deepEqual(await store.read("c"), expected);
  assert.equal(await createChat(store, "c", { workspace: "/other" }), false);
  assert.deepEqual(await store.read("c"), expected);
  // The core reads what createChat wrote: no skipped entry, the session as written.
  const state = ChatState.fromLog(await store.read("c"));
  assert.deepEqual(state.replayTodos().skipped, []);
  state.free();
});

test("createChat with no session: a top-level chat with no workspace, outside a scheduled folder", async () => {
  const store = new MemoryStore();
  assert.equal(await createChat(store, "c"), true);
  assert.deepEqual(await store.read("c"), [
    { type: "session", v: 1, chatId: "c", workspace: null, scheduledTaskFolder: false, agent: "top-level", settings: {} },
  ]);
});

test("createChat: a wrong session field is a TypeError naming it, and nothing is written", async () => {
  const store = new MemoryStore();
  const cases = [
    [{ workspce: "/w" }, "`workspce` is not a session field"],
    [{ title: 3 }, "`title` must be a string"],
    [{ workspace: 1 }, "`workspace` must be a string or null"],
    [{ scheduledTaskFolder: "yes" }, "`scheduledTaskFolder` must be a boolean"],
    [{ agent: "sub" }, '`agent` must be "top-level" or "helper"'],
    [{ settings: [] }, "`settings` must be an object"],
    [{ settings: { model: 5 } }, "`settings.model` must be a string"],
    [{ settings: { temperature: 1 } }, "`settings.temperature` is not a setting"],
    [{ settings: { sandbox: 10n } }, "`settings.sandbox` must be JSON data"],
    [{ chatId: "other" }, "`chatId` is not a session field"],
    [{ origin: { chatId: "x", suggestionId: "s1" } }, "`origin` is not a session field"],
  ];
  for (const [session, message] of cases) {
    await assert.rejects(createChat(store, "c", session), (e) => {
      assert.ok(e instanceof TypeError, `${JSON.stringify(String(session))}: a TypeError`);
      assert.equal(e.message, `oda-tasks: invalid session of createChat: ${message}`);
      return true;
    });
  }
  await assert.rejects(
    createChat(store, "c", "top-level"),
    /^TypeError: oda-tasks: invalid arguments of createChat: options must be an object/,
  );
  assert.equal(await store.read("c"), null);
});

test("createChat reads own properties only: an inherited field is not read", async () => {
  const store = new MemoryStore();
  const session = Object.create({ agent: "helper", workspace: "/inherited" });
  session.title = "Own";
  await createChat(store, "c", session);
  const [entry] = await store.read("c");
  assert.equal(entry.agent, "top-level");
  assert.equal(entry.workspace, null);
  assert.equal(entry.title, "Own");
});

test("a created chat answers tool calls; suggest_task needs beginTurn; endTurn closes the turn", async () => {
  const store = new MemoryStore();
  const tools = toolHandlers({ store, chatId: "c" });
  assert.equal(await tools.todo_write(todos(["a", "pending"])), "Error: todo_write requires an owning agent session");
  await createChat(store, "c", { workspace: "/w" });
  assert.equal(await tools.suggest_task(suggestion), "suggest_task: requires an open model turn");
  assert.equal(await beginTurn(store, "c"), 1);
  assert.equal(await tools.todo_write(todos(["a", "in_progress"])), "Updated todo list: 0 pending, 1 in progress, 0 completed");
  assert.equal(
    await tools.suggest_task(suggestion),
    `Suggested "Add retries". The user decides whether to start it; do not start it yourself.`,
  );
  assert.equal(await endTurn(store, "c"), true);
  assert.deepEqual(
    (await store.read("c")).map((e) => e.type),
    ["session", "turn_started", "todo_update", "suggestion_offered", "turn_ended"],
  );
  assert.equal(await tools.suggest_task(suggestion), "suggest_task: requires an open model turn");
});

test("endTurn on a turn that is not open changes nothing and resolves false", async () => {
  const store = new MemoryStore();
  await createChat(store, "c");
  assert.equal(await endTurn(store, "c"), false);
  await beginTurn(store, "c");
  assert.equal(await endTurn(store, "c"), true);
  assert.equal(await endTurn(store, "c"), false);
  assert.deepEqual(
    (await store.read("c")).map((e) => e.type),
    ["session", "turn_started", "turn_ended"],
  );
});

test("beginTurn on a turn still open ends it first, in the same append; turns are numbered from 1", async () => {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  assert.equal(await beginTurn(store, "c"), 1);
  await runTool(store, "c", { name: "suggest_task", input: suggestion });
  assert.equal(await beginTurn(store, "c"), 2); // the first turn never ended (a crash, say)
  assert.deepEqual(
    (await store.read("c")).map((e) => e.type),
    ["session", "turn_started", "suggestion_offered", "turn_ended", "turn_started"],
  );
  // The new turn has offered nothing yet.
  assert.match(await toolHandlers({ store, chatId: "c" }).suggest_task({ ...suggestion, title: "Other" }), /^Suggested "Other"/);
});

test("beginTurn/endTurn on a chat that does not exist: store/missing-chat naming createChat, nothing written", async () => {
  const store = new MemoryStore();
  for (const call of [beginTurn, endTurn]) {
    await assert.rejects(call(store, "nope"), (e) => {
      assert.equal(e.code, "store/missing-chat");
      assert.equal(e.message, `chat "nope" does not exist; create it with createChat() before ${call.name}()`);
      return true;
    });
  }
  assert.equal(await store.read("nope"), null);
});

test("turn markers go through the write loop: concurrent beginTurns on one chat each open one turn, closing the one before", async () => {
  const store = new MemoryStore();
  await createChat(store, "c");
  // Separate caches: each decides on its own view and loses races, as separate processes would.
  const caches = Array.from({ length: 4 }, () => new ChatStateCache(store));
  const turns = await Promise.all(caches.map((cache) => beginTurn(store, "c", { cache })));
  assert.deepEqual([...turns].sort(), [1, 2, 3, 4]);
  assert.deepEqual(
    (await store.read("c")).map((e) => e.type),
    ["session", "turn_started", "turn_ended", "turn_started", "turn_ended", "turn_started", "turn_ended", "turn_started"],
  );
  const ended = await Promise.all(caches.map((cache) => endTurn(store, "c", { cache })));
  assert.deepEqual(ended.filter(Boolean), [true]); // only one closes the open turn
  assert.equal((await store.read("c")).at(-1).type, "turn_ended");
});

test("turn options: an unknown option or another store's cache is a TypeError", async () => {
  const store = new MemoryStore();
  await createChat(store, "c");
  await assert.rejects(
    beginTurn(store, "c", { cahce: 1 }),
    /^TypeError: oda-tasks: invalid arguments of beginTurn: unknown option `cahce`/,
  );
  await assert.rejects(endTurn(store, "c", { cache: new ChatStateCache(new MemoryStore()) }), /the cache belongs to another store/);
  assert.equal((await store.read("c")).length, 1);
});

test("JsonlStore: the lifecycle on real files", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "oda-lifecycle-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = new JsonlStore(dir);
  assert.equal(await createChat(store, "c", { workspace: "/w" }), true);
  assert.equal(await createChat(store, "c", { workspace: "/w" }), false);
  await beginTurn(store, "c");
  assert.equal(
    await toolHandlers({ store, chatId: "c" }).todo_write(todos(["a", "pending"])),
    "Updated todo list: 1 pending, 0 in progress, 0 completed",
  );
  await endTurn(store, "c");
  const fresh = new JsonlStore(dir); // another process's view: what is on disk
  assert.deepEqual(
    (await fresh.read("c")).map((e) => e.type),
    ["session", "turn_started", "todo_update", "turn_ended"],
  );
});

test("toolHandlers: a missing store or chat id, or an unknown option, throws at once", () => {
  assert.throws(() => toolHandlers({ chatId: "c" }), /^TypeError: oda-tasks: invalid arguments of toolHandlers: `store` must be a store/);
  assert.throws(() => toolHandlers({ store: new MemoryStore() }), /`chatId` must be a string/);
  assert.throws(() => toolHandlers({ store: new MemoryStore(), chatId: "c", oneActiv: false }), /unknown option `oneActiv`/);
});

test("ChatState#listState: the list, the turns, and turns since the latest update, with or without cards", () => {
  const log = [
    { type: "session" },
    { type: "turn_started" },
    { type: "todo_update", v: 1, todos: [{ content: "a", status: "pending" }] },
    { type: "turn_ended" },
    { type: "turn_started" },
  ];
  for (const cards of [true, false]) {
    const state = ChatState.fromLog(log, { cards });
    assert.deepEqual(state.listState(), { todos: [{ content: "a", status: "pending" }], turns: 2, turnOpen: true, turnsSinceUpdate: 1 });
    state.free();
  }
  const none = ChatState.fromLog([{ type: "session" }]);
  assert.deepEqual(none.listState(), { todos: [], turns: 0, turnOpen: false, turnsSinceUpdate: null });
  none.free();
});

test("todoListText: the list as a short text, texts quoted as JSON; null for an empty list", () => {
  assert.equal(todoListText([]), null);
  assert.equal(
    todoListText([
      { content: "Write tests", status: "completed" },
      { content: 'Fix "parser"\nfast', status: "in_progress" },
      { content: "Ship", status: "pending" },
    ]),
    "Your todo list, as last recorded with todo_write (1 pending, 1 in progress, 1 completed):\n" +
      '1. [completed] "Write tests"\n' +
      '2. [in_progress] "Fix \\"parser\\"\\nfast"\n' +
      '3. [pending] "Ship"\n' +
      "Keep it current: call todo_write with the whole list when an item's state changes.",
  );
});

test("reminderDue: every N whole turns without a todo_write while items remain open; the open turn does not count", () => {
  const open = [{ content: "a", status: "pending" }];
  const at = (turnsSinceUpdate, turnOpen, todos = open) => ({ todos, turns: 9, turnOpen, turnsSinceUpdate });
  assert.equal(reminderDue(at(null, true)), false, "never updated");
  assert.equal(reminderDue(at(0, true)), false, "updated this turn");
  assert.equal(reminderDue(at(3, true)), false, "two whole turns since, the third running");
  assert.equal(reminderDue(at(4, true)), true, "three whole turns since");
  assert.equal(reminderDue(at(3, false)), true, "asked between turns: three turns since");
  assert.equal(reminderDue(at(5, true)), false);
  assert.equal(reminderDue(at(7, true)), true, "and every three after");
  assert.equal(reminderDue(at(4, true, [{ content: "a", status: "completed" }])), false, "nothing left open");
  assert.equal(reminderDue(at(2, true), 1), true);
  assert.throws(() => reminderDue(at(2, true), 0), /^TypeError: oda-tasks: `everyTurns` must be a whole number >= 1 \(got 0\)$/);
});

test("todoReminder: from the stored chat, due after three quiet turns or always on request; writes nothing", async () => {
  const store = new MemoryStore();
  assert.equal(await todoReminder(store, "c"), null, "no chat");
  await createChat(store, "c");
  assert.equal(await todoReminder(store, "c", { always: true }), null, "no list");
  await beginTurn(store, "c");
  await runTool(store, "c", { name: "todo_write", input: todos(["Write tests", "in_progress"], ["Ship", "pending"]) });
  await endTurn(store, "c");
  const text = todoListText([
    { content: "Write tests", status: "in_progress" },
    { content: "Ship", status: "pending" },
  ]);
  const seen = [];
  for (let turn = 2; turn <= 8; turn++) {
    await beginTurn(store, "c");
    seen.push(await todoReminder(store, "c"));
    await endTurn(store, "c");
  }
  assert.deepEqual(seen, [null, null, null, text, null, null, text]); // turns 2..8: due at 5 and 8 (turns 2-4, 5-7 quiet)
  assert.equal(await todoReminder(store, "c", { always: true }), text, "after compaction or on resume");
  const length = (await store.read("c")).length;
  await todoReminder(store, "c", { always: true });
  assert.equal((await store.read("c")).length, length, "nothing written");
  await assert.rejects(todoReminder(store, "c", { every: 2 }), /unknown option `every`/);
});

test("suggestTask agrees: a chat created by createChat is top-level with a workspace", async () => {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w", agent: "helper" });
  await beginTurn(store, "c");
  assert.equal(
    suggestTask(await store.read("c"), suggestion).error,
    "suggest_task is only for the top-level agent; report the follow-up in your result instead",
  );
});
