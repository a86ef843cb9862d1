// PostgresStore.watch against a real server started for this file, over both
// clients (node-postgres and postgres.js): a write from a second process is
// heard through the one LISTEN connection of the store; a killed LISTEN
// connection (pg_terminate_backend) comes back and hears what it missed;
// stop really stops; behind a real PgBouncer in transaction mode the store
// says so through onError and polls. A notice is a hint: forged, garbled or
// another version's payloads sent by another client never silence a chat nor
// reach a viewer, and a restore that shortens a log is told.
import { test } from "node:test";
import assert from "node:assert/strict";
import postgres from "postgres";
import { createChat, StoreError, toolHandlers } from "oda-tasks";
import { chatHandler } from "oda-tasks/http";
import { PostgresStore } from "oda-tasks/postgres";
import { freshSchema, sharedPostgres } from "./support/postgres.mjs";
import { hasPgbouncer, startPgbouncer } from "./support/pgbouncer.mjs";
import { until } from "./support/until.mjs";
import { sse, sseUntil } from "./support/sse.mjs";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const WRITER = fileURLToPath(new URL("./children/postgres-writer.mjs", import.meta.url));
const DELETER = fileURLToPath(new URL("./children/sql-delete-child.mjs", import.meta.url));
const EXITER = fileURLToPath(new URL("./children/postgres-watch-exit.mjs", import.meta.url));
/** Runs `node script ...args` to its end (killed after `timeout` ms); resolves to the number it printed. */
const run = async (script, args, timeout = 30_000) =>
  Number((await promisify(execFile)(process.execPath, [script, ...args], { timeout, killSignal: "SIGKILL" })).stdout);
const DRIVERS = ["pg", "postgres.js"];

const server = await sharedPostgres();
const admin = server.pool({ max: 2 });

let apps = 0;

/** A migrated fresh schema; `client(driver)` a new client on it (ended by done), named so its backends can be found. */
async function fresh() {
  const schema = await freshSchema(server);
  const clients = [];
  const client = (driver, name = `oda-watch-${process.pid}-${++apps}`) => {
    const c =
      driver === "postgres.js"
        ? postgres(server.url, { connection: { search_path: schema.name, application_name: name }, onnotice: () => undefined })
        : schema.pool({ application_name: name });
    clients.push(c);
    return Object.assign(c, { appName: name });
  };
  await new PostgresStore(client("pg")).migrate();
  return { schema, client, done: () => Promise.all(clients.map((c) => c.end().catch(() => undefined))) };
}

