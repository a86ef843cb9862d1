// PostgresStore's delete and list against a real server started for this
// file: a database of schema version 1 (an older version's) keeps serving
// reads, writes and deletes, and migrate() (or docs/stores.md's psql command)
// adds version 2 (the order of creation) with the chats already there
// numbered in a stable order, once under concurrent migrations; the plans of list (EXPLAIN: one prefix among
// many chats reads the primary key's range, every chat the index on the
// order, a page at a time); a delete waits for a chat's row lock within
// lockTimeout; the foreign key refuses an entry without its chat; processes
// on both clients appending while another deletes never leave a partial chat.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { StoreError } from "oda-tasks";
import { PostgresStore } from "oda-tasks/postgres";
import { raceDeletes } from "./support/delete-race.mjs";
import { listsPrefixes } from "./support/list-prefixes.mjs";
import { serverBin, sharedPostgres } from "./support/postgres.mjs";
import { freshPostgres } from "./support/postgres-fresh.mjs";

const server = await sharedPostgres();

const VERSION_1 = readFileSync(new URL("../../pkg/sql/001_init.sql", import.meta.url), "utf8");

/** A fresh schema as an older version of the package migrated it: version 1 and its record. */
async function atVersion1() {
  const db = await freshPostgres(server, { migrate: false });
  db.pool(); // the pool of db.sql()
  await db.sql(VERSION_1);
  await db.sql(`CREATE TABLE oda_tasks_schema_migrations (version integer PRIMARY KEY, name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now());
    INSERT INTO oda_tasks_schema_migrations (version, name) VALUES (1, '001_init.sql')`);
  return db;
}

const idsOf = (page) => page.chats.map((chat) => chat.chatId);
const session = (chatId) => ({ type: "session", chatId });

test("PostgresStore on a database of version 1: reads, writes and deletes go on; list is store/not-migrated until migrate() adds version 2, numbering the chats there oldest first", async () => {
  const db = await atVersion1();
  try {
    const store = db.store();
    // Made in this order; their ids sort otherwise.
    assert.equal(await store.create("e", []), true, "a chat of no entries");
    for (const id of ["z", "a", "m", "gone"]) assert.equal(await store.create(id, [session(id)]), true);
    assert.equal(await store.append("z", [{ type: "x" }], 1), 2, "an append does not move a chat");
    assert.equal(await store.delete("gone"), true);
    assert.equal(await store.delete("gone"), false);
    const { mark } = await store.readSince("z", 0, null);
    assert.deepEqual(await store.read("z"), [session("z"), { type: "x" }]);
    await assert.rejects(store.list(), (e) => {
      assert.ok(e instanceof StoreError);
      assert.equal(e.code, "store/not-migrated");
      assert.match(
        e.message,
        /^the oda-tasks tables are missing or old: run await store\.migrate\(\) \(column c\.created does not exist\)$/,
      );
      return true;
    });
    assert.deepEqual(await store.migrate(), [2]);
    assert.deepEqual(await db.store().migrate(), []);
    // By the transaction that wrote each chat's first entry, oldest first; a chat of none before them.
    assert.deepEqual(idsOf(await store.list()), ["m", "a", "z", "e"]);
    assert.deepEqual((await store.readSince("z", 2, mark)).texts, [], "a warm reader's mark still holds");
    await store.create("new", [session("new")]);
    // A server still running the older version makes a chat as version 1 did (no order named): the default numbers it.
    await db.sql("INSERT INTO oda_tasks_chats (chat_id, length) VALUES ('older', 0)");
    assert.deepEqual(idsOf(await store.list()), ["older", "new", "m", "a", "z", "e"]);
    const numbers = await db.sql("SELECT chat_id, created::int AS created FROM oda_tasks_chats ORDER BY created");
    assert.deepEqual(
      numbers.map((r) => [r.chat_id, r.created]),
      [
        ["e", 1],
        ["z", 2],
        ["a", 3],
        ["m", 4],
        ["new", 5],
        ["older", 6],
      ],
    );
    const [column] = await db.sql(
      "SELECT is_nullable, column_default FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'oda_tasks_chats' AND column_name = 'created'",
      [db.schema.name],
    );
    assert.deepEqual(column, { is_nullable: "NO", column_default: "nextval('oda_tasks_chats_created_seq'::regclass)" });
  } finally {
    await db.done();
  }
});

