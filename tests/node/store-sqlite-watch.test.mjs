// SqliteStore's change feed over a real database file, on each driver of the
// runtime running this file (better-sqlite3 under Node 20; node:sqlite under
// Node 22 and 24 and bun:sqlite under Bun, through store-sqlite-runtimes):
// a second real process, PRAGMA data_version per interval and the lengths in
// one query only when it moved, connections of one process heard at once,
// another process's delete told as 0 (and a chat it deleted and made again
// between two looks as 0, then its length).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "oda-tasks/sqlite";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { DELETE_CHILD } from "./support/delete-race.mjs";
import { sqliteDrivers } from "./support/sqlite.mjs";
import { until } from "./support/until.mjs";
import { entries, hearEachOther, heardAll, hintsStayHints, watchChild } from "./support/watch-child.mjs";

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A migrated database file; `connect()` opens another connection to it. */
async function fresh(open) {
  const dir = mkdtempSync(join(tmpdir(), "oda-sqlite-watch-"));
  const file = join(dir, "chats.db");
  /** Connections to the file; done() closes them all. */
  const connections = [open(file)];
  await new SqliteStore(connections[0]).migrate();
  return {
    file,
    connect: () => connections[connections.push(open(file)) - 1],
    done: () => {
      for (const db of connections) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The real connection, counting the rows asked of it per SQL text (nothing else changed). */
function counted(db) {
  const asked = new Map();
  return {
    asked: (pattern) => [...asked].filter(([sql]) => pattern.test(sql)).reduce((n, [, k]) => n + k, 0),
    connection: {
      exec: (sql) => db.exec(sql),
      prepare(sql) {
        const prepared = db.prepare(sql);
        return {
          run: (...params) => prepared.run(...params),
          all: (...params) => {
            asked.set(sql, (asked.get(sql) ?? 0) + 1);
            return prepared.all(...params);
          },
        };
      },
    },
  };
}

const drivers = await sqliteDrivers();

/** Runs `ops` ([op, chatId, count]: "create", "delete", "replace", "replace-raw") in another process on `file`, to its end. */
const ops = (name, file, list) =>
  promisify(execFile)(process.execPath, [DELETE_CHILD, name, file, "-", "ops", "-", JSON.stringify(list)], {
    timeout: 30_000,
    killSignal: "SIGKILL",
  });

for (const [name, open] of Object.entries(drivers)) {
  for (const [how, options] of [
    ["fs.watch", { watchPollMs: 20 }],
    ["a poll every 500 ms", { watchMode: "poll", watchPollMs: 500 }],
  ]) {
    test(`SqliteStore on ${name} (${how}): another process's delete is heard as 0, and a chat it deleted and made again between two looks as 0, then the new chat's length`, async () => {
      const db = await fresh(open);
      const store = new SqliteStore(db.connect(), options);
      await store.create("c", entries(1));
      await store.create("d", entries(2));
      const heard = { c: [], d: [] };
      const stops = ["c", "d"].map((chatId) => store.watch(chatId, (length) => heard[chatId].push(length)));
      try {
        await ops(name, db.file, [["delete", "c"]]);
        await until("the delete", () => heard.c.length === 1);
        await ops(name, db.file, [["create", "c", 2]]);
        await until("the chat made again", () => heard.c.length === 2);
        // In one transaction, the same length: only the epoch read back tells the chats apart.
        await ops(name, db.file, [["replace-raw", "c", 2]]);
        await until("the chat replaced in one transaction", () => heard.c.length === 4);
        // Through the store: a delete, then a create, one after the other (a look may fall between them, or not).
        await ops(name, db.file, [["replace", "d", 2]]);
        await until("the chat replaced", () => heard.d.length === 2);
        await pause(700);
        assert.deepEqual(heard, { c: [0, 2, 0, 2], d: [0, 2] });
        // This process's own delete: heard at once, and not again when a look reads it back.
        assert.equal(await store.delete("d"), true);
        assert.deepEqual(heard.d, [0, 2, 0]);
        await ops(name, db.file, [["create", "elsewhere", 1]]);
        await pause(700);
        assert.deepEqual(heard, { c: [0, 2, 0, 2], d: [0, 2, 0] });
      } finally {
        for (const stop of stops) stop();
        db.done();
      }
    });
  }

  test(`SqliteStore on ${name}: watch across two processes on one file, each hearing the other's writes once and its own at once`, async () => {
    const db = await fresh(open);
    const store = new SqliteStore(db.connect(), { watchPollMs: 20 });
    const heard = [];
    const stop = store.watch("c", (length) => heard.push(length));
    const child = await watchChild([name, db.file, JSON.stringify({ watchPollMs: 20 })]);
    try {
      // Another connection to the file in this process: heard at once.
      await hearEachOther(store, heard, child, () => new SqliteStore(db.connect()), 300);
    } finally {
      child.kill();
      stop();
      db.done();
    }
  });

  test(`SqliteStore on ${name}: another process's data_version tick is a hint: a write that changed no log tells nothing, a restore is told with its shorter length and the viewer gets its screen`, async () => {
    const db = await fresh(open);
    const child = await watchChild([name, db.file]);
    try {
      await hintsStayHints(new SqliteStore(db.connect()), child, 300);
    } finally {
      child.kill();
      db.done();
    }
  });

  test(`SqliteStore on ${name}: where fs.watch fails (EMFILE), the file's data_version is polled`, async () => {
    const db = await fresh(open);
    const child = await watchChild([name, db.file, JSON.stringify({ watchPollMs: 20 }), "exhaust"]);
    try {
      child.send("watch c");
      await child.expect("fs.watch failed with EMFILE");
      await child.expect("watching c");
      const store = new SqliteStore(db.connect());
      await store.create("c", entries(1));
      await store.append("c", entries(2));
      await child.expect("heard c 3");
      assert.deepEqual((await child.end()).at(-1), ["c", 3], "heard by polling");
    } finally {
      child.kill();
      db.done();
    }
  });

  test(`SqliteStore on ${name}: watch with fs.watch asks nothing while no connection writes; another process's write asks PRAGMA data_version, then the lengths in one query`, async () => {
    const db = await fresh(open);
    const { asked, connection } = counted(db.connect());
    const store = new SqliteStore(connection, { watchPollMs: 20 });
    for (const chatId of ["a", "b"]) await store.create(chatId, entries(1));
    const heard = [];
    const stops = ["a", "b"].map((chatId) => store.watch(chatId, (length) => heard.push([chatId, length])));
    const versions = /data_version/;
    const lengths = /json_each\(\?\)\)$/;
    try {
      const first = asked(versions); // the data_version the feed starts from
      await pause(300);
      assert.equal(asked(versions), first, "nothing written: nothing asked (the once-a-second check is not due)");
      const child = await watchChild([name, db.file]);
      child.send("append b 2");
      await child.expect("wrote b 3");
      await heardAll(heard, 1, "the other process's write, through fs.watch", 100);
      await child.end();
      assert.deepEqual(heard, [["b", 3]]);
      assert.ok(asked(versions) > first, "the file's change asked data_version");
      assert.ok(asked(lengths) >= 1 && asked(lengths) <= 2, `lengths asked ${asked(lengths)} times`);
    } finally {
      for (const stop of stops) stop();
      db.done();
    }
  });

  test(`SqliteStore on ${name}: watch asks PRAGMA data_version per interval (watchMode poll), the watched lengths in one query only when it moved, and stops with the last listener`, async () => {
    const db = await fresh(open);
    const { asked, connection } = counted(db.connect());
    const store = new SqliteStore(connection, { watchPollMs: 20, watchMode: "poll" });
    for (const chatId of ["a", "b", "c"]) await store.create(chatId, entries(1));
    const heard = [];
    const stops = ["a", "b", "c", "never"].map((chatId) => store.watch(chatId, (length) => heard.push([chatId, length])));
    const versions = /data_version/;
    const lengths = /json_each\(\?\)\)$/;
    try {
      // Asked again and again at its interval (waited for, not timed: a loaded machine delays timers).
      await until("data_version asked three times", () => asked(versions) >= 3);
      assert.equal(asked(lengths), 0, "nothing moved: no lengths asked");
      assert.deepEqual(heard, []);
      // This connection's own write: heard at once, and data_version (another connection's commits) does not move.
      await store.append("a", entries(1));
      assert.deepEqual(heard, [["a", 2]]);
      await pause(200);
      assert.equal(asked(lengths), 0);
      // Another connection's writes to two chats: one lengths query tells both.
      const other = new SqliteStore(db.connect());
      const child = await watchChild([name, db.file]);
      child.send("append b 2");
      await child.expect("wrote b 3");
      child.send("append c 1");
      await child.expect("wrote c 2");
      await child.end();
      await heardAll(heard, 3, "the other process's writes", 300);
      assert.ok(asked(lengths) >= 1 && asked(lengths) <= 2, `lengths asked ${asked(lengths)} times`);
      assert.deepEqual(heard.slice(1).sort(), [
        ["b", 3],
        ["c", 2],
      ]);
      await other.create("never", entries(4));
      assert.deepEqual(heard.at(-1), ["never", 4]);
    } finally {
      for (const stop of stops) stop();
    }
    const after = asked(versions);
    await pause(200);
    assert.equal(asked(versions), after, "the last stop ends the timer");
    db.done();
  });
}

test("SqliteStore: watchPollMs and watchMode are checked with the other options", () => {
  const db = { prepare() {}, exec() {} };
  for (const [value, shown] of [
    [0, "0"],
    [1.5, "1.5"],
    ["100", '"100"'],
  ]) {
    assert.throws(() => new SqliteStore(db, { watchPollMs: value }), {
      name: "TypeError",
      message: `oda-tasks: invalid arguments of SqliteStore: \`watchPollMs\` must be a whole number >= 1 (got ${shown})`,
    });
  }
  assert.throws(() => new SqliteStore(db, { watchMode: "inotify" }), {
    name: "TypeError",
    message: /`watchMode` must be/,
  });
});
