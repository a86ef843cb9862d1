// oda-tasks/acp (odaAcp) with the Agent Client Protocol SDK's real agent and
// client apps over an in-memory pipe of newline-delimited JSON (no network):
// each session/prompt is one turn; each recorded list is one `plan` update,
// a refusal none; the next prompt clears the plan; a cancelled prompt ends
// its turn and answers `cancelled`.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { createChat, editTodos, MemoryStore } from "oda-tasks";
import { odaAcp } from "oda-tasks/acp";
import { suggestion } from "./support/tool-fixtures.mjs";

const list = (...items) => ({ todos: items.map(([content, status]) => ({ content, status })) });
const entries = (...items) => items.map(([content, status]) => ({ content, status, priority: "medium" }));

/**
 * An agent whose prompt handler runs the tool calls the prompt's text names
 * (a JSON array of [tool, input]); a call of "wait" waits for cancellation,
 * "edit" is a person's edit of the list (input: the list), "notice" asks what
 * the model is told before its next step.
 * Resolves to the client's context, the plan updates it heard, the tools'
 * results, and a function that closes both ends.
 */
function connect(store, odaOptions = {}) {
  const oda = odaAcp({ store, ...odaOptions });
  const results = [];
  let sessions = 0;
  const agentApp = acp
    .agent()
    .onRequest("session/new", async () => {
      const sessionId = `session-${++sessions}`;
      await createChat(store, odaOptions.chatId?.(sessionId) ?? sessionId, { workspace: "/w" });
      return { sessionId };
    })
    .onRequest(
      "session/prompt",
      oda.prompt(async ({ params }, { tools, signal, chatId, turn, reminder, notice }) => {
        results.push({ chatId, turn, ...(reminder === null ? {} : { reminder }) });
        for (const [name, input] of JSON.parse(params.prompt[0].text)) {
          if (name === "edit") {
            await editTodos(store, chatId, input, { basedOn: (await store.read(chatId)).length });
            continue;
          }
          if (name === "notice") {
            results.push({ notice: await notice() });
            continue;
          }
          if (name === "wait") {
            await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
            // A call after the cancel: refused, nothing recorded.
            results.push(await tools.todo_write(list(["Late", "pending"])).catch((e) => e));
            return { stopReason: "end_turn" };
          }
          results.push(await tools[name](input));
        }
        return { stopReason: "end_turn" };
      }),
    )
    .onNotification("session/cancel", oda.cancel);
  const updates = [];
  const clientApp = acp.client().onNotification("session/update", ({ params }) => void updates.push(params));
  const toClient = new TransformStream();
  const toAgent = new TransformStream();
  const agentSide = agentApp.connect(acp.ndJsonStream(toClient.writable, toAgent.readable));
  const clientSide = clientApp.connect(acp.ndJsonStream(toAgent.writable, toClient.readable));
  const prompt = (sessionId, calls, options) =>
    clientSide.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: JSON.stringify(calls) }] }, options);
  const close = () => {
    clientSide.close();
    agentSide.close();
  };
  return { agent: clientSide.agent, updates, results, prompt, close };
}

const types = async (store, chatId) => (await store.read(chatId)).map((e) => e.type);

test("a prompt is one turn; each recorded list is one plan update (statuses as they are, priority medium); a refusal sends none", async (t) => {
  const store = new MemoryStore();
  const c = connect(store);
  t.after(c.close);
  const { sessionId } = await c.agent.request("session/new", { cwd: "/w", mcpServers: [] });
  const response = await c.prompt(sessionId, [
    ["todo_write", list(["Write tests", "in_progress"], ["Ship", "pending"])],
    ["todo_write", list(["A", "in_progress"], ["B", "in_progress"])],
    ["todo_write", list(["Write tests", "completed"], ["Ship", "in_progress"])],
    ["suggest_task", suggestion],
  ]);
  assert.deepEqual(response, { stopReason: "end_turn" });
  assert.deepEqual(c.updates, [
    { sessionId, update: { sessionUpdate: "plan", entries: entries(["Write tests", "in_progress"], ["Ship", "pending"]) } },
    { sessionId, update: { sessionUpdate: "plan", entries: entries(["Write tests", "completed"], ["Ship", "in_progress"]) } },
  ]);
  assert.deepEqual(
    c.results.map((r) => r.text ?? r),
    [
      { chatId: sessionId, turn: 1 },
      "Updated todo list: 1 pending, 1 in progress, 0 completed",
      "Error: invalid todos: at most one task may be in_progress (got 2)",
      "Updated todo list: 0 pending, 1 in progress, 1 completed",
      'Suggested "Add retries". The user decides whether to start it; do not start it yourself.',
    ],
  );
  assert.equal(c.results[4].offer.id, "s1");
  assert.deepEqual(await types(store, sessionId), [
    "session",
    "turn_started",
    "todo_update",
    "todo_update",
    "suggestion_offered",
    "turn_ended",
  ]);
});

