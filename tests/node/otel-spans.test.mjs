// The package's OpenTelemetry spans, recorded by the real SDK
// (`@opentelemetry/sdk-trace-base`'s in-memory exporter, the async-hooks
// context manager, W3C trace context), against the BUILT package: a tool
// call's `execute_tool` span under the caller's span with the store's work as
// its children, a refusal, a store's failure and a lost race, `telemetry:
// false`, the suggestion actions, and serve's app: the MCP SERVER span under
// the client's `_meta.traceparent` and the HTTP spans named by route template,
// with no chat id, owner or token in any attribute but the tool span's
// conversation. The AI SDK and LangChain cases run under Node 22
// (children/otel-frameworks-suite.mjs); the package without the API, in a
// project of the packed tarball (consumers/consumer-otel.test.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { ConflictError, createChat, beginTurn, MemoryStore, SuggestionService, toolHandlers } from "oda-tasks";
import { runUnderNode22 } from "./support/node22.mjs";
import { good, suggestion } from "./support/tool-fixtures.mjs";

const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
const app = trace.getTracer("the app");

/** The spans finished since the last call, each with its parent's span id. */
function spans() {
  const finished = exporter.getFinishedSpans().map((s) => ({
    name: s.name,
    kind: s.kind,
    attributes: s.attributes,
    status: s.status.code,
    traceId: s.spanContext().traceId,
    spanId: s.spanContext().spanId,
    parent: s.parentSpanContext?.spanId,
  }));
  exporter.reset();
  return finished;
}
const named = (all, name) => all.filter((s) => s.name === name);
const childrenOf = (all, span) => all.filter((s) => s.parent === span.spanId).map((s) => s.name);

/** A chat "c1" with an open turn in a MemoryStore (its making's spans dropped). */
async function openChat(store = new MemoryStore()) {
  await createChat(store, "c1", { workspace: "/w" });
  await beginTurn(store, "c1");
  spans();
  return store;
}

/** Runs `work` inside a span of the app's; resolves to that span's id. */
async function inAppSpan(work) {
  return app.startActiveSpan("app step", async (span) => {
    try {
      await work();
      return span.spanContext().spanId;
    } finally {
      span.end();
    }
  });
}

test("a tool call: one execute_tool span under the caller's span, the store's read and append its children, the call's id and the chat", async () => {
  const store = await openChat();
  const tools = toolHandlers({ store, chatId: "c1" });
  const parent = await inAppSpan(() => tools.todo_write(good, "call-7"));
  const all = spans();
  const [tool] = named(all, "execute_tool todo_write");
  assert.ok(tool, all.map((s) => s.name).join(", "));
  assert.equal(tool.kind, SpanKind.INTERNAL);
  assert.equal(tool.parent, parent);
  assert.deepEqual(tool.attributes, {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "todo_write",
    "gen_ai.tool.type": "function",
    "gen_ai.conversation.id": "c1",
    "gen_ai.tool.call.id": "call-7",
  });
  assert.equal(tool.status, SpanStatusCode.UNSET);
  assert.deepEqual(childrenOf(all, tool), ["oda_tasks.store.read", "oda_tasks.store.append"]);
  for (const child of all.filter((s) => s.parent === tool.spanId)) {
    assert.deepEqual(child.attributes, { "oda_tasks.store.kind": "memory" });
    assert.equal(child.kind, SpanKind.INTERNAL);
  }
  // No call id given: none on the span.
  await tools.suggest_task(suggestion);
  const [offer] = named(spans(), "execute_tool suggest_task");
  assert.equal(offer.attributes["gen_ai.tool.call.id"], undefined);
  assert.equal(offer.attributes["gen_ai.conversation.id"], "c1");
});

test("a refusal: error.type tool_error and status ERROR; the arguments and the text the model reads only with recordContent", async () => {
  const store = await openChat();
  const bad = { todos: [{ content: "Ship it", status: "done" }] };
  const refusal = await toolHandlers({ store, chatId: "c1" }).todo_write(bad);
  const [plain] = named(spans(), "execute_tool todo_write");
  assert.equal(plain.attributes["error.type"], "tool_error");
  assert.equal(plain.status, SpanStatusCode.ERROR);
  // The model's input and the refusal quoting it are the user's content: absent by default.
  assert.ok(!JSON.stringify(plain.attributes).includes("Ship it"));
  await toolHandlers({ store, chatId: "c1", telemetry: { recordContent: true } }).todo_write(bad);
  const [recorded] = named(spans(), "execute_tool todo_write");
  assert.equal(recorded.attributes["gen_ai.tool.call.arguments"], JSON.stringify(bad));
  assert.equal(recorded.attributes["gen_ai.tool.call.result"], refusal);
});

