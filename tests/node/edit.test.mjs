// A person's edit of the list in the host layer: editTodos records it through
// the one write loop (todo_write's rules, chat/changed on a stale screen, two
// people at once: one wins, the other is told), the model's stale todo_write
// is refused once and recorded as told, editNotice tells the model once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ChatChangedError,
  ChatState,
  createChat,
  editNotice,
  editTodos,
  MemoryStore,
  replayTodos,
  runTool,
  todoListText,
  todoReminder,
  todoWrite,
  toolHandlers,
} from "oda-tasks";
import { JsonlStore } from "oda-tasks/node";

const items = (...pairs) => pairs.map(([content, status]) => ({ content, status }));
const plan = items(["Write tests", "in_progress"], ["Ship", "pending"]);
const withDocs = items(["Write tests", "in_progress"], ["Ship", "pending"], ["Write docs", "pending"]);

/** The exact texts the core tells the model of the edit that adds "Write docs" to `plan`. */
const body =
  'What they changed:\n- added "Write docs" (pending)\nThe list as edited (2 pending, 1 in progress, 0 completed):\n1. [in_progress] "Write tests"\n2. [pending] "Ship"\n3. [pending] "Write docs"';
const refusal = `Error: the user edited the todo list, and this update was not recorded: it was written before you saw their edit. ${body}\nCall todo_write again with the whole list, starting from this one and keeping the user's changes.`;
const notice = `The user edited the todo list while you worked. ${body}\nKeep their changes: your next todo_write sends this list whole, with the user's changes in it.`;

async function chatWithPlan(store = new MemoryStore(), chatId = "c") {
  await createChat(store, chatId, { workspace: "/w" });
  const tools = toolHandlers({ store, chatId });
  assert.equal(await tools.todo_write({ todos: plan }), "Updated todo list: 1 pending, 1 in progress, 0 completed");
  return { store, tools, length: (await store.read(chatId)).length };
}

test("editTodos records the whole list as a person's update and answers the new length", async () => {
  const { store, length } = await chatWithPlan();
  assert.deepEqual(await editTodos(store, "c", withDocs, { basedOn: length, by: "Ada" }), { ok: true, length: length + 1 });
  const log = await store.read("c");
  assert.deepEqual(log.at(-1), { type: "todo_update", v: 1, todos: withDocs, by: { name: "Ada" } });
  const { cards, todos } = replayTodos(log);
  assert.deepEqual(todos, withDocs);
  assert.deepEqual(cards.at(-1).by, { name: "Ada" });
  assert.equal(cards[0].by, undefined, "the model's card has no by");
  assert.deepEqual(cards.at(-1).changes.added, [{ content: "Write docs", status: "pending", position: 2 }]);
  // Without a name, the card still says a person made it.
  await editTodos(store, "c", plan, { basedOn: length + 1 });
  assert.deepEqual((await store.read("c")).at(-1).by, {});
  // The same list again records nothing.
  assert.deepEqual(await editTodos(store, "c", plan, { basedOn: length + 2 }), { ok: true, length: length + 2 });
  assert.equal((await store.read("c")).length, length + 2);
});

test("editTodos refuses an invalid list with the core's own text, and writes nothing", async () => {
  const { store, length } = await chatWithPlan();
  const refused = async (todos, options = {}) => editTodos(store, "c", todos, { basedOn: length, ...options });
  assert.deepEqual(await refused(items(["a", "in_progress"], ["b", "in_progress"])), {
    ok: false,
    error: "Error: invalid todos: at most one task may be in_progress (got 2)",
  });
  assert.deepEqual(await refused(items(["a", "pending"], ["a ", "pending"])), {
    ok: false,
    error: 'Error: invalid todos: duplicate content "a"',
  });
  assert.deepEqual(await refused([{ content: "a", status: "pending", id: 1 }]), {
    ok: false,
    error: "Error: invalid todo at index 0: unknown field `id` (an item is only `content` and `status`)",
  });
  assert.equal((await refused("none")).error, "Error: invalid todos: `todos` must be an array (got a string)");
  // The one-active rule is the host's to turn off, as for the model.
  assert.equal((await refused(items(["a", "in_progress"], ["b", "in_progress"]), { oneActive: false })).ok, true);
  assert.equal((await store.read("c")).length, length + 1);
});

