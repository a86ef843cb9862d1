// toolHandlers({ ui: true }): what a chat's UI draws for a tool call,
// `{ text, card?, offer? }`, where `text` is byte for byte what the plain
// handlers give the model, `card` the card replay makes for the recorded
// update, and `offer` the recorded suggestion; a refusal carries text alone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { beginTurn, ChatState, createChat, MemoryStore, replaySuggestions, replayTodos, toolHandlers } from "oda-tasks";
import { card, suggestion } from "./support/tool-fixtures.mjs";

const todos = (...items) => ({ todos: items.map(([content, status]) => ({ content, status })) });

test("todo_write with ui: the core's text and the card of the recorded update, its changes against the previous list", async () => {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  await beginTurn(store, "c");
  const ui = toolHandlers({ store, chatId: "c", ui: true });
  const first = await ui.todo_write(todos(["Write tests", "in_progress"], ["Ship", "pending"]));
  const second = await ui.todo_write(todos(["Ship", "in_progress"], ["Write tests", "completed"]));
  assert.deepEqual(first, { text: "Updated todo list: 1 pending, 1 in progress, 0 completed", card });
  assert.deepEqual(second, {
    text: "Updated todo list: 0 pending, 1 in progress, 1 completed",
    card: {
      index: 3,
      turn: 1,
      todos: todos(["Ship", "in_progress"], ["Write tests", "completed"]).todos,
      counts: { pending: 0, inProgress: 1, completed: 1 },
      changes: {
        added: [],
        removed: [],
        statusChanged: [
          { content: "Ship", from: "pending", to: "in_progress" },
          { content: "Write tests", from: "in_progress", to: "completed" },
        ],
        moved: [{ content: "Ship", from: 1, to: 0 }],
      },
    },
  });
  assert.deepEqual(replayTodos(await store.read("c")).cards, [first.card, second.card]);
});

test("suggest_task with ui: the core's text and the recorded offer as the suggestion list holds it", async () => {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  await beginTurn(store, "c");
  const r = await toolHandlers({ store, chatId: "c", ui: true }).suggest_task({ ...suggestion, title: "  Add retries  " });
  assert.deepEqual(r, {
    text: 'Suggested "Add retries". The user decides whether to start it; do not start it yourself.',
    offer: { id: "s1", ...suggestion },
  });
  assert.deepEqual(replaySuggestions(await store.read("c")).open, [r.offer]);
});

test("a refusal with ui is the exact text alone, and records nothing; the plain handlers' texts are the same", async () => {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  const ui = toolHandlers({ store, chatId: "c", ui: true });
  const plain = toolHandlers({ store, chatId: "c" });
  assert.deepEqual(await ui.suggest_task(suggestion), { text: "suggest_task: requires an open model turn" });
  assert.deepEqual(await ui.todo_write({ todos: "no" }), { text: await plain.todo_write({ todos: "no" }) });
  assert.equal((await store.read("c")).length, 1);
  assert.deepEqual(await toolHandlers({ store: new MemoryStore(), chatId: "none", ui: true }).todo_write(todos(["a", "pending"])), {
    text: await toolHandlers({ store: new MemoryStore(), chatId: "none" }).todo_write(todos(["a", "pending"])),
  });
});

test("the card is decided on the log the entry lands on: after a lost race, its index and changes are the new ones", async () => {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  await beginTurn(store, "c");
  // Another writer appends an update between this call's decision and its append.
  const append = store.append.bind(store);
  let raced = false;
  store.append = async (chatId, entries, at) => {
    if (!raced && entries[0]?.type === "todo_update") {
      raced = true;
      await append(chatId, [{ type: "todo_update", v: 1, todos: [{ content: "Other", status: "pending" }] }], at);
    }
    return append(chatId, entries, at);
  };
  const r = await toolHandlers({ store, chatId: "c", ui: true }).todo_write(todos(["Mine", "pending"]));
  assert.equal(raced, true);
  assert.equal(r.card.index, 3);
  assert.deepEqual(r.card.changes.removed, [{ content: "Other", status: "pending", position: 0 }]);
  assert.deepEqual(replayTodos(await store.read("c")).cards.at(-1), r.card);
});

test("ChatState#nextCard: the card an update makes appended now, with or without cards; null for another entry", () => {
  const log = [{ type: "session" }, { type: "turn_started" }, { type: "todo_update", v: 1, todos: [{ content: "a", status: "pending" }] }];
  const entry = { type: "todo_update", v: 1, todos: [{ content: "a", status: "completed" }] };
  for (const cards of [true, false]) {
    const state = ChatState.fromLog(log, { cards });
    assert.deepEqual(state.nextCard(entry), replayTodos([...log, entry]).cards[1]);
    assert.equal(state.nextCard({ type: "turn_ended" }), null);
    state.free();
  }
});

test("toolHandlers: ui must be a boolean, checked before anything runs", () => {
  assert.throws(
    () => toolHandlers({ store: new MemoryStore(), chatId: "c", ui: "yes" }),
    /^TypeError: oda-tasks: invalid arguments of toolHandlers: `ui` must be a boolean/,
  );
});
