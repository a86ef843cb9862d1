// registerOdaApp (built package) on a real McpServer, read by a real SDK
// Client: the widget's resource as MCP Apps defines it (ext-apps' MIME type,
// a CSP that allows nothing), its app-only tools listed only to a client that
// declared MCP Apps, each one service operation answering the chat's screen
// or the service's code and message, and its options checked first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import { getToolUiResourceUri, isToolVisibilityAppOnly } from "@modelcontextprotocol/ext-apps/app-bridge";
import { beginTurn, ChatStateCache, createChat, MemoryStore, SuggestionService } from "../../pkg/dist/entrypoints/index.node.js";
import { APP_TOOLS, appToolChat, registerOdaApp } from "../../pkg/dist/entrypoints/mcp.js";
import { APP_URI, connectHost, modelCall } from "./support/mcp-app.mjs";

/** A chat with a workspace and an open turn, and one offer made in it. */
async function chatWithOffer(host, chatId = "chat-1") {
  await createChat(host.store, chatId, { workspace: "/repos/app" });
  await beginTurn(host.store, chatId);
  const offered = await modelCall(host.client, chatId, "suggest_task", {
    title: "Add retries",
    tldr: "Uploads fail.",
    brief: "Retry uploads.",
  });
  return offered._meta["oda-tasks/offer"].id;
}

test("the resource: one self-contained HTML file of ext-apps' MIME type, whose CSP and _meta.ui allow no connection", async (t) => {
  const host = await connectHost();
  t.after(host.close);
  const { resources } = await host.client.listResources();
  assert.deepEqual(
    resources.map((r) => [r.uri, r.mimeType]),
    [[APP_URI, RESOURCE_MIME_TYPE]],
  );
  const [content] = (await host.client.readResource({ uri: APP_URI })).contents;
  assert.equal(content.mimeType, "text/html;profile=mcp-app");
  assert.deepEqual(content._meta.ui.csp, { connectDomains: [], resourceDomains: [] });
  const html = content.text;
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
  assert.ok(csp, "the page carries its own CSP");
  const directives = Object.fromEntries(csp.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1).join(" ")]));
  assert.equal(directives["default-src"], "'none'");
  assert.equal(directives["connect-src"], "'none'");
  assert.match(directives["script-src"], /^'sha256-[A-Za-z0-9+/]+=*'$/, "one script, allowed by its hash");
  // Nothing is loaded from anywhere: one inline script and one inline style, no src or href.
  assert.equal(html.match(/<script/g).length, 1);
  assert.doesNotMatch(html, /<script[^>]*\ssrc=|<link|<img|<iframe|\shref=/i);
  // The model-facing tools link to it (ext-apps' own reader of the link).
  const { tools } = await host.client.listTools();
  for (const name of ["todo_write", "suggest_task"]) {
    assert.equal(getToolUiResourceUri(tools.find((x) => x.name === name)), APP_URI);
  }
});

test("the app-only tools: listed as visibility ['app'] to a client that declared MCP Apps; to any other neither listed nor callable", async (t) => {
  const apps = await connectHost();
  t.after(apps.close);
  const listed = (await apps.client.listTools()).tools.filter((x) => x.name.startsWith("oda_"));
  assert.deepEqual(
    listed.map((x) => x.name),
    APP_TOOLS,
  );
  for (const tool of listed) {
    assert.ok(isToolVisibilityAppOnly(tool), `${tool.name} is app-only for ext-apps' hosts`);
  }

  const plain = await connectHost({ store: apps.store, apps: false });
  t.after(plain.close);
  assert.deepEqual(
    (await plain.client.listTools()).tools.map((x) => x.name),
    ["todo_write", "suggest_task"],
  );
  const id = await chatWithOffer(plain);
  const refused = await plain.client.callTool({ name: "oda_start", arguments: { chat: "chat-1", id } });
  assert.equal(refused.isError, true);
  assert.deepEqual(apps.store.created, ["chat-1"], "no chat was started");

  // appTools: "always" lists them to every client (a stateless server sees no initialize).
  const always = await connectHost({ apps: false, appOptions: { appTools: "always" } });
  t.after(always.close);
  assert.deepEqual((await always.client.listTools()).tools.filter((x) => x.name.startsWith("oda_")).length, APP_TOOLS.length);
});