test("editTodos on a screen the list changed since rejects with chat/changed, the current list in payload", async () => {
  const { store, tools, length } = await chatWithPlan();
  await tools.todo_write({ todos: items(["Write tests", "completed"], ["Ship", "in_progress"]) });
  const edit = editTodos(store, "c", withDocs, { basedOn: length });
  await assert.rejects(edit, (e) => {
    assert.ok(e instanceof ChatChangedError);
    assert.equal(e.code, "chat/changed");
    assert.deepEqual(e.payload, items(["Write tests", "completed"], ["Ship", "in_progress"]));
    assert.equal(e.length, length + 1);
    assert.equal(
      e.message,
      `the todo list changed after length ${length}, the screen this edit was made on; re-apply the edit to the list as it stands`,
    );
    return true;
  });
  // Based on the length it was told, the edit is recorded.
  assert.equal((await editTodos(store, "c", withDocs, { basedOn: length + 1 })).ok, true);
  // Entries that change no list (a turn) do not stale a screen.
  await store.append("c", [{ type: "turn_started" }]);
  assert.equal((await editTodos(store, "c", plan, { basedOn: length + 2 })).ok, true);
});

test("two people editing at once: one is recorded, the other gets chat/changed, and nothing is lost", async () => {
  const dir = mkdtempSync(join(tmpdir(), "oda-edit-"));
  for (const store of [new MemoryStore(), new JsonlStore(dir)]) {
    const { length } = await chatWithPlan(store);
    const ada = items(["Write tests", "completed"], ["Ship", "pending"]);
    const bo = items(["Write tests", "in_progress"], ["Ship", "pending"], ["Tell the team", "pending"]);
    const outcomes = await Promise.allSettled([
      editTodos(store, "c", ada, { basedOn: length, by: "Ada" }),
      editTodos(store, "c", bo, { basedOn: length, by: "Bo" }),
    ]);
    const won = outcomes.filter((o) => o.status === "fulfilled");
    const lost = outcomes.filter((o) => o.status === "rejected");
    assert.equal(won.length, 1);
    assert.equal(lost.length, 1);
    assert.equal(lost[0].reason.code, "chat/changed");
    const log = await store.read("c");
    assert.equal(log.length, length + 1, "one edit recorded");
    // The loser is handed the winner's list: re-applying its own change to it loses neither.
    assert.deepEqual(lost[0].reason.payload, log.at(-1).todos);
    // Either way round, the loser's change re-applied to the winner's list keeps both.
    const merged = items(["Write tests", "completed"], ["Ship", "pending"], ["Tell the team", "pending"]);
    const loser = log.at(-1).by.name === "Ada" ? "Bo" : "Ada";
    assert.deepEqual(await editTodos(store, "c", merged, { basedOn: lost[0].reason.length, by: loser }), { ok: true, length: length + 2 });
    assert.deepEqual(replayTodos(await store.read("c")).todos, merged);
  }
  rmSync(dir, { recursive: true, force: true });
});

test("the model's stale todo_write is refused once with the list as edited, recorded as told; its next one records", async () => {
  const { store, tools, length } = await chatWithPlan();
  await editTodos(store, "c", withDocs, { basedOn: length });
  const stale = { todos: items(["Write tests", "completed"], ["Ship", "in_progress"]) };
  assert.equal(await tools.todo_write(stale), refusal);
  let log = await store.read("c");
  assert.deepEqual(log.at(-1), { type: "todo_told", v: 1, text: refusal });
  assert.deepEqual(replayTodos(log).todos, withDocs, "the person's item survives the refused write");
  // Told: nothing more to tell, and the next write records as usual.
  assert.equal(await editNotice(store, "c"), null);
  const kept = { todos: items(["Write tests", "completed"], ["Ship", "in_progress"], ["Write docs", "pending"]) };
  assert.equal(await tools.todo_write(kept), "Updated todo list: 1 pending, 1 in progress, 1 completed");
  log = await store.read("c");
  assert.deepEqual(replayTodos(log).todos, kept.todos);
  // runTool (and a suggest_task) pass no refusal of their own: only todo_write is guarded.
  await editTodos(store, "c", plan, { basedOn: log.length });
  assert.equal((await runTool(store, "c", { name: "suggest_task", input: { title: "a", tldr: "b", brief: "c" } })).ok, false);
  assert.equal(
    (await runTool(store, "c", { name: "todo_write", input: kept })).error.startsWith("Error: the user edited the todo list"),
    true,
  );
});

test("editNotice tells the model once, with the exact text, recorded in the log", async () => {
  const { store, length } = await chatWithPlan();
  assert.equal(await editNotice(store, "c"), null, "no edit: nothing to tell");
  await editTodos(store, "c", withDocs, { basedOn: length });
  assert.equal(await editNotice(store, "c"), notice);
  assert.deepEqual((await store.read("c")).at(-1), { type: "todo_told", v: 1, text: notice });
  assert.equal(await editNotice(store, "c"), null, "told once");
  // Told in context: the model's next write (made after it saw the edit) records.
  assert.equal(
    await toolHandlers({ store, chatId: "c" }).todo_write({ todos: items(["Write tests", "in_progress"]) }),
    "Updated todo list: 0 pending, 1 in progress, 0 completed",
  );
  await assert.rejects(editNotice(store, "missing"), { code: "store/missing-chat" });
});

