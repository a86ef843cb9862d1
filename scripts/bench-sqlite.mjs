// `npm run bench:sqlite`: SqliteStore on a real database file (WAL, the
// driver's default synchronous mode) through better-sqlite3 (and node:sqlite
// when this Node has it). Measures the warm runTool p50 on a chat of 100k
// entries against one of 10 (target <= 1.2, as the other stores), and Starts
// per second with 4 processes starting offers on one file. Prints a table of
// medians, then one JSON line; asserts no timing. `npm run bench:sqlite` runs
// on the Node of npm test (20: better-sqlite3); node:sqlite is measured with
// tests/runtimes/node_modules/node-24/bin/node scripts/bench-sqlite.mjs.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ChatStateCache, runTool } from "oda-tasks";
import { SqliteStore } from "oda-tasks/sqlite";
import { sqliteDrivers } from "../tests/node/support/sqlite.mjs";
import { chatEntries } from "./bench/generate.mjs";
import { median, session } from "./bench/sql-bench.mjs";

const CHILD = fileURLToPath(new URL("../tests/node/children/sqlite-child.mjs", import.meta.url));
const PROCESSES = 4;
const STARTS_PER_PROCESS = 50;
const CALLS = 60;
const WARMUP = 20;
const tmp = mkdtempSync(join(tmpdir(), "oda-bench-sqlite-"));
const rows = [["driver", "measure", "value"]];
const out = { bench: "sqlite", node: process.version };

const twentyItems = (n) => ({
  todos: Array.from({ length: 20 }, (_, i) => ({
    content: `Step ${i + 1} of the bench plan, round ${n}`,
    status: i < n % 20 ? "completed" : i === n % 20 ? "in_progress" : "pending",
  })),
});

/**
 * The p50 (µs) of warm todo_write calls on each of `chats` (name → entry
 * count). The first call on each, untimed, warms its cache; then WARMUP
 * untimed rounds, then CALLS timed ones, each round calling every chat in
 * turn, so a noisy neighbour or the JIT slows them alike.
 */
async function warmCalls(store, chats) {
  const cache = new ChatStateCache(store, { size: 8 });
  const times = {};
  for (const [chatId, count] of Object.entries(chats)) {
    await store.create(chatId, [...chatEntries(count, { seed: 42, maxOffers: 0 })]);
    times[chatId] = [];
  }
  for (let n = 0; n <= WARMUP + CALLS; n++) {
    for (const chatId of Object.keys(chats)) {
      const t = performance.now();
      const r = await runTool(store, chatId, { name: "todo_write", input: twentyItems(n) }, { cache });
      if (n > WARMUP) times[chatId].push((performance.now() - t) * 1000);
      if (!r.ok) throw new Error(r.error);
    }
  }
  cache.clear();
  return Object.fromEntries(Object.entries(times).map(([chatId, t]) => [chatId, median(t)]));
}

/** Starts per second: PROCESSES processes, each starting STARTS_PER_PROCESS offers (one per chat) on one file. */
async function startsPerSecond(driver, open, file) {
  const store = new SqliteStore(open(file));
  await store.migrate();
  const total = PROCESSES * STARTS_PER_PROCESS;
  for (let k = 0; k < total; k++) {
    const chatId = `offer-${k}`;
    await store.create(chatId, [session(chatId), { type: "turn_started" }]);
    const r = await runTool(store, chatId, {
      name: "suggest_task",
      input: { title: "Add retries", tldr: "Flaky uploads", brief: "Retry uploads." },
    });
    if (!r.ok) throw new Error(r.error);
  }
  const children = Array.from({ length: PROCESSES }, (_, p) => {
    const proc = spawn(
      process.execPath,
      [CHILD, driver, file, "starts", "offer-", "s1", `${p * STARTS_PER_PROCESS}:${STARTS_PER_PROCESS}`],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    let output = "";
    proc.stdout.setEncoding("utf8").on("data", (c) => (output += c));
    const ready = new Promise((resolve) => proc.stdout.on("data", () => output.startsWith("ready\n") && resolve()));
    const done = new Promise((resolve, reject) =>
      proc.on("close", (code) =>
        code === 0 ? resolve(JSON.parse(output.trim().split("\n").at(-1))) : reject(new Error(`child exited ${code}`)),
      ),
    );
    return { proc, ready, done };
  });
  await Promise.all(children.map((c) => c.ready));
  const start = performance.now();
  for (const c of children) c.proc.stdin.end("go\n");
  const results = (await Promise.all(children.map((c) => c.done))).flat();
  const seconds = (performance.now() - start) / 1000;
  const failed = results.filter((r) => "error" in r);
  if (failed.length > 0) throw new Error(failed[0].error);
  return total / seconds;
}

try {
  for (const [driver, open] of Object.entries(await sqliteDrivers())) {
    const file = join(tmp, `${driver.replace(":", "-")}.db`);
    const store = new SqliteStore(open(file));
    await store.migrate();
    const p50s = await warmCalls(store, { "chat-10": 10, "chat-100k": 100_000 });
    const p50 = { small: p50s["chat-10"], large: p50s["chat-100k"] };
    const ratio = p50.large / p50.small;
    const starts = await startsPerSecond(driver, open, join(tmp, `${driver.replace(":", "-")}-starts.db`));
    rows.push([driver, "warm runTool todo_write p50, chat of 10 entries", `${p50.small.toFixed(0)} µs`]);
    rows.push([driver, "warm runTool todo_write p50, chat of 100k entries", `${p50.large.toFixed(0)} µs`]);
    rows.push([driver, "100k vs 10 (target <= 1.2)", ratio.toFixed(2)]);
    rows.push([driver, `Starts per second, ${PROCESSES} processes on one file`, starts.toFixed(0)]);
    out[driver] = {
      call_us_p50_10: Math.round(p50.small),
      call_us_p50_100k: Math.round(p50.large),
      call_ratio_100k_vs_10: Number(ratio.toFixed(3)),
      starts_per_second_4_processes: Math.round(starts),
    };
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const r of rows) console.log(r.map((cell, i) => cell.padEnd(widths[i])).join("  "));
console.log(JSON.stringify(out));