test("each app-only tool runs the service on the named chat and answers its screen; Start creates one chat, also when repeated", async (t) => {
  const host = await connectHost();
  t.after(host.close);
  const id = await chatWithOffer(host);
  const call = (name, args) => host.client.callTool({ name, arguments: { chat: "chat-1", ...args } });

  const screen = (await call("oda_screen", {})).structuredContent.screen;
  assert.deepEqual(
    screen.open.map((s) => s.title),
    ["Add retries"],
  );
  assert.deepEqual(Object.keys(screen).sort(), ["cardCount", "chatId", "length", "open", "plan", "settled", "todos"]);

  const [first, second] = await Promise.all([call("oda_start", { id }), call("oda_start", { id })]);
  assert.deepEqual(first.structuredContent.started, { chatId: second.structuredContent.started.chatId });
  const started = first.structuredContent.started.chatId;
  assert.deepEqual(host.store.created, ["chat-1", started], "exactly one chat started");
  const log = await host.store.read(started);
  assert.equal(log.filter((e) => e.type === "message").length, 1, "the brief, once");
  assert.deepEqual(
    first.structuredContent.screen.settled.map((s) => [s.outcome, s.chatId]),
    [["started", started]],
  );
  assert.equal((await call("oda_start", { id })).structuredContent.started.chatId, started, "a repeated Start answers the same chat");
});

test("oda_edit: the person's edit of the list answers the screen; an invalid list is isError with the core's text; a stale screen carries the list and length", async (t) => {
  const host = await connectHost();
  t.after(host.close);
  await chatWithOffer(host);
  const call = (name, args) => host.client.callTool({ name, arguments: { chat: "chat-1", ...args } });
  const { length } = (await call("oda_screen", {})).structuredContent.screen;
  const todos = [{ content: "Ship", status: "completed" }];
  const edited = await call("oda_edit", { todos, basedOn: length });
  assert.equal(edited.isError, undefined);
  assert.deepEqual(edited.structuredContent.screen.todos, todos);
  assert.equal(edited.structuredContent.screen.length, length + 1);
  assert.deepEqual((await host.store.read("chat-1")).at(-1), { type: "todo_update", v: 1, todos, by: {} });
  const invalid = await call("oda_edit", { todos: [...todos, ...todos], basedOn: length + 1 });
  assert.equal(invalid.isError, true);
  assert.deepEqual(invalid.structuredContent.error, { code: "todos/invalid", message: 'Error: invalid todos: duplicate content "Ship"' });
  const stale = await call("oda_edit", { todos: [], basedOn: length });
  assert.equal(stale.isError, true);
  assert.deepEqual(stale.structuredContent.error, {
    code: "chat/changed",
    message: `the todo list changed after length ${length}, the screen this edit was made on; re-apply the edit to the list as it stands`,
    payload: todos,
    length: length + 1,
  });
  assert.equal((await host.store.read("chat-1")).length, length + 1);
});

test("Dismiss and Restore; a failure answers isError with the service's code and message, never a stack", async (t) => {
  const host = await connectHost();
  t.after(host.close);
  const id = await chatWithOffer(host);
  const call = (name, args) => host.client.callTool({ name, arguments: { chat: "chat-1", ...args } });

  const dismissed = await call("oda_dismiss", { id });
  assert.deepEqual(
    dismissed.structuredContent.screen.settled.map((s) => s.outcome),
    ["dismissed"],
  );
  const again = await call("oda_dismiss", { id });
  assert.equal(again.isError, true);
  assert.deepEqual(again.content, [{ type: "text", text: `task-suggestion/not-open: suggestion "${id}" is dismissed` }]);
  assert.deepEqual(again.structuredContent.error, {
    code: "task-suggestion/not-open",
    message: `suggestion "${id}" is dismissed`,
    payload: "dismissed",
  });
  const restored = await call("oda_restore", { id });
  assert.deepEqual(
    restored.structuredContent.screen.open.map((s) => s.id),
    [id],
  );
  const drafted = await call("oda_draft", { id });
  assert.deepEqual(
    drafted.structuredContent.screen.settled.map((s) => s.outcome),
    ["drafted"],
  );

  const missing = await call("oda_start", { id: "s9" });
  assert.deepEqual(missing.content, [{ type: "text", text: 'task-suggestion/not-found: no suggestion "s9"' }]);
  const noChat = await host.client.callTool({ name: "oda_screen", arguments: { chat: "chat-404" } });
  assert.deepEqual(noChat.content, [{ type: "text", text: "store/missing-chat: no such chat" }]);

  // A store that fails: a fixed text, the error handed to onError (whose own failure changes nothing), no stack.
  const heard = [];
  const broken = new MemoryStore();
  for (const method of ["read", "readFrom", "readTextFrom", "readSince"]) {
    broken[method] = async () => {
      throw new Error("disk on fire at /secret/path");
    };
  }
  const onError = (e) => {
    heard.push(e.message);
    throw new Error("the logger is down too");
  };
  const failing = await connectHost({ store: broken, appOptions: { onError } });
  t.after(failing.close);
  const failed = await failing.client.callTool({ name: "oda_screen", arguments: { chat: "chat-1" } });
  assert.deepEqual(failed.content, [{ type: "text", text: "http/internal: internal error" }]);
  assert.deepEqual(heard, ["disk on fire at /secret/path"]);
});

