// odaTasksMiddleware (oda-tasks/langchain) in real LangChain v1 agents
// (`createAgent`) driven by LangChain's own fake chat model (`fakeModel()`),
// no network: the tools' texts byte for byte with the card and offer as the
// artifact, one turn per run under `invoke` and `stream`, a run that throws
// or is aborted still ending its turn, two runs on one chat, the reminder,
// and the refusal beside todoListMiddleware. Run under Node 22 by
// tests/node/langchain.test.mjs, against the BUILT package.
import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, createAgent, createMiddleware, fakeModel, modelRetryMiddleware, todoListMiddleware, tool } from "langchain";
import { createChat, editTodos, MemoryStore, replaySuggestions, replayTodos, todoListText, todoWrite } from "oda-tasks";
import { odaTasksMiddleware } from "oda-tasks/langchain";
import { card, edited, good, offer, SlowStore, suggestion } from "../support/tool-fixtures.mjs";

const calls = [
  { id: "1", name: "todo_write", args: good },
  { id: "2", name: "suggest_task", args: { ...suggestion, title: "  " } },
  { id: "3", name: "todo_write", args: { todos: [{ content: "a", status: "done" }] } },
  { id: "4", name: "suggest_task", args: suggestion },
];
// The core's texts, byte for byte (the bad status's wording is the core's own).
const texts = {
  1: "Updated todo list: 1 pending, 1 in progress, 0 completed",
  2: "suggest_task: title must not be empty",
  3: todoWrite([], { todos: [{ content: "a", status: "done" }] }).error,
  4: 'Suggested "Add retries". The user decides whether to start it; do not start it yourself.',
};
const artifacts = { 1: { card }, 2: {}, 3: {}, 4: { offer } };
const oneTurn = ["session", "turn_started", "todo_update", "suggestion_offered", "turn_ended"];
const user = (content) => ({ messages: [{ role: "user", content }] });
const thread = (id) => ({ configurable: { thread_id: id } });
const types = async (store, chatId) => (await store.read(chatId)).map((e) => e.type);
const lateRefusal = (name) =>
  `oda-tasks: ${name} was called after its agent run ended; it was refused and recorded nothing ` +
  "(odaTasksMiddleware's tools work during a run of the agent it was given to)";

/** A chat "c" in a MemoryStore, and a model that makes the four calls, then says "done". */
async function setup() {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  const model = fakeModel().respondWithTools(calls).respond(new AIMessage("done"));
  return { store, model };
}
/** A chat "c" in a MemoryStore, and a model that records `good`, then says "planned". */
async function planning() {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  const model = fakeModel()
    .respondWithTools([{ id: "1", name: "todo_write", args: good }])
    .respond(new AIMessage("planned"));
  return { store, model };
}
/** The ToolMessages of `messages`: tool call id → [content, artifact]. */
const toolResults = (messages) =>
  Object.fromEntries(messages.filter((m) => m.type === "tool").map((m) => [m.tool_call_id, [m.content, m.artifact]]));
const expectedResults = Object.fromEntries(Object.keys(texts).map((id) => [id, [texts[id], artifacts[id]]]));

/** Resolves once chat `chatId`'s last entry is `turn_ended` (the store's change feed; no clock). */
function turnEnded(store, chatId) {
  return new Promise((resolve, reject) => {
    const check = () =>
      store.read(chatId).then((log) => {
        if (log.at(-1)?.type !== "turn_ended") return;
        stop();
        resolve(log.map((e) => e.type));
      }, reject);
    const stop = store.watch(chatId, check);
    check();
  });
}

test("invoke: each ToolMessage's content is the core's exact text, refusals included, its artifact the card or the offer; one turn", async () => {
  const { store, model } = await setup();
  const agent = createAgent({ model, middleware: [odaTasksMiddleware({ store })] });
  const result = await agent.invoke(user("Plan the release"), thread("c"));
  assert.equal(result.messages.at(-1).content, "done");
  assert.deepEqual(toolResults(result.messages), expectedResults);
  // What the model read back in its second call: the texts alone.
  const seen = model.calls[1].messages.filter((m) => m.type === "tool").map((m) => [m.tool_call_id, m.content]);
  assert.deepEqual(Object.fromEntries(seen), texts);
  assert.deepEqual(await types(store, "c"), oneTurn);
  // The artifacts are what replay gives for the stored log.
  const log = await store.read("c");
  assert.deepEqual(replayTodos(log).cards, [card]);
  assert.deepEqual(replaySuggestions(log).open, [offer]);
});

