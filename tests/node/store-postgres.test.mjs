// PostgresStore against a real PostgreSQL server started for this file: the
// Store contract, readFrom, migrations (and a database of version 1
// upgraded), what is stored, the database-side concurrency (several pools =
// several app servers, processes appending while another deletes), the pool
// bound, errors, and the plans of list (EXPLAIN).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ConflictError, StoreError, readFrom } from "oda-tasks";
import { POSTGRES_TABLES, PostgresStore } from "oda-tasks/postgres";
import { expectConflict } from "oda-tasks/testing";
import { contractOver } from "./support/contract.mjs";
import { serverBin, sharedPostgres } from "./support/postgres.mjs";
import { freshPostgres } from "./support/postgres-fresh.mjs";

const server = await sharedPostgres();

const fresh = (options) => freshPostgres(server, options);

const rejectsWith = (promise, code) =>
  assert.rejects(promise, (e) => {
    assert.ok(e instanceof StoreError, `expected a StoreError, got ${e?.stack ?? e}`);
    assert.equal(e.code, code, e.message);
    return true;
  });

contractOver(
  "PostgresStore",
  async () => {
    const db = await fresh();
    // A notice as any client of the database can send it: the store's format, the length forged.
    const notice = async (chatId, length) => {
      const [{ oid }] = await db.sql("SELECT 'oda_tasks_chats'::regclass::oid::text AS oid");
      await db.sql("SELECT pg_notify('oda_tasks', $1)", [`${oid} ${length} ${chatId}`]);
    };
    return { open: () => db.store(), done: db.done, notice };
  },
  { notices: true },
);

test("PostgresStore: readFrom gives the entries from an index on, [] at the end, store/truncated past it", async () => {
  const db = await fresh();
  try {
    const store = db.store();
    const log = Array.from({ length: 5 }, (_, i) => ({ type: "e", i }));
    await store.create("c", log.slice(0, 2));
    await store.append("c", log.slice(2), 2);
    for (let from = 0; from <= 5; from++) {
      assert.deepEqual(await store.readFrom("c", from), log.slice(from), `from ${from}`);
      assert.deepEqual(await readFrom(store, "c", from), log.slice(from), `helper, from ${from}`);
    }
    await rejectsWith(store.readFrom("c", 6), "store/truncated");
    await assert.rejects(store.readFrom("c", 6), /chat "c" has 5 entries, fewer than the 6 already read/);
    assert.equal(await store.readFrom("missing", 0), null);
    assert.equal(await store.readFrom("missing", 3), null, "a missing chat is null, whatever from");
    assert.deepEqual(await db.store().readFrom("c", 3), log.slice(3), "another server reads the same");
    for (const bad of [-1, 1.5, NaN, "1", null]) {
      await assert.rejects(store.readFrom("c", bad), (e) => e instanceof TypeError && e.message.startsWith("oda-tasks: "));
    }
    await rejectsWith(store.readFrom("../x", 0), "store/bad-chat-id");
    // An incremental reader: what it read plus what it reads next is the whole log.
    const seen = await store.readFrom("c", 0);
    await store.append("c", [{ type: "late" }], 5);
    seen.push(...(await store.readFrom("c", seen.length)));
    assert.deepEqual(seen, await store.read("c"));
  } finally {
    await db.done();
  }
});

test("PostgresStore: migrate() creates the named tables once; concurrent migrations take turns", async () => {
  const db = await fresh({ migrate: false });
  try {
    const stores = Array.from({ length: 4 }, () => db.store());
    const applied = await Promise.all(stores.map((s) => s.migrate()));
    assert.deepEqual(
      applied.filter((a) => a.length > 0),
      [[1, 2]],
      "exactly one migration applies versions 1 and 2",
    );
    assert.deepEqual(await stores[0].migrate(), [], "idempotent");
    const tables = await db.sql("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name", [
      db.schema.name,
    ]);
    assert.deepEqual(
      tables.map((t) => t.table_name),
      Object.values(POSTGRES_TABLES).sort(),
    );
    assert.deepEqual(POSTGRES_TABLES, {
      chats: "oda_tasks_chats",
      entries: "oda_tasks_entries",
      migrations: "oda_tasks_schema_migrations",
    });
    const versions = await db.sql("SELECT version, name FROM oda_tasks_schema_migrations ORDER BY version");
    assert.deepEqual(versions, [
      { version: 1, name: "001_init.sql" },
      { version: 2, name: "002_chat_order.sql" },
    ]);
    // chat_id leads every key (a table sharded by chat_id can hold it).
    const keys = await db.sql(
      `SELECT c.conrelid::regclass::text AS t, c.contype, a.attname AS first
       FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
       WHERE c.connamespace = $1::regnamespace AND c.contype IN ('p', 'f', 'u') ORDER BY 1, 2`,
      [db.schema.name],
    );
    assert.ok(keys.length >= 3);
    for (const k of keys.filter((k) => !k.t.endsWith("schema_migrations"))) assert.equal(k.first, "chat_id", `${k.t} ${k.contype}`);
  } finally {
    await db.done();
  }
});

