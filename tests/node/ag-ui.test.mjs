// oda-tasks/ag-ui (odaAgUi and its builders) on @ag-ui/client's real
// AbstractAgent: a subclass emits the events an AG-UI producer emits around
// a tool call (TOOL_CALL_START/ARGS/END, then TOOL_CALL_RESULT with what the
// package's tool returned, run for real on a store), and the run goes through
// the client's own pipeline (chunk transform, verification, apply). The
// Mastra producer runs in tests/node/consumers/consumer-agents.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { AbstractAgent } from "@ag-ui/client";
import { Observable } from "rxjs";
import { beginTurn, createChat, editTodos, MemoryStore, SuggestionService, toolHandlers } from "oda-tasks";
import { odaAgUi, odaCardActivity, odaPlanActivity, odaStateDelta, odaSuggestionsActivity, odaToolResult } from "oda-tasks/ag-ui";
import { card, good, suggestion } from "./support/tool-fixtures.mjs";

/** An agent that emits the given steps: an event, or a tool call run on the store ({ call: [name, input, handlers] }). */
class ScriptedAgent extends AbstractAgent {
  constructor(steps, config) {
    super(config);
    this.steps = steps;
  }
  run(input) {
    return new Observable((subscriber) => {
      (async () => {
        subscriber.next({ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId });
        let n = 0;
        for (const step of this.steps) {
          if (!step.call) {
            subscriber.next(step);
            continue;
          }
          const [name, args, handlers] = step.call;
          const toolCallId = `call-${++n}`;
          subscriber.next({ type: "TOOL_CALL_START", toolCallId, toolCallName: name });
          subscriber.next({ type: "TOOL_CALL_ARGS", toolCallId, delta: JSON.stringify(args) });
          subscriber.next({ type: "TOOL_CALL_END", toolCallId });
          const result = handlers === undefined ? step.content : await handlers[name](args);
          subscriber.next({
            type: "TOOL_CALL_RESULT",
            messageId: `result-${n}`,
            toolCallId,
            content: typeof result === "string" ? result : JSON.stringify(result),
            role: "tool",
          });
        }
        subscriber.next({ type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId });
        subscriber.complete();
      })().catch((e) => subscriber.error(e));
    });
  }
}

/** Runs `agent` once; resolves to every event its subscribers saw, in order. */
async function run(agent) {
  const seen = [];
  await agent.runAgent({}, { onEvent: ({ event }) => void seen.push(structuredClone(event)) });
  return seen;
}

/** The events `seen` holds beside the agent's own (what the middleware added). */
const added = (seen) =>
  seen.filter((e) => e.type === "ACTIVITY_SNAPSHOT" || (e.type === "STATE_DELTA" && e.delta.some((op) => op.path.startsWith("/oda"))));
const strip = ({ timestamp: _t, ...e }) => e;

async function chat(store, id = "thread-1") {
  await createChat(store, id, { workspace: "/w" });
  await beginTurn(store, id);
  return toolHandlers({ store, chatId: id, ui: true });
}

