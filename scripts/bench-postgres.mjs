// Benchmark: PostgresStore (a throwaway local server, fsync on) beside
// JsonlStore (a temp directory, fsync per append) on the same machine.
// Measures conditional appends per second and runTool calls per second
// (read the log, decide, append) with 1, 8 and 32 chats worked on at once,
// each chat by one sequential caller. Then the change feed's cost: conditional
// appends from 4 processes at once with each write's NOTIFY and without it
// (`notify: false`), while a fifth process watches every chat
// (`postgres_append_throughput_with_notify_vs_without`: the median of 9
// runs' ratios, each run with and without in turn; target >= 0.8).
// Prints a table of medians over runs, whether the target holds, then one JSON line.
// Run: `npm run bench:postgres` (BENCH_RUNS=5 by default, BENCH_NOTIFY_RUNS=9; BENCH_PARTS=notify
// runs only the notify measure; BENCH_PG_SETTINGS, a JSON object of server settings, for experiments).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runTool } from "oda-tasks";
import { JsonlStore } from "oda-tasks/node";
import { PostgresStore } from "oda-tasks/postgres";
import { startServer } from "../tests/node/support/postgres.mjs";
import { median, session } from "./bench/sql-bench.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
/** Runs of the notify measure: its ratio is the median of as many with/without pairs. */
const NOTIFY_RUNS = Number(process.env.BENCH_NOTIFY_RUNS ?? 9);
/** The notice's cost held: appends with it at least this share of appends without. */
const NOTIFY_TARGET = 0.8;
/** The notify measure: processes appending at once, chats per process, appends per chat. */
const PROCESSES = 4;
const CHATS_PER_PROCESS = 4;
const APPENDS_PER_CHAT = 100;

const CHATS = [1, 8, 32];
/** Operations per run, split over the chats (so every run does about the same work). */
const OPS = 640;

let serial = 0;

/** Runs `perChat(store, chatId, n)` on `chats` fresh chats at once; resolves to operations per second. */
async function measure(store, chats, perChat) {
  const n = Math.ceil(OPS / chats);
  const ids = Array.from({ length: chats }, () => `bench-${process.pid}-${++serial}`);
  await Promise.all(ids.map((id) => store.create(id, [session(id), { type: "turn_started" }])));
  const start = process.hrtime.bigint();
  await Promise.all(ids.map((id) => perChat(store, id, n)));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return (n * chats) / seconds;
}

const operations = {
  /** Conditional appends of one message, each at the length the previous one returned. */
  async append(store, chatId, n) {
    let length = 2;
    for (let i = 0; i < n; i++) {
      length = await store.append(chatId, [{ type: "message", role: "user", text: `message ${i}` }], length);
    }
  },
  /** runTool todo_write calls: read, let the core decide, append at the length read. */
  async runTool(store, chatId, n) {
    for (let i = 0; i < n; i++) {
      const todos = [
        { content: `step ${i}`, status: "in_progress" },
        { content: "next", status: "pending" },
      ];
      const r = await runTool(store, chatId, { name: "todo_write", input: { todos } });
      if (!r.ok) throw new Error(r.error);
    }
  },
};

/**
 * One appending process: makes its chats, warms up, says "ready", and on a
 * line from the parent appends APPENDS_PER_CHAT times to each chat (the chats
 * at once, each by one sequential caller); prints the seconds it took.
 */
async function worker(url, notify) {
  const store = new PostgresStore(url, { notify });
  const ids = Array.from({ length: CHATS_PER_PROCESS }, (_, i) => `notify-${process.pid}-${i}`);
  await Promise.all(ids.map((id) => store.create(id, [session(id), { type: "turn_started" }])));
  await Promise.all(ids.map((id) => operations.append(store, id, 5)));
  process.stdout.write(`ready ${JSON.stringify(ids)}\n`);
  await new Promise((resolve) => process.stdin.once("data", resolve));
  const start = process.hrtime.bigint();
  await Promise.all(
    ids.map(async (id) => {
      let length = 7;
      for (let i = 0; i < APPENDS_PER_CHAT; i++)
        length = await store.append(id, [{ type: "message", role: "user", text: `m ${i}` }], length);
    }),
  );
  process.stdout.write(`${Number(process.hrtime.bigint() - start) / 1e9}\n`);
  await store.end();
  process.exit(0);
}

/** Lines a child prints, one at a time. */
function lines(child) {
  let buffered = "";
  const waiting = [];
  const ready = [];
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    for (let i = buffered.indexOf("\n"); i >= 0; i = buffered.indexOf("\n")) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      const w = waiting.shift();
      if (w) w(line);
      else ready.push(line);
    }
  });
  return () => (ready.length > 0 ? Promise.resolve(ready.shift()) : new Promise((resolve) => waiting.push(resolve)));
}

