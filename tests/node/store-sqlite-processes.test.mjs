// SqliteStore across processes sharing one database file, on each driver of
// the runtime running this file (better-sqlite3 under Node 20; node:sqlite
// under Node 22 and 24 through store-sqlite-runtimes): racing Starts give one
// chat, one settlement, one brief; racing conditional appends all land once;
// a process killed (SIGKILL) mid-write loses nothing it was told was written;
// appends racing deletes leave no entry without its chat and no partial chat.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteStore } from "oda-tasks/sqlite";
import { sqliteDrivers } from "./support/sqlite.mjs";
import { raceChildren, spawnChild } from "./support/spawn-child.mjs";
import { checkStarted, offerChat } from "./support/start-race.mjs";
import { raceDeletes } from "./support/delete-race.mjs";

const CHILD = fileURLToPath(new URL("./children/sqlite-child.mjs", import.meta.url));
const PROCESSES = 4;
const CALLS = 25;

async function fresh(open) {
  const dir = mkdtempSync(join(tmpdir(), "oda-sqlite-procs-"));
  const file = join(dir, "chats.db");
  const db = open(file);
  const store = new SqliteStore(db);
  await store.migrate();
  return {
    file,
    store,
    /** Entries stored without their chat's row. */
    orphans: () =>
      db
        .prepare(
          "SELECT count(*) AS n FROM oda_tasks_entries e WHERE NOT EXISTS (SELECT 1 FROM oda_tasks_chats c WHERE c.chat_id = e.chat_id)",
        )
        .all()[0].n,
    chats: () =>
      db
        .prepare("SELECT chat_id FROM oda_tasks_chats ORDER BY chat_id")
        .all()
        .map((r) => r.chat_id),
    done: () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const drivers = await sqliteDrivers();

for (const [name, open] of Object.entries(drivers)) {
  test(`SqliteStore on ${name}: ${PROCESSES} processes x ${CALLS} concurrent Starts of one offer: one chat, one settlement, one brief`, async () => {
    const db = await fresh(open);
    try {
      const { store } = db;
      await offerChat(store);
      const results = await raceChildren(CHILD, [name, db.file, "start", "offer-chat", "s1", String(CALLS)], PROCESSES);
      await checkStarted(store, results, PROCESSES * CALLS, db.chats);
    } finally {
      db.done();
    }
  });

  test(`SqliteStore on ${name}: ${PROCESSES} processes x 10 read→append(expectedLength)→retry loops: every pair lands once, where it expected`, async () => {
    const db = await fresh(open);
    try {
      await db.store.create("c", [{ type: "session" }]);
      const results = await raceChildren(CHILD, [name, db.file, "append", "c", "-", "10"], PROCESSES);
      assert.deepEqual(
        results.filter((x) => "error" in x),
        [],
      );
      const log = await db.store.read("c");
      assert.equal(log.length, 1 + 2 * PROCESSES * 10);
      const seen = new Set();
      for (let k = 1; k < log.length; k += 2) {
        assert.equal(log[k].at, k, "each append landed at the length it expected");
        assert.deepEqual(log[k + 1], { type: "b", pid: log[k].pid, i: log[k].i }, "an append's entries stay together");
        seen.add(`${log[k].pid}/${log[k].i}`);
      }
      assert.equal(seen.size, PROCESSES * 10);
      assert.ok(
        results.some((x) => x.tries > 1),
        "the processes did contend",
      );
    } finally {
      db.done();
    }
  });

  test(`SqliteStore on ${name}: ${PROCESSES} processes append while this one deletes the chat and makes it again: every chat read is whole, nothing outlives a delete`, async () => {
    const db = await fresh(open);
    try {
      await raceDeletes({
        store: db.store,
        chatId: "r",
        processes: PROCESSES,
        args: (ms) => [name, db.file, "-", "append", "r", String(ms)],
        orphans: db.orphans,
      });
      assert.deepEqual(db.chats(), [], "the last delete left no chat");
    } finally {
      db.done();
    }
  });

  test(`SqliteStore on ${name}: SIGKILL mid-write loses nothing acknowledged and leaves a whole log`, async () => {
    const db = await fresh(open);
    try {
      await db.store.create("k", [{ type: "session" }]);
      for (let round = 0; round < 3; round++) {
        const writer = spawnChild(CHILD, [name, db.file, "forever", "k", "-", "0"]);
        await writer.ready;
        // Let it write for a while, then kill it wherever it is (often inside a transaction).
        await new Promise((resolve) => setTimeout(resolve, 150 + round * 70));
        writer.proc.kill("SIGKILL");
        await assert.rejects(writer.done, (e) => e.signal === "SIGKILL");
        const acked = writer
          .out()
          .split("\n")
          .slice(1)
          .filter((line) => /^\d+ \d+$/.test(line))
          .map((line) => line.split(" ").map(Number));
        assert.ok(acked.length > 0, "the writer acknowledged some appends");
        const log = await new SqliteStore(open(db.file)).read("k"); // a new connection, as after a restart
        for (const [i, length] of acked) {
          const entry = log[length - 1];
          assert.equal(entry?.i, i, `acknowledged append ${i} (length ${length}) is there`);
          assert.equal(entry.pid, writer.proc.pid);
        }
        assert.ok(log.length >= acked.at(-1)[1]);
        assert.ok(log.length <= acked.at(-1)[1] + 1, "at most the one unacknowledged append landed");
      }
    } finally {
      db.done();
    }
  });

  test(`SqliteStore on ${name}: a write lock another process holds is refused with store/locked in bounded time; reads go on`, async () => {
    const db = await fresh(open);
    try {
      await db.store.create("c", [{ type: "session" }]);
      const holder = spawnChild(CHILD, [name, db.file, "hold", "-", "-", "0"]);
      await holder.ready;
      const store = new SqliteStore(open(db.file), { busyTimeout: 400 });
      const started = performance.now();
      await assert.rejects(store.append("c", [{ type: "x" }], 1), (e) => e.code === "store/locked");
      const waited = performance.now() - started;
      assert.ok(waited >= 350 && waited < 4000, `refused after ${Math.round(waited)} ms`);
      assert.deepEqual(await store.read("c"), [{ type: "session" }], "reads do not wait (WAL)");
      holder.proc.stdin.end();
      await holder.done;
      assert.equal(await store.append("c", [{ type: "x" }], 1), 2, "once the lock is let go, the write goes through");
    } finally {
      db.done();
    }
  });
}