test("without a store: a recorded todo_write adds its card, the plan (its list, running in its turn) and /oda; a refusal adds nothing", async () => {
  const store = new MemoryStore();
  const ui = await chat(store);
  const text = { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" };
  const custom = { type: "CUSTOM", name: "app", value: { keep: true } };
  const agent = new ScriptedAgent(
    [
      text,
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "Planning" },
      { type: "TEXT_MESSAGE_END", messageId: "m1" },
      { call: ["todo_write", good, ui] },
      custom,
      { call: ["todo_write", { todos: "no" }, ui] },
      { call: ["suggest_task", suggestion, ui] },
    ],
    { threadId: "thread-1" },
  ).use(odaAgUi());
  const seen = await run(agent);
  const plan = { state: "running", todos: good.todos, turn: 1 };
  const types = seen.map((e) => e.type);
  assert.deepEqual(types, [
    "RUN_STARTED",
    "TEXT_MESSAGE_START",
    "TEXT_MESSAGE_CONTENT",
    "TEXT_MESSAGE_END",
    ...["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT", "ACTIVITY_SNAPSHOT", "ACTIVITY_SNAPSHOT", "STATE_DELTA"],
    "CUSTOM",
    ...["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"],
    ...["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"],
    "RUN_FINISHED",
  ]);
  assert.deepEqual(added(seen).map(strip), [
    { type: "ACTIVITY_SNAPSHOT", messageId: "oda-card:call-1", activityType: "oda-card", content: card, replace: true },
    { type: "ACTIVITY_SNAPSHOT", messageId: "oda-plan", activityType: "oda-plan", content: plan, replace: true },
    { type: "STATE_DELTA", delta: [{ op: "add", path: "/oda", value: { todos: good.todos, plan } }] },
  ]);
  // The app's own events pass as they were sent.
  assert.deepEqual(strip(seen[1]), text);
  assert.deepEqual(strip(seen.find((e) => e.type === "CUSTOM")), custom);
  // What the client made of them: two activity messages and the state.
  const activities = agent.messages.filter((m) => m.role === "activity");
  assert.deepEqual(
    activities.map((m) => [m.id, m.activityType]),
    [
      ["oda-card:call-1", "oda-card"],
      ["oda-plan", "oda-plan"],
    ],
  );
  assert.deepEqual(agent.state, { oda: { todos: good.todos, plan } });
});

test("with a store: the plan and the suggestions as the chat's screen has them, in order after each result; later deltas set members of /oda", async () => {
  const store = new MemoryStore();
  const ui = await chat(store);
  const second = {
    todos: [
      { content: "Write tests", status: "completed" },
      { content: "Ship", status: "in_progress" },
    ],
  };
  const agent = new ScriptedAgent(
    [{ call: ["todo_write", good, ui] }, { call: ["suggest_task", suggestion, ui] }, { call: ["todo_write", second, ui] }],
    { threadId: "thread-1" },
  ).use(odaAgUi({ store }));
  const seen = await run(agent);
  const list = await new SuggestionService({ store }).list("thread-1", { progress: true });
  assert.deepEqual(
    list.open.map((s) => s.id),
    ["s1"],
  );
  const results = seen
    .map((e, i) => [e, i])
    .filter(([e]) => e.type === "TOOL_CALL_RESULT")
    .map(([, i]) => i);
  const after = (i, n) => seen.slice(i + 1, i + 1 + n).map(strip);
  const plan1 = { state: "running", todos: good.todos, turn: 1 };
  const plan2 = { state: "running", todos: second.todos, turn: 1 };
  assert.deepEqual(after(results[0], 3), [
    odaCardActivity(card, "call-1"),
    odaPlanActivity(plan1),
    { type: "STATE_DELTA", delta: [{ op: "add", path: "/oda", value: { todos: good.todos, plan: plan1 } }] },
  ]);
  assert.deepEqual(after(results[1], 2), [
    odaSuggestionsActivity(list),
    { type: "STATE_DELTA", delta: [{ op: "add", path: "/oda/suggestions", value: list }] },
  ]);
  const [cardEvent, planEvent, delta] = after(results[2], 3);
  assert.equal(cardEvent.messageId, "oda-card:call-3");
  assert.deepEqual(cardEvent.content.todos, second.todos);
  assert.deepEqual(planEvent, odaPlanActivity(plan2));
  assert.deepEqual(delta.delta, [
    { op: "add", path: "/oda/todos", value: second.todos },
    { op: "add", path: "/oda/plan", value: plan2 },
  ]);
  assert.equal(seen.at(-1).type, "RUN_FINISHED");
  assert.deepEqual(agent.state, { oda: { todos: second.todos, plan: plan2, suggestions: list } });
  // One plan and one suggestions message, replaced in place; one card per call.
  assert.deepEqual(
    agent.messages.filter((m) => m.role === "activity").map((m) => m.id),
    ["oda-card:call-1", "oda-plan", "oda-suggestions", "oda-card:call-3"],
  );
  assert.deepEqual(agent.messages.find((m) => m.id === "oda-plan").content, plan2);
});

