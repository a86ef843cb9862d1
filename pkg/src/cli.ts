#!/usr/bin/env node
// oda-tasks [log.jsonl] [--json]: replays a chat's JSONL log and prints its
// task list, the "Update to-do list" cards with what each changed, the plan,
// and the suggestions. With no path it replays the bundled example chat.
import { closeSync, openSync, readSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ChatState } from "./index.node.js";
import type { JsonlReport, TodoItem, TodoStatus } from "./core.js";

const USAGE = `usage: oda-tasks [log.jsonl] [--json]

Replays a chat's JSONL log and prints its task list, the "Update to-do list"
cards with what each changed, the plan and the suggestions. With no path it
replays the bundled example chat.

  --json      print the replay objects as JSON instead
  -h, --help  print this help
`;
const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const json = args.includes("--json");
const paths = args.filter((a) => a !== "--json");
if (paths.length > 1 || paths.some((p) => p.startsWith("-"))) {
  process.stderr.write(USAGE);
  process.exit(2);
}
const path = paths[0] ?? fileURLToPath(new URL("../example/chat.jsonl", import.meta.url));

// The file's bytes go into the WASM core chunk by chunk: memory stays flat
// in the log's length, and no entry becomes a JS object.
const state = ChatState.empty();
let report: JsonlReport;
try {
  const fd = openSync(path, "r");
  try {
    const chunk = new Uint8Array(1 << 20);
    for (let n; (n = readSync(fd, chunk)) > 0; ) state.ingestJsonl(chunk.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  report = state.endJsonl();
} catch (e) {
  process.stderr.write(`oda-tasks: cannot read ${path}: ${(e as Error).message}\n`);
  process.exit(1);
}
const todos = state.replayTodos();
const suggestions = state.replaySuggestions();
const entries = state.length;
state.free();

if (json) {
  const out = { todos, suggestions, unreadable: report.unreadable, tornBytes: report.tornBytes };
  process.stdout.write(JSON.stringify(out, null, 2) + "\n");
  process.exit(0);
}

const mark: Record<TodoStatus, string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };
const list = (items: TodoItem[], indent: string) =>
  items.length === 0 ? `${indent}(empty)` : items.map((t) => `${indent}${mark[t.status]} ${t.content}`).join("\n");
const out: string[] = [];

out.push(`Log: ${path}`);
out.push(`  ${entries} entries` +
  (report.unreadable.length ? `, ${report.unreadable.length} unreadable line(s) left out` : "") +
  (report.tornBytes > 0 ? ", a torn last line left out" : ""));
for (const u of report.unreadable) out.push(`  line ${u.line}: not JSON (${u.reason})`);
for (const s of todos.skipped) out.push(`  entry ${s.index}${s.type ? ` (${s.type})` : ""} skipped: ${s.reason}`);

const c = todos.cards.at(-1)?.counts;
out.push("", `Current list` + (c ? ` (${c.pending} pending, ${c.inProgress} in progress, ${c.completed} completed)` : ""));
out.push(list(todos.todos, "  "));

out.push("", `Cards (${todos.cards.length})`);
todos.cards.forEach((card, n) => {
  const { added, removed, statusChanged, moved } = card.changes;
  out.push(`  ${n + 1}. Update to-do list — entry ${card.index}${card.turn === null ? "" : `, turn ${card.turn}`}: ` +
    `${card.counts.pending} pending, ${card.counts.inProgress} in progress, ${card.counts.completed} completed`);
  for (const a of added) out.push(`       + ${a.content} (${a.status})`);
  for (const r of removed) out.push(`       - ${r.content}`);
  for (const s of statusChanged) out.push(`       ~ ${s.content}: ${s.from} -> ${s.to}`);
  for (const m of moved) out.push(`       ^ ${m.content}: moved from ${m.from + 1} to ${m.to + 1}`);
  if (!added.length && !removed.length && !statusChanged.length && !moved.length) out.push("       (no change)");
});

const plan = todos.plan;
out.push("", `Plan: ${plan.state === "none" ? "nothing shown" : plan.state}` + (plan.turn === null ? "" : ` (turn ${plan.turn})`));
if (plan.state !== "none") out.push(list(plan.todos, "  "));

out.push("", `Suggestions: ${suggestions.open.length} open, ${suggestions.settled.length} settled`);
for (const s of suggestions.open) out.push(`  open      ${s.id}  ${s.title} — ${s.tldr}`);
for (const s of suggestions.settled)
  out.push(`  ${s.outcome.padEnd(9)} ${s.id}  ${s.title}` + (s.chatId ? ` -> chat ${s.chatId}` : ""));

process.stdout.write(out.join("\n") + "\n");
