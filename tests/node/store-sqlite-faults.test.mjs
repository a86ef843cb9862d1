// SqliteStore's D1 path when D1 fails: the adapter over a D1-shaped binding
// (prepare/bind/all/batch, each batch one transaction) backed by a real
// SQLite file through better-sqlite3, with failures injected as D1 reports
// them. Overloaded: tried again. A lost connection: a read is tried again, a
// write is store/outcome-unknown and never sent twice.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StoreError } from "oda-tasks";
import { SqliteStore } from "oda-tasks/sqlite";
import { sqliteDrivers } from "./support/sqlite.mjs";

const drivers = await sqliteDrivers();
const [name, open] = Object.entries(drivers)[0];

/** A D1-shaped binding over `db`; `fail(kind)` returns the error to throw for the next call of that kind, or null. */
function d1Over(db, fail) {
  const bound = (sql, values) => ({
    sql,
    values,
    async all() {
      const error = fail("all");
      if (error) throw error;
      const statement = db.prepare(sql);
      return { results: statement.reader ? statement.all(...values) : (statement.run(...values), []) };
    },
  });
  return {
    prepare: (sql) => ({ bind: (...values) => bound(sql, values) }),
    async batch(statements) {
      const before = fail("batch-before");
      if (before) throw before;
      const run = db.transaction(() =>
        statements.map(({ sql, values }) => {
          const statement = db.prepare(sql);
          return { results: statement.reader ? statement.all(...values) : (statement.run(...values), []) };
        }),
      );
      const results = run();
      const after = fail("batch-after"); // committed, then the answer is lost
      if (after) throw after;
      return results;
    },
  };
}

function fresh() {
  const dir = mkdtempSync(join(tmpdir(), "oda-sqlite-d1-"));
  const db = open(join(dir, "d1.db"));
  return {
    db,
    done: () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const overloaded = () => new Error("D1_ERROR: D1 DB is overloaded. Too many requests queued.");
const lost = () => new Error("D1_ERROR: Network connection lost.");

test(`SqliteStore over a D1 binding (${name} underneath): overloaded answers are tried again, then store/unavailable`, {
  skip: name !== "better-sqlite3",
}, async () => {
  const { db, done } = fresh();
  try {
    let failures = 0;
    const store = new SqliteStore(
      d1Over(db, (kind) => (kind === "batch-before" && failures-- > 0 ? overloaded() : null)),
      { attempts: 3 },
    );
    await store.migrate();
    failures = 2;
    assert.equal(await store.create("c", [{ type: "session" }]), true, "the third try goes through");
    failures = 3;
    const unavailable =
      'the database is unavailable for chat "c" after 3 attempts; nothing was written (D1_ERROR: D1 DB is overloaded. Too many requests queued.)';
    await assert.rejects(store.append("c", [{ type: "x" }], 1), (e) => {
      assert.ok(e instanceof StoreError);
      assert.equal(e.code, "store/unavailable");
      assert.equal(e.message, unavailable);
      return true;
    });
    assert.deepEqual(await store.read("c"), [{ type: "session" }]);
  } finally {
    done();
  }
});

test(`SqliteStore over a D1 binding (${name} underneath): a lost answer is retried for a read, store/outcome-unknown for a write, never sent twice`, {
  skip: name !== "better-sqlite3",
}, async () => {
  const { db, done } = fresh();
  try {
    let next = null;
    const store = new SqliteStore(
      d1Over(db, (kind) => {
        if (kind !== next) return null;
        next = null;
        return lost();
      }),
    );
    await store.migrate();
    await store.create("c", [{ type: "session" }]);
    next = "all";
    assert.deepEqual(await store.read("c"), [{ type: "session" }], "the read is tried again");
    next = "batch-after";
    await assert.rejects(store.append("c", [{ type: "x" }], 1), (e) => {
      assert.equal(e.code, "store/outcome-unknown");
      assert.equal(
        e.message,
        'chat "c": the connection was lost while the write ran, so it may or may not be recorded; read the chat to see',
      );
      return true;
    });
    assert.deepEqual(await store.read("c"), [{ type: "session" }, { type: "x" }], "it was recorded once");
  } finally {
    done();
  }
});
