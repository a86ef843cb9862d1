// Two `oda-tasks serve` processes on one PostgreSQL database, as two machines
// behind a load balancer, each installed and started as docs/serve.md prints it
// (in a fresh project from the packed package): a tool call through A's MCP
// endpoint appears on B's event stream, a browser signed in on A reads on B, and
// a Start raced through both creates one chat.
import assert from "node:assert/strict";
import { test } from "node:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { root } from "./support/browser.mjs";
import { consumer, packTarball } from "./support/consumer.mjs";
import { startCommand, TOKEN, withToken } from "./support/oda-serve.mjs";
import { sharedPostgres } from "./support/postgres.mjs";
import { printed } from "./support/recipes.mjs";

const server = await sharedPostgres();

/** The exact version the repository tests with (root package.json), installed in the project too. */
const pinned = (name) => JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies[name];

/** An MCP client of `url`'s /mcp with the token. */
async function mcpClient(t, url) {
  const client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
  );
  t.after(() => client.close());
  return client;
}

/** Reads SSE events off `response` until `done(events)`; resolves to them. */
async function readEvents(response, done) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const events = [];
  while (!done(events)) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    text += decoder.decode(value, { stream: true });
    for (let at = text.indexOf("\n\n"); at >= 0; at = text.indexOf("\n\n")) {
      const block = text.slice(0, at);
      text = text.slice(at + 2);
      const event = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (event !== undefined && data !== undefined)
        events.push({ event, id: Number(/^id: (\d+)$/m.exec(block)?.[1]), data: JSON.parse(data) });
    }
  }
  await reader.cancel();
  return events;
}

test("two serve processes on one PostgreSQL, as docs/serve.md prints them: a tool call through A appears on B's event stream; Start through both makes one chat", async (t) => {
  const install = printed("npm install oda-tasks pg @modelcontextprotocol/sdk zod").split(" ");
  const packages = install.slice(2).filter((name) => name !== "oda-tasks");
  const { tarball } = packTarball(t);
  const dir = consumer(t, tarball, { deps: Object.fromEntries(packages.map((name) => [name, pinned(name)])) });
  const command = printed(
    'node_modules/.bin/oda-tasks serve --store "$DATABASE_URL" --host 0.0.0.0 --port "$PORT" --public-url "$PUBLIC_URL"',
  );
  // Both machines at once (their migrations take turns), one token; offline, so nothing is downloaded.
  const env = {
    DATABASE_URL: server.url,
    ODA_TASKS_TOKEN: TOKEN,
    PORT: "0",
    PUBLIC_URL: "https://tasks.example",
    npm_config_offline: "true",
  };
  const [a, b] = await Promise.all([startCommand(command, { cwd: dir, env, t }), startCommand(command, { cwd: dir, env, t })]);
  for (const s of [a, b]) assert.deepEqual(await (await fetch(`${s.url}/health`)).json(), { ok: true });
  const json = (body, method = "POST") => ({ method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  assert.equal((await withToken(`${a.url}/api/sessions/c1`, json({ workspace: "/repos/app" }, "PUT"))).status, 201);
  // B's viewer: the screen first.
  const stream = await withToken(`${b.url}/api/oda/chats/c1/events`);
  assert.equal(stream.status, 200);
  const seen = readEvents(stream, (events) => events.some((e) => e.event === "change" && e.data.cards?.length > 0));
  const agent = await mcpClient(t, a.url);
  const turn = { "oda-tasks/chat": "c1", "oda-tasks/turn": "turn-1" };
  const wrote = await agent.callTool({
    name: "todo_write",
    arguments: { todos: [{ content: "Ship serve", status: "in_progress" }] },
    _meta: turn,
  });
  assert.deepEqual(wrote.content, [{ type: "text", text: "Updated todo list: 0 pending, 1 in progress, 0 completed" }]);
  const events = await seen;
  assert.equal(events[0].event, "screen");
  const change = events.find((e) => e.event === "change" && e.data.cards?.length > 0);
  assert.equal(change.data.cards[0].todos[0].content, "Ship serve");
  assert.equal(change.data.plan.state, "running");

  const offered = await agent.callTool({
    name: "suggest_task",
    arguments: { title: "Add retries", tldr: "Uploads fail.", brief: "Retry failed uploads." },
    _meta: turn,
  });
  assert.equal(offered.content[0].text, 'Suggested "Add retries". The user decides whether to start it; do not start it yourself.');
  // Four Starts at once, two through each instance: one chat.
  const starts = await Promise.all(
    [a, b, a, b].map((s) => withToken(`${s.url}/api/oda/chats/c1/suggestions/s1/start`, json({})).then((r) => r.json())),
  );
  assert.deepEqual(new Set(starts.map((s) => s.chatId)), new Set(["c1.s1"]));
  const started = await (await withToken(`${b.url}/api/oda/chats/c1.s1`)).json();
  assert.equal(started.length, 2, "the session and the brief, once");
  // The MCP Apps view links the started chat's page where people reach it, not where an instance is bound.
  const view = await agent.callTool({ name: "oda_screen", arguments: { chat: "c1" } });
  assert.deepEqual(view.structuredContent.links, { "c1.s1": "https://tasks.example/chats/c1.s1" });
  // A browser signed in on A reads the chat on B.
  const signIn = await fetch(`${a.url}/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: TOKEN, next: "/chats/c1" }).toString(),
    redirect: "manual",
  });
  assert.equal(signIn.status, 303);
  const cookie = signIn.headers.get("set-cookie").split(";")[0];
  const read = await fetch(`${b.url}/api/oda/chats/c1.s1`, { headers: { cookie } });
  assert.equal(read.status, 200);
  assert.equal((await read.json()).length, 2);
  // A supervisor signals the process it started, and that is serve itself: it stops gracefully.
  for (const s of [a, b]) s.child.kill("SIGTERM");
  assert.deepEqual(await Promise.all([a.exited, b.exited]), [
    { code: 0, signal: null },
    { code: 0, signal: null },
  ]);
  await Promise.all([a.stop(), b.stop()]);
  // stderr is the JSON log: each process's start, requests and stop, and nothing else (no error, no warning of its own).
  const lines = (a.output() + b.output())
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  assert.deepEqual(
    lines.filter((l) => l.msg !== "request" || l.level === "error").map((l) => l.msg),
    ["listening", "draining", "stopped", "listening", "draining", "stopped"],
    "only the log's own lines on stderr, from start to stop",
  );
});
