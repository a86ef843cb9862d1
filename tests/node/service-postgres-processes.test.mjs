// Start and suggest_task across app servers sharing one PostgreSQL database:
// 4 Node processes, each with its own pool, fire 25 concurrent calls each,
// against a real server started for this file.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { planStart, runTool } from "oda-tasks";
import { PostgresStore } from "oda-tasks/postgres";
import { session } from "./fixtures/service-helpers.mjs";
import { freshSchema, startServer } from "./helpers/postgres.mjs";

const CHILD = fileURLToPath(new URL("./fixtures/postgres-service-child.mjs", import.meta.url));
const PROCESSES = 4;
const CALLS = 25;

const server = await startServer();
after(() => server.stop());

function child(args) {
  const proc = spawn(process.execPath, [CHILD, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  proc.stdout.setEncoding("utf8");
  proc.stderr.setEncoding("utf8");
  let onReady;
  const ready = new Promise((r) => (onReady = r));
  proc.stdout.on("data", (chunk) => {
    out += chunk;
    if (out.startsWith("ready\n")) onReady();
  });
  proc.stderr.on("data", (chunk) => (err += chunk));
  const done = new Promise((resolve, reject) => {
    proc.on("error", reject);
    proc.on("close", (code) => {
      if (code !== 0) return reject(new Error(`child exited with ${code}: ${err}`));
      resolve(JSON.parse(out.split("\n").filter(Boolean).at(-1)));
    });
  });
  return { proc, ready: Promise.race([ready, done.then(() => assert.fail("child ended before ready"))]), done };
}

/** Runs PROCESSES children with `args` at once; resolves to all their results. */
async function race(args) {
  const children = Array.from({ length: PROCESSES }, () => child(args));
  try {
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.proc.stdin.end("go\n");
    return (await Promise.all(children.map((c) => c.done))).flat();
  } finally {
    for (const c of children) c.proc.kill();
  }
}

async function fresh() {
  const schema = await freshSchema(server);
  const pool = schema.pool();
  const store = new PostgresStore(pool);
  await store.migrate();
  return { schema, store, chats: async () => (await pool.query("SELECT chat_id FROM oda_tasks_chats ORDER BY chat_id")).rows.map((r) => r.chat_id), done: () => pool.end() };
}

async function startRace({ crashed }) {
  const db = await fresh();
  try {
    const { store } = db;
    await store.create("offer-chat", [session("offer-chat"), { type: "turn_started" }]);
    const r = await runTool(store, "offer-chat", { name: "suggest_task", input: { title: "Add retries", tldr: "Flaky uploads", brief: "Retry uploads." } });
    assert.equal(r.ok, true);
    if (crashed) {
      // A Start that crashed after recording `started`, before the brief.
      const log = await store.read("offer-chat");
      const plan = planStart(log, "offer-chat", "s1", {}, ["read-only", "ask", "auto", "full-access"]);
      assert.equal(await store.create(plan.chatId, [plan.session]), true);
      await store.append("offer-chat", [plan.settled], log.length);
    }

    const results = await race([db.schema.url, "start", "offer-chat", "s1", String(CALLS)]);
    assert.equal(results.length, PROCESSES * CALLS);
    assert.deepEqual(results.filter((x) => "error" in x), []);
    assert.deepEqual(new Set(results.map((x) => x.chatId)), new Set(["offer-chat.s1"]));

    assert.deepEqual(await db.chats(), ["offer-chat", "offer-chat.s1"], "exactly one new chat");
    const offering = await store.read("offer-chat");
    const started = offering.filter((e) => e.type === "suggestion_settled" && e.outcome === "started");
    assert.equal(started.length, 1, "one started settlement");
    assert.equal(started[0].chatId, "offer-chat.s1");
    const log = await store.read("offer-chat.s1");
    assert.deepEqual(log.map((e) => e.type), ["session", "message"]);
    assert.equal(log.filter((e) => e.type === "message" && e.source?.kind === "suggestion").length, 1, "one brief");
    assert.equal(log[1].text, "Retry uploads.");
  } finally {
    await db.done();
  }
}

test(`PostgresStore: ${PROCESSES} processes x ${CALLS} concurrent starts of one offer: one chat, one settlement, one brief`, () =>
  startRace({ crashed: false }));

test(`PostgresStore: after a crash between started and brief, ${PROCESSES} x ${CALLS} starts write the brief exactly once`, () =>
  startRace({ crashed: true }));

test(`PostgresStore: ${PROCESSES} processes x ${CALLS} suggest_task calls in one turn: exactly one is accepted`, async () => {
  const db = await fresh();
  try {
    await db.store.create("chat", [session("chat"), { type: "turn_started" }]);
    const results = await race([db.schema.url, "suggest", "chat", "-", String(CALLS)]);
    assert.equal(results.length, PROCESSES * CALLS);
    assert.deepEqual(results.filter((x) => "error" in x && !("ok" in x)), [], "no call failed");
    const accepted = results.filter((x) => x.ok);
    assert.equal(accepted.length, 1);
    assert.match(accepted[0].output, /^Suggested "Task \d+-\d+"\. The user decides whether to start it; do not start it yourself\.$/);
    for (const r of results.filter((x) => !x.ok)) assert.equal(r.error, "suggest_task: one suggestion per turn; this turn already offered one");
    const log = await db.store.read("chat");
    const offers = log.filter((e) => e.type === "suggestion_offered");
    assert.equal(offers.length, 1);
    assert.equal(`Suggested "${offers[0].title}". The user decides whether to start it; do not start it yourself.`, accepted[0].output);
  } finally {
    await db.done();
  }
});
