// Python agents over Streamable HTTP, with their packages from PyPI in a venv
// (tests/node/support/python.mjs): the official `mcp` client and a Pydantic AI
// agent (docs/integration.md's agent.py, run as printed, with a scripted
// FunctionModel, no network) call the tools through mcpHandler naming chat and
// turn in `_meta`; the exact texts, one offer per turn, and a Start raced by
// four Python processes through chatHandler that creates one chat.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getRequestListener } from "@hono/node-server";
import { createChat } from "oda-tasks";
import { chatHandler } from "oda-tasks/http";
import { mcpHandler } from "oda-tasks/mcp";
import { JsonlStore } from "oda-tasks/node";
import { projectVenv, runPython } from "./support/python.mjs";
import { recipes } from "./support/recipes.mjs";

const support = fileURLToPath(new URL("./support/", import.meta.url));
const TOKEN = "py-token";
const UPDATED = (p, i, c) => `Updated todo list: ${p} pending, ${i} in progress, ${c} completed`;
const SUGGESTED = (title) => `Suggested "${title}". The user decides whether to start it; do not start it yourself.`;
const ONE_PER_TURN = "suggest_task: one suggestion per turn; this turn already offered one";
const offer = (title) => ({ title, tldr: "Worth doing.", brief: `Self-contained: ${title}.` });
const plan = (...items) => ({ todos: items.map(([content, status]) => ({ content, status })) });

const python = projectVenv();

/** The store, and mcpHandler at /mcp and chatHandler at /api/oda on one node:http server. */
async function serve(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "oda-mcp-py-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const store = new JsonlStore(dir);
  const authorize = (request) => request.headers.get("authorization") === `Bearer ${TOKEN}`;
  const mcp = getRequestListener(mcpHandler({ store, authorize }));
  const api = getRequestListener(chatHandler({ store, basePath: "/api/oda", authorize }));
  const server = createServer((req, res) => (req.url.startsWith("/mcp") ? mcp(req, res) : api(req, res)));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const base = `http://127.0.0.1:${server.address().port}`;
  return { store, dir, base, env: { ODA_MCP_URL: `${base}/mcp`, ODA_TASKS_TOKEN: TOKEN } };
}

/** Four Python processes POST Start of `suggestionId` at one instant; resolves to the chat ids they were answered. */
async function raceStart({ base, env }, chatId, suggestionId) {
  const url = `${base}/api/oda/chats/${chatId}/suggestions/${suggestionId}/start`;
  const at = (Date.now() + 1500) / 1000; // past every interpreter's start-up
  const runs = Array.from({ length: 4 }, () => runPython(python, [path.join(support, "start_offer.py"), url, String(at)], { env }));
  return (await Promise.all(runs)).map((out) => out.trim());
}

async function assertStartedOnce(store, chatId, suggestionId, answered) {
  const [first] = answered;
  assert.equal(first, `${chatId}.${suggestionId}`);
  assert.deepEqual(answered, [first, first, first, first]);
  const settled = (await store.read(chatId)).filter((e) => e.type === "suggestion_settled" && e.id === suggestionId);
  assert.deepEqual(
    settled.map((e) => [e.outcome, e.chatId]),
    [["started", first]],
  );
  const started = await store.read(first);
  assert.equal(started.filter((e) => e.type === "message").length, 1, "the brief once");
}