test("PostgresStore: docs/stores.md's psql command creates the tables by hand; migrate() then finds nothing to do", async () => {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  const readme = readFileSync(`${root}docs/stores.md`, "utf8");
  const block = readme.match(/```sh\n(\s*psql "\$DATABASE_URL"[\s\S]*?)```/);
  assert.ok(block, "docs/stores.md has the psql block");
  const db = await fresh({ migrate: false });
  try {
    execFileSync("bash", ["-euo", "pipefail", "-c", block[1]], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: db.schema.url, PATH: `${serverBin()}:${process.env.PATH}` },
      stdio: "pipe",
    });
    const store = db.store();
    assert.deepEqual(await store.migrate(), []);
    assert.equal(await store.create("c", [{ type: "session" }]), true);
    assert.deepEqual(await db.store().read("c"), [{ type: "session" }]);
  } finally {
    await db.done();
  }
});

test("PostgresStore: before migrate(), operations fail with store/not-migrated and write nothing", async () => {
  const db = await fresh({ migrate: false });
  try {
    const store = db.store();
    await rejectsWith(store.read("c"), "store/not-migrated");
    await rejectsWith(store.create("c", [{ type: "session" }]), "store/not-migrated");
    await rejectsWith(store.append("c", [{ type: "x" }], 0), "store/not-migrated");
    await assert.rejects(store.read("c"), /run await store\.migrate\(\)/);
    await store.migrate();
    assert.equal(await store.read("c"), null);
  } finally {
    await db.done();
  }
});

test("PostgresStore: an entry reads back deep-equal to its JSON copy, stored as exactly that JSON text", async () => {
  const db = await fresh();
  try {
    const store = db.store();
    const entries = [
      { type: "message", text: "nul \u0000 and lone surrogates \ud800 \udc00 kept as escapes", z: 1, a: 2 },
      { type: "message", text: 'é ✓ 😀 \u2028\u2029 \t \n "quoted" \\ back', nested: { b: [1, { c: null }], a: true } },
      // biome-ignore lint/correctness/noPrecisionLoss: 2^53 + 1 on purpose: it must come back as JSON.parse reads it
      { type: "numbers", big: 1.7976931348623157e308, tiny: 5e-324, negZero: -0, int: 9007199254740993, frac: 0.1 },
      { type: "odd", when: new Date(0), gone: undefined, list: [undefined, () => 1] },
      { zfirst: 1, type: "key order" },
    ];
    await store.create("c", entries.slice(0, 2));
    await store.append("c", entries.slice(2), 2);
    const copy = JSON.parse(JSON.stringify(entries));
    const read = await db.store().read("c");
    assert.deepEqual(read, copy);
    assert.deepEqual(
      read.map((e) => Object.keys(e)),
      copy.map((e) => Object.keys(e)),
      "keys keep their order",
    );
    assert.equal(read[0].text, entries[0].text, "lone surrogates survive");
    const rows = await db.sql("SELECT seq::int AS seq, entry::text AS text FROM oda_tasks_entries WHERE chat_id = 'c' ORDER BY seq");
    assert.deepEqual(
      rows,
      entries.map((e, seq) => ({ seq, text: JSON.stringify(e) })),
      "the stored text is JSON.stringify's",
    );
    assert.deepEqual(await db.sql("SELECT chat_id, length::int AS length FROM oda_tasks_chats"), [{ chat_id: "c", length: 5 }]);
    // Infinity and NaN have no JSON text (JSON.stringify would store null, which reads back as another value): refused, nothing written.
    await assert.rejects(store.append("c", [{ type: "odd", list: [NaN, Infinity] }], 5), {
      name: "TypeError",
      message: "oda-tasks: entry 0 is not JSON data (it holds Infinity or NaN, which JSON would store as null)",
    });
    assert.equal((await store.read("c")).length, 5);
  } finally {
    await db.done();
  }
});