test("stream: the same texts and artifacts; the turn ends once the stream has been read", async () => {
  const { store, model } = await setup();
  const agent = createAgent({ model, middleware: [odaTasksMiddleware({ store, chatId: "c" })] });
  const messages = [];
  for await (const update of await agent.stream(user("Plan the release"), { streamMode: "updates" })) {
    for (const node of Object.values(update)) messages.push(...(node?.messages ?? []));
  }
  assert.deepEqual(toolResults(messages), expectedResults);
  assert.deepEqual(await types(store, "c"), oneTurn);
});

test("stream read no further (the consumer stops): the run is cancelled and its turn ends after the todo_write recorded", {
  timeout: 20_000,
}, async () => {
  const { store } = await setup();
  const model = fakeModel()
    .respondWithTools([{ id: "1", name: "todo_write", args: good }])
    .respondWithTools([{ id: "2", name: "todo_write", args: good }])
    .respond(new AIMessage("done"));
  const agent = createAgent({ model, middleware: [odaTasksMiddleware({ store })] });
  const ended = turnEnded(store, "c");
  for await (const update of await agent.stream(user("go"), { ...thread("c"), streamMode: "updates" })) {
    if (update.tools) break; // the first tool result: read no further
  }
  assert.deepEqual(await ended, ["session", "turn_started", "todo_update", "turn_ended"]);
  assert.ok(model.callCount <= 2, `the run stopped (the model was called ${model.callCount} times)`);
});

test("aborted run (AbortSignal) while a todo_write is being recorded: the call lands, then the turn ends; a later call is refused", {
  timeout: 20_000,
}, async () => {
  const store = new SlowStore();
  await createChat(store, "c", { workspace: "/w" });
  const model = fakeModel()
    .respondWithTools([{ id: "1", name: "todo_write", args: good }])
    .respond(new AIMessage("done"));
  const middleware = odaTasksMiddleware({ store });
  const agent = createAgent({ model, middleware: [middleware] });
  const controller = new AbortController();
  const run = agent.invoke(user("go"), { ...thread("c"), signal: controller.signal });
  await store.started; // the todo_write is being appended
  const ended = turnEnded(store, "c");
  controller.abort(new Error("the user pressed stop"));
  await assert.rejects(run);
  store.release();
  assert.deepEqual(await ended, ["session", "turn_started", "todo_update", "turn_ended"]);
  // The run is over: its tool, called now, is refused and records nothing.
  const todo = middleware.tools.find((t) => t.name === "todo_write");
  await assert.rejects(todo.invoke({ id: "9", name: "todo_write", args: good, type: "tool_call" }, thread("c")), {
    name: "TypeError",
    message: lateRefusal("todo_write"),
  });
  assert.deepEqual(await types(store, "c"), ["session", "turn_started", "todo_update", "turn_ended"]);
});

test("aborted while another tool runs: the turn still ends (the run's signal, not the step's)", { timeout: 20_000 }, async () => {
  const { store } = await setup();
  let started;
  const waiting = new Promise((resolve) => (started = resolve));
  const slow = tool(
    (_input, config) =>
      new Promise((_resolve, reject) => {
        started();
        config.signal?.addEventListener("abort", () => reject(new Error("aborted")));
      }),
    { name: "slow", description: "Waits until the run is aborted.", schema: { type: "object", properties: {} } },
  );
  const model = fakeModel()
    .respondWithTools([{ id: "1", name: "todo_write", args: good }])
    .respondWithTools([{ id: "2", name: "slow", args: {} }])
    .respond(new AIMessage("done"));
  const agent = createAgent({ model, tools: [slow], middleware: [odaTasksMiddleware({ store })] });
  const controller = new AbortController();
  const run = agent.invoke(user("go"), { ...thread("c"), signal: controller.signal });
  await waiting;
  const ended = turnEnded(store, "c");
  controller.abort();
  await assert.rejects(run);
  assert.deepEqual(await ended, ["session", "turn_started", "todo_update", "turn_ended"]);
});

