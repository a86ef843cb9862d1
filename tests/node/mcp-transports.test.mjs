// oda-tasks/mcp over its two transports with the SDK's real client: stdio,
// spawning the built CLI (`oda-tasks mcp --store`), and Streamable HTTP, a
// node:http server mounting mcpHandler: exact texts, authorization, bounded
// bodies, no CORS, turn ids read back from the log by a second server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getRequestListener } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ChatStateCache, createChat, MemoryStore } from "oda-tasks";
import { mcpHandler } from "oda-tasks/mcp";
import { JsonlStore } from "oda-tasks/node";
import { secondOfferRefused } from "./support/tool-fixtures.mjs";

const cli = fileURLToPath(new URL("../../pkg/dist/entrypoints/cli.js", import.meta.url));
const TOKEN = "test-token";
const todo = (content) => ({ todos: [{ content, status: "in_progress" }] });
const offer = (title) => ({ title, tldr: "Worth it.", brief: "Do it in a new chat." });
const SUGGESTED = (title) => `Suggested "${title}". The user decides whether to start it; do not start it yourself.`;

function tempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "oda-mcp-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("stdio: the built CLI serves the tools; calls naming no chat share the process's chat, created on the first call", async (t) => {
  const dir = tempDir(t);
  const store = new JsonlStore(dir);
  await createChat(store, "named", { workspace: "/w" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, "mcp", "--store", dir, "--workspace", "/repo"],
    stderr: "pipe",
  });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  t.after(() => client.close());
  assert.deepEqual(
    (await client.listTools()).tools.map((tool) => tool.name),
    ["todo_write", "suggest_task"],
  );
  const own = await client.callTool({ name: "todo_write", arguments: todo("Mine") });
  assert.deepEqual(own.content, [{ type: "text", text: "Updated todo list: 0 pending, 1 in progress, 0 completed" }]);
  const chats = fs.readdirSync(dir).filter((f) => f.startsWith("mcp-session-") && f.endsWith(".jsonl"));
  assert.equal(chats.length, 1);
  const chatId = chats[0].replace(/\.jsonl$/, "");
  const log = await store.read(chatId);
  assert.equal(log[0].workspace, "/repo");

  const named = await client.callTool({
    name: "suggest_task",
    arguments: offer("Add retries"),
    _meta: { "oda-tasks/chat": "named", "oda-tasks/turn": "t1" },
  });
  assert.deepEqual(named.content, [{ type: "text", text: SUGGESTED("Add retries") }]);
  const again = await client.callTool({
    name: "suggest_task",
    arguments: offer("More"),
    _meta: { "oda-tasks/chat": "named", "oda-tasks/turn": "t1" },
  });
  assert.deepEqual(again, {
    content: [{ type: "text", text: "suggest_task: one suggestion per turn; this turn already offered one" }],
    isError: true,
    _meta: { "oda-tasks/chat": "named" },
  });
  const noTurn = await client.callTool({ name: "suggest_task", arguments: offer("x") });
  assert.equal(noTurn.content[0].text, "suggest_task: requires an open model turn");
});

test("stdio on a SQLite file: --store chats.db opens it (tables migrated) and the calls land there", async (t) => {
  const file = path.join(tempDir(t), "chats.db");
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, "mcp", "--store", file], stderr: "pipe" }));
  const r = await client.callTool({ name: "todo_write", arguments: todo("In SQLite") });
  assert.deepEqual(r.content, [{ type: "text", text: "Updated todo list: 0 pending, 1 in progress, 0 completed" }]);
  await client.close();
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(file, { readonly: true });
  t.after(() => db.close());
  const texts = db.prepare("SELECT entry FROM oda_tasks_entries ORDER BY seq").pluck().all();
  assert.equal(JSON.parse(texts.at(-1)).todos[0].content, "In SQLite");
});

test("stdio: --no-suggest-task lists todo_write only; --chat pins the chat", async (t) => {
  const dir = tempDir(t);
  const store = new JsonlStore(dir);
  await createChat(store, "pinned", {});
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cli, "mcp", "--store", dir, "--chat", "pinned", "--no-suggest-task"],
      stderr: "pipe",
    }),
  );
  t.after(() => client.close());
  assert.deepEqual(
    (await client.listTools()).tools.map((tool) => tool.name),
    ["todo_write"],
  );
  await client.callTool({ name: "todo_write", arguments: todo("Pinned") });
  assert.equal((await store.read("pinned")).at(-1).todos[0].content, "Pinned");
});

