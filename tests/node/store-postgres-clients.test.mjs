// PostgresStore over the app's own client, against a real server started for
// this file: a postgres.js `Sql` and Drizzle's `db` (over postgres.js and
// over node-postgres) pass the Store contract, and the postgres.js store
// keeps the guarantees of the pg one: bounded lock waits (store/locked), a
// lost COMMIT looked up and never sent twice, the database's own refusals.
import { test } from "node:test";
import assert from "node:assert/strict";
import { drizzle as drizzleNodePostgres } from "drizzle-orm/node-postgres";
import { drizzle as drizzlePostgresJs } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { MemoryStore, StoreError, runTool } from "oda-tasks";
import { PostgresStore } from "oda-tasks/postgres";
import { contractOver } from "./support/contract.mjs";
import { isCommit, startProxy } from "./support/pg-proxy.mjs";
import { sharedPostgres } from "./support/postgres.mjs";
import { assertLockedOnA, freshPostgres, holdChatA, todoCall, topSession } from "./support/postgres-fresh.mjs";

const server = await sharedPostgres();

/** A migrated fresh schema; `sql(port)` a new postgres.js client on it (through a relay on `port`), ended by done. */
async function fresh({ migrate = true } = {}) {
  const db = await freshPostgres(server, { migrate: false });
  const clients = [];
  const sql = (port = server.port, extra = {}) => {
    const c = postgres(server.url.replace(`:${server.port}/`, `:${port}/`), {
      connection: { search_path: db.schema.name },
      onnotice: () => undefined,
      ...extra,
    });
    clients.push(c);
    return c;
  };
  if (migrate) await new PostgresStore(sql()).migrate();
  return {
    schema: db.schema,
    sql,
    pool: db.pool,
    done: () => Promise.all([db.done(), ...clients.map((c) => c.end({ timeout: 1 }).catch(() => undefined))]),
  };
}

const rejectsWith = (promise, code, message) =>
  assert.rejects(promise, (e) => {
    assert.ok(e instanceof StoreError, `expected a StoreError, got ${e?.stack ?? e}`);
    assert.equal(e.code, code, e.message);
    if (message !== undefined) assert.equal(e.message, message);
    return true;
  });

contractOver("PostgresStore over postgres.js", async () => {
  const db = await fresh();
  return { open: () => new PostgresStore(db.sql()), done: db.done };
});

contractOver("PostgresStore over Drizzle (postgres.js)", async () => {
  const db = await fresh();
  return { open: () => new PostgresStore(drizzlePostgresJs(db.sql())), done: db.done };
});

contractOver("PostgresStore over Drizzle (node-postgres)", async () => {
  const db = await fresh();
  return { open: () => new PostgresStore(drizzleNodePostgres(db.pool())), done: db.done };
});

const session = { type: "session", workspace: "/w" };

test("postgres.js: entries come back as the exact JSON text written, and the tool's texts are the core's", async () => {
  const db = await fresh();
  try {
    const store = new PostgresStore(db.sql());
    await store.create("c", [topSession("c"), { type: "turn_started" }]);
    await store.append("c", [{ type: "raw", n: 1.5, big: 2 ** 60, k: { z: 1, a: 2 } }]);
    const texts = await store.readTextFrom("c", 2);
    assert.deepEqual(texts, ['{"type":"raw","n":1.5,"big":1152921504606847000,"k":{"z":1,"a":2}}']);
    const memory = new MemoryStore();
    await memory.create("c", await store.read("c"));
    const r = await runTool(store, "c", todoCall);
    assert.equal(r.ok, true);
    assert.equal(r.output, (await runTool(memory, "c", todoCall)).output, "the same text as over any store");
    assert.deepEqual(await new PostgresStore(db.pool()).read("c"), await store.read("c"), "pg and postgres.js read the same log");
  } finally {
    await db.done();
  }
});