test("a person's edit is told to the agent once (notice() before its next step, or the next prompt's reminder) and sent to the client as the plan", async (t) => {
  const store = new MemoryStore();
  const c = connect(store);
  t.after(c.close);
  const { sessionId } = await c.agent.request("session/new", { cwd: "/w", mcpServers: [] });
  const edited = list(["Write tests", "in_progress"], ["Tell the team", "pending"]).todos;
  await c.prompt(sessionId, [["todo_write", list(["Write tests", "in_progress"])], ["notice"], ["edit", edited], ["notice"], ["notice"]]);
  const notice =
    'The user edited the todo list while you worked. What they changed:\n- added "Tell the team" (pending)\nThe list as edited (1 pending, 1 in progress, 0 completed):\n1. [in_progress] "Write tests"\n2. [pending] "Tell the team"\nKeep their changes: your next todo_write sends this list whole, with the user\'s changes in it.';
  assert.deepEqual(c.results.slice(2), [{ notice: null }, { notice }, { notice: null }]);
  // The client's plan: the model's list, then the list as the person edited it, when the agent was told.
  assert.deepEqual(
    c.updates.map((u) => u.update.entries),
    [entries(["Write tests", "in_progress"]), entries(["Write tests", "in_progress"], ["Tell the team", "pending"])],
  );
  // An edit between prompts: the next prompt's reminder is its notice, and the client's plan is the edited list.
  c.updates.length = 0;
  c.results.length = 0;
  await editTodos(store, sessionId, edited.slice(1), { basedOn: (await store.read(sessionId)).length });
  await c.prompt(sessionId, [["notice"]]);
  assert.match(c.results[0].reminder, /^The user edited the todo list while you worked\. What they changed:\n- removed "Write tests"\n/);
  assert.deepEqual(c.results[1], { notice: null }, "told once, in the reminder");
  assert.deepEqual(
    c.updates.map((u) => u.update.entries),
    [[], entries(["Tell the team", "pending"])],
  );
});

test("the next prompt clears the standing plan with an empty plan update first; a prompt after a turn with no list sends none", async (t) => {
  const store = new MemoryStore();
  const c = connect(store);
  t.after(c.close);
  const { sessionId } = await c.agent.request("session/new", { cwd: "/w", mcpServers: [] });
  await c.prompt(sessionId, [["todo_write", list(["Ship", "in_progress"])]]);
  await c.prompt(sessionId, [["todo_write", list(["Ship", "completed"])]]);
  await c.prompt(sessionId, []);
  await c.prompt(sessionId, []);
  assert.deepEqual(
    c.updates.map((u) => u.update.entries),
    [entries(["Ship", "in_progress"]), [], entries(["Ship", "completed"]), []],
  );
  assert.deepEqual(await types(store, sessionId), [
    "session",
    ...["turn_started", "todo_update", "turn_ended", "turn_started", "todo_update", "turn_ended"],
    ...["turn_started", "turn_ended", "turn_started", "turn_ended"],
  ]);
});

