// The AG-UI and ACP recipes of docs/integration.md as printed, run in a consumer
// project under Node 22: a real Mastra agent through @ag-ui/mastra with the AI
// SDK's scripted model, and an ACP agent over the SDK's own pipe.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { createChat, MemoryStore } from "oda-tasks";
import { planningAgent as agUiAgent, reply } from "./agent-ag-ui.ts";
import { planningAgent as acpAgent } from "./agent-acp.ts";

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const stop = (unified) => ({ unified, raw: unified });
const call = (toolCallId, toolName, input) => ({ type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) });
const ship = { todos: [{ content: "Ship", status: "in_progress" }] };
const REFUSAL = "Error: invalid todos: `todos` must be an array (got a string)";
const retries = { title: "Add retries", tldr: "Uploads fail on flaky networks.", brief: "In upload.ts, retry failed uploads." };

test("Mastra through @ag-ui/mastra with odaAgUi: the card, plan and suggestions follow their results in order; the model reads the text alone", async () => {
  const steps = [
    [
      { type: "stream-start", warnings: [] },
      call("c1", "todo_write", ship),
      call("c2", "todo_write", { todos: "no" }),
      call("c3", "suggest_task", retries),
      { type: "finish", finishReason: stop("tool-calls"), usage },
    ],
    [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "done" },
      { type: "text-end", id: "t" },
      { type: "finish", finishReason: stop("stop"), usage },
    ],
  ];
  const prompts = [];
  const model = new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      prompts.push(prompt);
      return { stream: convertArrayToReadableStream(steps[prompts.length - 1]) };
    },
  });
  const store = new MemoryStore();
  await createChat(store, "chat-1", { workspace: "/repos/app" });
  const agent = agUiAgent(store, "chat-1", model);
  const seen = [];
  agent.subscribe({ onEvent: ({ event }) => void seen.push(event) });
  await reply(agent, store, "Plan the release");

  const plan = { state: "running", todos: ship.todos, turn: 1 };
  const list = { open: [{ id: "s1", ...retries }], settled: [] };
  const results = Object.fromEntries(seen.flatMap((e, i) => (e.type === "TOOL_CALL_RESULT" ? [[e.toolCallId, i]] : [])));
  const after = (id, n) =>
    seen
      .slice(results[id] + 1, results[id] + 1 + n)
      .map(({ type, messageId, activityType, content, delta }) => ({ type, messageId, activityType, content, delta }));
  assert.deepEqual(after("c1", 3), [
    {
      type: "ACTIVITY_SNAPSHOT",
      messageId: "oda-card:c1",
      activityType: "oda-card",
      content: JSON.parse(seen[results.c1].content).card,
      delta: undefined,
    },
    { type: "ACTIVITY_SNAPSHOT", messageId: "oda-plan", activityType: "oda-plan", content: plan, delta: undefined },
    {
      type: "STATE_DELTA",
      messageId: undefined,
      activityType: undefined,
      content: undefined,
      delta: [{ op: "add", path: "/oda", value: { todos: ship.todos, plan } }],
    },
  ]);
  assert.equal(seen[results.c2 + 1].toolCallId, "c3", "the refusal adds nothing: c3's result comes next");
  assert.deepEqual(after("c3", 2), [
    { type: "ACTIVITY_SNAPSHOT", messageId: "oda-suggestions", activityType: "oda-suggestions", content: list, delta: undefined },
    {
      type: "STATE_DELTA",
      messageId: undefined,
      activityType: undefined,
      content: undefined,
      delta: [{ op: "add", path: "/oda/suggestions", value: list }],
    },
  ]);
  assert.equal(seen.filter((e) => e.type === "ACTIVITY_SNAPSHOT").length, 3);
  assert.equal(seen.at(-1).type, "RUN_FINISHED");
  // Mastra's own events are all there, in its order: the ones the middleware added removed, the stream is Mastra's.
  const own = seen.filter((e) => e.type !== "ACTIVITY_SNAPSHOT" && !(e.type === "STATE_DELTA" && e.delta[0].path.startsWith("/oda")));
  assert.deepEqual(
    own.map((e) => e.type),
    [
      "RUN_STARTED",
      ...["c1", "c2", "c3"].flatMap(() => ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]),
      "TOOL_CALL_RESULT",
      "TOOL_CALL_RESULT",
      "TOOL_CALL_RESULT",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "RUN_FINISHED",
    ],
  );
  // What the model read back: the core's exact texts, no card.
  const toolResults = prompts[1].at(-1).content.map((part) => part.output);
  assert.deepEqual(toolResults, [
    { type: "text", value: "Updated todo list: 0 pending, 1 in progress, 0 completed" },
    { type: "text", value: REFUSAL },
    { type: "text", value: 'Suggested "Add retries". The user decides whether to start it; do not start it yourself.' },
  ]);
  assert.deepEqual(agent.state, { oda: { todos: ship.todos, plan, suggestions: list } });
  assert.deepEqual(
    (await store.read("chat-1")).map((e) => e.type),
    ["session", "turn_started", "todo_update", "suggestion_offered", "turn_ended"],
  );
});

test("the ACP agent: initialize, a session, one plan update per recorded list, an empty plan at the next prompt, a cancelled prompt ends its turn", async () => {
  const store = new MemoryStore();
  const runPrompt = async (prompt, { tools, signal }) => {
    const [first] = prompt;
    if (first.text === "wait") {
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      return "end_turn";
    }
    for (const input of JSON.parse(first.text)) await tools.todo_write(input);
    return "end_turn";
  };
  const updates = [];
  const client = acp.client().onNotification("session/update", ({ params }) => void updates.push(params.update));
  const toClient = new TransformStream();
  const toAgent = new TransformStream();
  const agentSide = acpAgent(store, runPrompt).connect(acp.ndJsonStream(toClient.writable, toAgent.readable));
  const { agent } = client.connect(acp.ndJsonStream(toAgent.writable, toClient.readable));
  try {
    await agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await agent.request("session/new", { cwd: "/repos/app", mcpServers: [] });
    const prompt = (text) => agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    assert.deepEqual(await prompt(JSON.stringify([ship, { todos: "no" }, { todos: [{ content: "Ship", status: "completed" }] }])), {
      stopReason: "end_turn",
    });
    const cancelled = prompt("wait");
    await new Promise((resolve) => setTimeout(resolve, 50));
    await agent.notify("session/cancel", { sessionId });
    assert.deepEqual(await cancelled, { stopReason: "cancelled" });
    assert.deepEqual(updates, [
      { sessionUpdate: "plan", entries: [{ content: "Ship", status: "in_progress", priority: "medium" }] },
      { sessionUpdate: "plan", entries: [{ content: "Ship", status: "completed", priority: "medium" }] },
      { sessionUpdate: "plan", entries: [] },
    ]);
    assert.deepEqual(
      (await store.read(sessionId)).map((e) => e.type),
      ["session", "turn_started", "todo_update", "todo_update", "turn_ended", "turn_started", "turn_ended"],
    );
  } finally {
    agentSide.close();
  }
});