test("the official mcp client: exact texts with chat and turn in _meta, one offer per turn; four Python clients race Start, one chat", async (t) => {
  const server = await serve(t);
  await createChat(server.store, "py-chat", { workspace: "/repos/app" });
  const calls = [
    ["todo_write", plan(["Read the code", "in_progress"], ["Fix it", "pending"]), "turn-1"],
    ["suggest_task", offer("Add retries"), "turn-1"],
    ["suggest_task", offer("Add metrics"), "turn-1"],
    ["todo_write", plan(["Read the code", "completed"], ["Fix it", "doing"]), "turn-2"],
    ["suggest_task", offer("Add metrics"), "turn-2"],
  ];
  const out = await runPython(python, [path.join(support, "mcp_client.py"), JSON.stringify(calls)], {
    env: { ...server.env, ODA_CHAT: "py-chat" },
  });
  const { tools, answers } = JSON.parse(out);
  assert.deepEqual(tools, ["todo_write", "suggest_task"]);
  const texts = answers.map((a) => [a.content, a.isError]);
  assert.deepEqual(texts, [
    [[{ type: "text", text: UPDATED(1, 1, 0) }], false],
    [[{ type: "text", text: SUGGESTED("Add retries") }], false],
    [[{ type: "text", text: ONE_PER_TURN }], true],
    [
      [{ type: "text", text: 'Error: invalid todo at index 1: `status` must be "pending", "in_progress" or "completed" (got "doing")' }],
      true,
    ],
    [[{ type: "text", text: SUGGESTED("Add metrics") }], false],
  ]);
  assert.ok(answers.every((a) => a.structured === null));
  assert.equal(answers[0].meta["oda-tasks/card"].todos.length, 2);
  assert.deepEqual(answers[1].meta["oda-tasks/offer"], { id: "s1", ...offer("Add retries") });
  const turns = (await server.store.read("py-chat")).filter((e) => e.type === "turn_started").map((e) => e.turn);
  assert.deepEqual(turns, ["turn-1", "turn-2"]);

  await assertStartedOnce(server.store, "py-chat", "s1", await raceStart(server, "py-chat", "s1"));
});

test("a Pydantic AI agent (docs' agent.py as printed, FunctionModel): each run one turn, the exact texts read back; Start raced once", async (t) => {
  const server = await serve(t);
  await createChat(server.store, "agent-chat", { workspace: "/repos/app" });
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "oda-agent-"));
  t.after(() => fs.rmSync(cwd, { recursive: true, force: true }));
  fs.writeFileSync(path.join(cwd, "agent.py"), recipes("agent.py")["agent.py"]);
  fs.copyFileSync(path.join(support, "mcp_agent_run.py"), path.join(cwd, "run.py"));
  const runs = [
    // Run 1: a plan and an offer in one step, a second offer in the next: one per turn.
    [
      [
        ["todo_write", plan(["Reproduce", "in_progress"], ["Fix", "pending"])],
        ["suggest_task", offer("Add retries")],
      ],
      [["suggest_task", offer("Add metrics")]],
    ],
    // Run 2, the next turn: an offer again, and a bad input refused by the core.
    [[["suggest_task", offer("Add metrics")]], [["todo_write", plan([" ", "pending"])]]],
  ];
  const out = await runPython(python, ["run.py", "agent-chat", JSON.stringify(runs)], { cwd, env: server.env });
  const [first, second] = JSON.parse(out);
  assert.deepEqual(
    first.map((p) => [p.tool, p.content]),
    [
      ["todo_write", UPDATED(1, 1, 0)],
      ["suggest_task", SUGGESTED("Add retries")],
      ["suggest_task", ONE_PER_TURN],
    ],
  );
  assert.deepEqual(
    second.slice(-2).map((p) => [p.tool, p.content]),
    [
      ["suggest_task", SUGGESTED("Add metrics")],
      ["todo_write", "Error: invalid todo: `content` must be a non-empty string"],
    ],
  );
  const log = await server.store.read("agent-chat");
  const turns = log.filter((e) => e.type === "turn_started");
  assert.equal(turns.length, 2, "one turn per agent run");
  assert.notEqual(turns[0].turn, turns[1].turn);
  assert.deepEqual(
    log.filter((e) => e.type === "suggestion_offered").map((e) => e.title),
    ["Add retries", "Add metrics"],
  );

  await assertStartedOnce(server.store, "agent-chat", "s2", await raceStart(server, "agent-chat", "s2"));
});
