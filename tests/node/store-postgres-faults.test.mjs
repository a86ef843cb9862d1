// PostgresStore when things break, against a real server started for this
// file: a connection cut at a chosen protocol message (a relay between store
// and server), a COMMIT whose answer is lost, the server restarted or down
// between two calls, and an app process killed (SIGKILL) mid-transaction.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { StoreError } from "oda-tasks";
import { PostgresStore } from "oda-tasks/postgres";
import { startServer } from "./support/postgres.mjs";
import { assertLockedOnA, freshPostgres, holdChatA, todoCall, topSession } from "./support/postgres-fresh.mjs";
import { isCommit, isStatement, startProxy } from "./support/pg-proxy.mjs";
import { until } from "./support/until.mjs";

const APPENDER = fileURLToPath(new URL("./children/postgres-appender.mjs", import.meta.url));

const server = await startServer();
after(() => server.stop());

/** A migrated fresh schema; `store()` is a store over a new pool, `through(proxy)` one whose pool goes through the relay. */
async function fresh() {
  const db = await freshPostgres(server);
  return {
    ...db,
    through: (proxy, extra, options) =>
      new PostgresStore(db.pool({ connectionString: server.url.replace(`:${server.port}/`, `:${proxy.port}/`), ...extra }), options),
  };
}

async function withProxy(fn) {
  const db = await fresh();
  const proxy = await startProxy(server.port);
  try {
    await fn(db, proxy);
  } finally {
    await proxy.close();
    await db.done();
  }
}

const session = { type: "session", workspace: "/w" };

test("faults: a COMMIT the server got but whose answer was lost is looked up, not repeated: written once", () =>
  withProxy(async (db, proxy) => {
    const store = db.through(proxy);
    await store.create("c", [session]);
    const commits = proxy.count(isCommit);
    proxy.arm(isCommit, "after");
    assert.equal(await store.append("c", [{ type: "x" }, { type: "y" }], 1), 3);
    assert.equal(proxy.cuts, 1, "the connection really was cut");
    assert.equal(commits(), 1, "no second COMMIT: the store asked the server instead");
    assert.deepEqual(await db.store().read("c"), [session, { type: "x" }, { type: "y" }]);
  }));

test("faults: create whose COMMIT answer was lost still says it created the chat (a blind retry would say false)", () =>
  withProxy(async (db, proxy) => {
    const store = db.through(proxy);
    proxy.arm(isCommit, "after");
    assert.equal(await store.create("c", [session]), true);
    assert.equal(proxy.cuts, 1);
    assert.equal(await store.create("c", [session]), false);
    assert.deepEqual(await db.store().read("c"), [session]);
  }));

test("faults: a COMMIT that never reached the server committed nothing: tried again, written once", () =>
  withProxy(async (db, proxy) => {
    const store = db.through(proxy);
    await store.create("c", [session]);
    const commits = proxy.count(isCommit);
    proxy.arm(isCommit, "before");
    assert.equal(await store.append("c", [{ type: "x" }], 1), 2);
    assert.equal(proxy.cuts, 1);
    assert.equal(commits(), 2, "the cut COMMIT, then the one of the second attempt");
    assert.deepEqual(await db.store().read("c"), [session, { type: "x" }]);
  }));

test("faults: the append statement ran but the connection died before COMMIT: tried again, written once", () =>
  withProxy(async (db, proxy) => {
    const store = db.through(proxy);
    await store.create("c", [session]);
    proxy.arm(isStatement("oda-tasks-append"), "after");
    assert.equal(await store.append("c", [{ type: "x" }], 1), 2);
    assert.equal(proxy.cuts, 1);
    // The conditional append was tried again at the same expected length and still won.
    assert.deepEqual(await db.store().read("c"), [session, { type: "x" }]);
  }));

test("faults: a read whose connection died is read again", () =>
  withProxy(async (db, proxy) => {
    const store = db.through(proxy);
    await store.create("c", [session, { type: "x" }]);
    proxy.arm(isStatement("oda-tasks-read"), "after");
    assert.deepEqual(await store.read("c"), [session, { type: "x" }]);
    assert.equal(proxy.cuts, 1);
  }));