test("options are checked before anything is registered", () => {
  const store = new MemoryStore();
  const cases = [
    [{ store, nope: 1 }, "oda-tasks: invalid arguments of registerOdaApp: unknown option `nope`"],
    [{ store: {} }, "oda-tasks: invalid arguments of registerOdaApp: `store` must be a store (MemoryStore, JsonlStore, ...)"],
    [
      { store, appTools: "sometimes" },
      'oda-tasks: invalid arguments of registerOdaApp: `appTools` must be "declared" or "always" (got "sometimes")',
    ],
    [{ store, service: {} }, "oda-tasks: invalid arguments of registerOdaApp: `service` must be a SuggestionService"],
    [
      { store, cache: new ChatStateCache(store) },
      "oda-tasks: invalid arguments of registerOdaApp: `cache` must be a ChatStateCache of the same store with `cards: true`",
    ],
    [{ store, onError: "log" }, 'oda-tasks: invalid arguments of registerOdaApp: `onError` must be a function (got "log")'],
    [{ store, chatUrl: "/chats/" }, 'oda-tasks: invalid arguments of registerOdaApp: `chatUrl` must be a function (got "/chats/")'],
  ];
  for (const [options, message] of cases) {
    const server = new McpServer({ name: "s", version: "1" });
    assert.throws(() => registerOdaApp(server, options), { name: "TypeError", message });
    assert.deepEqual(Object.keys(server._registeredTools), [], "nothing registered");
    assert.deepEqual(Object.keys(server._registeredResources), []);
  }
  assert.throws(() => registerOdaApp({}, { store }), {
    name: "TypeError",
    message: "oda-tasks: invalid arguments of registerOdaApp: `server` must be an McpServer of @modelcontextprotocol/sdk",
  });
  // A service and a cards cache of the same store are taken.
  const server = new McpServer({ name: "s", version: "1" });
  registerOdaApp(server, { store, service: new SuggestionService({ store }), cache: new ChatStateCache(store, { cards: true }) });
  assert.deepEqual(Object.keys(server._registeredTools), APP_TOOLS);
});

test("appToolChat: the chat an app-only call acts on, for an authorization check; nothing for any other call", () => {
  assert.equal(appToolChat("oda_start", { chat: "chat-1", id: "s1" }), "chat-1");
  assert.equal(appToolChat("oda_screen", { chat: "chat-2" }), "chat-2");
  assert.equal(appToolChat("todo_write", { chat: "chat-1" }), undefined, "the model's tools name theirs in _meta");
  assert.equal(appToolChat("oda_start", { chat: 7 }), undefined);
  assert.equal(appToolChat("oda_start", Object.create({ chat: "inherited" })), undefined);
  assert.equal(appToolChat("oda_start", null), undefined);
});

test("chatUrl: each answer carries the started chats' pages; a page that is no http(s) URL is left out and told to onError", async (t) => {
  const heard = [];
  const chatUrl = (chatId) => (chatId.endsWith(".s1") ? `https://chat.example/chats/${encodeURIComponent(chatId)}` : "javascript:alert(1)");
  const host = await connectHost({ appOptions: { chatUrl, onError: (e) => heard.push(e.message) } });
  t.after(host.close);
  const first = await chatWithOffer(host);
  await beginTurn(host.store, "chat-1");
  const second = (await modelCall(host.client, "chat-1", "suggest_task", { title: "Add metrics", tldr: "Blind.", brief: "Count." }))._meta[
    "oda-tasks/offer"
  ].id;
  const call = (name, args) => host.client.callTool({ name, arguments: { chat: "chat-1", ...args } });
  assert.deepEqual((await call("oda_screen", {})).structuredContent.links, {}, "nothing started yet");
  const started = await call("oda_start", { id: first });
  assert.deepEqual(started.structuredContent.links, { "chat-1.s1": "https://chat.example/chats/chat-1.s1" });
  const next = await call("oda_start", { id: second });
  assert.deepEqual(next.structuredContent.links, { "chat-1.s1": "https://chat.example/chats/chat-1.s1" });
  assert.deepEqual(heard, ['oda-tasks: registerOdaApp\'s chatUrl gave no http(s) URL for chat "chat-1.s2"']);
});