test("PostgresStore: docs/stores.md's psql command upgrades a database of version 1 by hand; migrate() then finds nothing to do", async () => {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  const docs = readFileSync(`${root}docs/stores.md`, "utf8");
  const block = docs.match(/```sh\n(\s*psql "\$DATABASE_URL" [^\n]*-1 -f node_modules\/oda-tasks\/sql\/002_chat_order\.sql[\s\S]*?)```/);
  assert.ok(block, "docs/stores.md has the upgrade's psql block");
  const db = await atVersion1();
  try {
    const store = db.store();
    for (const id of ["b", "a"]) await store.create(id, [session(id)]);
    execFileSync("bash", ["-euo", "pipefail", "-c", block[1]], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: db.schema.url, PATH: `${serverBin()}:${process.env.PATH}` },
      stdio: "pipe",
    });
    assert.deepEqual(await store.migrate(), []);
    await store.create("c", [session("c")]);
    assert.deepEqual(idsOf(await store.list()), ["c", "a", "b"]);
  } finally {
    await db.done();
  }
});

test("PostgresStore: migrate() of a database of version 1 from 4 servers at once applies version 2 once", async () => {
  const db = await atVersion1();
  try {
    const first = db.store();
    for (let i = 0; i < 20; i++) await first.create(`c${i}`, [session(`c${i}`)]);
    const applied = await Promise.all(Array.from({ length: 4 }, () => db.store().migrate()));
    assert.deepEqual(
      applied.filter((a) => a.length > 0),
      [[2]],
    );
    const page = await first.list({ limit: 1000 });
    assert.deepEqual(
      idsOf(page),
      Array.from({ length: 20 }, (_, i) => `c${19 - i}`),
    );
    const versions = await db.sql("SELECT version FROM oda_tasks_schema_migrations ORDER BY version");
    assert.deepEqual(
      versions.map((v) => v.version),
      [1, 2],
    );
  } finally {
    await db.done();
  }
});

test("PostgresStore: migrate() numbers 100,000 chats of a database of version 1 in one transaction (timed)", async (t) => {
  const db = await atVersion1();
  try {
    await db.sql(
      `INSERT INTO oda_tasks_chats (chat_id, length) SELECT 'owner' || (i % 1000) || '.c' || i, 1 FROM generate_series(1, 100000) i`,
    );
    await db.sql(`INSERT INTO oda_tasks_entries (chat_id, seq, entry) SELECT chat_id, 0, '{"type":"session"}' FROM oda_tasks_chats`);
    await db.sql("VACUUM ANALYZE oda_tasks_chats");
    const started = performance.now();
    assert.deepEqual(await db.store().migrate(), [2]);
    const took = Math.round(performance.now() - started);
    t.diagnostic(`migrate() of version 2 over 100,000 chats: ${took} ms`);
    assert.deepEqual(
      await db.sql("SELECT count(DISTINCT created)::int AS n, min(created)::int AS lo, max(created)::int AS hi FROM oda_tasks_chats"),
      [{ n: 100_000, lo: 1, hi: 100_000 }],
    );
    assert.ok(took < 60_000, `${took} ms`);
  } finally {
    await db.done();
  }
});

/**
 * A pool over `pool` that records the text and values of each listing the
 * store sends (the clients it lends are the pool's, their queries passed on).
 */
function recording(pool) {
  const asked = [];
  const begun = [];
  return {
    asked,
    begun,
    pool: {
      async connect() {
        const client = await pool.connect();
        return {
          query(text, values) {
            if (typeof text === "string" && /ORDER BY c\.created DESC/.test(text)) asked.push([text, values]);
            if (typeof text === "string" && text.startsWith("BEGIN")) begun.push(text);
            return client.query(text, values);
          },
          release: (error) => client.release(error),
          on: (...args) => client.on(...args),
          removeListener: (...args) => client.removeListener(...args),
        };
      },
      end: () => pool.end(),
    },
  };
}

