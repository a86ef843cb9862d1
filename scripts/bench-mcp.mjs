// `npm run bench:mcp`: what the MCP layer costs a tool call. The p50 (µs) of
// a warm `todo_write` on one chat of a MemoryStore, three ways, each round
// running all three in turn: `toolHandlers` (the core and the write, the
// floor), `odaMcpServer` through the SDK's Client over its in-memory
// transport, and `mcpHandler` given a Request in-process (stateless: a server
// and a transport per POST). Prints a table of medians and the ratios to the
// floor, then one JSON line; asserts no timing.
import { createChat, MemoryStore, toolHandlers } from "oda-tasks";
import { mcpHandler, odaMcpServer } from "oda-tasks/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { median } from "./bench/sql-bench.mjs";

const WARMUP = 50;
const CALLS = 400;
const store = new MemoryStore();
await createChat(store, "bench", {});
const plan = (n) => ({
  todos: Array.from({ length: 20 }, (_, i) => ({ content: `Step ${i + 1}, round ${n}`, status: i < n % 20 ? "completed" : "pending" })),
});

const handlers = toolHandlers({ store, chatId: "bench" });
const server = odaMcpServer({ store, chatId: "bench" });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: "bench", version: "1.0.0" });
await client.connect(clientSide);
const handler = mcpHandler({ store, chatId: "bench", authorize: () => true });
const post = (n) =>
  handler(
    new Request("http://bench/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: n, method: "tools/call", params: { name: "todo_write", arguments: plan(n) } }),
    }),
  ).then((r) => r.json());

const ways = {
  toolHandlers: async (n) => handlers.todo_write(plan(n)),
  "odaMcpServer (in-memory Client)": async (n) => (await client.callTool({ name: "todo_write", arguments: plan(n) })).content[0].text,
  "mcpHandler (a Request per call)": async (n) => (await post(n)).result.content[0].text,
};
const times = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
for (let n = 0; n < WARMUP + CALLS; n++) {
  for (const [name, call] of Object.entries(ways)) {
    const t = performance.now();
    const text = await call(n);
    if (n >= WARMUP) times[name].push((performance.now() - t) * 1000);
    if (!String(text).startsWith("Updated todo list")) throw new Error(`${name}: ${text}`);
  }
}
const floor = median(times.toolHandlers);
const rows = Object.entries(times).map(([name, t]) => [name, median(t).toFixed(0), (median(t) / floor).toFixed(2)]);
console.log(["way", "p50 µs", "× toolHandlers"].join(" | "));
for (const row of rows) console.log(row.join(" | "));
console.log(
  JSON.stringify({ bench: "mcp", node: process.version, calls: CALLS, p50us: Object.fromEntries(rows.map(([n, us]) => [n, Number(us)])) }),
);
await client.close();