test("aborted before its first model call reaches the middleware: nothing is written", { timeout: 20_000 }, async () => {
  const { store } = await setup();
  let started;
  let reached;
  let release;
  const waiting = new Promise((resolve) => (started = resolve));
  const inside = new Promise((resolve) => (reached = resolve));
  const gate = new Promise((resolve) => (release = resolve));
  // A middleware before this one that holds the model call; one after it that tells it got through.
  const holder = createMiddleware({
    name: "holder",
    wrapModelCall: async (request, handler) => {
      started();
      await gate;
      return handler(request);
    },
  });
  const probe = createMiddleware({
    name: "probe",
    wrapModelCall: (request, handler) => {
      reached();
      return handler(request);
    },
  });
  const model = fakeModel().respond(new AIMessage("done"));
  const agent = createAgent({ model, middleware: [holder, odaTasksMiddleware({ store }), probe] });
  const controller = new AbortController();
  const run = agent.invoke(user("go"), { ...thread("c"), signal: controller.signal });
  await waiting;
  controller.abort();
  await assert.rejects(run);
  release();
  await inside;
  assert.deepEqual(await types(store, "c"), ["session"]);
});

test("a run whose model call throws still ends its turn, after the todo_write it recorded; the model's error is the one thrown", async () => {
  const { store } = await setup();
  const model = fakeModel()
    .respondWithTools([{ id: "1", name: "todo_write", args: good }])
    .respond(new Error("provider down"));
  const agent = createAgent({ model, middleware: [odaTasksMiddleware({ store })] });
  await assert.rejects(agent.invoke(user("go"), thread("c")), (e) => e.message.includes("provider down"));
  assert.deepEqual(await types(store, "c"), ["session", "turn_started", "todo_update", "turn_ended"]);
});

for (const [order, expected] of [
  ["listed first: a retried model call stays in the run's one turn", ["session", "turn_started", "turn_ended"]],
  [
    "listed after modelRetryMiddleware: the failure ends the turn, the retry opens the next",
    ["session", "turn_started", "turn_ended", "turn_started", "turn_ended"],
  ],
]) {
  test(`a model call retried by modelRetryMiddleware, odaTasksMiddleware ${order}`, async () => {
    const { store } = await setup();
    const model = fakeModel().respond(new Error("overloaded")).respond(new AIMessage("done"));
    const retry = modelRetryMiddleware({ maxRetries: 1, initialDelayMs: 0, jitter: false });
    const ours = odaTasksMiddleware({ store });
    const agent = createAgent({ model, middleware: order.startsWith("listed first") ? [ours, retry] : [retry, ours] });
    const result = await agent.invoke(user("go"), thread("c"));
    assert.equal(result.messages.at(-1).content, "done");
    assert.deepEqual(await types(store, "c"), expected);
  });
}

test("two runs on one chat: two turns; the reminder follows aiTurn's rule (everyTurns) and goes after the system prompt", async () => {
  const { store, model: planned } = await planning();
  const model = planned.respond(new AIMessage("second")).respond(new AIMessage("third"));
  const agent = createAgent({ model, systemPrompt: "You plan.", middleware: [odaTasksMiddleware({ store, everyTurns: 1 })] });
  const system = (call) => model.calls[call].messages[0];
  await agent.invoke(user("one"), thread("c"));
  await agent.invoke(user("two"), thread("c"));
  await agent.invoke(user("three"), thread("c"));
  assert.deepEqual(await types(store, "c"), [
    "session",
    "turn_started",
    "todo_update",
    "turn_ended",
    "turn_started",
    "turn_ended",
    "turn_started",
    "turn_ended",
  ]);
  // Turn 1 recorded the list; turn 2 is the first after it (not due); turn 3 has one whole quiet turn behind it.
  assert.equal(system(0).text, "You plan.");
  assert.equal(system(2).text, "You plan.");
  assert.equal(system(3).text, `You plan.\n\n${todoListText(good.todos)}`);
});

test('remind: "always" (after compaction or on resume): the list in every model call of the run, even with no system prompt', async () => {
  const { store, model: planned } = await planning();
  const model = planned
    .respondWithTools([{ id: "2", name: "todo_write", args: { todos: [{ content: "Ship", status: "completed" }] } }])
    .respond(new AIMessage("done"));
  const agent = createAgent({ model, middleware: [odaTasksMiddleware({ store, remind: "always" })] });
  await agent.invoke(user("one"), thread("c"));
  assert.notEqual(model.calls[0].messages[0].type, "system", "an empty list is never reminded");
  await agent.invoke(user("two"), thread("c"));
  for (const call of [2, 3]) {
    assert.equal(model.calls[call].messages[0].type, "system");
    assert.equal(model.calls[call].messages[0].text, todoListText(good.todos));
  }
});