test("a bad --store is one line and exit 2, no stack; the replay CLI loads no MCP SDK", (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, "notes.txt");
  fs.writeFileSync(file, "x");
  const cases = [
    [["mcp"], "oda-tasks mcp: --store <dir|url> is required"],
    [["mcp", "--store", file], `oda-tasks mcp: --store ${file} is a file, not a folder of chats`],
    [
      ["mcp", "--store", "mysql://db/chats"],
      "oda-tasks mcp: --store mysql://… is no store this CLI opens (a folder, a .db/.sqlite file or a postgres:// URL)",
    ],
    [["mcp", "--store", dir, "--bogus"], 'oda-tasks mcp: unknown argument "--bogus"'],
    // Nothing listens on port 1: the password never shows.
    [
      ["mcp", "--store", "postgres://oda:secret@127.0.0.1:1/chats"],
      "oda-tasks mcp: --store postgres://oda:***@127.0.0.1:1/chats: cannot open the database (store/unavailable)",
    ],
    [["mcp", "--store", path.join(dir, "missing", "deeper", "chats.db")], null],
  ];
  for (const [args, line] of cases) {
    const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", input: "" });
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
    const lines = r.stderr.trim().split("\n");
    if (line !== null) assert.equal(lines[0], line);
    else assert.match(lines[0], /^oda-tasks mcp: --store .*chats\.db: cannot open the database \(|needs Node 22\.13\+/);
    assert.doesNotMatch(r.stderr, /\n\s+at |secret/, "no stack, no password");
    assert.ok(lines.length <= 2, r.stderr);
  }
  // A resolve hook that refuses the SDK: the replay command runs; `mcp` (the control) cannot.
  const hooks = `export async function resolve(s, c, next) { if (s.startsWith("@modelcontextprotocol/")) throw new Error("the MCP SDK was loaded"); return next(s, c); }`;
  const register = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  const withoutSdk = (...args) =>
    spawnSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(register)}`, cli, ...args], { encoding: "utf8" });
  const replay = withoutSdk("--json");
  assert.equal(replay.status, 0, replay.stderr);
  assert.ok(JSON.parse(replay.stdout).todos);
  const control = withoutSdk("mcp", "--help");
  assert.notEqual(control.status, 0);
  assert.match(control.stderr, /the MCP SDK was loaded/);
});

/** A node:http server on 127.0.0.1 mounting `handler` at /mcp; resolves to its URL. */
async function serve(t, handler) {
  const listener = getRequestListener(handler);
  const server = createServer((req, res) => (req.url.startsWith("/mcp") ? listener(req, res) : res.writeHead(404).end()));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${server.address().port}/mcp`;
}

const bearer = (request) => request.headers.get("authorization") === `Bearer ${TOKEN}`;

async function httpClient(t, url, token = TOKEN) {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  t.after(() => client.close());
  return client;
}

test("Streamable HTTP: exact texts through mcpHandler; authorize is told the chat each tools/call names", async (t) => {
  const store = new MemoryStore();
  await createChat(store, "c1", { workspace: "/w" });
  const told = [];
  const url = await serve(
    t,
    mcpHandler({
      store,
      authorize: (request, context) => {
        told.push(context);
        return bearer(request) && (context.chatId === undefined || context.chatId === "c1");
      },
    }),
  );
  const client = await httpClient(t, url);
  const call = (name, args, turn, chat = "c1") =>
    client.callTool({ name, arguments: args, _meta: { "oda-tasks/chat": chat, "oda-tasks/turn": turn } });
  const wrote = await call("todo_write", todo("Ship it"), "turn-1");
  assert.deepEqual(wrote.content, [{ type: "text", text: "Updated todo list: 0 pending, 1 in progress, 0 completed" }]);
  assert.equal(wrote._meta["oda-tasks/card"].todos[0].content, "Ship it");
  assert.equal("structuredContent" in wrote, false);
  assert.deepEqual((await call("suggest_task", offer("One"), "turn-1")).content[0].text, SUGGESTED("One"));
  const refused = await call("suggest_task", offer("Two"), "turn-1");
  assert.deepEqual(refused, secondOfferRefused("c1"));
  assert.deepEqual(told.filter((c) => c.method === "tools/call").at(-1), { method: "tools/call", tool: "suggest_task", chatId: "c1" });
  assert.ok(told.some((c) => c.method === "initialize" && c.chatId === undefined));
  // A chat authorize refuses: 403 before anything is read or written, which the client sees as an error.
  const length = (await store.read("c1")).length;
  await assert.rejects(call("todo_write", todo("x"), "turn-2", "other"), { code: 403, message: /http\/forbidden/ });
  assert.equal((await store.read("c1")).length, length);
});