test("the pure todoWrite and ChatState#todoWrite apply the same guard, with the entry to record", () => {
  const log = [{ type: "session" }, { type: "todo_update", v: 1, todos: plan }, { type: "todo_update", v: 1, todos: withDocs, by: {} }];
  const r = todoWrite(log, { todos: plan });
  assert.deepEqual(r, { ok: false, error: refusal, entry: { type: "todo_told", v: 1, text: refusal } });
  assert.equal(todoWrite([...log, r.entry], { todos: plan }).ok, true);
  // No owning session is still the first refusal.
  assert.equal(todoWrite(null, { todos: plan }).error, "Error: todo_write requires an owning agent session");
  const state = ChatState.fromLog(log);
  try {
    assert.deepEqual(state.todoWrite({ todos: plan }), r);
    assert.deepEqual(state.editNotice(), { text: notice, entry: { type: "todo_told", v: 1, text: notice } });
    assert.deepEqual(state.editTodos(plan, { basedOn: 2 }), { ok: false, code: "chat/changed" });
    assert.deepEqual(state.editTodos(withDocs, { basedOn: 3 }), { ok: true, entry: null });
    assert.deepEqual(state.editTodos(plan, { basedOn: 3, by: "Ada" }), {
      ok: true,
      entry: { type: "todo_update", v: 1, todos: plan, by: { name: "Ada" } },
    });
  } finally {
    state.free();
  }
});

test("editTodos' and editNotice's host misuse is a TypeError before anything is written", async () => {
  const { store, length } = await chatWithPlan();
  const wrong = [
    [{}, "oda-tasks: invalid arguments of editTodos: `basedOn` is required (the log length the person's screen showed)"],
    [{ basedOn: -1 }, "oda-tasks: invalid arguments of editTodos: `basedOn` must be a whole number >= 0 (got -1)"],
    [{ basedOn: 1.5 }, "oda-tasks: invalid arguments of editTodos: `basedOn` must be a whole number >= 0 (got 1.5)"],
    [
      { basedOn: length, by: "" },
      'oda-tasks: invalid arguments of editTodos: `by` must be a well-formed string of 1 to 200 characters (got "")',
    ],
    [
      { basedOn: length, by: "\ud800" },
      'oda-tasks: invalid arguments of editTodos: `by` must be a well-formed string of 1 to 200 characters (got "\\ud800")',
    ],
    [{ basedOn: length, by: "x".repeat(201) }, /`by` must be a well-formed string of 1 to 200 characters/],
    [{ basedOn: length, who: "Ada" }, "oda-tasks: invalid arguments of editTodos: unknown option `who`"],
    [
      { basedOn: length, cache: new (await import("oda-tasks")).ChatStateCache(new MemoryStore()) },
      "oda-tasks: invalid arguments of editTodos: the cache belongs to another store",
    ],
  ];
  for (const [options, message] of wrong) {
    await assert.rejects(
      editTodos(store, "c", plan, options),
      (e) => e instanceof TypeError && (message instanceof RegExp ? message.test(e.message) : e.message === message),
    );
  }
  await assert.rejects(editTodos(store, "nope", plan, { basedOn: 0 }), { code: "store/missing-chat" });
  await assert.rejects(editNotice(store, "c", { always: true }), {
    message: "oda-tasks: invalid arguments of editNotice: unknown option `always`",
  });
  assert.equal((await store.read("c")).length, length);
});

test("the list's text for the model's context is the core's, for todoListText and todoReminder alike", async () => {
  const text = todoListText(plan);
  assert.equal(
    text,
    'Your todo list, as last recorded with todo_write (1 pending, 1 in progress, 0 completed):\n1. [in_progress] "Write tests"\n2. [pending] "Ship"\nKeep it current: call todo_write with the whole list when an item\'s state changes.',
  );
  assert.equal(todoListText([]), null);
  assert.equal(todoListText(items(["a\nb", "pending"])).split("\n")[1], '1. [pending] "a\\nb"');
  assert.throws(() => todoListText("x"), {
    message: "oda-tasks: invalid arguments of todoListText: `todos` must be an array of { content, status }",
  });
  const { store } = await chatWithPlan();
  assert.equal(await todoReminder(store, "c", { always: true }), text);
});