test("with a store, a person's edit is sent as the plan it already sends: at the run's start and after the next tool result, once; the refused stale call keeps it", async () => {
  const store = new MemoryStore();
  const ui = await chat(store);
  const edit = async (todos) => editTodos(store, "thread-1", todos, { basedOn: (await store.read("thread-1")).length, by: "Ada" });
  await ui.todo_write(good);
  // Before the run: the person ticks the first item.
  const ticked = [{ ...good.todos[0], status: "completed" }, good.todos[1]];
  await edit(ticked);
  const added1 = [...ticked, { content: "Tell the team", status: "pending" }];
  // During it: another tool runs while the person adds an item, then the model's stale write is refused.
  const build = { build: async () => (await edit(added1), "built") };
  const agent = new ScriptedAgent(
    [{ call: ["build", {}, build] }, { call: ["todo_write", good, ui] }, { call: ["lookup", {}, { lookup: async () => "found" }] }],
    { threadId: "thread-1" },
  ).use(odaAgUi({ store }));
  const seen = await run(agent);
  const at = (type, n = 0) => seen.map((e, i) => [e, i]).filter(([e]) => e.type === type)[n][1];
  const after = (i, n) => seen.slice(i + 1, i + 1 + n).map(strip);
  const plan = (todos) => ({ state: "running", todos, turn: 1 });
  assert.deepEqual(after(at("RUN_STARTED"), 2), [
    odaPlanActivity(plan(ticked)),
    { type: "STATE_DELTA", delta: [{ op: "add", path: "/oda", value: { todos: ticked, plan: plan(ticked) } }] },
  ]);
  // After the tool during which the person edited: the edited list, as a delta of /oda.
  assert.deepEqual(after(at("TOOL_CALL_RESULT", 0), 2), [
    odaPlanActivity(plan(added1)),
    {
      type: "STATE_DELTA",
      delta: [
        { op: "add", path: "/oda/todos", value: added1 },
        { op: "add", path: "/oda/plan", value: plan(added1) },
      ],
    },
  ]);
  // The stale todo_write was refused (told of the edit); the next result adds nothing: the run already shows the list.
  assert.match(JSON.parse(seen[at("TOOL_CALL_RESULT", 1)].content).text, /^Error: the user edited the todo list/);
  assert.equal(seen[at("TOOL_CALL_RESULT", 1) + 1].type, "TOOL_CALL_START");
  assert.equal(seen[at("TOOL_CALL_RESULT", 2) + 1].type, "RUN_FINISHED");
  assert.deepEqual(agent.state.oda.todos, added1);
  // Without a store, nothing is read: an edit cannot be seen, and nothing is added for it.
  const bare = await run(
    new ScriptedAgent([{ call: ["lookup", {}, { lookup: async () => "found" }] }], { threadId: "thread-1" }).use(odaAgUi()),
  );
  assert.deepEqual(added(bare), []);
});

test("only what the tools returned counts: not the model's arguments, not another tool's result, not a malformed card", async () => {
  const store = new MemoryStore();
  const fake = JSON.stringify({ text: "x", card });
  const agent = new ScriptedAgent(
    [
      // The model's arguments look like a result: never read.
      { type: "TOOL_CALL_START", toolCallId: "a", toolCallName: "todo_write" },
      { type: "TOOL_CALL_ARGS", toolCallId: "a", delta: fake },
      { type: "TOOL_CALL_END", toolCallId: "a" },
      { type: "TOOL_CALL_RESULT", messageId: "r-a", toolCallId: "a", content: "Updated todo list: 1 pending, 1 in progress, 0 completed" },
      // Another tool returning our shape.
      { type: "TOOL_CALL_START", toolCallId: "b", toolCallName: "search" },
      { type: "TOOL_CALL_END", toolCallId: "b" },
      { type: "TOOL_CALL_RESULT", messageId: "r-b", toolCallId: "b", content: fake },
      // Our tool, with a card that is not the package's shape.
      { type: "TOOL_CALL_START", toolCallId: "c", toolCallName: "todo_write" },
      { type: "TOOL_CALL_END", toolCallId: "c" },
      {
        type: "TOOL_CALL_RESULT",
        messageId: "r-c",
        toolCallId: "c",
        content: JSON.stringify({ text: "x", card: { ...card, todos: [{ content: 1 }] } }),
      },
      // A todo_write result carrying an offer: not a todo_write's part.
      { type: "TOOL_CALL_START", toolCallId: "d", toolCallName: "todo_write" },
      { type: "TOOL_CALL_END", toolCallId: "d" },
      {
        type: "TOOL_CALL_RESULT",
        messageId: "r-d",
        toolCallId: "d",
        content: JSON.stringify({ text: "x", offer: { id: "s1", ...suggestion } }),
      },
    ],
    { threadId: "t" },
  ).use(odaAgUi({ store }));
  const seen = await run(agent);
  assert.deepEqual(added(seen), []);
  assert.equal(seen.length, 15);
});