test("a store's failure is the tool span's error.type and its store span's; a lost race is store/conflict, and the append that follows counts the retry", async () => {
  class Failing extends MemoryStore {
    broken = false;
    async append(...args) {
      if (!this.broken) return super.append(...args);
      throw Object.assign(new Error('chat "c1" could not be written to /srv/chats/c1.jsonl'), { code: "store/unavailable" });
    }
  }
  const failing = await openChat(new Failing());
  failing.broken = true;
  await assert.rejects(toolHandlers({ store: failing, chatId: "c1" }).todo_write(good), { code: "store/unavailable" });
  const all = spans();
  const [tool] = named(all, "execute_tool todo_write");
  assert.equal(tool.attributes["error.type"], "store/unavailable");
  assert.equal(tool.status, SpanStatusCode.ERROR);
  const [append] = named(all, "oda_tasks.store.append");
  assert.equal(append.parent, tool.spanId);
  assert.equal(append.attributes["error.type"], "store/unavailable");
  assert.equal(append.status, SpanStatusCode.ERROR);
  // Never the error's message (it names a file).
  assert.ok(!JSON.stringify(all).includes("/srv/chats"));

  class Racing extends MemoryStore {
    lost = true;
    async append(chatId, entries, expected) {
      if (!this.lost) {
        this.lost = true;
        throw new ConflictError(chatId, expected, expected + 1);
      }
      return super.append(chatId, entries, expected);
    }
  }
  const racing = await openChat(new Racing());
  racing.lost = false;
  assert.equal(
    await toolHandlers({ store: racing, chatId: "c1" }).todo_write(good),
    "Updated todo list: 1 pending, 1 in progress, 0 completed",
  );
  const raced = spans();
  const [recorded] = named(raced, "execute_tool todo_write");
  assert.equal(recorded.status, SpanStatusCode.UNSET);
  const appends = named(raced, "oda_tasks.store.append");
  assert.deepEqual(
    appends.map((a) => [a.attributes["error.type"], a.attributes["oda_tasks.store.retry_count"]]),
    [
      ["store/conflict", undefined],
      [undefined, 1],
    ],
  );
  assert.ok(appends.every((a) => a.parent === recorded.spanId));
});

test("telemetry: false makes no span of the package, the store's none either; the caller's span stays; a bad value is refused", async () => {
  const store = await openChat();
  const tools = toolHandlers({ store, chatId: "c1", telemetry: false });
  await inAppSpan(() => tools.todo_write(good));
  assert.deepEqual(
    spans().map((s) => s.name),
    ["app step"],
  );
  assert.throws(() => toolHandlers({ store, chatId: "c1", telemetry: "yes" }), {
    name: "TypeError",
    message: 'oda-tasks: invalid arguments of toolHandlers: `telemetry` must be a boolean or { recordContent: boolean } (got "yes")',
  });
  assert.throws(
    () => toolHandlers({ store, chatId: "c1", telemetry: { record: true } }),
    /`telemetry` must be a boolean or \{ recordContent: boolean \}/,
  );
  const service = new SuggestionService({ store, telemetry: false });
  await tools.suggest_task(suggestion);
  await service.dismiss("c1", "s1");
  assert.deepEqual(spans(), []);
});

test("the suggestion actions: a span each, the offer's id, the started chat's id, a Start joining one in flight, a refusal's code", async () => {
  const store = await openChat();
  await toolHandlers({ store, chatId: "c1", telemetry: false }).suggest_task(suggestion);
  spans();
  const service = new SuggestionService({ store });
  // Two Starts at once in this process: one creates the chat, the other joins it.
  const [a, b] = await Promise.all([service.start("c1", "s1"), service.start("c1", "s1")]);
  assert.deepEqual([a, b], [{ chatId: "c1.s1" }, { chatId: "c1.s1" }]);
  const all = spans();
  const starts = named(all, "oda_tasks.suggestion.start");
  assert.equal(starts.length, 2);
  for (const s of starts) {
    assert.equal(s.attributes["oda_tasks.suggestion.id"], "s1");
    assert.equal(s.attributes["oda_tasks.started_chat.id"], "c1.s1");
  }
  assert.deepEqual(starts.map((s) => s.attributes["oda_tasks.suggestion.start.joined"]).sort(), ["process", undefined]);
  const maker = starts.find((s) => s.attributes["oda_tasks.suggestion.start.joined"] === undefined);
  assert.ok(childrenOf(all, maker).includes("oda_tasks.store.create"), childrenOf(all, maker).join(", "));
  await assert.rejects(service.dismiss("c1", "s1"), { code: "task-suggestion/not-open" });
  const [dismiss] = named(spans(), "oda_tasks.suggestion.dismiss");
  assert.equal(dismiss.attributes["error.type"], "task-suggestion/not-open");
  assert.equal(dismiss.status, SpanStatusCode.ERROR);
});

