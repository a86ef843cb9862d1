// The repeated setup of the PostgresStore tests: a fresh schema on the
// file's server, every pool made for it ended by `done`, migrated first.
import assert from "node:assert/strict";
import { StoreError } from "oda-tasks";
import { PostgresStore } from "oda-tasks/postgres";
import { freshSchema } from "./postgres.mjs";

/**
 * A fresh schema (migrated unless `migrate` is false): `pool()` a new pool
 * (another app server), `store()` a store over a new pool, `sql()` a query
 * on the first pool, `done()` ends them all.
 */
export async function freshPostgres(server, { migrate = true } = {}) {
  const schema = await freshSchema(server);
  const pools = [];
  const pool = (extra) => {
    const p = schema.pool(extra);
    pools.push(p);
    return p;
  };
  if (migrate) await new PostgresStore(pool()).migrate();
  return {
    schema,
    pool,
    store: (extra, options) => new PostgresStore(pool(extra), options),
    sql: async (text, values) => (await pools[0].query(text, values)).rows,
    done: () => Promise.all(pools.map((p) => p.end().catch(() => undefined))),
  };
}

/** A top-level chat's session entry. */
export const topSession = (chatId) => ({
  type: "session",
  chatId,
  workspace: "/w",
  scheduledTaskFolder: false,
  agent: "top-level",
  settings: { permission: "auto" },
});

/** A tool call that writes (one todo_write). */
export const todoCall = { name: "todo_write", input: { todos: [{ content: "Ship", status: "in_progress" }] } };

/** Makes chats "a" and "b" in `store`, then has another session (`run(sql)`) hold a's row, idle in its transaction. */
export async function holdChatA(store, run) {
  await store.create("a", [topSession("a"), { type: "turn_started" }]);
  await store.create("b", [topSession("b"), { type: "turn_started" }]);
  await run("BEGIN");
  await run("SELECT * FROM oda_tasks_chats WHERE chat_id = 'a' FOR UPDATE");
}

/** Asserts that each of `settled` (settled calls on chat "a" while its row was held) was refused store/locked, in these words. */
export function assertLockedOnA(settled, lockTimeout) {
  const locked = `chat "a": another database session held a lock this write needs (the chat's row, or a table) for the whole lock timeout (${lockTimeout} ms); nothing was written`;
  for (const r of settled) {
    assert.ok(r.reason instanceof StoreError, String(r.reason ?? JSON.stringify(r.value)));
    assert.equal(r.reason.code, "store/locked");
    assert.equal(r.reason.message, locked);
  }
}