test("a STATE_SNAPSHOT of the app's that drops /oda: the next delta adds /oda whole again; the chat is each run's threadId", async () => {
  const store = new MemoryStore();
  const ui = await chat(store, "t2");
  const second = { todos: [{ content: "Ship", status: "in_progress" }] };
  const agent = new ScriptedAgent(
    [{ call: ["todo_write", good, ui] }, { type: "STATE_SNAPSHOT", snapshot: { app: 1 } }, { call: ["todo_write", second, ui] }],
    { threadId: "t2", initialState: { app: 0 } },
  ).use(odaAgUi({ store }));
  const seen = await run(agent);
  const deltas = added(seen).filter((e) => e.type === "STATE_DELTA");
  const plan = { state: "running", todos: second.todos, turn: 1 };
  assert.deepEqual(deltas.at(-1).delta, [{ op: "add", path: "/oda", value: { todos: second.todos, plan } }]);
  assert.deepEqual(agent.state, { app: 1, oda: { todos: second.todos, plan } });
});

test("the app's events pass as the very objects it sent, chunks unexpanded; a call named by its first TOOL_CALL_CHUNK counts", async () => {
  const store = new MemoryStore();
  const ui = await chat(store);
  const result = await ui.todo_write(good);
  const own = [
    { type: "RUN_STARTED", threadId: "thread-1", runId: "r1" },
    { type: "TOOL_CALL_CHUNK", toolCallId: "k1", toolCallName: "todo_write", delta: '{"todos":' },
    { type: "TOOL_CALL_CHUNK", delta: "[]}" },
    { type: "TOOL_CALL_RESULT", messageId: "r-k1", toolCallId: "k1", content: JSON.stringify(result) },
    { type: "RUN_FINISHED", threadId: "thread-1", runId: "r1" },
  ];
  const agent = new ScriptedAgent(own.slice(1, -1), { threadId: "thread-1" });
  agent.run = () =>
    new Observable((subscriber) => {
      for (const event of own) subscriber.next(event);
      subscriber.complete();
    });
  const out = [];
  await new Promise((resolve, reject) =>
    odaAgUi()
      .run({ threadId: "thread-1", runId: "r1", state: {}, messages: [], tools: [], context: [] }, agent)
      .subscribe({ next: (e) => out.push(e), error: reject, complete: resolve }),
  );
  assert.deepEqual(
    out.map((e) => e.type),
    [
      "RUN_STARTED",
      "TOOL_CALL_CHUNK",
      "TOOL_CALL_CHUNK",
      "TOOL_CALL_RESULT",
      "ACTIVITY_SNAPSHOT",
      "ACTIVITY_SNAPSHOT",
      "STATE_DELTA",
      "RUN_FINISHED",
    ],
  );
  for (const [i, j] of [
    [0, 0],
    [1, 1],
    [2, 2],
    [3, 3],
    [4, 7],
  ])
    assert.equal(out[j], own[i], `event ${i} is the app's own object`);
  assert.deepEqual(out[4], odaCardActivity(card, "k1"));
});