test("Streamable HTTP: no token, no call (the app's 401 as it answered); oversized bodies 413; GET 405; no CORS header", async (t) => {
  const store = new MemoryStore();
  await createChat(store, "c1", {});
  const url = await serve(
    t,
    mcpHandler({
      store,
      maxBodyBytes: 4096,
      authorize: (request) => bearer(request) || new Response(null, { status: 401, headers: { "www-authenticate": 'Bearer realm="oda"' } }),
    }),
  );
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
  };
  const post = (body, headers = {}) =>
    fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        origin: "https://evil.example",
        ...headers,
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const noToken = await post(init);
  assert.equal(noToken.status, 401);
  assert.equal(noToken.headers.get("www-authenticate"), 'Bearer realm="oda"');
  await assert.rejects(httpClient(t, url, "wrong"), { code: 401 });

  const ok = await post(init, { authorization: `Bearer ${TOKEN}` });
  assert.equal(ok.status, 200);
  assert.equal((await ok.json()).result.serverInfo.name, "oda-tasks");
  for (const [name] of ok.headers) assert.doesNotMatch(name, /^access-control-/);

  const big = {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "todo_write", arguments: todo("x".repeat(5000)), _meta: { "oda-tasks/chat": "c1" } },
  };
  const tooLarge = await post(big, { authorization: `Bearer ${TOKEN}` });
  assert.equal(tooLarge.status, 413);
  assert.deepEqual(await tooLarge.json(), { error: { code: "http/payload-too-large", message: "the body is larger than 4096 bytes" } });
  // Whatever Content-Length claims: a chunked body is counted as it streams.
  const chunked = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${TOKEN}` },
    body: new ReadableStream({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode(" ".repeat(1000)));
        controller.close();
      },
    }),
    duplex: "half",
  });
  assert.equal(chunked.status, 413);
  assert.equal((await store.read("c1")).length, 1);

  const get = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}`, accept: "text/event-stream" } });
  assert.equal(get.status, 405);
  assert.equal(get.headers.get("allow"), "POST");
  const notRpc = await post([], { authorization: `Bearer ${TOKEN}` });
  assert.equal(notRpc.status, 400);
  assert.throws(() => mcpHandler({ store }), /`authorize\(request, \{ method, tool, chatId \}\)` is required/);
  assert.throws(() => mcpHandler({ store, authorize: () => true, sessionChat: {} }), /unknown option `sessionChat`/);
});

test("Streamable HTTP, two servers with their own warm states on one JSONL folder: a turn id is read back from the log", async (t) => {
  const dir = tempDir(t);
  const stores = [new JsonlStore(dir), new JsonlStore(dir)];
  await createChat(stores[0], "c1", { workspace: "/w" });
  const clients = [];
  for (const store of stores) {
    const url = await serve(t, mcpHandler({ store, cache: new ChatStateCache(store), authorize: bearer }));
    clients.push(await httpClient(t, url));
  }
  const call = (i, name, args, turn) =>
    clients[i].callTool({ name, arguments: args, _meta: { "oda-tasks/chat": "c1", "oda-tasks/turn": turn } });
  assert.equal((await call(0, "suggest_task", offer("A"), "turn-1")).content[0].text, SUGGESTED("A"));
  // The other server never saw turn-1 begin: it reads the id back and continues that turn.
  assert.equal(
    (await call(1, "suggest_task", offer("B"), "turn-1")).content[0].text,
    "suggest_task: one suggestion per turn; this turn already offered one",
  );
  // Both at once with a new id: one turn.
  const both = await Promise.all([call(0, "suggest_task", offer("C"), "turn-2"), call(1, "suggest_task", offer("D"), "turn-2")]);
  assert.equal(both.filter((r) => r.isError === undefined).length, 1);
  const turns = (await stores[0].read("c1")).filter((e) => e.type === "turn_started").map((e) => e.turn);
  assert.deepEqual(turns, ["turn-1", "turn-2"]);
});
