// A child process of the SQL stores' delete tests (store-sqlite-processes,
// store-sqlite-watch, store-postgres-delete), standing for another app process
// on the same database file or PostgreSQL schema.
// argv: kind (a SQLite driver: "better-sqlite3", "node:sqlite", "bun:sqlite";
// or a PostgreSQL client: "pg", "postgres.js"), where (the file, or the
// server's URL), schema ("-" for SQLite), mode, chat id, n.
// mode "append": says "ready", waits for "go" on stdin, then for `n` ms runs 4
// loops that read the chat and append a pair of entries to it (at the length
// read, or unconditionally, also when the read found no chat), and prints one
// JSON line counting what happened: { landed, conflicts, missing }, any other
// failure in `errors`.
// mode "ops": runs the operations of `n` (a JSON array of [op, chatId, count]:
// "create" with `count` entries, "delete", "replace": delete then create with
// `count` entries through the store, "replace-raw": the same in one
// transaction behind the store's back, as a restore would), each printing
// "done <op> <chatId> <result>", then prints "[]" and ends.
import { setTimeout as pause } from "node:timers/promises";

const [kind, where, schema, mode, chatId, n] = process.argv.slice(2);

let store;
let raw;
let end = async () => undefined;
if (kind === "pg" || kind === "postgres.js") {
  const { PostgresStore } = await import("oda-tasks/postgres");
  if (kind === "pg") {
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({ connectionString: where, options: `-c search_path=${schema}` });
    pool.on("error", () => undefined);
    store = new PostgresStore(pool);
    raw = async (statements) => {
      const client = await pool.connect();
      try {
        for (const [text, values] of statements) await client.query(text, values);
      } finally {
        client.release();
      }
    };
    end = () => pool.end();
  } else {
    const { default: postgres } = await import("postgres");
    const sql = postgres(where, { connection: { search_path: schema }, onnotice: () => undefined });
    store = new PostgresStore(sql);
    raw = async (statements) => {
      const reserved = await sql.reserve();
      try {
        for (const [text, values] of statements) await reserved.unsafe(text, values ?? []);
      } finally {
        reserved.release();
      }
    };
    end = () => sql.end({ timeout: 5 });
  }
} else {
  const { SqliteStore } = await import("oda-tasks/sqlite");
  const { openWith } = await import("../support/sqlite.mjs");
  const db = await openWith(kind, where);
  store = new SqliteStore(db, { busyTimeout: 20_000 });
  raw = async (statements) => {
    db.exec("BEGIN IMMEDIATE");
    for (const [text, values] of statements) db.prepare(text).run(...(values ?? []));
    db.exec("COMMIT");
  };
  end = async () => db.close();
}

const entries = (count, tag) => Array.from({ length: count }, (_, i) => (i === 0 ? { type: "session", tag } : { type: "x", i }));

/** One transaction that deletes the chat and makes it again with `count` entries (a new epoch), as a restore would. */
function replaceRaw(id, count) {
  const texts = entries(count, `raw-${process.pid}`).map((e) => JSON.stringify(e));
  if (kind === "pg" || kind === "postgres.js") {
    return raw([
      ["BEGIN"],
      ["DELETE FROM oda_tasks_entries WHERE chat_id = $1", [id]],
      ["DELETE FROM oda_tasks_chats WHERE chat_id = $1", [id]],
      ["INSERT INTO oda_tasks_chats (chat_id, length) VALUES ($1, $2)", [id, count]],
      ...texts.map((text, seq) => ["INSERT INTO oda_tasks_entries (chat_id, seq, entry) VALUES ($1, $2, $3)", [id, seq, text]]),
      ["COMMIT"],
    ]);
  }
  return raw([
    ["DELETE FROM oda_tasks_entries WHERE chat_id = ?", [id]],
    ["DELETE FROM oda_tasks_chats WHERE chat_id = ?", [id]],
    ["INSERT INTO oda_tasks_chats (chat_id, length, epoch) VALUES (?, ?, ?)", [id, count, crypto.randomUUID()]],
    ...texts.map((text, seq) => ["INSERT INTO oda_tasks_entries (chat_id, seq, entry) VALUES (?, ?, ?)", [id, seq, text]]),
  ]);
}

if (mode === "ops") {
  for (const [op, id, count] of JSON.parse(n)) {
    let result;
    if (op === "create") result = await store.create(id, entries(count, `child-${process.pid}`));
    else if (op === "delete") result = await store.delete(id);
    else if (op === "replace") result = (await store.delete(id)) && (await store.create(id, entries(count, `again-${process.pid}`)));
    else if (op === "replace-raw") result = await replaceRaw(id, count).then(() => true);
    else throw new Error(`unknown op ${op}`);
    process.stdout.write(`done ${op} ${id} ${result}\n`);
  }
  process.stdout.write("[]\n");
  await end();
  process.exit(0);
}

const counts = { landed: 0, conflicts: 0, missing: 0, errors: [] };

async function appendLoop(loop, until) {
  for (let k = 0; Date.now() < until; k++) {
    try {
      const log = await store.read(chatId);
      // A chat that is gone gets an unconditional append all the same: refused, unless the chat was made again meanwhile.
      const conditional = log !== null && k % 2 === 0;
      const pair = [
        { type: "a", pid: process.pid, loop, k, at: log?.length ?? null, conditional },
        { type: "b", pid: process.pid, loop, k },
      ];
      await store.append(chatId, pair, conditional ? log.length : undefined);
      counts.landed++;
    } catch (e) {
      if (e?.code === "store/conflict") counts.conflicts++;
      else if (e?.code === "store/missing-chat") {
        counts.missing++;
        await pause(1);
      } else counts.errors.push(String(e?.stack ?? e));
    }
  }
}

process.stdout.write("ready\n");
await new Promise((resolve) => process.stdin.once("data", resolve));
process.stdin.pause();
const until = Date.now() + Number(n);
await Promise.all([0, 1, 2, 3].map((loop) => appendLoop(loop, until)));
process.stdout.write(`${JSON.stringify([counts])}\n`);
await end();
process.exit(0);
