// A child process of store-sqlite-processes.test.mjs, standing for one app
// process on the shared database file, through driver `driver`. Says
// "ready", waits for "go" on stdin (so every process starts at once), runs
// `n` concurrent calls and prints their results as one JSON line.
// mode "start": SuggestionService.start of one offer, one service per call;
// mode "append": read → append(expectedLength) → retry loops;
// mode "hold": holds the file's write lock (BEGIN IMMEDIATE) until stdin ends;
// mode "forever": appends one entry at a time and prints each acknowledged
// length at once, until it is killed; mode "starts" (npm run bench:sqlite):
// Start of offer `id` on chats `${chatId}${k}`, k from `n` = "first:count", one after another.
import { SuggestionService } from "oda-tasks";
import { SqliteStore } from "oda-tasks/sqlite";
import { openWith } from "../support/sqlite.mjs";

const [driver, file, mode, chatId, id, n] = process.argv.slice(2);

if (mode === "hold") {
  // Another program's open write transaction on the file, until stdin ends.
  const db = await openWith(driver, file);
  db.exec("BEGIN IMMEDIATE");
  process.stdout.write("ready\n");
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.on("end", resolve));
  db.exec("ROLLBACK");
  process.stdout.write("[]\n");
  process.exit(0);
}

const store = new SqliteStore(await openWith(driver, file), { busyTimeout: 20_000 });

async function appendLoop(i) {
  for (let tries = 1; ; tries++) {
    const log = await store.read(chatId);
    try {
      const length = await store.append(
        chatId,
        [
          { type: "a", pid: process.pid, i, at: log.length },
          { type: "b", pid: process.pid, i },
        ],
        log.length,
      );
      return { length, tries };
    } catch (e) {
      if (e?.code !== "store/conflict") throw e;
    }
  }
}

if (mode === "forever") {
  process.stdout.write("ready\n");
  for (let i = 0; ; i++) {
    const length = await store.append(chatId, [{ type: "k", pid: process.pid, i, pad: "x".repeat(i % 7 === 0 ? 20_000 : 10) }]);
    process.stdout.write(`${i} ${length}\n`);
  }
}

async function starts(first, count) {
  const service = new SuggestionService({ store });
  for (let k = first; k < first + count; k++) await service.start(`${chatId}${k}`, id);
  return { started: count };
}

const call = (i) =>
  mode === "start" ? new SuggestionService({ store }).start(chatId, id).then((r) => ({ chatId: r.chatId })) : appendLoop(i);
const calls = () => (mode === "starts" ? [starts(...n.split(":").map(Number))] : Array.from({ length: Number(n) }, (_, i) => call(i)));

process.stdout.write("ready\n");
await new Promise((resolve) => process.stdin.once("data", resolve));
process.stdin.pause();

const results = await Promise.allSettled(calls());
process.stdout.write(
  JSON.stringify(results.map((r) => (r.status === "fulfilled" ? r.value : { error: String(r.reason?.stack ?? r.reason) }))) + "\n",
);