/** The backends of application `name` that last ran a LISTEN (pg sends `LISTEN oda_tasks`, postgres.js `listen "oda_tasks"`). */
async function listeners(name) {
  const { rows } = await admin.query(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND query ILIKE 'listen %oda_tasks%'`,
    [name],
  );
  return rows.map((r) => r.pid);
}

const write = (schema, driver, chatId, expected) => run(WRITER, [server.url, schema.name, driver, chatId, String(expected)]);

/** Runs `ops` ([op, chatId, count]: "create", "delete", "replace", "replace-raw") in another process over `driver`, to its end. */
const ops = (schema, driver, list) =>
  promisify(execFile)(process.execPath, [DELETER, driver, server.url, schema.name, "ops", "-", JSON.stringify(list)], {
    timeout: 30_000,
    killSignal: "SIGKILL",
  });

const session = { type: "session", workspace: "/w" };

for (const driver of DRIVERS) {
  test(`watch (${driver}): a chat watched once the feed listens (for another chat) is read where it stands, so another process's delete of it is heard as 0`, async () => {
    const db = await fresh();
    const other = driver === "pg" ? "postgres.js" : "pg";
    const store = new PostgresStore(db.client(driver), { onError: () => undefined });
    await store.create("first", [session]);
    await store.create("c", [session, { type: "turn_started" }]);
    const heardFirst = [];
    const heard = [];
    const stops = [store.watch("first", (n) => heardFirst.push(n))];
    try {
      await until("the feed listening (its first read)", () => heardFirst.length === 1);
      stops.push(store.watch("c", (n) => heard.push(n)));
      await until("c read where it stands", () => heard.length === 1);
      assert.deepEqual(heard, [2]);
      await ops(db.schema, other, [["delete", "c"]]);
      await until("the delete", () => heard.length === 2);
      assert.deepEqual(heard, [2, 0]);
      // Not yet made: nothing to tell until it is.
      stops.push(store.watch("later", (n) => heard.push(n)));
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(heard, [2, 0]);
      // Deleted by another store object before this feed's first read of it (a viewer may have read it
      // just before): its deletion's notice says so, the read back confirms it: 0.
      const writer = new PostgresStore(db.client(other));
      try {
        await writer.create("soon", [session]);
        await writer.create("again", [session]);
        const soon = [];
        const again = [];
        stops.push(store.watch("soon", (n) => soon.push(n)));
        await writer.delete("soon");
        stops.push(store.watch("again", (n) => again.push(n)));
        await writer.delete("again");
        await writer.create("again", [session, { type: "turn_started" }]);
        await until("the deletion before the first read", () => soon.length === 1 && again.length === 2);
        assert.deepEqual(soon, [0]);
        assert.deepEqual(again, [0, 2], "deleted and made again before the first read: 0, then the new chat's length");
      } finally {
        await writer.end();
      }
    } finally {
      for (const stop of stops) stop();
      await store.end();
      await db.done();
    }
  });

  test(`watch (${driver}): another process's delete is heard as 0 (read back: no row), and a chat it deleted and made again as 0, then the new chat's length; polling (notify: false), also a chat replaced between two reads`, async () => {
    const db = await fresh();
    try {
      const other = driver === "pg" ? "postgres.js" : "pg";
      const store = new PostgresStore(db.client(driver), { onError: () => undefined });
      const polled = new PostgresStore(db.client(driver), { notify: false, watchPollMs: 300 });
      await store.create("c", [session]);
      const heard = [];
      const heardPolled = [];
      const stops = [store.watch("c", (n) => heard.push(n)), polled.watch("c", (n) => heardPolled.push(n))];
      try {
        await until("the first read after listening", () => heard.length === 1 && heardPolled.length === 1);
        await ops(db.schema, other, [["delete", "c"]]);
        await until("the delete", () => heard.length === 2 && heardPolled.length === 2);
        await ops(db.schema, other, [["create", "c", 2]]);
        await until("the chat made again", () => heard.length === 3 && heardPolled.length === 3);
        // Deleted and made again with the same length: the notices say 0, then 1; a read-back after both finds another epoch.
        await ops(db.schema, other, [["replace", "c", 2]]);
        await until("the chat replaced", () => heard.length === 5 && heardPolled.length === 5);
        assert.deepEqual(heard, [1, 0, 2, 0, 2]);
        assert.deepEqual(heardPolled, [1, 0, 2, 0, 2]);
        // In one transaction that sends no notice (a restore): only the poll hears it, by the epoch it reads.
        await ops(db.schema, other, [["replace-raw", "c", 2]]);
        await until("the chat replaced in one transaction", () => heardPolled.length === 7);
        assert.deepEqual(heardPolled, [1, 0, 2, 0, 2, 0, 2]);
        await new Promise((resolve) => setTimeout(resolve, 700));
        assert.deepEqual(heardPolled, [1, 0, 2, 0, 2, 0, 2], "each change once");
        assert.deepEqual(heard, [1, 0, 2, 0, 2], "no notice, nothing heard: LISTEN trusts the notices to name the chat");
        // This process's own delete: heard at once; its notice coming back tells nothing more.
        assert.equal(await store.delete("c"), true);
        assert.deepEqual(heard, [1, 0, 2, 0, 2, 0]);
        await until("the poll", () => heardPolled.length === 8);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.deepEqual(heard, [1, 0, 2, 0, 2, 0]);
        assert.deepEqual(heardPolled, [1, 0, 2, 0, 2, 0, 2, 0]);
      } finally {
        for (const stop of stops) stop();
        await store.end();
        await polled.end();
      }
    } finally {
      await db.done();
    }
  });

  test(`watch (${driver}): a write from another process is heard once by every listener, through one LISTEN connection per store; stop stops`, async () => {
    const db = await fresh();
    try {
      const client = db.client(driver);
      const errors = [];
      const store = new PostgresStore(client, { onError: (e) => errors.push(e) });
      await store.create("a", [session]);
      await store.create("b", [session]);
      const heard = { a1: [], a2: [], b: [], other: [] };
      const stops = [
        store.watch("a", (n) => heard.a1.push(n)),
        store.watch("a", (n) => heard.a2.push(n)),
        store.watch("a", () => {
          throw new Error("a listener's own failure");
        }),
        store.watch("b", (n) => heard.b.push(n)),
      ];
      // Another schema's store on the same chat id shares the channel and hears none of it.
      const otherDb = await fresh();
      const other = new PostgresStore(otherDb.client(driver));
      await other.create("a", [session]);
      const stopOther = other.watch("a", (n) => heard.other.push(n));
      await until("the LISTEN connection", async () => (await listeners(client.appName)).length === 1);
      // Watched before the feed listened: each chat is told the length the first read after LISTEN finds.
      await until(
        "the first read",
        () => heard.a1.length === 1 && heard.a2.length === 1 && heard.b.length === 1 && heard.other.length === 1,
      );
      assert.deepEqual([heard.a1, heard.a2, heard.b, heard.other], [[1], [1], [1], [1]]);

      assert.equal(await write(db.schema, driver, "a", 1), 2, "the other process wrote");
      await until("the other process's write", () => heard.a1.length === 2 && heard.a2.length === 2);
      assert.deepEqual(heard.a1, [1, 2]);
      assert.deepEqual(heard.a2, [1, 2]);
      assert.deepEqual(heard.b, [1]);

      // This process's write: heard by the time the append resolves, and not a second time by its notice.
      assert.equal(await store.append("b", [{ type: "x" }], 1), 2);
      assert.deepEqual(heard.b, [1, 2], "heard at once");
      assert.equal(await write(db.schema, driver === "pg" ? "postgres.js" : "pg", "b", 2), 3, "a process on the other client");
      await until("the write of the other client", () => heard.b.length === 3);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(heard.b, [1, 2, 3], "each length once");
      assert.deepEqual(heard.a1, [1, 2]);
      assert.deepEqual(heard.other, [1], "another schema's chat of the same id heard none of these writes");
      assert.deepEqual(await listeners(client.appName), [(await listeners(client.appName))[0]], "still one LISTEN connection");
      assert.deepEqual(errors, []);

      for (const stop of stops) stop();
      stopOther();
      await until("the LISTEN connection closed", async () => (await listeners(client.appName)).length === 0);
      assert.equal(await write(db.schema, driver, "a", 2), 3);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(heard.a1, [1, 2], "nothing heard after stop");
      // Watching again opens it again.
      const again = [];
      const stop = store.watch("a", (n) => again.push(n));
      await until("the LISTEN connection again", async () => (await listeners(client.appName)).length === 1);
      await until("the first read after listening again", () => again.length === 1);
      assert.equal(await write(db.schema, driver, "a", 3), 4);
      await until("a write after watching again", () => again.length === 2);
      assert.deepEqual(again, [3, 4], "the length when it listened again, then the write");
      stop();
      await store.end();
      await otherDb.done();
    } finally {
      await db.done();
    }
  });

  test(`watch (${driver}): the LISTEN connection killed (pg_terminate_backend) comes back and hears the change made while it was gone`, async () => {
    const db = await fresh();
    try {
      const client = db.client(driver);
      const errors = [];
      // Polling every 10 minutes: only the length read after the reconnect can bring the missed change.
      const store = new PostgresStore(client, { watchPollMs: 600_000, onError: (e) => errors.push(e) });
      const writer = new PostgresStore(db.client("pg"));
      await store.create("a", [session]);
      const heard = [];
      const stop = store.watch("a", (n) => heard.push(n));
      const [pid] = await until("the LISTEN connection", () => listeners(client.appName).then((p) => p.length === 1 && p));
      await until("the first read after listening", () => heard.length === 1);
      assert.deepEqual(heard, [1]);
      await admin.query("SELECT pg_terminate_backend($1)", [pid]);
      if (driver === "pg") {
        await until("the loss reported", () => errors.length > 0);
        // Written while no LISTEN is in place (the store tries again after about a second).
        assert.equal(await writer.append("a", [{ type: "x" }], 1), 2);
        assert.deepEqual(await listeners(client.appName), [], "written while nothing listened");
        assert.ok(errors[0] instanceof StoreError);
        assert.equal(errors[0].code, "store/unavailable");
        assert.match(
          errors[0].message,
          /^PostgresStore\.watch lost its LISTEN connection \(.+\); the watched chats are read in one query every 600000 ms until it listens again \(next try in \d+ ms\)$/,
        );
      } else {
        // postgres.js listens again by itself at once: the write may fall before or after.
        assert.equal(await writer.append("a", [{ type: "x" }], 1), 2);
      }
      await until("the missed change", () => heard.length === 2, 15_000);
      assert.deepEqual(heard, [1, 2]);
      await until("a new LISTEN connection", async () => {
        const now = await listeners(client.appName);
        return now.length === 1 && now[0] !== pid;
      });
      assert.equal(await writer.append("a", [{ type: "y" }], 2), 3);
      await until("a change after the reconnect", () => heard.length === 3);
      assert.deepEqual(heard, [1, 2, 3]);
      stop();
      await store.end();
    } finally {
      await db.done();
    }
  });

  test(`watch (${driver}): a write that lands while the feed is still setting up its LISTEN is told once it listens`, async () => {
    const db = await fresh();
    // The store's only connection held: its feed cannot look up its table or send its probe.
    const client =
      driver === "postgres.js"
        ? postgres(server.url, { max: 1, connection: { search_path: db.schema.name }, onnotice: () => undefined })
        : db.schema.pool({ max: 1 });
    let held;
    let store;
    let stop = () => undefined;
    try {
      held = driver === "postgres.js" ? await client.reserve() : await client.connect();
      store = new PostgresStore(client, { watchPollMs: 600_000, onError: () => undefined });
      const writer = new PostgresStore(db.client("pg"));
      await writer.create("a", [session]);
      const heard = [];
      stop = store.watch("a", (n) => heard.push(n));
      // A viewer's first screen (length 1), then a write no notice of which can be heard.
      assert.equal((await writer.read("a")).length, 1);
      assert.equal(await writer.append("a", [{ type: "x" }], 1), 2);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(heard, [], "nothing heard while the feed waits for its connection");
      held.release();
      held = undefined;
      await until("the write made before the feed listened", () => heard.length === 1);
      assert.deepEqual(heard, [2], "told the length its first read found: the viewer's screen is not left behind");
      assert.equal(await writer.append("a", [{ type: "y" }], 2), 3);
      await until("a write after it listens", () => heard.length === 2);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(heard, [2, 3], "each length once");
    } finally {
      // Also after a failed assertion: the held connection and the client end, so the file cannot hang.
      stop();
      held?.release();
      await store?.end();
      await client.end();
      await db.done();
    }
  });

  test(`watch (${driver}): a notice is a hint: forged or garbled payloads from another client never silence the chat nor reach a viewer; a restore that shortens the log is told, and the viewer gets its screen`, async () => {
    const db = await fresh();
    const other = db.client("pg"); // any other client of the database
    const store = new PostgresStore(db.client(driver), { onError: () => undefined });
    let stop = () => undefined;
    let s;
    try {
      await createChat(store, "a", { workspace: "/w" });
      const tools = toolHandlers({ store, chatId: "a" });
      for (const n of [1, 2, 3]) await tools.todo_write({ todos: [{ content: `Step ${n}`, status: "in_progress" }] });
      const heard = [];
      stop = store.watch("a", (n) => heard.push(n));
      await until("the feed's first read once it listens", () => heard.length === 1);
      assert.deepEqual(heard, [4]);
      const handler = chatHandler({ store, authorize: () => true });
      s = sse(await handler(new Request("http://app.test/chats/a/events")));
      assert.equal((await s.next()).data.cardCount, 3);

      const oid = (await other.query("SELECT 'oda_tasks_chats'::regclass::oid::text AS oid")).rows[0].oid;
      const payloads = [
        `${oid} 999999 a`,
        `${oid} -1 a`,
        `${oid} NaN a`,
        `${oid} 1e308 a`,
        `${oid} 4.5 a`,
        `${oid} 2 a`,
        `${oid} 99999999999999999999999 a`,
        `${oid} 999999 ${"a".repeat(201)}`,
        `${oid} 999999`,
        `${oid}`,
        `{"v":2,"chat":"a","length":999999}`,
        `v2 a 999999`,
      ];
      for (const payload of payloads) await other.query("SELECT pg_notify('oda_tasks', $1)", [payload]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(heard, [4], "no length a notice claimed is told: only what the table holds, which did not move");
      assert.equal(await write(db.schema, "pg", "a", 4), 5);
      await until("a write from another process after the forged notices", () => heard.at(-1) === 5);
      const change = await sseUntil(s, 5);
      assert.equal(change.event, "change");

      // A restore: the log cut back to two entries (the session and the first list), then another process writes.
      await other.query(
        "WITH cut AS (DELETE FROM oda_tasks_entries WHERE chat_id = 'a' AND seq >= 2) UPDATE oda_tasks_chats SET length = 2 WHERE chat_id = 'a'",
      );
      assert.equal(await write(db.schema, "pg", "a", 2), 3);
      await until("the write after the restore, at a length below the one told", () => heard.at(-1) === 3);
      assert.deepEqual(heard, [4, 5, 3]);
      const restored = await sseUntil(s, 3);
      assert.equal(restored.event, "screen", "a log cut back: the viewer gets a screen, never a change onto the old one");
      const fresh = await (await chatHandler({ store, authorize: () => true })(new Request("http://app.test/chats/a"))).json();
      assert.deepEqual(restored.data, fresh);
      assert.equal(restored.data.cardCount, 1);
    } finally {
      await s?.reader.cancel();
      stop();
      await store.end?.();
      await db.done();
    }
  });

  test(`watch (${driver}): stop() and then the client's end() while the feed's read of the lengths is in flight: end() resolves once the read is done`, async () => {
    const db = await fresh();
    const other = db.client("pg");
    // Not one of db's clients: db.done() must not wait on an end() this test found stuck.
    const name = `oda-watch-end-${process.pid}-${++apps}`;
    const client =
      driver === "postgres.js"
        ? postgres(server.url, { connection: { search_path: db.schema.name, application_name: name }, onnotice: () => undefined })
        : db.schema.pool({ application_name: name });
    const store = new PostgresStore(client, { onError: () => undefined });
    const lock = await other.connect();
    try {
      await createChat(store, "a", { workspace: "/w" });
      const heard = [];
      const stop = store.watch("a", (n) => heard.push(n));
      await until("the feed's first read once it listens", () => heard.length === 1);
      // The table locked by another session, then a notice: the feed's read of the lengths waits on the lock.
      const oid = (await other.query("SELECT 'oda_tasks_chats'::regclass::oid::text AS oid")).rows[0].oid;
      await lock.query("BEGIN");
      await lock.query("LOCK TABLE oda_tasks_chats IN ACCESS EXCLUSIVE MODE");
      await other.query("SELECT pg_notify('oda_tasks', $1)", [`${oid} 2 a`]);
      await until("the feed's read waiting on the lock", async () => {
        const { rows } = await admin.query(
          "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock' AND query LIKE 'SELECT c.chat_id, c.length%'",
          [name],
        );
        return rows.length === 1;
      });
      stop();
      const ended = client.end().then(() => "ended");
      await lock.query("ROLLBACK");
      const outcome = await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 10_000, "still waiting after 10 s"))]);
      assert.equal(outcome, "ended");
    } finally {
      lock.release();
      // A client that never ends is let go by the server, so the file can end.
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [name]);
      await db.done();
    }
  });

  test(`watch (${driver}): after the last stop nothing keeps the process alive (it exits once its client is ended)`, async () => {
    const db = await fresh();
    try {
      await new PostgresStore(db.client("pg")).create("a", [session]);
      // Killed after 15 s (and so failing) if anything keeps it alive.
      assert.equal(
        await run(EXITER, [server.url, db.schema.name, driver, "a"], 15_000),
        2,
        "it heard its write, stopped, ended its client and exited",
      );
    } finally {
      await db.done();
    }
  });
}