/** Appends per second of PROCESSES processes at once, with or without each write's NOTIFY, every chat watched by `watcher`. */
async function appendsAcrossProcesses(url, notify, watcher) {
  const children = Array.from({ length: PROCESSES }, () =>
    spawn(process.execPath, [new URL(import.meta.url).pathname, "--worker", url, notify ? "notify" : "quiet"], {
      stdio: ["pipe", "pipe", "inherit"],
    }),
  );
  const next = children.map(lines);
  const stops = [];
  let heard = 0;
  for (const line of await Promise.all(next.map((n) => n()))) {
    for (const id of JSON.parse(line.slice("ready ".length))) stops.push(watcher.watch(id, () => heard++));
  }
  await new Promise((resolve) => setTimeout(resolve, 200)); // the watcher's LISTEN is in place
  for (const child of children) child.stdin.write("go\n");
  const seconds = Math.max(...(await Promise.all(next.map(async (n) => Number(await n())))));
  await Promise.all(children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", resolve)))));
  for (const stop of stops) stop();
  if (notify && heard === 0) throw new Error("the watcher heard no notice");
  return (PROCESSES * CHATS_PER_PROCESS * APPENDS_PER_CHAT) / seconds;
}

// A child started by appendsAcrossProcesses runs only its part (and exits).
if (process.argv[2] === "--worker") await worker(process.argv[3], process.argv[4] === "notify");

// BENCH_PG_SETTINGS='{"synchronous_commit":"off"}': an experiment's server settings, printed with the result.
const settings = JSON.parse(process.env.BENCH_PG_SETTINGS ?? "{}");
const server = await startServer(settings);
const dir = mkdtempSync(join(tmpdir(), "oda-bench-jsonl-"));
const pool = server.pool({ max: Math.max(...CHATS) });
const stores = { PostgresStore: new PostgresStore(pool), JsonlStore: new JsonlStore(dir) };
const results = [];
const notifyRates = { with: [], without: [] };
try {
  await stores.PostgresStore.migrate();
  if (process.env.BENCH_PARTS !== "notify") {
    for (const [op, perChat] of Object.entries(operations)) {
      for (const chats of CHATS) {
        for (const [name, store] of Object.entries(stores)) {
          await measure(store, chats, perChat); // warm-up: connections, prepared statements, page cache
          const rates = [];
          for (let run = 0; run < RUNS; run++) rates.push(await measure(store, chats, perChat));
          results.push({ store: name, op, chats, perSecond: Math.round(median(rates)), runs: RUNS });
        }
      }
    }
  }
  // With and without in turn, so a drift of the machine falls on both alike.
  await appendsAcrossProcesses(server.url, true, stores.PostgresStore); // warm-up
  for (let run = 0; run < NOTIFY_RUNS; run++) {
    notifyRates.with.push(await appendsAcrossProcesses(server.url, true, stores.PostgresStore));
    notifyRates.without.push(await appendsAcrossProcesses(server.url, false, stores.PostgresStore));
  }
} finally {
  await stores.PostgresStore.end();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

const rate = (store, op, chats) => results.find((r) => r.store === store && r.op === op && r.chats === chats).perSecond;
const rows = [["operation", "chats", "PostgresStore /s", "JsonlStore /s", "Postgres ÷ JSONL"]];
for (const op of results.length > 0 ? Object.keys(operations) : []) {
  for (const chats of CHATS) {
    const pg = rate("PostgresStore", op, chats);
    const jsonl = rate("JsonlStore", op, chats);
    rows.push([op, String(chats), String(pg), String(jsonl), (pg / jsonl).toFixed(2)]);
  }
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const r of rows) console.log(r.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  "));
const withNotify = median(notifyRates.with);
const withoutNotify = median(notifyRates.without);
// Each run's pair in turn: the median of their ratios, so a drift of the machine between runs falls on both alike.
const ratio = median(notifyRates.with.map((w, i) => w / notifyRates.without[i]));
console.log(
  `appends from ${PROCESSES} processes (${PROCESSES * CHATS_PER_PROCESS} chats, all watched): with NOTIFY ${Math.round(withNotify)}/s, without ${Math.round(withoutNotify)}/s (medians of ${NOTIFY_RUNS} runs), ratio ${ratio.toFixed(3)} (median of the runs' ratios)`,
);
console.log(`target postgres_append_throughput_with_notify_vs_without >= ${NOTIFY_TARGET}: ${ratio >= NOTIFY_TARGET ? "met" : "NOT met"}`);
const keys = { postgres_append_throughput_with_notify_vs_without: Number(ratio.toFixed(3)) };
console.log(
  JSON.stringify({
    bench: "postgres",
    settings,
    runs: RUNS,
    notifyRuns: NOTIFY_RUNS,
    opsPerRun: OPS,
    results,
    notify: {
      processes: PROCESSES,
      chats: PROCESSES * CHATS_PER_PROCESS,
      appendsPerRun: PROCESSES * CHATS_PER_PROCESS * APPENDS_PER_CHAT,
      with: notifyRates.with.map(Math.round),
      without: notifyRates.without.map(Math.round),
    },
    keys,
  }),
);
