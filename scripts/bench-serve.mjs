// npm run bench:serve: MCP tool calls per second and their p95 latency over
// Streamable HTTP on one server process (serve's /mcp: mcpHandler on node:http,
// a JsonlStore; one chat per calling loop), `todo_write` against a no-op tool of the same server, in
// rounds that alternate, the load from a second process. Target:
// serve_todo_write_vs_noop_tool >= 0.8 (our tool costs at most a quarter more
// than MCP itself). The last line is the JSON.
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const TOKEN = "bench-token-0123456789abcdef";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

/** The load: `CONCURRENCY` loops calling `tool` for `SECONDS`; reports calls/s and p95 in ms. */
async function client({ url, tool }) {
  const body = (i, chat) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: i,
      method: "tools/call",
      params:
        tool === "noop"
          ? { name: "noop", arguments: {} }
          : {
              name: "todo_write",
              // A real update each time: five items, one moving on.
              arguments: {
                todos: Array.from({ length: 5 }, (_, k) => ({
                  content: `Item ${k + 1}`,
                  status: k === i % 5 ? "in_progress" : k < i % 5 ? "completed" : "pending",
                })),
              },
              _meta: { "oda-tasks/chat": chat },
            },
    });
  const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
  const latencies = [];
  let next = 0;
  const end = performance.now() + SECONDS * 1000;
  // One agent per chat, as a server of many chats sees them: each loop writes its own chat.
  const loop = async (_, k) => {
    while (performance.now() < end) {
      const i = next++;
      const start = performance.now();
      const r = await fetch(url, { method: "POST", headers, body: body(i, `bench-${k}`) });
      const answer = await r.json();
      if (r.status !== 200 || answer.result?.isError) throw new Error(`call failed: ${r.status} ${JSON.stringify(answer).slice(0, 300)}`);
      latencies.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  latencies.sort((a, b) => a - b);
  return { perSecond: latencies.length / SECONDS, p95: latencies[Math.floor(latencies.length * 0.95)] };
}

if (process.argv[2] === "--client") {
  process.on("message", async (job) => process.send(await client(job)));
} else {
  const { JsonlStore } = await import("../pkg/dist/entrypoints/node.js");
  const { createChat, beginTurn } = await import("../pkg/dist/entrypoints/index.node.js");
  const { mcpHandler } = await import("../pkg/dist/entrypoints/mcp.js");
  const { listenFetch } = await import("../pkg/dist/serve/node-http.js");
  const dir = mkdtempSync(join(tmpdir(), "oda-bench-serve-"));
  // BENCH_STORE=memory: the same without the files' fsync, to tell the store's share from MCP's.
  const { MemoryStore } = await import("../pkg/dist/entrypoints/index.node.js");
  const store = process.env.BENCH_STORE === "memory" ? new MemoryStore() : new JsonlStore(dir);
  for (let k = 0; k < CONCURRENCY; k++) {
    await createChat(store, `bench-${k}`, {});
    await beginTurn(store, `bench-${k}`);
  }
  const handler = mcpHandler({
    store,
    // serve's check: the bearer token, compared before the handler runs.
    authorize: (request) => request.headers.get("authorization") === `Bearer ${TOKEN}`,
    addTools: (server) =>
      server.registerTool("noop", { description: "Does nothing." }, async () => ({ content: [{ type: "text", text: "ok" }] })),
  });
  const server = await listenFetch(handler, { host: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${server.port}/mcp`;
  const load = fork(new URL(import.meta.url).pathname, ["--client"]);
  const run = (tool) =>
    new Promise((resolve) => {
      load.once("message", resolve);
      load.send({ url, tool });
    });
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  await run("todo_write"); // warm-up of both paths
  await run("noop");
  const rows = { noop: [], todo_write: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const tool of round % 2 === 0 ? ["noop", "todo_write"] : ["todo_write", "noop"]) rows[tool].push(await run(tool));
  }
  load.kill();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
  const ratios = rows.noop.map((n, i) => rows.todo_write[i].perSecond / n.perSecond);
  const result = {
    serve_noop_calls_per_s: Math.round(median(rows.noop.map((r) => r.perSecond))),
    serve_noop_p95_ms: Number(median(rows.noop.map((r) => r.p95)).toFixed(2)),
    serve_todo_write_calls_per_s: Math.round(median(rows.todo_write.map((r) => r.perSecond))),
    serve_todo_write_p95_ms: Number(median(rows.todo_write.map((r) => r.p95)).toFixed(2)),
    serve_todo_write_vs_noop_tool: Number(median(ratios).toFixed(3)),
  };
  console.log(`store: ${process.env.BENCH_STORE === "memory" ? "MemoryStore" : "JsonlStore (fsync per write)"}`);
  console.log(`rounds: ${ROUNDS} x ${SECONDS} s per tool, ${CONCURRENCY} calls in flight, load from a second process`);
  console.log(`noop        ${result.serve_noop_calls_per_s} calls/s, p95 ${result.serve_noop_p95_ms} ms`);
  console.log(`todo_write  ${result.serve_todo_write_calls_per_s} calls/s, p95 ${result.serve_todo_write_p95_ms} ms`);
  console.log(
    `target serve_todo_write_vs_noop_tool >= 0.8: ${result.serve_todo_write_vs_noop_tool} (median of ${ROUNDS} rounds' ratios) ${result.serve_todo_write_vs_noop_tool >= 0.8 ? "met" : "NOT met"}`,
  );
  console.log(JSON.stringify(result));
}