test("PostgresStore: rows edited by hand so they contradict the chat's length: store/corrupt, never a wrong log", async () => {
  const db = await fresh();
  try {
    const store = db.store();
    await store.create("c", [{ type: "a" }, { type: "b" }]);
    await db.sql(`INSERT INTO oda_tasks_entries (chat_id, seq, entry) VALUES ('c', 2, '{"type":"stray"}')`);
    await rejectsWith(store.append("c", [{ type: "x" }, { type: "y" }], 2), "store/corrupt");
    assert.deepEqual(
      await db.sql("SELECT length::int AS length FROM oda_tasks_chats WHERE chat_id = 'c'"),
      [{ length: 2 }],
      "nothing written",
    );
    await rejectsWith(store.read("c"), "store/corrupt");
    await db.sql("DELETE FROM oda_tasks_entries WHERE chat_id = 'c' AND seq >= 1");
    await assert.rejects(store.read("c"), {
      code: "store/corrupt",
      message: 'chat "c" is damaged in the database: its length is 2 but entries 0..1 are not all there',
    });
    await rejectsWith(store.readFrom("c", 1), "store/corrupt");
    assert.deepEqual(await store.readFrom("c", 2), [], "nothing is missing from 2 on");
  } finally {
    await db.done();
  }
});

test("PostgresStore: 8 app servers appending at the same expected length: one winner per round, no gap, no duplicate seq", async () => {
  const db = await fresh();
  try {
    const stores = Array.from({ length: 8 }, () => db.store());
    await stores[0].create("c", [{ type: "session" }]);
    let length = 1;
    for (let round = 0; round < 15; round++) {
      const results = await Promise.allSettled(
        stores.map((s, i) =>
          s.append(
            "c",
            [
              { type: "a", round, i },
              { type: "b", round, i },
            ],
            length,
          ),
        ),
      );
      const won = results.filter((r) => r.status === "fulfilled");
      assert.equal(won.length, 1, `round ${round}: one winner`);
      assert.equal(won[0].value, length + 2);
      for (const r of results.filter((r) => r.status === "rejected")) {
        assert.ok(r.reason instanceof ConflictError, String(r.reason));
        assert.equal(r.reason.expectedLength, length);
        assert.equal(r.reason.actualLength, length + 2);
      }
      length += 2;
    }
    // Unconditional appends from every server all land, each pair together.
    await Promise.all(
      stores.map((s, i) =>
        Promise.all(
          [0, 1, 2].map((k) =>
            s.append("c", [
              { type: "u", i, k },
              { type: "v", i, k },
            ]),
          ),
        ),
      ),
    );
    length += 8 * 3 * 2;
    const log = await stores[3].read("c");
    assert.equal(log.length, length);
    for (let k = 1; k < log.length; k += 2) {
      const [x, y] = [log[k], log[k + 1]];
      assert.ok((x.type === "a" && y.type === "b") || (x.type === "u" && y.type === "v"), `pair at ${k}`);
      assert.equal(x.i, y.i);
    }
    const [{ n, lo, hi, distinct }] = await db.sql(
      "SELECT count(*)::int AS n, min(seq)::int AS lo, max(seq)::int AS hi, count(DISTINCT seq)::int AS distinct FROM oda_tasks_entries WHERE chat_id = 'c'",
    );
    assert.deepEqual({ n, lo, hi, distinct }, { n: length, lo: 0, hi: length - 1, distinct: length });
  } finally {
    await db.done();
  }
});