test("PostgresStore: list's plans (EXPLAIN ANALYZE): one prefix among 20,000 chats reads its 100 rows by the primary key's range, every chat a page by the index on the order; each planned for its values, never a generic plan", async (t) => {
  const db = await freshPostgres(server);
  try {
    // 200 owners of 100 chats each, as serve --auth jwt keys them: "<25-character prefix><id>".
    await db.sql(`INSERT INTO oda_tasks_chats (chat_id, length)
      SELECT 'owner' || lpad(o::text, 19, '0') || '.' || 'c' || i, 1 FROM generate_series(1, 200) o, generate_series(1, 100) i`);
    await db.sql(`INSERT INTO oda_tasks_entries (chat_id, seq, entry)
      SELECT chat_id, 0, json_build_object('type', 'session', 'chatId', chat_id) FROM oda_tasks_chats`);
    await db.sql("ANALYZE oda_tasks_chats; ANALYZE oda_tasks_entries");
    const { asked, begun, pool } = recording(db.pool());
    const store = new PostgresStore(pool);
    const prefix = `owner${"42".padStart(19, "0")}.`;
    for (const options of [{ prefix, limit: 50 }, { limit: 50 }]) {
      const page = await store.list(options);
      assert.equal(page.chats.length, 50);
      assert.ok(page.chats.every((chat) => chat.chatId.startsWith(options.prefix ?? "")));
      assert.equal((await store.list({ ...options, cursor: page.next })).chats.length, 50);
    }
    assert.equal(asked.length, 4);
    const plans = [];
    for (const [text, values] of asked) {
      const rows = await db.sql(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${text}`, values);
      plans.push(rows.map((r) => r["QUERY PLAN"]).join("\n"));
    }
    t.diagnostic(`a prefix's first page:\n${plans[0]}`);
    t.diagnostic(`every chat's first page:\n${plans[2]}`);
    for (const plan of plans) assert.doesNotMatch(plan, /Seq Scan/, plan);
    // The prefix's range, and only it: its 100 chats on the first page, the 50 older than the cursor on the next.
    assert.match(plans[0], /Index Scan using oda_tasks_chats_pkey on oda_tasks_chats c \(actual rows=100 loops=1\)/, plans[0]);
    assert.match(plans[1], /Index Scan using oda_tasks_chats_pkey on oda_tasks_chats c \(actual rows=50 loops=1\)/, plans[1]);
    assert.match(plans[1], /Rows Removed by Filter: 50/, plans[1]);
    for (const plan of plans.slice(0, 2))
      assert.match(plan, /Index Cond: \(\(chat_id >= '.*'::text\) AND \(chat_id < '.*'::text\)\)/, plan);
    // Every chat: the page alone (51, one more than the page, to know whether another follows).
    for (const plan of plans.slice(2)) {
      assert.match(plan, /Index Scan Backward using oda_tasks_chats_created on oda_tasks_chats c \(actual rows=51 loops=1\)/, plan);
    }
    // The first entries of the page's chats only (the prefix's second page is its last: 50).
    plans.forEach((plan, i) => {
      const loops = i === 1 ? 50 : 51;
      assert.match(
        plan,
        new RegExp(`Index Scan using oda_tasks_entries_pkey on oda_tasks_entries e \\(actual rows=1 loops=${loops}\\)`),
        plan,
      );
    });
    // A prepared statement (postgres.js prepares each text) would be planned once for any values after five runs:
    // that generic plan does not know how few chats a prefix holds and reads the order of creation from the cursor
    // down, filtering every other chat out. So the store's listing transaction plans each statement for its values.
    assert.ok(
      begun.some((text) => /^BEGIN READ ONLY; .*SET LOCAL plan_cache_mode = force_custom_plan$/.test(text)),
      begun.join("\n"),
    );
    const [text, values] = asked[1];
    const client = await db.pool().connect();
    const explain = async (mode) => {
      await client.query(`SET plan_cache_mode = ${mode}`);
      const { rows } = await client.query(
        `EXPLAIN (COSTS OFF) EXECUTE listing(${values.map((v) => (typeof v === "number" ? v : `'${v}'`)).join(", ")})`,
      );
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    };
    try {
      await client.query(`PREPARE listing AS ${text}`);
      const generic = await explain("force_generic_plan");
      assert.match(
        generic,
        /Index Scan Backward using oda_tasks_chats_created on oda_tasks_chats c\n.*Index Cond: \(created < \$3\)\n.*Filter: \(\(chat_id >= \$1\) AND \(chat_id < \$2\)\)/,
        generic,
      );
      const custom = await explain("force_custom_plan");
      assert.match(
        custom,
        /Index Scan using oda_tasks_chats_pkey on oda_tasks_chats c\n.*Index Cond: \(\(chat_id >= '.*'::text\) AND \(chat_id < '.*'::text\)\)/,
        custom,
      );
    } finally {
      client.release(true);
    }
  } finally {
    await db.done();
  }
});

test("PostgresStore: delete waits for a chat's row that another session holds, then store/locked after lockTimeout, deleting nothing", async () => {
  const db = await freshPostgres(server);
  const holder = await db.pool().connect();
  try {
    const store = db.store({}, { lockTimeout: 400 });
    await store.create("a", [session("a"), { type: "x" }]);
    await store.create("b", [session("b")]);
    await holder.query("BEGIN");
    await holder.query("SELECT * FROM oda_tasks_chats WHERE chat_id = 'a' FOR UPDATE");
    const started = performance.now();
    await assert.rejects(store.delete("a"), {
      code: "store/locked",
      message:
        'chat "a": another database session held a lock this write needs (the chat\'s row, or a table) for the whole lock timeout (400 ms); nothing was written',
    });
    const waited = performance.now() - started;
    assert.ok(waited >= 350 && waited < 5000, `refused after ${Math.round(waited)} ms`);
    assert.equal(await store.delete("b"), true, "another chat's delete goes on");
    await holder.query("ROLLBACK");
    assert.deepEqual(await store.read("a"), [session("a"), { type: "x" }], "nothing deleted");
    assert.equal(await store.delete("a"), true);
    assert.deepEqual(await db.sql("SELECT count(*)::int AS n FROM oda_tasks_entries"), [{ n: 0 }]);
    assert.deepEqual(await db.sql("SELECT count(*)::int AS n FROM oda_tasks_chats"), [{ n: 0 }]);
  } finally {
    await holder.query("ROLLBACK").catch(() => undefined);
    holder.release();
    await db.done();
  }
});

test("PostgresStore: the foreign key refuses an entry without its chat's row, and a delete's two statements keep it", async () => {
  const db = await freshPostgres(server);
  try {
    const store = db.store();
    await assert.rejects(db.sql(`INSERT INTO oda_tasks_entries (chat_id, seq, entry) VALUES ('none', 0, '{"type":"x"}')`), {
      code: "23503",
    });
    await store.create("c", [session("c")]);
    await assert.rejects(
      db.sql("DELETE FROM oda_tasks_chats WHERE chat_id = 'c'"),
      { code: "23503" },
      "the row goes only with its entries",
    );
    assert.equal(await store.delete("c"), true);
    assert.equal(await store.read("c"), null);
  } finally {
    await db.done();
  }
});

test("PostgresStore: list's prefix is a range of ids, code unit for code unit", async () => {
  const db = await freshPostgres(server);
  try {
    await listsPrefixes(db.store());
  } finally {
    await db.done();
  }
});

for (const kind of ["pg", "postgres.js"]) {
  test(`PostgresStore (${kind}): 4 processes append while this one deletes the chat and makes it again: every chat read is whole, nothing outlives a delete`, async () => {
    const db = await freshPostgres(server);
    try {
      await raceDeletes({
        store: db.store(),
        chatId: "r",
        processes: 4,
        args: (ms) => [kind, server.url, db.schema.name, "append", "r", String(ms)],
        orphans: async () =>
          (await db.sql("SELECT count(*)::int AS n FROM oda_tasks_entries WHERE chat_id NOT IN (SELECT chat_id FROM oda_tasks_chats)"))[0]
            .n,
      });
      assert.deepEqual(await db.sql("SELECT chat_id FROM oda_tasks_chats"), [], "the last delete left no chat");
    } finally {
      await db.done();
    }
  });
}