test("faults: COMMIT answer lost and the database unreachable: store/outcome-unknown, never a guess", () =>
  withProxy(async (db, proxy) => {
    const store = db.through(proxy, { max: 1 }, { attempts: 3 });
    await store.create("c", [session]); // the pool's one connection, kept open
    proxy.refuse = true; // from now on no new connection gets through
    proxy.arm(isCommit, "after");
    await assert.rejects(store.append("c", [{ type: "x" }], 1), (e) => {
      assert.ok(e instanceof StoreError);
      assert.equal(e.code, "store/outcome-unknown");
      assert.equal(
        e.message,
        'chat "c": the connection was lost while committing, so this write may or may not be recorded; read the chat to see',
      );
      return true;
    });
    // It did commit (the server got the COMMIT): the app finds it by reading, once.
    proxy.refuse = false;
    assert.deepEqual(await store.read("c"), [session, { type: "x" }]);
  }));

test("faults: an append chosen as a deadlock's victim rolled back: tried again, written once", () =>
  withProxy(async (db, proxy) => {
    const app = `oda-deadlock-${process.pid}`;
    const store = db.through(proxy, { application_name: app });
    await store.create("c", [session]);
    const other = await db.pool().connect();
    try {
      const appends = proxy.count((m) => m.type === "B" && isStatement("oda-tasks-append")(m)); // one Bind per run
      // Another transaction holds seq 2, so the append (seq 1 and 2) waits on it holding the chat's row...
      await other.query("BEGIN");
      await other.query("SET LOCAL deadlock_timeout = '60s'"); // the append's side detects the deadlock, not this one
      await other.query(`INSERT INTO oda_tasks_entries (chat_id, seq, entry) VALUES ('c', 2, '{}')`);
      const appended = store.append("c", [{ type: "x" }, { type: "y" }], 1);
      await until(
        "the append waits",
        async () =>
          (await db.sql("SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [app])).length === 1,
        30_000,
      );
      // ...and then that transaction waits for the chat's row: a deadlock; the append's transaction is the one rolled back.
      await other.query("UPDATE oda_tasks_chats SET length = length WHERE chat_id = 'c'");
      await other.query("ROLLBACK");
      assert.equal(await appended, 3);
      assert.equal(appends(), 2, "the statement ran twice: the second try won");
      assert.deepEqual(await store.read("c"), [session, { type: "x" }, { type: "y" }]);
    } finally {
      other.release();
    }
  }));

test("faults: the server restarted between two calls: the next call succeeds and nothing is lost", async () => {
  const db = await fresh();
  try {
    const store = db.store();
    await store.create("c", [session]);
    assert.equal(await store.append("c", [{ type: "before" }], 1), 2);
    await store.read("c"); // the pool now holds an idle connection the restart kills
    await server.restart();
    assert.deepEqual(await store.read("c"), [session, { type: "before" }]);
    assert.equal(await store.append("c", [{ type: "after" }], 2), 3);
    await server.restart();
    assert.equal(await store.append("c", [{ type: "after2" }], 3), 4, "a write as the first call after a restart");
    assert.deepEqual(await db.store().read("c"), [session, { type: "before" }, { type: "after" }, { type: "after2" }]);
  } finally {
    await db.done();
  }
});

test("faults: the server down: calls fail with store/unavailable and write nothing; back up, everything is there", async () => {
  const db = await fresh();
  try {
    const store = db.store(undefined, { attempts: 3 });
    await store.create("c", [session, { type: "kept" }]);
    server.halt();
    try {
      for (const [op, what] of [
        [() => store.read("c"), "read"],
        [() => store.append("c", [{ type: "lost" }], 2), "append"],
        [() => store.create("d", [session]), "create"],
      ]) {
        await assert.rejects(op(), (e) => {
          assert.ok(e instanceof StoreError, `${what}: ${e}`);
          assert.equal(e.code, "store/unavailable", `${what}: ${e.message}`);
          assert.match(e.message, /^the database is unavailable for chat "[cd]" after 3 attempts; nothing was written \(/);
          return true;
        });
      }
    } finally {
      await server.start();
    }
    assert.deepEqual(await store.read("c"), [session, { type: "kept" }]);
    assert.equal(await store.read("d"), null);
    assert.equal(await store.append("c", [{ type: "next" }], 2), 3);
  } finally {
    await db.done();
  }
});

/** Starts the appender child; `acks` fills with its acknowledged appends. */
function appender(db, chatId, loops, app) {
  const child = spawn(process.execPath, [APPENDER, db.schema.url, chatId, String(loops), app], { stdio: ["ignore", "pipe", "pipe"] });
  const acks = [];
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    out += chunk;
    const lines = out.split("\n");
    out = lines.pop(); // a line cut off by the kill is no acknowledgement
    for (const line of lines) acks.push(JSON.parse(line));
  });
  child.stderr.setEncoding("utf8").on("data", (chunk) => (err += chunk));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return { child, acks, exited, stderr: () => err };
}

/** The log holds every acknowledged append where it said, each append whole, nothing else. */
async function assertWholeAppends(db, chatId, acks) {
  const log = await db.store().read(chatId);
  assert.deepEqual(log[0], session);
  const endOf = new Map();
  for (let i = 1; i < log.length; i += 3) {
    const k = log[i].k;
    assert.deepEqual(
      log.slice(i, i + 3),
      [0, 1, 2].map((part) => ({ type: "part", k, part })),
      `the append at ${i} is whole`,
    );
    assert.ok(!endOf.has(k), `append ${k} is there once`);
    endOf.set(k, i + 3);
  }
  for (const { k, length } of acks) assert.equal(endOf.get(k), length, `acknowledged append ${k} is where its answer said`);
  const [{ length, n }] = await db.sql(
    "SELECT c.length::int AS length, (SELECT count(*)::int FROM oda_tasks_entries e WHERE e.chat_id = c.chat_id) AS n FROM oda_tasks_chats c WHERE chat_id = $1",
    [chatId],
  );
  assert.deepEqual({ length, n }, { length: log.length, n: log.length });
  return log;
}

test("faults: SIGKILL while an append is half-written in its transaction: every acknowledged append stays, the half one is gone", async () => {
  const db = await fresh();
  const app = `oda-kill-${process.pid}`;
  await db.store().create("k", [session]);
  const run = appender(db, "k", 1, app);
  const blocker = await db.pool().connect();
  try {
    await until("10 appends are acknowledged", () => run.acks.length >= 10, 30_000);
    // An uncommitted row in the middle of the append after next: that append
    // bumps the length, writes its first entry and waits on this row's key.
    let target;
    for (;;) {
      const [{ length }] = await db.sql("SELECT length::int AS length FROM oda_tasks_chats WHERE chat_id = 'k'");
      target = length + 3 * 2 + 1;
      await blocker.query("BEGIN");
      try {
        await blocker.query("INSERT INTO oda_tasks_entries (chat_id, seq, entry) VALUES ('k', $1, '{}')", [target]);
        break;
      } catch (e) {
        await blocker.query("ROLLBACK");
        if (e.code !== "23505") throw e; // the child got there first: aim further on
      }
    }
    await until(
      "the child's append waits mid-transaction",
      async () => {
        const rows = await db.sql(
          "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock' AND xact_start IS NOT NULL",
          [app],
        );
        return rows.length === 1;
      },
      30_000,
    );
    // Everything before the waiting append is committed; it started at target - 1.
    const [{ committed }] = await db.sql("SELECT length::int AS committed FROM oda_tasks_chats WHERE chat_id = 'k'");
    assert.equal(committed, target - 1);
    run.child.kill("SIGKILL");
    assert.deepEqual(await run.exited, { code: null, signal: "SIGKILL" });
    await blocker.query("ROLLBACK");
    await until(
      "the killed process's connection is gone",
      async () => (await db.sql("SELECT 1 FROM pg_stat_activity WHERE application_name = $1", [app])).length === 0,
      30_000,
    );
    const log = await assertWholeAppends(db, "k", run.acks);
    assert.equal(log.length, target - 1, "the log ends before the append that was cut");
    // The chat is not left locked: the next append goes through.
    assert.equal(await db.store().append("k", [{ type: "after" }], log.length), log.length + 1);
  } finally {
    blocker.release();
    run.child.kill("SIGKILL");
    await db.done();
  }
});

test("faults: SIGKILL of a process with 4 appends always in flight: acknowledged appends stay, no partial one", async () => {
  const db = await fresh();
  await db.store().create("k", [session]);
  const run = appender(db, "k", 4, `oda-kill4-${process.pid}`);
  try {
    await until("40 appends are acknowledged", () => run.acks.length >= 40, 30_000);
    run.child.kill("SIGKILL");
    assert.deepEqual(await run.exited, { code: null, signal: "SIGKILL" }, run.stderr());
    const log = await assertWholeAppends(db, "k", run.acks);
    assert.ok(log.length >= 1 + 3 * 40);
  } finally {
    run.child.kill("SIGKILL");
    await db.done();
  }
});

// ---------------------------------------------------------------------------
// No wait without a bound.

/** `promise`, or a rejection naming `what` when it has not settled within `ms` (so a hang fails the test, never stalls it). */
function within(ms, what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

test("another session holds a chat's row (FOR UPDATE, idle in transaction): writes to it fail with store/locked after lockTimeout; with a pool of two, other chats go on", {
  timeout: 60_000,
}, async () => {
  const db = await fresh();
  const { runTool } = await import("oda-tasks");
  const holder = await db.pool().connect();
  try {
    const store = db.store({ max: 2 }, { lockTimeout: 400 });
    await holdChatA(store, (sql) => holder.query(sql));
    const onA = [runTool(store, "a", todoCall), runTool(store, "a", todoCall), store.append("a", [{ type: "x" }], 2)];
    const onB = runTool(store, "b", todoCall);
    const settled = await within(15_000, "calls while chat a's row is held", Promise.allSettled([...onA, onB]));
    assertLockedOnA(settled.slice(0, 3), 400);
    assert.equal(settled[3].status, "fulfilled");
    assert.equal(settled[3].value.ok, true, "chat b went on");
    assert.equal((await store.read("a")).length, 2, "nothing written to a");
    await holder.query("ROLLBACK");
    assert.equal((await runTool(store, "a", todoCall)).ok, true, "once the row is free, chat a works");
  } finally {
    await holder.query("ROLLBACK").catch(() => undefined);
    holder.release();
    await db.done();
  }
});

test("calls queued behind a held row do not add their waits up: each write settles lockTimeout after it was called, and takes one pooled connection per chat", {
  timeout: 60_000,
}, async (t) => {
  const db = await fresh();
  const { runTool } = await import("oda-tasks");
  const holder = await db.pool().connect();
  const lockTimeout = 1500;
  try {
    const store = db.store({ max: 2 }, { lockTimeout });
    await holdChatA(store, (sql) => holder.query(sql));
    const began = performance.now();
    const timed = (promise) =>
      promise.then(
        (value) => ({ value, after: performance.now() - began }),
        (reason) => ({ reason, after: performance.now() - began }),
      );
    // Two connections: each write on a would wait for the one before it, then for the row.
    const onA = [store.append("a", [{ type: "x" }], 2), ...Array.from({ length: 4 }, () => runTool(store, "a", todoCall))];
    const calls = [...onA, runTool(store, "b", todoCall)];
    const settled = await within(20_000, "queued calls", Promise.all(calls.map(timed)));
    assertLockedOnA(settled.slice(0, onA.length), lockTimeout);
    assert.equal(settled.at(-1).value?.ok, true, "chat b went on");
    // Added up, the waits on a would end after up to three lock timeouts, and
    // chat b would wait for a connection behind them.
    const last = Math.max(...settled.map((r) => r.after));
    t.diagnostic(`settled after ${settled.map((r) => Math.round(r.after)).join(", ")} ms`);
    assert.ok(
      last < 1.6 * lockTimeout,
      `the calls settled ${settled.map((r) => Math.round(r.after)).join(", ")} ms after the start (lockTimeout ${lockTimeout} ms)`,
    );
    assert.equal((await store.read("a")).length, 2, "nothing written to a");
  } finally {
    await holder.query("ROLLBACK").catch(() => undefined);
    holder.release();
    await db.done();
  }
});

test("a statement held past statementTimeout (a table lock, lockTimeout longer) fails with store/unavailable; the options are checked", {
  timeout: 60_000,
}, async () => {
  const db = await fresh();
  const holder = await db.pool().connect();
  try {
    const store = db.store({ max: 2 }, { lockTimeout: 60_000, statementTimeout: 300 });
    await store.create("a", [topSession("a")]);
    await holder.query("BEGIN");
    await holder.query("LOCK TABLE oda_tasks_chats IN ACCESS EXCLUSIVE MODE");
    const results = await within(
      15_000,
      "calls while the table is locked",
      Promise.allSettled([store.read("a"), store.append("a", [{ type: "x" }], 1)]),
    );
    assert.deepEqual(
      results.map((r) => [r.status, r.reason?.code]),
      [
        ["rejected", "store/unavailable"],
        ["rejected", "store/unavailable"],
      ],
    );
    assert.equal(
      results[0].reason.message,
      'the database did not finish the read for chat "a" within the statement timeout (300 ms); nothing was written',
    );
    await holder.query("ROLLBACK");
    assert.equal(await store.append("a", [{ type: "x" }], 1), 2);
    for (const [options, message] of [
      [{ lockTimeout: 0 }, "oda-tasks: invalid arguments of PostgresStore: `lockTimeout` must be a whole number >= 1 (got 0)"],
      [
        { statementTimeout: "1s" },
        'oda-tasks: invalid arguments of PostgresStore: `statementTimeout` must be a whole number >= 1 (got "1s")',
      ],
      [{ lock_timeout: 5 }, "oda-tasks: invalid arguments of PostgresStore: unknown option `lock_timeout`"],
    ]) {
      assert.throws(() => new PostgresStore(db.pool(), options), { name: "TypeError", message });
    }
  } finally {
    await holder.query("ROLLBACK").catch(() => undefined);
    holder.release();
    await db.done();
  }
});

test("14.8/14.12 store side: PostgresStore.readTextFrom gives each entry's text exactly as stored (numbers, key order)", async () => {
  const db = await fresh();
  try {
    const store = db.store();
    const { RAW_TEXT } = await import("../../pkg/dist/core/entry-text.js");
    const exact = '{"type":"session","sandbox":1e400,"approval":18446744073709551615,"ratio":1.50,"b":1,"a":2}';
    await store.create("c", [Object.defineProperty({ type: "session" }, RAW_TEXT, { value: exact })]);
    assert.deepEqual(await store.readTextFrom("c", 0), [exact]);
    assert.deepEqual(await store.readTextFrom("c", 1), []);
    assert.equal(await store.readTextFrom("nope", 0), null);
  } finally {
    await db.done();
  }
});

test("a warm state notices the chat was deleted and written again (a restore) and reads it again", async () => {
  const db = await fresh();
  const { ChatState, runTool } = await import("oda-tasks");
  try {
    const store = db.store();
    await store.create("c", [topSession("c"), { type: "turn_started" }]);
    assert.equal((await runTool(store, "c", todoCall)).ok, true, "warm at 3 entries");
    await db.sql("DELETE FROM oda_tasks_entries WHERE chat_id = 'c'");
    await db.sql("DELETE FROM oda_tasks_chats WHERE chat_id = 'c'");
    const hello = { type: "message", role: "user", text: "hi" };
    assert.equal(await db.store().create("c", [{ ...topSession("c"), agent: "helper" }, { type: "turn_started" }, hello, hello]), true);
    const suggest = { name: "suggest_task", input: { title: "Follow up", tldr: "Why", brief: "Do it." } };
    const fresh = ChatState.fromLog(await store.read("c"), { cards: false }).suggestTask(suggest.input);
    assert.equal(fresh.ok, false);
    assert.deepEqual(await runTool(store, "c", suggest), { ok: false, error: fresh.error });
    assert.equal((await store.read("c")).length, 4, "nothing recorded");
  } finally {
    await db.done();
  }
});
