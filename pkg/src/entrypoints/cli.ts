#!/usr/bin/env node
// oda-tasks [log.jsonl] [--json]: replays a chat's JSONL log and prints its
// task list, the "Update to-do list" cards with what each changed, the plan,
// and the suggestions. With no path it replays the bundled example chat.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { fileURLToPath } from "node:url";
import { ChatState } from "./index.node.js";
import type { JsonlReport, TodoItem, TodoStatus } from "../core/functions.js";

/** The longest line read (16 MiB, 16 times the largest tool input the package records by default); longer lines are skipped unread. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

const USAGE = `usage: oda-tasks [log.jsonl] [--json]
       oda-tasks mcp --store <dir|url>     (MCP server on stdio; mcp --help)
       oda-tasks serve --store <dir|url>   (MCP, chat API and pages over HTTP; serve --help)

Replays a chat's JSONL log and prints its task list, the "Update to-do list"
cards with what each changed, the plan and the suggestions. With no path it
replays the bundled example chat. The path must be a regular file; a line
longer than 16 MiB is reported and skipped without being read into memory.

  --json      print the replay objects as JSON instead
  -h, --help  print this help
`;
// A reader that stops early (\`| head -1\`) closes the pipe: the output is not wanted any more, which is no error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(0);
    throw e;
  });
}

// A command named first loads its own modules (the MCP SDK) only then.
const [command, ...rest] = process.argv.slice(2);
if (command === "mcp") {
  await (await import("../cli/mcp.js")).runMcp(rest);
  process.exit(0);
} else if (command === "serve") await (await import("../cli/serve.js")).serveCommand(rest);
else replay(process.argv.slice(2));

/** `oda-tasks [log.jsonl] [--json]`: the replay. */
function replay(args: string[]): void {
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
  const path = paths[0] ?? fileURLToPath(new URL("../../example/chat.jsonl", import.meta.url));

  // The file's bytes go into the WASM core chunk by chunk: memory stays flat
  // in the log's length, and no entry becomes a JS object.
  const state = ChatState.empty({ maxLineBytes: MAX_LINE_BYTES });
  let report: JsonlReport;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; what is not a regular file is refused before a read.
    const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) {
        process.stderr.write(`oda-tasks: ${path} is ${kind(stats)}, not a regular file; pass a chat's .jsonl log file\n`);
        process.exit(1);
      }
      const chunk = new Uint8Array(1 << 20);
      for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) state.ingestJsonl(chunk.subarray(0, n));
    } finally {
      closeSync(fd);
    }
    report = state.endJsonl();
  } catch (e) {
    process.stderr.write(`oda-tasks: cannot read ${path}: ${(e as Error).message}\n`);
    process.exit(1);
  }
  const entries = state.length;

  /** What sits at a path that is not a regular file, for the error. */
  function kind(stats: Stats): string {
    if (stats.isDirectory()) return "a directory";
    if (stats.isFIFO()) return "a FIFO (named pipe)";
    if (stats.isSocket()) return "a socket";
    if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
    return "not a file";
  }
  if (json) {
    // Exact: the replay objects as the API answers them.
    const out = {
      todos: state.replayTodos(),
      suggestions: state.replaySuggestions(),
      unreadable: report.unreadable,
      tornBytes: report.tornBytes,
    };
    state.free();
    process.stdout.write(JSON.stringify(out, null, 2) + "\n");
    process.exit(0);
  }

  /**
   * Text from the log as the terminal may show it: control characters (C0, DEL,
   * C1), line and paragraph separators and bidirectional overrides are written
   * as `\uXXXX`, so a todo or a title cannot move the cursor, set the title,
   * write the clipboard or overwrite a line.
   */
  const visible = (text: string): string =>
    text.replace(
      /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );

  const view = state.view({ cards: 0 });
  const mark: Record<TodoStatus, string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };
  const list = (items: TodoItem[], indent: string) =>
    items.length === 0 ? `${indent}(empty)` : items.map((t) => `${indent}${mark[t.status]} ${visible(t.content)}`).join("\n");
  const write = (lines: string[]) => process.stdout.write(lines.join("\n") + "\n");

  const out: string[] = [];
  out.push(`Log: ${visible(path)}`);
  out.push(
    `  ${entries} entries` +
      (report.unreadable.length ? `, ${report.unreadable.length} unreadable line(s) left out` : "") +
      (report.tornBytes > 0 ? ", a torn last line left out" : ""),
  );
  const TOO_LONG = "the line is too long to read";
  for (const u of report.unreadable) {
    out.push(
      u.reason === TOO_LONG
        ? `  line ${u.line}: longer than ${MAX_LINE_BYTES} bytes (16 MiB), skipped unread`
        : `  line ${u.line}: not JSON (${visible(u.reason)})`,
    );
  }
  for (const s of view.skipped) out.push(`  entry ${s.index}${s.type ? ` (${visible(s.type)})` : ""} skipped: ${visible(s.reason)}`);

  const last = view.cardCount > 0 ? state.cards(-1)[0] : undefined;
  const c = last?.counts;
  out.push("", `Current list` + (c ? ` (${c.pending} pending, ${c.inProgress} in progress, ${c.completed} completed)` : ""));
  out.push(list(view.todos, "  "));
  out.push("", `Cards (${view.cardCount})`);
  write(out);

  // The cards a page at a time: a long chat's cards are never all in memory at once.
  const PAGE = 500;
  for (let from = 0; from < view.cardCount; from += PAGE) {
    const page: string[] = [];
    state.cards(from, from + PAGE).forEach((card, k) => {
      const { added, removed, statusChanged, moved } = card.changes;
      page.push(
        `  ${from + k + 1}. Update to-do list — entry ${card.index}${card.turn === null ? "" : `, turn ${card.turn}`}` +
          (card.by === undefined ? "" : `, edited by ${card.by.name === undefined ? "the person" : visible(card.by.name)}`) +
          ": " +
          `${card.counts.pending} pending, ${card.counts.inProgress} in progress, ${card.counts.completed} completed`,
      );
      for (const a of added) page.push(`       + ${visible(a.content)} (${a.status})`);
      for (const r of removed) page.push(`       - ${visible(r.content)}`);
      for (const s of statusChanged) page.push(`       ~ ${visible(s.content)}: ${s.from} -> ${s.to}`);
      for (const m of moved) page.push(`       ^ ${visible(m.content)}: moved from ${m.from + 1} to ${m.to + 1}`);
      if (!added.length && !removed.length && !statusChanged.length && !moved.length) page.push("       (no change)");
    });
    write(page);
  }
  state.free();

  const tail: string[] = [];
  const plan = view.plan;
  tail.push("", `Plan: ${plan.state === "none" ? "nothing shown" : plan.state}` + (plan.turn === null ? "" : ` (turn ${plan.turn})`));
  if (plan.state !== "none") tail.push(list(plan.todos, "  "));

  tail.push("", `Suggestions: ${view.open.length} open, ${view.settled.length} settled`);
  for (const s of view.open) tail.push(`  open      ${visible(s.id)}  ${visible(s.title)} — ${visible(s.tldr)}`);
  for (const s of view.settled)
    tail.push(`  ${s.outcome.padEnd(9)} ${visible(s.id)}  ${visible(s.title)}` + (s.chatId ? ` -> chat ${visible(s.chatId)}` : ""));
  write(tail);
}