test("with a store, events the agent sends at once behind a result wait for the store's read: the order holds", async () => {
  const store = new MemoryStore();
  const ui = await chat(store);
  const result = await ui.suggest_task(suggestion);
  const own = [
    { type: "RUN_STARTED", threadId: "thread-1", runId: "r1" },
    { type: "TOOL_CALL_START", toolCallId: "k1", toolCallName: "suggest_task" },
    { type: "TOOL_CALL_END", toolCallId: "k1" },
    { type: "TOOL_CALL_RESULT", messageId: "r-k1", toolCallId: "k1", content: JSON.stringify(result) },
    { type: "CUSTOM", name: "app", value: 1 },
    { type: "RUN_FINISHED", threadId: "thread-1", runId: "r1" },
  ];
  const agent = new ScriptedAgent([], { threadId: "thread-1" });
  agent.run = () =>
    new Observable((subscriber) => {
      for (const event of own) subscriber.next(event); // all in one go, while the read is still pending
      subscriber.complete();
    });
  const out = [];
  await new Promise((resolve, reject) =>
    odaAgUi({ store })
      .run({ threadId: "thread-1", runId: "r1", state: { oda: {} }, messages: [], tools: [], context: [] }, agent)
      .subscribe({ next: (e) => out.push(e), error: reject, complete: resolve }),
  );
  const list = { open: [{ id: "s1", ...suggestion }], settled: [] };
  assert.deepEqual(out, [...own.slice(0, 4), odaSuggestionsActivity(list), odaStateDelta({ suggestions: list }), ...own.slice(4)]);
});

test("the builders: card, plan, suggestions and delta events, and odaToolResult's reading of a result's content", () => {
  const plan = { state: "finished", todos: good.todos, turn: 2 };
  assert.deepEqual(odaCardActivity(card, "t1"), {
    type: "ACTIVITY_SNAPSHOT",
    messageId: "oda-card:t1",
    activityType: "oda-card",
    content: card,
    replace: true,
  });
  assert.deepEqual(odaPlanActivity(plan), {
    type: "ACTIVITY_SNAPSHOT",
    messageId: "oda-plan",
    activityType: "oda-plan",
    content: plan,
    replace: true,
  });
  const list = { open: [{ id: "s1", ...suggestion }], settled: [] };
  assert.deepEqual(odaSuggestionsActivity(list), {
    type: "ACTIVITY_SNAPSHOT",
    messageId: "oda-suggestions",
    activityType: "oda-suggestions",
    content: list,
    replace: true,
  });
  assert.deepEqual(odaStateDelta({ plan }), { type: "STATE_DELTA", delta: [{ op: "add", path: "/oda/plan", value: plan }] });
  assert.deepEqual(odaStateDelta({ plan, todos: undefined }, { whole: true }), {
    type: "STATE_DELTA",
    delta: [{ op: "add", path: "/oda", value: { plan } }],
  });

  const ui = { text: "Updated todo list: 1 pending, 1 in progress, 0 completed", card };
  assert.deepEqual(odaToolResult(JSON.stringify(ui)), ui);
  assert.deepEqual(odaToolResult([{ type: "text", text: JSON.stringify(ui) }]), ui);
  const mcp = { content: [{ type: "text", text: ui.text }], _meta: { "oda-tasks/card": card } };
  assert.deepEqual(odaToolResult(JSON.stringify(mcp)), ui);
  assert.deepEqual(odaToolResult(JSON.stringify({ text: "suggest_task: requires an open model turn" })), {
    text: "suggest_task: requires an open model turn",
  });
  for (const content of [
    ui.text,
    "{not json",
    JSON.stringify([ui]),
    JSON.stringify({ text: 1 }),
    JSON.stringify({ text: "x", offer: { id: "s1" } }),
    undefined,
  ])
    assert.equal(odaToolResult(content), null, String(content));
});

test("misuse throws an oda-tasks: TypeError", () => {
  const store = new MemoryStore();
  const bad = [
    [{ chatId: "c" }, "oda-tasks: invalid arguments of odaAgUi: `chatId` and `cache` need a `store`"],
    [{ store: {} }, "oda-tasks: invalid arguments of odaAgUi: `store` must be a store (MemoryStore, JsonlStore, ...)"],
    [{ store, chatId: 1 }, "oda-tasks: invalid arguments of odaAgUi: `chatId` must be a string"],
    [{ store, cache: {} }, "oda-tasks: invalid arguments of odaAgUi: the cache belongs to another store"],
    [{ store, messageId: "x" }, "oda-tasks: invalid arguments of odaAgUi: unknown option `messageId`"],
    ["store", "oda-tasks: invalid arguments of odaAgUi: options must be an object (got string)"],
  ];
  for (const [options, message] of bad) assert.throws(() => odaAgUi(options), { name: "TypeError", message });
});