test("watch with notify: false: no LISTEN connection; the watched chats' lengths are read in one query per watchPollMs, and another process's write is heard", async () => {
  const db = await fresh();
  const client = db.client("pg");
  const errors = [];
  const store = new PostgresStore(client, { notify: false, watchPollMs: 50, onError: (e) => errors.push(e) });
  const heard = [];
  let stop = () => undefined;
  try {
    await store.create("a", [session]);
    stop = store.watch("a", (n) => heard.push(n));
    await until("the poll's first read", () => heard.length === 1);
    assert.equal(await write(db.schema, "pg", "a", 1), 2);
    await until("the other process's write, by the poll", () => heard.length === 2);
    assert.deepEqual(heard, [1, 2]);
    assert.deepEqual(await listeners(client.appName), [], "no LISTEN was run");
    assert.deepEqual(errors, [], "polling is what was asked for: nothing to report");
  } finally {
    stop();
    await db.done();
  }
});

test("watch: behind a PgBouncer in transaction mode LISTEN is not heard: onError says so, and one query per interval hears the writes", async () => {
  assert.ok(hasPgbouncer(), "Debian's pgbouncer is installed (scripts/setup.sh --postgres installs it)");
  // PgBouncer passes no `options` startup parameter: a database of its own holds the tables.
  const database = `oda_bouncer_${process.pid}`;
  await admin.query(`CREATE DATABASE ${database}`);
  const direct = server.pool({ connectionString: server.urlOf(database) });
  const bouncer = await startPgbouncer(server);
  const bounced = server.pool({ connectionString: bouncer.url(database), application_name: "oda-bounced" });
  try {
    await new PostgresStore(direct).migrate();
    const writer = new PostgresStore(direct);
    await writer.create("a", [session]);
    await writer.create("b", [session]);
    const errors = [];
    const store = new PostgresStore(bounced, { watchPollMs: 200, onError: (e) => errors.push(e) });
    const heard = { a: [], b: [] };
    const stops = [store.watch("a", (n) => heard.a.push(n)), store.watch("b", (n) => heard.b.push(n))];
    await until("onError", () => errors.length > 0);
    assert.ok(errors[0] instanceof StoreError);
    assert.equal(errors[0].code, "store/unavailable");
    assert.match(
      errors[0].message,
      /^PostgresStore\.watch did not hear its probe notice within 2000 ms \(LISTEN does not work through a PgBouncer in transaction mode; a role may not be allowed to run pg_notify\) \(no notice heard\); the watched chats are read in one query every 200 ms until it listens again \(next try in \d+ ms\)$/,
    );
    // The first poll tells each chat where it stands (a write may have come before it, unheard).
    await until("the first poll", () => heard.a.length === 1 && heard.b.length === 1, 5_000);
    assert.deepEqual(heard, { a: [1], b: [1] });
    assert.equal(await writer.append("a", [{ type: "x" }], 1), 2);
    assert.equal(await writer.append("b", [{ type: "x" }], 1), 2);
    await until("the polled changes", () => heard.a.length === 2 && heard.b.length === 2, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(heard, { a: [1, 2], b: [1, 2] }, "each length once");
    for (const stop of stops) stop();
    await store.end();
  } finally {
    await bounced.end().catch(() => undefined);
    await direct.end();
    await bouncer.stop();
    await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
  }
});

test("watch: a role that may not run pg_notify is told through onError and polls with one query", async () => {
  // Roles and the grant on pg_notify belong to a database and a cluster: a database of its own.
  const database = `oda_role_${process.pid}`;
  const role = `oda_viewer_${process.pid}`;
  await admin.query(`CREATE DATABASE ${database}`);
  const owner = server.pool({ connectionString: server.urlOf(database) });
  const viewer = server.pool({ connectionString: `postgres://${role}@127.0.0.1:${server.port}/${database}` });
  let stopWatching = async () => undefined;
  try {
    await new PostgresStore(owner).migrate();
    await owner.query(`CREATE ROLE ${role} LOGIN`);
    await owner.query(`GRANT SELECT ON oda_tasks_chats, oda_tasks_entries TO ${role}`);
    await owner.query("REVOKE EXECUTE ON FUNCTION pg_notify(text, text) FROM PUBLIC");
    const writer = new PostgresStore(owner); // a superuser: its writes still notify
    await writer.create("a", [session]);
    const errors = [];
    const store = new PostgresStore(viewer, { watchPollMs: 200, onError: (e) => errors.push(e) });
    const heard = [];
    const stop = store.watch("a", (n) => heard.push(n));
    stopWatching = async () => {
      stop();
      await store.end();
    };
    await until("onError", () => errors.length > 0);
    assert.equal(errors[0].code, "store/unavailable");
    assert.match(
      errors[0].message,
      /^PostgresStore\.watch did not hear its probe notice within 2000 ms \(LISTEN does not work through a PgBouncer in transaction mode; a role may not be allowed to run pg_notify\) \(permission denied for function pg_notify\); the watched chats are read in one query every 200 ms until it listens again \(next try in \d+ ms\)$/,
    );
    await until("the first poll", () => heard.length === 1, 5_000);
    assert.deepEqual(heard, [1], "the first poll tells where the chat stands");
    assert.equal(await writer.append("a", [{ type: "x" }], 1), 2);
    await until("the polled change", () => heard.length === 2, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(heard, [1, 2], "each length once");
  } finally {
    await stopWatching();
    await viewer.end().catch(() => undefined);
    await owner.end();
    await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
  }
});

test("PostgresStore: the change feed's options are checked before anything is opened", () => {
  const pool = server.pool({ max: 1 });
  for (const [name, value, expected] of [
    ["watchPollMs", 0, "a whole number >= 1"],
    ["watchPollMs", "1000", "a whole number >= 1"],
    ["onError", "warn", "a function"],
    ["notify", 1, "a boolean"],
  ]) {
    assert.throws(
      () => new PostgresStore(pool, { [name]: value }),
      (e) =>
        e instanceof TypeError &&
        e.message.startsWith(`oda-tasks: invalid arguments of PostgresStore: \`${name}\` must be ${expected} (got `),
    );
  }
  const store = new PostgresStore(pool);
  assert.throws(() => store.watch("a", "not a function"), /^TypeError: oda-tasks: watch\(chatId, onChange\): onChange must be a function$/);
  assert.throws(
    () => store.watch("../a", () => undefined),
    (e) => e instanceof StoreError && e.code === "store/bad-chat-id",
  );
});
