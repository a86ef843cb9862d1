// oda-tasks/http from the packed tarball in a fresh project, on the servers a
// chat app runs: Hono on Node (@hono/node-server) and on Bun (Bun.serve),
// Deno.serve with the plain handler, and a Worker in workerd (esbuild, the
// workerd condition). Each answers the same requests the same way: the
// screen, a Start, the event stream's first screen, and the refusals
// (no authorization, a form post, a huge body).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { consumer, fileCleanup, packTarball, runtimes } from "../support/consumer.mjs";
import { freePort, serveUntil } from "../support/serve.mjs";

const once = fileCleanup();

const bin = runtimes();

const { tarball } = packTarball(once);
const dir = consumer(once, tarball, {
  deps: { hono: "4.13.19", "@hono/node-server": "2.1.8", esbuild: "0.28.2", workerd: "1.20261117.1" },
  files: {
    // The app: one handler, a chat seeded on the first request (a Worker does no I/O at startup).
    "oda.js": `import { beginTurn, createChat, endTurn, MemoryStore, toolHandlers } from "oda-tasks";
import { chatHandler } from "oda-tasks/http";

const store = new MemoryStore();
let seeded;
function seed() {
  seeded ??= (async () => {
    await createChat(store, "c", { workspace: "/w" });
    const tools = toolHandlers({ store, chatId: "c" });
    await beginTurn(store, "c");
    await tools.todo_write({ todos: [{ content: "Ship", status: "in_progress" }] });
    await tools.suggest_task({ title: "Add retries", tldr: "Uploads fail.", brief: "Retry uploads." });
    await endTurn(store, "c");
  })();
  return seeded;
}
const odaHandler = chatHandler({
  store, basePath: "/api/oda", pollMs: 100, maxBodyBytes: 1024,
  authorize: (request, { chatId }) => chatId === "c" && request.headers.get("authorization") === "Bearer person-1",
});
export async function handler(request) {
  await seed();
  return odaHandler(request);
}
`,
    "hono-app.js": `import { Hono } from "hono";
import { handler } from "./oda.js";
export const app = new Hono();
app.all("/api/oda/*", (c) => handler(c.req.raw));
`,
    "node-server.js": `import { serve } from "@hono/node-server";
import { app } from "./hono-app.js";
serve({ fetch: app.fetch, port: Number(process.argv[2]), hostname: "127.0.0.1" });
`,
    "bun-server.js": `import { app } from "./hono-app.js";
Bun.serve({ fetch: app.fetch, port: Number(process.argv[2]), hostname: "127.0.0.1" });
`,
    "deno-server.js": `import { handler } from "./oda.js";
Deno.serve({ port: Number(Deno.args[0]), hostname: "127.0.0.1", onListen() {} }, handler);
`,
    "worker-http.js": `import { app } from "./hono-app.js";
export default { fetch: (request, env, ctx) => app.fetch(request, env, ctx) };
`,
  },
});

/** Starts a server in its own process group; resolves once it answers at all (a 401 is listening); stops it when `t` ends. */
function start(t, command, args, base) {
  const env = { ...process.env, NO_COLOR: "1" };
  return serveUntil(t, {
    cwd: dir,
    env,
    command,
    args,
    url: `${base}/api/oda/chats/c`,
    ready: () => true,
    answer: () => undefined,
    tries: 160,
  });
}

const auth = { authorization: "Bearer person-1" };

/** The same requests against any server, and what every one of them must answer. */
async function exercise(base) {
  const api = `${base}/api/oda/chats/c`;
  const denied = await fetch(api);
  assert.equal(denied.status, 403);
  assert.deepEqual(await denied.json(), { error: { code: "http/forbidden", message: "not allowed" } });
  assert.equal(denied.headers.get("access-control-allow-origin"), null);
  const screen = await (await fetch(api, { headers: auth })).json();
  assert.deepEqual(screen.todos, [{ content: "Ship", status: "in_progress" }]);
  assert.equal(screen.plan.state, "finished");
  assert.deepEqual(
    screen.open.map((s) => s.title),
    ["Add retries"],
  );
  const form = await fetch(`${api}/suggestions/s1/start`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
    body: "a=1",
  });
  assert.equal(form.status, 415);
  const huge = await fetch(`${api}/suggestions/s1/start`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ model: "x".repeat(100_000) }),
  });
  assert.equal(huge.status, 413);
  assert.equal((await fetch(`${base}/api/oda/chats/%01`, { headers: auth })).status, 400);
  // The event stream: its first screen, then the stream is aborted.
  const controller = new AbortController();
  const events = await fetch(`${api}/events`, { headers: auth, signal: controller.signal });
  assert.equal(events.status, 200);
  assert.match(events.headers.get("content-type"), /^text\/event-stream/);
  const reader = events.body.getReader();
  let text = "";
  while (!/event: screen\ndata: .*\n\n/.test(text)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  const pushed = JSON.parse(/event: screen\ndata: (.*)\n\n/.exec(text)[1]);
  assert.deepEqual(pushed.todos, screen.todos);
  controller.abort();
  // Start: the new chat; repeated, the same one; the screen then shows it started.
  const startedResponse = await fetch(`${api}/suggestions/s1/start`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(startedResponse.status, 200);
  const started = await startedResponse.json();
  assert.equal(started.ok, true);
  const again = await (
    await fetch(`${api}/suggestions/s1/start`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: "{}" })
  ).json();
  assert.deepEqual(again, started);
  const after = await (await fetch(api, { headers: auth })).json();
  assert.deepEqual(
    after.settled.map((s) => [s.outcome, s.chatId]),
    [["started", started.chatId]],
  );
  const dismissed = await fetch(`${api}/suggestions/s1/dismiss`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(dismissed.status, 409);
  assert.deepEqual(await dismissed.json(), {
    error: { code: "task-suggestion/not-open", message: 'suggestion "s1" is started', payload: "started" },
  });
}

test("Hono on Node (@hono/node-server)", async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  await start(t, process.execPath, ["node-server.js", String(port)], base);
  await exercise(base);
});

test("Hono on Bun (Bun.serve)", async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  await start(t, bin("bun/bin/bun.exe"), ["bun-server.js", String(port)], base);
  await exercise(base);
});

test("Deno.serve with the plain handler (network permission for 127.0.0.1 only)", async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  await start(t, bin("deno/deno"), ["run", "--no-prompt", `--allow-net=127.0.0.1:${port}`, "deno-server.js", String(port)], base);
  await exercise(base);
});

test("Hono in a Worker in workerd (esbuild, the workerd condition)", async (t) => {
  execFileSync(
    join(dir, "node_modules/.bin/esbuild"),
    [
      "worker-http.js",
      "--bundle",
      "--format=esm",
      "--conditions=workerd",
      "--loader:.wasm=copy",
      "--asset-names=[name]",
      "--outdir=dist",
      "--log-level=warning",
    ],
    { cwd: dir },
  );
  const port = await freePort();
  writeFileSync(
    join(dir, "http.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [
    (name = "worker-http.js", esModule = embed "dist/worker-http.js"),
    (name = "oda_tasks_bg.wasm", wasm = embed "dist/oda_tasks_bg.wasm"),
  ],
  compatibilityDate = "2026-11-17",
);
`,
  );
  const base = `http://127.0.0.1:${port}`;
  await start(t, join(dir, "node_modules/.bin/workerd"), ["serve", "http.capnp"], base);
  await exercise(base);
});
