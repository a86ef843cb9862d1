// Start and suggest_task across app servers sharing one PostgreSQL database:
// 4 Node processes, each with its own pool, fire 25 concurrent calls each,
// against a real server started for this file.
import { test } from "node:test";
import assert from "node:assert/strict";
import { planStart } from "oda-tasks";
import { PostgresStore } from "oda-tasks/postgres";
import { session } from "./support/service-helpers.mjs";
import { freshSchema, sharedPostgres } from "./support/postgres.mjs";
import { raceChildren } from "./support/spawn-child.mjs";
import { checkStarted, offerChat } from "./support/start-race.mjs";

const CHILD = new URL("./children/postgres-service-child.mjs", import.meta.url);
const PROCESSES = 4;
const CALLS = 25;

const server = await sharedPostgres();

async function fresh() {
  const schema = await freshSchema(server);
  const pool = schema.pool();
  const store = new PostgresStore(pool);
  await store.migrate();
  return {
    schema,
    store,
    chats: async () => (await pool.query("SELECT chat_id FROM oda_tasks_chats ORDER BY chat_id")).rows.map((r) => r.chat_id),
    done: () => pool.end(),
  };
}

async function startRace({ crashed, driver = "pg" }) {
  const db = await fresh();
  try {
    const { store } = db;
    await offerChat(store);
    if (crashed) {
      // A Start that crashed after recording `started`, before the brief.
      const log = await store.read("offer-chat");
      const plan = planStart(log, "offer-chat", "s1", {}, ["read-only", "ask", "auto", "full-access"]);
      assert.equal(await store.create(plan.chatId, [plan.session]), true);
      await store.append("offer-chat", [plan.settled], log.length);
    }

    const results = await raceChildren(CHILD, [db.schema.url, "start", "offer-chat", "s1", String(CALLS), driver], PROCESSES);
    await checkStarted(store, results, PROCESSES * CALLS, db.chats);
  } finally {
    await db.done();
  }
}

test(`PostgresStore: ${PROCESSES} processes x ${CALLS} concurrent starts of one offer: one chat, one settlement, one brief`, () =>
  startRace({ crashed: false }));

test(`PostgresStore: after a crash between started and brief, ${PROCESSES} x ${CALLS} starts write the brief exactly once`, () =>
  startRace({ crashed: true }));

test(`PostgresStore over postgres.js: ${PROCESSES} processes x ${CALLS} concurrent starts of one offer: one chat, one settlement, one brief`, () =>
  startRace({ crashed: false, driver: "postgres.js" }));

for (const driver of ["pg", "postgres.js"])
  test(`PostgresStore (${driver}): ${PROCESSES} processes x ${CALLS} suggest_task calls in one turn: exactly one is accepted`, async () => {
    const db = await fresh();
    try {
      await db.store.create("chat", [session("chat"), { type: "turn_started" }]);
      const results = await raceChildren(CHILD, [db.schema.url, "suggest", "chat", "-", String(CALLS), driver], PROCESSES);
      assert.equal(results.length, PROCESSES * CALLS);
      assert.deepEqual(
        results.filter((x) => "error" in x && !("ok" in x)),
        [],
        "no call failed",
      );
      const accepted = results.filter((x) => x.ok);
      assert.equal(accepted.length, 1);
      assert.match(accepted[0].output, /^Suggested "Task \d+-\d+"\. The user decides whether to start it; do not start it yourself\.$/);
      for (const r of results.filter((x) => !x.ok))
        assert.equal(r.error, "suggest_task: one suggestion per turn; this turn already offered one");
      const log = await db.store.read("chat");
      const offers = log.filter((e) => e.type === "suggestion_offered");
      assert.equal(offers.length, 1);
      assert.equal(`Suggested "${offers[0].title}". The user decides whether to start it; do not start it yourself.`, accepted[0].output);
    } finally {
      await db.done();
    }
  });