test("serve's app: an MCP SERVER span per message under the client's _meta.traceparent, the tool span below it; HTTP spans named by route template; no chat id or token beyond the tool's conversation", async () => {
  const { serveApp } = await import("../../pkg/dist/serve/app.js");
  const { tokenGate } = await import("../../pkg/dist/serve/auth.js");
  const { observedHandler } = await import("../../pkg/dist/serve/observe.js");
  const { jsonLogger } = await import("../../pkg/dist/serve/log.js");
  const token = "spans-token-0123456789abcdef";
  const lines = [];
  const handler = observedHandler(
    serveApp({
      store: new MemoryStore(),
      gate: tokenGate(token, { secure: false }),
      mcp: {},
      assets: new URL("../../pkg/dist/", import.meta.url),
    }),
    { log: jsonLogger("info", (line) => lines.push(JSON.parse(line))), metrics: null },
  );
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
  const send = (path, method, body, extra = {}) =>
    handler(
      new Request(`http://127.0.0.1${path}`, {
        method,
        headers: { ...headers, ...extra },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  const chat = "secret-chat-7";
  assert.equal((await send(`/api/sessions/${chat}`, "PUT", {})).status, 201);
  assert.equal((await send(`/api/turns/${chat}/begin`, "POST", {})).status, 200);
  spans();
  const client = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" };
  const call = await send("/mcp", "POST", {
    jsonrpc: "2.0",
    id: 41,
    method: "tools/call",
    params: {
      name: "todo_write",
      arguments: good,
      _meta: { "oda-tasks/chat": chat, traceparent: `00-${client.traceId}-${client.spanId}-01` },
    },
  });
  assert.equal(call.status, 200);
  assert.equal((await call.json()).result.isError, undefined);
  let all = spans();
  const [server] = named(all, "tools/call todo_write");
  assert.equal(server.kind, SpanKind.SERVER);
  assert.equal(server.traceId, client.traceId, "the client's trace");
  assert.equal(server.parent, client.spanId);
  assert.deepEqual(server.attributes, {
    "mcp.method.name": "tools/call",
    "jsonrpc.request.id": "41",
    "gen_ai.tool.name": "todo_write",
    "gen_ai.operation.name": "execute_tool",
  });
  const [tool] = named(all, "execute_tool todo_write");
  assert.equal(tool.parent, server.spanId);
  assert.equal(tool.traceId, client.traceId);
  assert.equal(tool.attributes["gen_ai.conversation.id"], chat);
  // The request's log line names the trace the MCP span went to.
  assert.equal(lines.at(-1).traceId, client.traceId);
  assert.equal(named(all, "POST /mcp").length, 0, "/mcp has MCP spans, not an HTTP one");

  // A refusal over MCP: tool_error on the SERVER span; an initialize: its own span with the protocol version.
  await send("/mcp", "POST", {
    jsonrpc: "2.0",
    id: 42,
    method: "tools/call",
    params: { name: "todo_write", arguments: {}, _meta: { "oda-tasks/chat": chat } },
  });
  await send("/mcp", "POST", {
    jsonrpc: "2.0",
    id: 43,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  all = spans();
  assert.equal(named(all, "tools/call todo_write")[0].attributes["error.type"], "tool_error");
  assert.equal(named(all, "initialize")[0].attributes["mcp.protocol.version"], "2025-06-18");

  // The chat API and the page: named by the route template, their parent the traceparent header's.
  const inbound = `00-${client.traceId}-${client.spanId}-01`;
  assert.equal((await send(`/api/oda/chats/${chat}`, "GET", undefined, { traceparent: inbound })).status, 200);
  assert.equal((await send(`/chats/${chat}`, "GET")).status, 200);
  assert.equal((await send("/api/oda/chats/none-such", "GET")).status, 404);
  all = spans();
  const [screen] = named(all, "GET /api/oda/chats/:chatId");
  assert.equal(screen.kind, SpanKind.SERVER);
  assert.equal(screen.parent, client.spanId);
  assert.deepEqual(screen.attributes, {
    "http.request.method": "GET",
    "http.route": "/api/oda/chats/:chatId",
    "http.response.status_code": 200,
  });
  assert.ok(childrenOf(all, screen).includes("oda_tasks.store.read"));
  assert.equal(named(all, "GET /chats/:chatId").length, 1);
  assert.equal(named(all, "GET /api/oda/chats/:chatId").length, 2, "a missing chat: the same name");
  // No attribute but the tool span's conversation names the chat; none names the token.
  const everything = JSON.stringify([all, exporter.getFinishedSpans().length]);
  assert.ok(!everything.includes(chat) && !everything.includes(token), everything);
  assert.ok(!JSON.stringify(lines).includes(chat) && !JSON.stringify(lines).includes(token));
});

test("under Node 22: a tool call of the AI SDK inside streamText, its span under the SDK's tool span; a LangChain agent's, under the app's span around the run", () => {
  runUnderNode22("tests/node/children/otel-frameworks-suite.mjs", 2);
});