test("a person's edit between two model calls reaches the next call as the exact notice, once; a stale todo_write is refused once and the person's items survive", async () => {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  const plan = good;
  const { withC, withCD, notice, refusal } = edited;
  const model = fakeModel()
    .respondWithTools([{ id: "1", name: "todo_write", args: plan }])
    .respondWithTools([{ id: "2", name: "todo_write", args: withC }])
    .respondWithTools([{ id: "3", name: "todo_write", args: withCD }])
    .respond(new AIMessage("done"));
  const edit = async (todos) => editTodos(store, "c", todos, { basedOn: (await store.read("c")).length, by: "Ada" });
  let call = 0;
  // The person edits before the second model call, and again while it runs (inside the middleware's own model call).
  const person = createMiddleware({
    name: "person",
    beforeModel: async () => {
      if (call === 1) await edit(withC.todos);
    },
    wrapModelCall: async (request, handler) => {
      if (call++ === 1) await edit(withCD.todos);
      return handler(request);
    },
  });
  const agent = createAgent({ model, systemPrompt: "You plan.", middleware: [odaTasksMiddleware({ store }), person] });
  const result = await agent.invoke(user("Plan the release"), thread("c"));
  assert.equal(result.messages.at(-1).content, "done");
  const log = await store.read("c");
  assert.deepEqual(
    log.map((e) => e.type + (e.by ? " by" : "")),
    ["session", "turn_started", "todo_update", "todo_update by", "todo_told", "todo_update by", "todo_told", "todo_update", "turn_ended"],
  );
  assert.equal(log[4].text, notice);
  assert.equal(log[6].text, refusal);
  const system = (n) => model.calls[n].messages[0].text;
  assert.equal(system(0), "You plan.");
  // The call after the edit reads it after the system prompt, and every later call of the run keeps it, told once.
  for (const n of [1, 2, 3]) assert.equal(system(n), `You plan.\n\n${notice}`);
  // The stale call's ToolMessage is the refusal; the next call records, both of the person's items in it.
  assert.equal(toolResults(result.messages)[2][0], refusal);
  assert.equal(model.calls[2].messages.find((m) => m.type === "tool" && m.tool_call_id === "2").content, refusal);
  assert.deepEqual(replayTodos(log).todos, withCD.todos);
});

test("two chats on one agent at once: each run's turn and tool calls stay on its own chat", async () => {
  const store = new MemoryStore();
  await createChat(store, "a", { workspace: "/w" });
  await createChat(store, "b", { workspace: "/w" });
  const model = fakeModel()
    .respondWithTools([{ id: "1", name: "todo_write", args: good }])
    .respondWithTools([{ id: "2", name: "suggest_task", args: suggestion }])
    .respond(new AIMessage("done"))
    .respond(new AIMessage("done"));
  const agent = createAgent({ model, middleware: [odaTasksMiddleware({ store })] });
  await Promise.all([agent.invoke(user("a"), thread("a")), agent.invoke(user("b"), thread("b"))]);
  const a = await types(store, "a");
  const b = await types(store, "b");
  assert.deepEqual([a, b].map((t) => [t[1], t.at(-1), t.length]).sort(), [
    ["turn_started", "turn_ended", 4],
    ["turn_started", "turn_ended", 4],
  ]);
  assert.deepEqual([a[2], b[2]].sort(), ["suggestion_offered", "todo_update"]);
});

test("two runs on one chat at once: the newer holds the chat's turn; the older's end leaves it alone, its tools are refused", {
  timeout: 20_000,
}, async () => {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  const gates = [];
  const gate = () => {
    const g = {};
    g.started = new Promise((resolve) => (g.start = resolve));
    g.done = new Promise((resolve) => (g.release = resolve));
    gates.push(g);
    return g;
  };
  const [gateA, gateB] = [gate(), gate()];
  let n = 0;
  const slow = tool(
    async () => {
      const g = gates[n++];
      g.start();
      await g.done;
      return "slow done";
    },
    { name: "slow", description: "Waits to be released.", schema: { type: "object", properties: {} } },
  );
  const model = fakeModel()
    .respondWithTools([{ id: "a1", name: "slow", args: {} }]) // A
    .respondWithTools([
      { id: "b1", name: "todo_write", args: good },
      { id: "b2", name: "slow", args: {} },
    ]) // B
    .respondWithTools([{ id: "a2", name: "todo_write", args: good }]) // A, after B took the turn over
    .respond(new AIMessage("A done"))
    .respondWithTools([{ id: "b3", name: "suggest_task", args: suggestion }]) // B
    .respond(new AIMessage("B done"));
  const agent = createAgent({ model, tools: [slow], middleware: [odaTasksMiddleware({ store })] });
  const runA = agent.invoke(user("A"), thread("c"));
  await gateA.started;
  const runB = agent.invoke(user("B"), thread("c"));
  await gateB.started;
  gateA.release();
  const a = await runA;
  assert.equal(a.messages.at(-1).content, "A done");
  // A's todo_write came after B took the chat's turn over: refused, recorded nothing.
  assert.match(toolResults(a.messages).a2[0], new RegExp(`^TypeError: ${lateRefusal("todo_write").replace(/[()]/g, "\\$&")}`));
  gateB.release();
  const b = await runB;
  assert.deepEqual(toolResults(b.messages).b3, [texts[4], { offer }]);
  assert.deepEqual(await types(store, "c"), [
    "session",
    "turn_started",
    "turn_ended",
    "turn_started",
    "todo_update",
    "suggestion_offered",
    "turn_ended",
  ]);
});

