// A child process of the change-feed suites (store-jsonl-watch, store-sqlite-watch):
// one app process on a shared JSONL folder or SQLite file. Prints "ready",
// then obeys lines on stdin: "create <chat> <n>" and "append <chat> <n>"
// write n entries and print "wrote <chat> <length>"; "watch <chat>" starts a
// watch that prints "heard <chat> <length>" per notice; "stop" stops every
// watch; "touch <chat>" changes the chat's file or the database without
// changing any log (a file event, a data_version tick) and "restore <chat> <n>"
// cuts the log back to its first n entries behind the store's back (a
// restore), each printing "done <op> <chat>". When stdin ends it stops every watch and prints its notices as one
// JSON line, then ends by itself (a handle left open would keep it alive).
// argv: kind ("jsonl", or a SQLite driver: "better-sqlite3", "node:sqlite", "bun:sqlite"),
// the folder or file, the store's options as JSON, and "exhaust" to make
// fs.watch fail (every file descriptor taken: EMFILE) while the first watch starts.
import fs from "node:fs";
import { createInterface } from "node:readline";

const [kind, where, optionsJson = "{}", exhaust = ""] = process.argv.slice(2);
const options = JSON.parse(optionsJson);

let store;
let db;
if (kind === "jsonl") {
  const { JsonlStore } = await import("oda-tasks/node");
  store = new JsonlStore(where, options);
} else {
  const { SqliteStore } = await import("oda-tasks/sqlite");
  const { openWith } = await import("../support/sqlite.mjs");
  db = await openWith(kind, where);
  store = new SqliteStore(db, options);
}

/** Changes the chat's file (its times) or commits a write to the database that leaves every log as it is. */
function touch(chatId) {
  if (kind === "jsonl") {
    const now = new Date();
    fs.utimesSync(store.file(chatId), now, now);
  } else db.prepare("UPDATE oda_tasks_chats SET length = length WHERE chat_id = ?").run(chatId);
}

/** Cuts the chat back to its first `n` entries as a restore would: a new file renamed over, or one transaction. */
function restore(chatId, n) {
  if (kind === "jsonl") {
    const file = store.file(chatId);
    const kept = fs.readFileSync(file, "utf8").split("\n").slice(0, n);
    fs.writeFileSync(`${file}.restore`, `${kept.join("\n")}\n`);
    fs.renameSync(`${file}.restore`, file);
  } else {
    db.exec("BEGIN IMMEDIATE");
    db.prepare("DELETE FROM oda_tasks_entries WHERE chat_id = ? AND seq >= ?").run(chatId, n);
    db.prepare("UPDATE oda_tasks_chats SET length = ? WHERE chat_id = ?").run(n, chatId);
    db.exec("COMMIT");
  }
}

const heard = [];
const stops = [];
let exhausted = exhaust !== "exhaust";
const say = (line) => process.stdout.write(`${line}\n`);

/** Takes every file descriptor left, checks that fs.watch now fails, runs `fn`, and gives them back. */
function withoutDescriptors(fn) {
  const taken = [];
  try {
    for (;;) taken.push(fs.openSync("/dev/null", "r"));
  } catch (e) {
    if (e.code !== "EMFILE") throw e;
  }
  let failure = "none";
  try {
    fs.watch(where, { persistent: false }).close();
  } catch (e) {
    failure = e.code;
  }
  try {
    fn();
  } finally {
    for (const fd of taken) fs.closeSync(fd);
  }
  return failure;
}

say("ready");
for await (const line of createInterface({ input: process.stdin })) {
  const [op, chatId, n] = line.split(" ");
  if (op === "create" || op === "append") {
    const entries = Array.from({ length: Number(n) }, (_, i) => ({
      type: op === "create" && i === 0 ? "session" : "x",
      pid: process.pid,
      i,
    }));
    const answer = op === "create" ? await store.create(chatId, entries) : await store.append(chatId, entries);
    say(`wrote ${chatId} ${op === "create" ? (answer ? n : "exists") : answer}`);
  } else if (op === "watch") {
    const start = () => stops.push(store.watch(chatId, (length) => (heard.push([chatId, length]), say(`heard ${chatId} ${length}`))));
    if (exhausted) start();
    else {
      exhausted = true;
      say(`fs.watch failed with ${withoutDescriptors(start)}`);
    }
    say(`watching ${chatId}`);
  } else if (op === "touch") {
    touch(chatId);
    say(`done touch ${chatId}`);
  } else if (op === "restore") {
    restore(chatId, Number(n));
    say(`done restore ${chatId}`);
  } else if (op === "stop") {
    for (const stop of stops.splice(0)) stop();
    say("stopped");
  }
}
for (const stop of stops.splice(0)) stop();
say(JSON.stringify(heard));
