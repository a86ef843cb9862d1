// Two `oda-tasks serve` processes on one PostgreSQL database, as two machines
// behind a load balancer: a tool call through A's MCP endpoint appears on B's
// event stream, and a Start raced through both creates one chat.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { sharedPostgres } from "./support/postgres.mjs";
import { startServe, TOKEN, withToken } from "./support/oda-serve.mjs";

const server = await sharedPostgres();

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

test("two serve processes on one PostgreSQL: a tool call through A appears on B's event stream; Start through both makes one chat", async (t) => {
  const a = await startServe(["--store", server.url], { t });
  const b = await startServe(["--store", server.url], { t });
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
  assert.equal(await a.stop(), 0);
  assert.equal(await b.stop(), 0);
});