test("session/cancel: the prompt answers cancelled, its turn ends, and a tool call after the cancel is refused and records nothing", async (t) => {
  const store = new MemoryStore();
  const c = connect(store);
  t.after(c.close);
  const { sessionId } = await c.agent.request("session/new", { cwd: "/w", mcpServers: [] });
  const answer = c.prompt(sessionId, [["todo_write", list(["Ship", "in_progress"])], ["wait"]]);
  while (c.updates.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  await c.agent.notify("session/cancel", { sessionId });
  assert.deepEqual(await answer, { stopReason: "cancelled" });
  const late = c.results.at(-1);
  assert.ok(late instanceof TypeError);
  assert.match(late.message, /^oda-tasks: todo_write was called after its ACP prompt ended; it was refused and recorded nothing/);
  assert.deepEqual(await types(store, sessionId), ["session", "turn_started", "todo_update", "turn_ended"]);
  assert.equal(c.updates.length, 1);
  // The next prompt is a turn of its own, and clears the plan the cancelled turn left.
  await c.prompt(sessionId, []);
  assert.deepEqual(c.updates.at(-1).update.entries, []);
  assert.deepEqual((await types(store, sessionId)).slice(4), ["turn_started", "turn_ended"]);
});

test("a request cancelled by the client ($/cancel_request, the handler's own signal) ends its turn too", async (t) => {
  const store = new MemoryStore();
  const c = connect(store);
  t.after(c.close);
  const { sessionId } = await c.agent.request("session/new", { cwd: "/w", mcpServers: [] });
  const controller = new AbortController();
  const answer = c.prompt(sessionId, [["todo_write", list(["Ship", "in_progress"])], ["wait"]], { cancellationSignal: controller.signal });
  while (c.updates.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  controller.abort();
  // The SDK answers a cancelled request with the handler's response: ACP's `cancelled`.
  assert.deepEqual(await answer, { stopReason: "cancelled" });
  while (!(c.results.at(-1) instanceof TypeError)) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(await types(store, sessionId), ["session", "turn_started", "todo_update", "turn_ended"]);
});

test("a second prompt on a session still running one cancels it first: one open turn per chat, each prompt its own", async (t) => {
  const store = new MemoryStore();
  const c = connect(store);
  t.after(c.close);
  const { sessionId } = await c.agent.request("session/new", { cwd: "/w", mcpServers: [] });
  const first = c.prompt(sessionId, [["todo_write", list(["Ship", "in_progress"])], ["wait"]]);
  while (c.updates.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const second = c.prompt(sessionId, [["todo_write", list(["Ship", "completed"])]]);
  assert.deepEqual(await first, { stopReason: "cancelled" });
  assert.deepEqual(await second, { stopReason: "end_turn" });
  assert.deepEqual(await types(store, sessionId), [
    "session",
    "turn_started",
    "todo_update",
    "turn_ended",
    "turn_started",
    "todo_update",
    "turn_ended",
  ]);
  assert.deepEqual(
    c.updates.map((u) => u.update.entries),
    [entries(["Ship", "in_progress"]), [], entries(["Ship", "completed"])],
  );
});

test("chatId maps a session to the app's chat, and priority is what the plan entries carry", async (t) => {
  const store = new MemoryStore();
  const c = connect(store, { chatId: (sessionId) => `acp:${sessionId}`, priority: "high" });
  t.after(c.close);
  const { sessionId } = await c.agent.request("session/new", { cwd: "/w", mcpServers: [] });
  await c.prompt(sessionId, [["todo_write", list(["Ship", "pending"])]]);
  assert.deepEqual(c.updates[0], {
    sessionId,
    update: { sessionUpdate: "plan", entries: [{ content: "Ship", status: "pending", priority: "high" }] },
  });
  assert.deepEqual(await types(store, `acp:${sessionId}`), ["session", "turn_started", "todo_update", "turn_ended"]);
});

test("an Agent-style prompt(params) with a connection of its own: updates through its sessionUpdate", async () => {
  const store = new MemoryStore();
  await createChat(store, "s", { workspace: "/w" });
  const sent = [];
  const oda = odaAcp({ store, connection: { sessionUpdate: async (params) => void sent.push(params) } });
  const prompt = oda.prompt(async (_params, { tools }) => {
    await tools.todo_write(list(["Ship", "pending"]));
    return { stopReason: "end_turn" };
  });
  assert.deepEqual(await prompt({ sessionId: "s", prompt: [] }), { stopReason: "end_turn" });
  assert.deepEqual(sent, [{ sessionId: "s", update: { sessionUpdate: "plan", entries: entries(["Ship", "pending"]) } }]);
});

test("misuse throws an oda-tasks: TypeError before anything is written", async () => {
  const store = new MemoryStore();
  await createChat(store, "s", { workspace: "/w" });
  const bad = [
    [{}, "oda-tasks: invalid arguments of odaAcp: `store` must be a store (MemoryStore, JsonlStore, ...)"],
    [{ store, priority: "urgent" }, 'oda-tasks: invalid arguments of odaAcp: `priority` must be "high", "medium" or "low" (got "urgent")'],
    [{ store, chatId: "s" }, 'oda-tasks: invalid arguments of odaAcp: `chatId` must be a function (got "s")'],
    [
      { store, connection: {} },
      "oda-tasks: invalid arguments of odaAcp: `connection` must be an ACP agent-side connection (with notify or sessionUpdate)",
    ],
    [{ store, extra: 1 }, "oda-tasks: invalid arguments of odaAcp: unknown option `extra`"],
  ];
  for (const [options, message] of bad) assert.throws(() => odaAcp(options), { name: "TypeError", message });
  const prompt = odaAcp({ store }).prompt(async () => ({ stopReason: "end_turn" }));
  await assert.rejects(prompt({ sessionId: "s", prompt: [] }), {
    name: "TypeError",
    message:
      'oda-tasks: odaAcp has no ACP connection for plan updates: pass `connection`, or wrap a handler of the SDK\'s agent().onRequest("session/prompt", ...)',
  });
  assert.deepEqual(await types(store, "s"), ["session"]);
});