test("PostgresStore: never holds more connections than the pool allows", async () => {
  const db = await fresh();
  try {
    const app = "oda-pool-bound";
    const store = db.store({ max: 2, application_name: app });
    await store.create("c", [{ type: "session" }]);
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const [{ n }] = await db.sql("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1", [app]);
        peak = Math.max(peak, n);
      }
    })();
    const ops = Array.from({ length: 60 }, (_, i) =>
      i % 3 === 0 ? store.read("c") : i % 3 === 1 ? store.append("c", [{ type: "x", i }]) : store.create(`d${i}`, [{ type: "s" }]),
    );
    const results = await Promise.allSettled(ops);
    sampling = false;
    await sampler;
    assert.deepEqual(
      results.filter((r) => r.status === "rejected").map((r) => String(r.reason)),
      [],
    );
    assert.ok(peak >= 1 && peak <= 2, `at most 2 connections (saw ${peak})`);
    assert.equal((await store.read("c")).length, 1 + 20);
  } finally {
    await db.done();
  }
});

test("PostgresStore: a connection string makes a pool the store owns and end() closes", async () => {
  const db = await fresh();
  try {
    const store = new PostgresStore(db.schema.url);
    assert.deepEqual(await store.migrate(), []);
    assert.equal(await store.create("c", [{ type: "session" }]), true);
    assert.deepEqual(await db.store().read("c"), [{ type: "session" }]);
    await store.end();
    // An app's own pool is the app's: end() leaves it open.
    const pool = db.pool();
    const borrowed = new PostgresStore(pool);
    await borrowed.end();
    assert.deepEqual((await pool.query("SELECT 1 AS one")).rows, [{ one: 1 }]);
  } finally {
    await db.done();
  }
});

test("PostgresStore: no server at the address: store/unavailable, after the configured attempts", async () => {
  const store = new PostgresStore("postgres://postgres@127.0.0.1:1/postgres", { attempts: 2 });
  try {
    for (const op of [() => store.read("c"), () => store.append("c", [{ type: "x" }], 0), () => store.create("c", [])]) {
      await assert.rejects(op(), (e) => {
        assert.ok(e instanceof StoreError);
        assert.equal(e.code, "store/unavailable");
        assert.match(e.message, /^the database is unavailable for chat "c" after 2 attempts; nothing was written \(.*ECONNREFUSED/);
        assert.ok(e.cause instanceof Error);
        return true;
      });
    }
  } finally {
    await store.end();
  }
});

test("harness: a test process that dies with its server up leaves no server and no directory behind", async () => {
  const helper = new URL("./support/postgres.mjs", import.meta.url).href;
  const script = `
    const { startServer } = await import(${JSON.stringify(helper)});
    const server = await startServer();
    console.log(JSON.stringify({ dir: server.dir, port: server.port }));
    throw new Error("a test blew up");`;
  let out = "";
  try {
    execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    out = e.stdout;
    assert.match(e.stderr, /a test blew up/);
  }
  const { dir, port } = JSON.parse(out);
  assert.equal(existsSync(dir), false, "the directory is removed");
  const probe = new PostgresStore(`postgres://postgres@127.0.0.1:${port}/postgres`, { attempts: 1 });
  await rejectsWith(probe.read("c"), "store/unavailable");
  await probe.end();
});

test("PostgresStore: misuse of the constructor and of append is refused clearly", async () => {
  for (const bad of [undefined, null, 42, {}, { connect: 1 }]) {
    assert.throws(() => new PostgresStore(bad), {
      name: "TypeError",
      message: "oda-tasks: PostgresStore needs a pg.Pool, a postgres.js Sql, Drizzle's db over one, or a connection string",
    });
  }
  for (const attempts of [0, 1.5, -1, "3"]) {
    assert.throws(
      () => new PostgresStore(server.pool(), { attempts }),
      /^TypeError: oda-tasks: invalid arguments of PostgresStore: `attempts` must be a whole number >= 1 \(got /,
    );
  }
  const db = await fresh();
  try {
    const store = db.store();
    await store.create("c", [{ type: "session" }]);
    // An expected length that is no length never matches: a conflict, as in every store.
    for (const expected of [-1, 1.5, NaN, null]) await expectConflict(store.append("c", [{ type: "x" }], expected), expected, 1);
    await expectConflict(store.append("c", [], 0), 0, 1);
    assert.equal(await store.append("c", [], 1), 1);
    await rejectsWith(store.append("nope", [], 0), "store/missing-chat");
    await assert.rejects(store.append("c", "not an array"), TypeError);
    assert.deepEqual(await store.read("c"), [{ type: "session" }]);
  } finally {
    await db.done();
  }
});
