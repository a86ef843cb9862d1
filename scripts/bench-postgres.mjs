// Benchmark: PostgresStore (a throwaway local server, fsync on) beside
// JsonlStore (a temp directory, fsync per append) on the same machine.
// Measures conditional appends per second and runTool calls per second
// (read the log, decide, append) with 1, 8 and 32 chats worked on at once,
// each chat by one sequential caller. Prints a table of medians over runs,
// then one JSON line. Run: `npm run bench:postgres` (BENCH_RUNS=5 by default).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runTool } from "oda-tasks";
import { JsonlStore } from "oda-tasks/node";
import { PostgresStore } from "oda-tasks/postgres";
import { startServer } from "../tests/node/support/postgres.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CHATS = [1, 8, 32];
/** Operations per run, split over the chats (so every run does about the same work). */
const OPS = 640;

const session = (chatId) => ({
  type: "session",
  chatId,
  workspace: "/w",
  scheduledTaskFolder: false,
  agent: "top-level",
  settings: { preset: "coder", model: "m", permission: "auto" },
});

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

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const server = await startServer();
const dir = mkdtempSync(join(tmpdir(), "oda-bench-jsonl-"));
const pool = server.pool({ max: Math.max(...CHATS) });
const stores = { PostgresStore: new PostgresStore(pool), JsonlStore: new JsonlStore(dir) };
const results = [];
try {
  await stores.PostgresStore.migrate();
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
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

const rate = (store, op, chats) => results.find((r) => r.store === store && r.op === op && r.chats === chats).perSecond;
const rows = [["operation", "chats", "PostgresStore /s", "JsonlStore /s", "Postgres ÷ JSONL"]];
for (const op of Object.keys(operations)) {
  for (const chats of CHATS) {
    const pg = rate("PostgresStore", op, chats);
    const jsonl = rate("JsonlStore", op, chats);
    rows.push([op, String(chats), String(pg), String(jsonl), (pg / jsonl).toFixed(2)]);
  }
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const r of rows) console.log(r.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  "));
console.log(JSON.stringify({ bench: "postgres", runs: RUNS, opsPerRun: OPS, results }));