for (const [order, middleware] of [
  ["after", (store) => [odaTasksMiddleware({ store }), todoListMiddleware()]],
  ["before", (store) => [todoListMiddleware(), odaTasksMiddleware({ store })]],
]) {
  test(`beside todoListMiddleware (listed ${order} it): a clear oda-tasks error, and nothing recorded`, async () => {
    const { store, model } = await setup();
    const agent = createAgent({ model, middleware: middleware(store) });
    await assert.rejects(agent.invoke(user("go"), thread("c")), {
      message:
        "oda-tasks: odaTasksMiddleware replaces LangChain's todoListMiddleware: remove todoListMiddleware (its write_todos tool) " +
        "from the agent's middleware; two task lists would confuse the model",
    });
    assert.deepEqual(await types(store, "c"), ["session"]);
    assert.equal(model.callCount, 0, "the model was never called");
  });
}

test("the chat: `chatId` wins over the thread; with neither, a clear error before anything is written; bad options throw at once", async () => {
  const { store, model } = await setup();
  await createChat(store, "other", {});
  const agent = createAgent({ model, middleware: [odaTasksMiddleware({ store, chatId: "c" })] });
  await agent.invoke(user("go"), thread("other"));
  assert.deepEqual(await types(store, "c"), oneTurn);
  assert.deepEqual(await types(store, "other"), ["session"]);

  const loose = createAgent({ model: fakeModel().respond(new AIMessage("x")), middleware: [odaTasksMiddleware({ store })] });
  await assert.rejects(loose.invoke(user("go")), {
    message:
      "oda-tasks: odaTasksMiddleware has no chat id: pass `chatId` to odaTasksMiddleware, or run the agent with `configurable: { thread_id }` (the chat's id)",
  });
  for (const bad of [
    { everyTurns: 0 },
    { everyTurns: "3" },
    { everyTurns: 1.5 },
    { maxInputLength: -1 },
    { oneActive: "no" },
    { remind: "sometimes" },
  ]) {
    const [name] = Object.keys(bad);
    assert.throws(
      () => odaTasksMiddleware({ store, ...bad }),
      (e) => e instanceof TypeError && e.message.startsWith(`oda-tasks: invalid arguments of odaTasksMiddleware: \`${name}\``),
      JSON.stringify(bad),
    );
  }
  assert.throws(() => odaTasksMiddleware({ store, chatid: "c" }), {
    message: "oda-tasks: invalid arguments of odaTasksMiddleware: unknown option `chatid`",
  });
  assert.throws(() => odaTasksMiddleware({ chatId: "c" }), {
    message: "oda-tasks: invalid arguments of odaTasksMiddleware: `store` must be a store (MemoryStore, JsonlStore, ...)",
  });
  assert.throws(() => odaTasksMiddleware({ store, chatId: 5 }), {
    message: "oda-tasks: invalid arguments of odaTasksMiddleware: `chatId` must be a string",
  });
});

test("a chat that does not exist: the run fails with store/missing-chat and writes nothing", async () => {
  const store = new MemoryStore();
  const agent = createAgent({ model: fakeModel().respond(new AIMessage("x")), middleware: [odaTasksMiddleware({ store })] });
  await assert.rejects(
    agent.invoke(user("go"), thread("nope")),
    (e) => e.code === "store/missing-chat" || e.cause?.code === "store/missing-chat",
  );
  assert.equal(await store.read("nope"), null);
});