test("postgres.js: another session holds a chat's row: writes fail with store/locked after lockTimeout, nothing written, other chats go on", {
  timeout: 60_000,
}, async () => {
  const db = await fresh();
  const holder = await db.sql().reserve();
  try {
    const store = new PostgresStore(db.sql(server.port, { max: 2 }), { lockTimeout: 400 });
    await holdChatA(store, (sql) => holder.unsafe(sql));
    const settled = await Promise.allSettled([
      runTool(store, "a", todoCall),
      store.append("a", [{ type: "x" }], 2),
      runTool(store, "b", todoCall),
    ]);
    assertLockedOnA(settled.slice(0, 2), 400);
    assert.equal(settled[2].value?.ok, true, "chat b went on");
    assert.equal((await store.read("a")).length, 2, "nothing written to a");
    await holder.unsafe("ROLLBACK");
    assert.equal((await runTool(store, "a", todoCall)).ok, true);
  } finally {
    await holder.unsafe("ROLLBACK").catch(() => undefined);
    holder.release();
    await db.done();
  }
});

test("postgres.js: a COMMIT the server got but whose answer was lost is looked up, not repeated: written once", async () => {
  const db = await fresh();
  const proxy = await startProxy(server.port);
  try {
    const store = new PostgresStore(db.sql(proxy.port));
    await store.create("c", [session]);
    const commits = proxy.count(isCommit);
    proxy.arm(isCommit, "after");
    assert.equal(await store.append("c", [{ type: "x" }, { type: "y" }], 1), 3);
    assert.equal(proxy.cuts, 1, "the connection really was cut");
    assert.equal(commits(), 1, "no second COMMIT: the store asked the server instead");
    assert.deepEqual(await new PostgresStore(db.sql()).read("c"), [session, { type: "x" }, { type: "y" }]);
    // A create whose COMMIT answer is lost still says it created the chat.
    proxy.arm(isCommit, "after");
    assert.equal(await store.create("d", [session]), true);
    assert.equal(proxy.cuts, 2);
    assert.equal(await store.create("d", [session]), false);
    // A COMMIT that never reached the server committed nothing: tried again, written once.
    const again = proxy.count(isCommit);
    proxy.arm(isCommit, "before");
    assert.equal(await store.append("c", [{ type: "z" }], 3), 4);
    assert.equal(again(), 2, "the cut COMMIT, then the one of the second attempt");
    assert.deepEqual((await store.read("c")).at(-1), { type: "z" });
    assert.equal((await store.read("c")).length, 4);
  } finally {
    await db.done(); // first: the relay closes once its connections have
    await proxy.close();
  }
});

test("postgres.js: COMMIT answer lost and the database unreachable: store/outcome-unknown, never a guess", async () => {
  const db = await fresh();
  const proxy = await startProxy(server.port);
  try {
    const store = new PostgresStore(db.sql(proxy.port, { max: 1 }), { attempts: 3, statementTimeout: 1000 });
    await store.create("c", [session]);
    proxy.refuse = true;
    proxy.arm(isCommit, "after");
    await rejectsWith(
      store.append("c", [{ type: "x" }], 1),
      "store/outcome-unknown",
      'chat "c": the connection was lost while committing, so this write may or may not be recorded; read the chat to see',
    );
    proxy.refuse = false;
    assert.deepEqual(await store.read("c"), [session, { type: "x" }]);
  } finally {
    await db.done(); // first: the relay closes once its connections have
    await proxy.close();
  }
});

test("postgres.js: the database's refusals keep their codes: store/not-migrated before migrate(), store/unavailable with no server", async () => {
  const db = await fresh({ migrate: false });
  try {
    const store = new PostgresStore(db.sql());
    await assert.rejects(
      store.read("c"),
      (e) => e instanceof StoreError && e.code === "store/not-migrated" && /run await store\.migrate\(\)/.test(e.message),
    );
    assert.deepEqual(await store.migrate(), [1, 2]);
    assert.deepEqual(await store.migrate(), []);
    assert.equal(await store.create("c", [session]), true);
    const proxy = await startProxy(server.port);
    proxy.refuse = true;
    try {
      const down = new PostgresStore(db.sql(proxy.port), { attempts: 2, statementTimeout: 1000 });
      await assert.rejects(
        down.read("c"),
        (e) => e instanceof StoreError && e.code === "store/unavailable" && /after 2 attempts/.test(e.message),
      );
    } finally {
      await proxy.close();
    }
  } finally {
    await db.done();
  }
});
