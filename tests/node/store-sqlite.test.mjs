// SqliteStore on every SQLite driver of the runtime running this file, each
// over a real database file: the packaged Store contract, migrate()'s
// versions (and a database of version 1 upgraded), exact texts, replaced
// chats, a missing schema, a locked file, and how delete and list use the
// database (one transaction; the list's plans and its ranges of ids).
// Under Node 20 (npm test) that is better-sqlite3; store-sqlite-runtimes
// runs this same file under Node 22 and 24 (node:sqlite) and Bun (bun:sqlite).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RAW_TEXT, StoreError, runTool } from "oda-tasks";
import { SqliteStore } from "oda-tasks/sqlite";
import { contractOver } from "./support/contract.mjs";
import { listsPrefixes } from "./support/list-prefixes.mjs";
import { sqliteDrivers } from "./support/sqlite.mjs";

const drivers = await sqliteDrivers();
const [major] = process.versions.node.split(".").map(Number);
test("the runtime has its SQLite drivers", () => {
  const expected = typeof globalThis.Bun !== "undefined" ? ["bun:sqlite"] : major === 20 ? ["better-sqlite3"] : ["node:sqlite"];
  assert.deepEqual(Object.keys(drivers).sort(), expected);
});

/** A fresh database file; `open()` a new connection to it each call. */
function fresh(open) {
  const dir = mkdtempSync(join(tmpdir(), "oda-sqlite-"));
  const file = join(dir, "chats.db");
  const connections = [];
  return {
    file,
    connect: () => {
      const db = open(file);
      connections.push(db);
      return db;
    },
    done: () => {
      for (const db of connections) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The tables as version 1 of the schema made them, with its record: a database an older version migrated. */
const VERSION_1 = `
CREATE TABLE oda_tasks_chats (chat_id TEXT NOT NULL PRIMARY KEY, length INTEGER NOT NULL CHECK (length >= 0), epoch TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE oda_tasks_entries (chat_id TEXT NOT NULL, seq INTEGER NOT NULL CHECK (seq >= 0), entry TEXT NOT NULL, PRIMARY KEY (chat_id, seq)) WITHOUT ROWID;
CREATE TABLE oda_tasks_schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);
INSERT INTO oda_tasks_schema_migrations VALUES (1, '001_init', '2026-01-01T00:00:00.000Z');`;

const idsOf = (page) => page.chats.map((chat) => chat.chatId);

/** The connection, recording the text and values of each listing it runs (nothing else changed). */
function recorded(db) {
  const asked = [];
  return {
    asked,
    connection: {
      exec: (sql) => db.exec(sql),
      prepare(sql) {
        const prepared = db.prepare(sql);
        return {
          run: (...params) => prepared.run(...params),
          all: (...params) => {
            if (/ORDER BY c\.created DESC/.test(sql)) asked.push([sql, params]);
            return prepared.all(...params);
          },
        };
      },
    },
  };
}

const rejectsWith = (promise, code) =>
  assert.rejects(promise, (e) => {
    assert.ok(e instanceof StoreError, `expected a StoreError, got ${e?.stack ?? e}`);
    assert.equal(e.code, code, e.message);
    return true;
  });

for (const [name, open] of Object.entries(drivers)) {
  contractOver(
    `SqliteStore on ${name}`,
    async () => {
      const db = fresh(open);
      await new SqliteStore(db.connect()).migrate();
      // Another connection's commit that changes no log: a data_version tick, the only message this feed hears.
      const other = db.connect();
      const notice = (chatId) => other.prepare("UPDATE oda_tasks_chats SET length = length WHERE chat_id = ?").run(chatId);
      return { open: () => new SqliteStore(db.connect()), done: db.done, notice };
    },
    { notices: true },
  );

  test(`SqliteStore on ${name}: migrate() applies versions 1 and 2 once, in WAL mode; concurrent calls apply them once; the connection gets synchronous FULL and the busy timeout`, async () => {
    const db = fresh(open);
    try {
      const [a, b] = [new SqliteStore(db.connect()), new SqliteStore(db.connect())];
      const applied = await Promise.all([a.migrate(), b.migrate()]);
      assert.deepEqual(applied.flat(), [1, 2]);
      assert.deepEqual(await a.migrate(), []);
      const sql = db.connect();
      assert.equal(sql.prepare("PRAGMA journal_mode").all()[0].journal_mode, "wal");
      const given = db.connect();
      new SqliteStore(given, { busyTimeout: 1234 });
      assert.equal(given.prepare("PRAGMA synchronous").all()[0].synchronous, 2, "FULL: a commit is on disk when acknowledged");
      assert.equal(given.prepare("PRAGMA busy_timeout").all()[0].timeout, 1234);
      const versions = sql
        .prepare("SELECT version, name FROM oda_tasks_schema_migrations")
        .all()
        .map((r) => ({ ...r }));
      assert.deepEqual(versions, [
        { version: 1, name: "001_init" },
        { version: 2, name: "002_chat_order" },
      ]);
    } finally {
      db.done();
    }
  });

  test(`SqliteStore on ${name}: a database of version 1 still reads, writes and deletes; list is store/not-migrated until migrate() adds version 2, which numbers the chats there by id, before every chat made after`, async () => {
    const db = fresh(open);
    try {
      const sql = db.connect();
      sql.exec(VERSION_1);
      const store = new SqliteStore(db.connect());
      for (const id of ["m", "z", "a", "gone"]) assert.equal(await store.create(id, [{ type: "session", chatId: id }]), true);
      assert.equal(await store.append("m", [{ type: "x" }], 1), 2);
      assert.equal(await store.delete("gone"), true);
      assert.equal(await store.delete("gone"), false);
      assert.deepEqual(await store.read("m"), [{ type: "session", chatId: "m" }, { type: "x" }]);
      await rejectsWith(store.list(), "store/not-migrated");
      await assert.rejects(store.list(), { message: /^the oda-tasks tables are missing or old: run await store\.migrate\(\) \(.*created/ });
      assert.deepEqual(await store.migrate(), [2]);
      assert.deepEqual(await store.migrate(), []);
      // Made before the migration: in the order of their ids, oldest first.
      assert.deepEqual(idsOf(await store.list()), ["z", "m", "a"]);
      await store.create("new", [{ type: "session", chatId: "new" }]);
      // A process still running the older version makes a chat as version 1 did (no order named): the trigger numbers it.
      sql.prepare("INSERT INTO oda_tasks_chats (chat_id, length, epoch) VALUES ('older', 0, 'e')").run();
      assert.deepEqual(idsOf(await store.list()), ["older", "new", "z", "m", "a"]);
      const numbers = sql
        .prepare("SELECT chat_id, created FROM oda_tasks_chats ORDER BY created")
        .all()
        .map((r) => [r.chat_id, r.created]);
      assert.deepEqual(numbers, [
        ["a", 1],
        ["m", 2],
        ["z", 3],
        ["new", 4],
        ["older", 5],
      ]);
    } finally {
      db.done();
    }
  });

  test(`SqliteStore on ${name}: delete removes the chat's entries and row in one transaction; a write lock held elsewhere refuses it (store/locked), deleting nothing`, async () => {
    const db = fresh(open);
    try {
      const store = new SqliteStore(db.connect(), { busyTimeout: 300 });
      await store.migrate();
      await store.create("c", [{ type: "session" }, { type: "a" }, { type: "b" }]);
      await store.create("d", [{ type: "session" }]);
      const sql = db.connect();
      const rows = (id) =>
        sql
          .prepare(
            "SELECT (SELECT count(*) FROM oda_tasks_chats WHERE chat_id = ?) AS chats, (SELECT count(*) FROM oda_tasks_entries WHERE chat_id = ?) AS entries",
          )
          .all(id, id)[0];
      assert.equal(await store.delete("c"), true);
      assert.deepEqual({ ...rows("c") }, { chats: 0, entries: 0 }, "nothing of the chat stays");
      assert.deepEqual({ ...rows("d") }, { chats: 1, entries: 1 });
      sql.exec("BEGIN IMMEDIATE");
      try {
        await assert.rejects(store.delete("d"), {
          code: "store/locked",
          message:
            'another connection held the database\'s write lock for the whole busy timeout (300 ms), so the delete for chat "d" was refused; nothing was written',
        });
      } finally {
        sql.exec("ROLLBACK");
      }
      assert.deepEqual({ ...rows("d") }, { chats: 1, entries: 1 }, "the refused delete removed nothing");
      assert.equal(await store.delete("d"), true);
      await rejectsWith(store.delete("../d"), "store/bad-chat-id");
    } finally {
      db.done();
    }
  });

  test(`SqliteStore on ${name}: list reads one prefix's chats by a range of the primary key, and every chat by the index on the order of creation, a page at a time`, async (t) => {
    const db = fresh(open);
    try {
      const sql = db.connect();
      const { asked, connection } = recorded(db.connect());
      const store = new SqliteStore(connection);
      await store.migrate();
      const insert = sql.prepare("INSERT INTO oda_tasks_chats (chat_id, length, epoch) VALUES (?, 0, 'e')");
      sql.exec("BEGIN");
      for (let owner = 0; owner < 100; owner++) for (let i = 0; i < 50; i++) insert.run(`owner${String(owner).padStart(3, "0")}.c${i}`);
      sql.exec("COMMIT");
      const plans = [];
      for (const options of [{ prefix: "owner042.", limit: 10 }, { limit: 10 }]) {
        const page = await store.list(options);
        assert.equal(page.chats.length, 10);
        const more = await store.list({ ...options, cursor: page.next });
        assert.equal(more.chats.length, 10);
        for (const [text, params] of asked.splice(0)) {
          plans.push(
            sql
              .prepare(`EXPLAIN QUERY PLAN ${text}`)
              .all(...params)
              .map((r) => r.detail)
              .join("; "),
          );
        }
      }
      assert.equal(plans.length, 4);
      for (const plan of plans.slice(0, 2)) assert.match(plan, /SEARCH c USING PRIMARY KEY \(chat_id>\? AND chat_id<\?\)/, plan);
      for (const plan of plans.slice(2)) assert.match(plan, /(SCAN|SEARCH) c USING (COVERING )?INDEX oda_tasks_chats_by_created/, plan);
      for (const plan of plans) assert.match(plan, /SEARCH e USING PRIMARY KEY \(chat_id=\? AND seq=\?\)/, plan);
      for (const plan of plans) assert.doesNotMatch(plan, /SCAN c(;|$)/, "never every chat's row");
      t.diagnostic(plans.join("\n"));
    } finally {
      db.done();
    }
  });

  test(`SqliteStore on ${name}: list's prefix is a range of ids, code unit for code unit: LIKE's wildcards are plain characters, a prefix that ends in half a surrogate pair takes the pairs it begins, one no id can start with lists nothing`, async () => {
    const db = fresh(open);
    try {
      const store = new SqliteStore(db.connect());
      await store.migrate();
      await listsPrefixes(store);
    } finally {
      db.done();
    }
  });

  test(`SqliteStore on ${name}: before migrate() every operation is store/not-migrated`, async () => {
    const db = fresh(open);
    try {
      const store = new SqliteStore(db.connect());
      await rejectsWith(store.read("c"), "store/not-migrated");
      await rejectsWith(store.create("c", [{ type: "session" }]), "store/not-migrated");
      await rejectsWith(store.append("c", [{ type: "x" }]), "store/not-migrated");
      await assert.rejects(store.read("c"), { message: /^the oda-tasks tables are missing or old: run await store\.migrate\(\)/ });
    } finally {
      db.done();
    }
  });

  test(`SqliteStore on ${name}: an entry's JSON text is kept exactly (numbers, key order, repeated keys)`, async () => {
    const db = fresh(open);
    try {
      const store = new SqliteStore(db.connect());
      await store.migrate();
      const text = '{"type":"x","n":1.0,"big":12345678901234567890,"z":1,"a":"é\\u0000","a":2}';
      await store.create("c", [Object.defineProperty({ type: "session" }, RAW_TEXT, { value: '{"type":"session","v":1.50}' })]);
      await store.append("c", [Object.defineProperty({ type: "x" }, RAW_TEXT, { value: text })], 1);
      assert.deepEqual(await store.readTextFrom("c", 0), ['{"type":"session","v":1.50}', text]);
      const stored = db.connect().prepare("SELECT entry FROM oda_tasks_entries WHERE chat_id = ? ORDER BY seq").all("c");
      assert.deepEqual(
        stored.map((r) => r.entry),
        ['{"type":"session","v":1.50}', text],
      );
    } finally {
      db.done();
    }
  });

  test(`SqliteStore on ${name}: a warm reader's mark notices a chat deleted and made again (store/replaced)`, async () => {
    const db = fresh(open);
    try {
      const store = new SqliteStore(db.connect());
      await store.migrate();
      await store.create("c", [{ type: "session" }, { type: "a" }]);
      const { mark } = await store.readSince("c", 0, null);
      assert.match(mark, /^s1:[0-9a-f-]{36}$/);
      assert.deepEqual((await store.readSince("c", 2, mark)).texts, []);
      const sql = db.connect();
      sql.exec("DELETE FROM oda_tasks_entries WHERE chat_id = 'c'; DELETE FROM oda_tasks_chats WHERE chat_id = 'c'");
      await rejectsWith(store.readSince("c", 2, mark), "store/replaced");
      await store.create("c", [{ type: "session" }, { type: "b" }, { type: "c" }]);
      await rejectsWith(store.readSince("c", 2, mark), "store/replaced");
      const again = await store.readSince("c", 0, null);
      assert.notEqual(again.mark, mark);
      assert.deepEqual(again.texts, ['{"type":"session"}', '{"type":"b"}', '{"type":"c"}']);
    } finally {
      db.done();
    }
  });

  test(`SqliteStore on ${name}: rows missing under the length are store/corrupt, and nothing is returned`, async () => {
    const db = fresh(open);
    try {
      const store = new SqliteStore(db.connect());
      await store.migrate();
      await store.create("c", [{ type: "session" }, { type: "a" }, { type: "b" }]);
      db.connect().exec("DELETE FROM oda_tasks_entries WHERE chat_id = 'c' AND seq = 1");
      await rejectsWith(store.read("c"), "store/corrupt");
      await rejectsWith(store.readFrom("c", 1), "store/corrupt");
      assert.deepEqual(await store.readFrom("c", 2), [{ type: "b" }], "entries past the gap are whole");
    } finally {
      db.done();
    }
  });

  test(`SqliteStore on ${name}: a write lock held by another connection is refused with store/locked after busyTimeout, writing nothing`, async () => {
    const db = fresh(open);
    try {
      const store = new SqliteStore(db.connect(), { busyTimeout: 300 });
      await store.migrate();
      await store.create("c", [{ type: "session" }]);
      const holder = db.connect();
      holder.exec("BEGIN IMMEDIATE");
      try {
        for (const write of [() => store.append("c", [{ type: "x" }], 1), () => store.create("d", [{ type: "session" }])]) {
          const started = performance.now();
          await assert.rejects(write(), (e) => {
            assert.equal(e.code, "store/locked", e.message);
            assert.match(
              e.message,
              /^another connection held the database's write lock for the whole busy timeout \(300 ms\), so the write for chat "[cd]" was refused; nothing was written$/,
            );
            return true;
          });
          const waited = performance.now() - started;
          assert.ok(waited >= 250 && waited < 3000, `refused after ${waited} ms`);
        }
        // Reads do not wait for the writer (WAL).
        assert.deepEqual(await store.read("c"), [{ type: "session" }]);
      } finally {
        holder.exec("ROLLBACK");
      }
      assert.deepEqual(await store.read("c"), [{ type: "session" }]);
      assert.equal(await store.read("d"), null);
      assert.equal(await store.append("c", [{ type: "x" }], 1), 2, "the next write goes through");
    } finally {
      db.done();
    }
  });

  test(`SqliteStore on ${name}: options and the database are checked before anything is written`, () => {
    const db = fresh(open);
    try {
      const conn = db.connect();
      for (const [options, message] of [
        [{ busyTimeout: 0 }, "oda-tasks: invalid arguments of SqliteStore: `busyTimeout` must be a whole number >= 1 (got 0)"],
        [{ busyTimeout: "5" }, 'oda-tasks: invalid arguments of SqliteStore: `busyTimeout` must be a whole number >= 1 (got "5")'],
        [{ attempts: 1.5 }, "oda-tasks: invalid arguments of SqliteStore: `attempts` must be a whole number >= 1 (got 1.5)"],
        [{ lockTimeout: 5 }, "oda-tasks: invalid arguments of SqliteStore: unknown option `lockTimeout`"],
        [5, "oda-tasks: invalid arguments of SqliteStore: options must be an object (got number)"],
      ]) {
        assert.throws(() => new SqliteStore(conn, options), { name: "TypeError", message });
      }
      for (const bad of [null, "chats.db", {}, { prepare() {} }]) {
        assert.throws(() => new SqliteStore(bad), {
          name: "TypeError",
          message: /^oda-tasks: SqliteStore needs a node:sqlite DatabaseSync/,
        });
      }
      const inherited = Object.create({ busyTimeout: 0 });
      assert.doesNotThrow(() => new SqliteStore(conn, inherited), "Object.prototype's options are not the app's");
    } finally {
      db.done();
    }
  });

  test(`SqliteStore on ${name}: runTool records a tool call in the file`, async () => {
    const db = fresh(open);
    try {
      const store = new SqliteStore(db.connect());
      await store.migrate();
      await store.create("c", [{ type: "session", workspace: "/w" }, { type: "turn_started" }]);
      const r = await runTool(store, "c", { name: "todo_write", input: { todos: [{ content: "Ship it", status: "in_progress" }] } });
      assert.equal(r.output ?? r.text, "Updated todo list: 0 pending, 1 in progress, 0 completed");
      const again = new SqliteStore(db.connect());
      assert.equal((await again.read("c")).at(-1).type, "todo_update");
    } finally {
      db.done();
    }
  });
}
