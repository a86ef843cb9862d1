// The package's tool spans inside real frameworks, recorded by the real SDK
// (`@opentelemetry/sdk-trace-base`'s in-memory exporter, the async-hooks
// context manager): the AI SDK's `streamText` with its OpenTelemetry
// integration (`@ai-sdk/otel`), where the tool span of the package sits under
// the SDK's own tool span; and a LangChain v1 agent (`createAgent`, its fake
// model), where it sits under the app's span around the run. Run under Node
// 22 (`ai` 7 and `langchain` need it) by tests/node/otel-spans.test.mjs,
// against the BUILT package.
import { test } from "node:test";
import assert from "node:assert/strict";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { OpenTelemetry } from "@ai-sdk/otel";
import { isStepCount, streamText } from "ai";
import { AIMessage, createAgent, fakeModel } from "langchain";
import { beginTurn, createChat, MemoryStore } from "oda-tasks";
import { aiTools } from "oda-tasks/ai";
import { odaTasksMiddleware } from "oda-tasks/langchain";
import { call, streamedModel } from "../support/ai-models.mjs";
import { good } from "../support/tool-fixtures.mjs";

const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

/** The spans finished since the last call: name, the tracer that made them, ids, attributes. */
function spans() {
  const finished = exporter.getFinishedSpans().map((s) => ({
    name: s.name,
    scope: s.instrumentationScope.name,
    spanId: s.spanContext().spanId,
    parent: s.parentSpanContext?.spanId,
    attributes: s.attributes,
  }));
  exporter.reset();
  return finished;
}
const ours = (all, name) => all.filter((s) => s.scope === "oda-tasks" && s.name === name);

test("the AI SDK: a todo_write inside streamText is one execute_tool span of the package under the SDK's own tool span, its call id the SDK's", async () => {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  await beginTurn(store, "c");
  spans();
  const result = streamText({
    model: streamedModel([call("tc-1", "todo_write", good)]),
    tools: aiTools({ store, chatId: "c" }),
    stopWhen: isStepCount(2),
    prompt: "Plan the release",
    telemetry: { isEnabled: true, integrations: [new OpenTelemetry()] },
  });
  assert.equal(await result.text, "done");
  const all = spans();
  const [tool] = ours(all, "execute_tool todo_write");
  assert.ok(tool, all.map((s) => `${s.scope} ${s.name}`).join(", "));
  const parent = all.find((s) => s.spanId === tool.parent);
  assert.ok(parent, "its parent was recorded");
  assert.notEqual(parent.scope, "oda-tasks");
  assert.equal(parent.name, "execute_tool todo_write", "the AI SDK's tool span");
  assert.equal(parent.attributes["gen_ai.tool.call.id"], "tc-1");
  assert.equal(tool.attributes["gen_ai.tool.call.id"], "tc-1");
  assert.equal(tool.attributes["gen_ai.conversation.id"], "c");
  assert.deepEqual(
    all.filter((s) => s.parent === tool.spanId).map((s) => s.name),
    ["oda_tasks.store.read", "oda_tasks.store.append"],
  );
});

test("LangChain: an agent's todo_write is one execute_tool span of the package under the app's span around the run, its call id the model's", async () => {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  spans();
  const model = fakeModel()
    .respondWithTools([{ id: "lc-1", name: "todo_write", args: good }])
    .respond(new AIMessage("planned"));
  const agent = createAgent({ model, tools: [], middleware: [odaTasksMiddleware({ store })] });
  const run = await trace.getTracer("the app").startActiveSpan("agent run", async (span) => {
    try {
      await agent.invoke({ messages: [{ role: "user", content: "Plan" }] }, { configurable: { thread_id: "c" } });
      return span.spanContext().spanId;
    } finally {
      span.end();
    }
  });
  const all = spans();
  const [tool] = ours(all, "execute_tool todo_write");
  assert.ok(tool, all.map((s) => `${s.scope} ${s.name}`).join(", "));
  assert.equal(tool.parent, run);
  assert.equal(tool.attributes["gen_ai.tool.call.id"], "lc-1");
  assert.equal(tool.attributes["gen_ai.conversation.id"], "c");
});
