// PostgresStore over Neon's serverless `Pool` (@neondatabase/serverless), which
// follows node-postgres's connect/query/release but speaks the PostgreSQL
// protocol over a WebSocket: through a real proxy (Debian's websockify) to a
// real server started for this file. The Store contract, the change feed
// (a write of another process's pool heard through its LISTEN), store/locked,
// and a lost COMMIT (a relay between websockify and the server cuts it).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { Pool, neonConfig } from "@neondatabase/serverless";
import ws from "ws";
import { StoreError } from "oda-tasks";
import { PostgresStore } from "oda-tasks/postgres";
import { contractOver } from "./support/contract.mjs";
import { isCommit, startProxy } from "./support/pg-proxy.mjs";
import { freshSchema, sharedPostgres } from "./support/postgres.mjs";
import { until } from "./support/until.mjs";
import { hasWebsockify, startWsProxy } from "./support/wsproxy.mjs";

assert.ok(hasWebsockify(), "Debian's websockify is installed (scripts/setup.sh --postgres installs it)");
const server = await sharedPostgres();
// websockify → the relay of pg-proxy.mjs (which can cut a COMMIT) → the server.
const relay = await startProxy(server.port);
const proxy = await startWsProxy(relay);
after(async () => {
  await proxy.stop();
  await relay.close();
});
// Plain WebSocket and no TLS to the local proxy; Neon's own endpoints set none of this.
Object.assign(neonConfig, {
  webSocketConstructor: ws,
  wsProxy: () => `127.0.0.1:${proxy.port}/`,
  useSecureWebSocket: false,
  forceDisablePgSSL: true,
  pipelineTLS: false,
  pipelineConnect: false,
});

async function fresh() {
  const schema = await freshSchema(server);
  const pools = [];
  const neon = (extra = {}) => {
    const pool = new Pool({ connectionString: server.url, options: `-c search_path=${schema.name}`, ...extra });
    pool.on("error", () => undefined);
    pools.push(pool);
    return pool;
  };
  await new PostgresStore(neon()).migrate();
  return { schema, neon, done: () => Promise.all(pools.map((p) => p.end().catch(() => undefined))) };
}

contractOver("PostgresStore over Neon's serverless Pool", async () => {
  const db = await fresh();
  return { open: () => new PostgresStore(db.neon()), done: db.done };
});

const session = { type: "session", workspace: "/w" };

test("Neon's Pool: watch hears another pool's write through its one LISTEN connection, and this store's own at once", async () => {
  const db = await fresh();
  const other = db.schema.pool();
  try {
    const errors = [];
    const store = new PostgresStore(db.neon(), { onError: (e) => errors.push(e) });
    await store.create("c", [session]);
    const heard = [];
    const stop = store.watch("c", (n) => heard.push(n));
    // Watched before the feed listened: the first read after its LISTEN (and probe) tells the length it finds.
    await until("the first read after listening", () => heard.length > 0);
    assert.deepEqual(heard, [1]);
    const { rows } = await other.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = 'LISTEN oda_tasks' AND datname = current_database()",
    );
    assert.equal(rows[0].n, 1, "one LISTEN connection");
    // Written by a node-postgres pool (another app server): only its notice can tell it.
    assert.equal(await new PostgresStore(other).append("c", [{ type: "x" }], 1), 2);
    await until("the other pool's write heard", () => heard.length > 1);
    assert.deepEqual(heard, [1, 2]);
    assert.equal(await store.append("c", [{ type: "y" }], 2), 3);
    assert.deepEqual(heard, [1, 2, 3], "its own write heard at once, and once");
    stop();
    await store.end();
    assert.deepEqual(errors, []);
  } finally {
    await other.end();
    await db.done();
  }
});

test("Neon's Pool: another session holds a chat's row: store/locked after lockTimeout, nothing written", async () => {
  const db = await fresh();
  const holder = await db.neon().connect();
  try {
    const store = new PostgresStore(db.neon(), { lockTimeout: 400 });
    await store.create("a", [session]);
    await holder.query("BEGIN");
    await holder.query("SELECT * FROM oda_tasks_chats WHERE chat_id = 'a' FOR UPDATE");
    await assert.rejects(store.append("a", [{ type: "x" }], 1), (e) => {
      assert.ok(e instanceof StoreError);
      assert.equal(e.code, "store/locked");
      assert.equal(
        e.message,
        'chat "a": another database session held a lock this write needs (the chat\'s row, or a table) for the whole lock timeout (400 ms); nothing was written',
      );
      return true;
    });
    await holder.query("ROLLBACK");
    assert.deepEqual(await store.read("a"), [session]);
  } finally {
    await holder.query("ROLLBACK").catch(() => undefined);
    holder.release();
    await db.done();
  }
});

test("Neon's Pool: a COMMIT the server got but whose answer was lost is looked up, not repeated: written once", async () => {
  const db = await fresh();
  try {
    const store = new PostgresStore(db.neon());
    await store.create("c", [session]);
    const commits = relay.count(isCommit);
    const cuts = relay.cuts;
    relay.arm(isCommit, "after");
    assert.equal(await store.append("c", [{ type: "x" }, { type: "y" }], 1), 3);
    assert.equal(relay.cuts, cuts + 1, "the connection really was cut");
    assert.equal(commits(), 1, "no second COMMIT: the store asked the server instead");
    assert.deepEqual(await new PostgresStore(db.neon()).read("c"), [session, { type: "x" }, { type: "y" }]);
  } finally {
    await db.done();
  }
});
