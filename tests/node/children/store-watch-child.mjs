// A child process of the change-feed suites (store-jsonl-watch, store-sqlite-watch):
// one app process on a shared JSONL folder or SQLite file. Prints "ready",
// then obeys lines on stdin: "create <chat> <n>" and "append <chat> <n>"
// write n entries and print "wrote <chat> <length>"; "watch <chat>" starts a
// watch that prints "heard <chat> <length>" per notice; "stop" stops every
// watch. When stdin ends it stops every watch and prints its notices as one
// JSON line, then ends by itself (a handle left open would keep it alive).
// argv: kind ("jsonl", or a SQLite driver: "better-sqlite3", "node:sqlite", "bun:sqlite"),
// the folder or file, the store's options as JSON, and "exhaust" to make
// fs.watch fail (every file descriptor taken: EMFILE) while the first watch starts.
import fs from "node:fs";
import { createInterface } from "node:readline";

const [kind, where, optionsJson = "{}", exhaust = ""] = process.argv.slice(2);
const options = JSON.parse(optionsJson);

let store;
if (kind === "jsonl") {
  const { JsonlStore } = await import("oda-tasks/node");
  store = new JsonlStore(where, options);
} else {
  const { SqliteStore } = await import("oda-tasks/sqlite");
  const { openWith } = await import("../support/sqlite.mjs");
  store = new SqliteStore(await openWith(kind, where), options);
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
  } else if (op === "stop") {
    for (const stop of stops.splice(0)) stop();
    say("stopped");
  }
}
for (const stop of stops.splice(0)) stop();
say(JSON.stringify(heard));
