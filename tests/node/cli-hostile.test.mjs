// The replay CLI on hostile files and pipes, as a real process: a FIFO or a
// directory is refused at once with a message and exit 1 (no blocking open);
// a reader that closes the pipe early ends it quietly with exit 0; a line
// longer than the 16 MiB limit is skipped without being held whole.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../../pkg/dist/entrypoints/cli.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "oda-cli-hostile-"));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const line = (entry) => JSON.stringify(entry) + "\n";
const session = { type: "session", v: 1, chatId: "c", workspace: "/w", scheduledTaskFolder: false, agent: "top-level" };

test("a FIFO as the path: refused at once with a message naming it, exit 1", () => {
  const fifo = join(dir, "chat.jsonl.fifo");
  execFileSync("mkfifo", [fifo]);
  const r = spawnSync(process.execPath, [cli, fifo], { encoding: "utf8", timeout: 10_000 });
  assert.equal(r.signal, null, "it did not block on open()");
  assert.equal(r.status, 1);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, `oda-tasks: ${fifo} is a FIFO (named pipe), not a regular file; pass a chat's .jsonl log file\n`);
});

test("a directory as the path: the same message for a directory, exit 1", () => {
  const r = spawnSync(process.execPath, [cli, dir], { encoding: "utf8", timeout: 10_000 });
  assert.equal(r.status, 1);
  assert.equal(r.stderr, `oda-tasks: ${dir} is a directory, not a regular file; pass a chat's .jsonl log file\n`);
});

test("stdout closed early (as `| head -1` does): a quiet exit 0, no stack trace", async () => {
  const file = join(dir, "long-chat.jsonl");
  const lines = [line(session), line({ type: "turn_started" })];
  for (let i = 0; i < 4000; i++) lines.push(line({ type: "todo_update", v: 1, todos: [{ content: `step ${i}`, status: "in_progress" }] }));
  writeFileSync(file, lines.join(""));
  const child = spawn(process.execPath, [cli, file], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  child.stdout.once("data", () => child.stdout.destroy());
  const [code, signal] = await new Promise((resolve) => child.on("exit", (c, s) => resolve([c, s])));
  assert.equal(stderr, "");
  assert.deepEqual([code, signal], [0, null]);
  // And through a real shell pipe.
  const sh = spawnSync("sh", ["-c", `"${process.execPath}" "${cli}" "${file}" | head -1; echo "exit $?"`], { encoding: "utf8" });
  assert.equal(sh.stdout, `Log: ${file}\nexit 0\n`);
  assert.equal(sh.stderr, "");
});

test("a 128 MiB single-line entry: reported and skipped, the lines after it read, memory growing by less than 32 MiB", () => {
  const file = join(dir, "huge-line.jsonl");
  const fd = openSync(file, "w");
  writeSync(fd, line(session) + '{"type":"message","role":"user","text":"');
  const block = Buffer.alloc(1 << 20, "a");
  // The reader holds at most 16 MiB of a line, whatever its length, and takes
  // room for those 16 MiB in one step once the line passes 1 MiB: its peak (the
  // held bytes, the reads) is about 20 MiB over a small log's (48 MiB while the
  // held bytes grew by doubling), so a line of 128 MiB tells a bounded reader
  // from one that keeps the line, and the bound catches the doubling's return.
  for (let i = 0; i < 128; i++) writeSync(fd, block);
  writeSync(
    fd,
    '"}\n' +
      line({ type: "turn_started" }) +
      line({ type: "todo_update", v: 1, todos: [{ content: "after the long line", status: "in_progress" }] }),
  );
  closeSync(fd);
  const small = join(dir, "small.jsonl");
  writeFileSync(small, line(session));
  const rss = (path) => {
    const r = spawnSync(
      process.execPath,
      ["--import", "data:text/javascript,process.on('exit',()=>process.stderr.write('maxrss '+process.resourceUsage().maxRSS))", cli, path],
      { encoding: "utf8", maxBuffer: 1 << 26 },
    );
    assert.equal(r.status, 0, r.stderr);
    return { out: r.stdout, kib: Number(/maxrss (\d+)/.exec(r.stderr)[1]) };
  };
  const base = rss(small);
  const huge = rss(file);
  assert.match(huge.out, /^ {2}3 entries, 1 unreadable line\(s\) left out$/m);
  assert.match(huge.out, /^ {2}line 2: longer than 16777216 bytes \(16 MiB\), skipped unread$/m);
  assert.match(huge.out, /\[~\] after the long line/);
  const grownMiB = (huge.kib - base.kib) / 1024;
  assert.ok(grownMiB < 32, `RSS grew by ${grownMiB.toFixed(0)} MiB for a 128 MiB line (limit 32)`);
});
