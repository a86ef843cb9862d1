// The main job: the replay CLI, run as `npm start` runs it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../../pkg/dist/cli.js", import.meta.url));
const run = (...args) => execFileSync(process.execPath, [cli, ...args], { encoding: "utf8" });

test("with no path it replays the bundled example: list, cards with changes, plan, suggestions", () => {
  const out = run();
  assert.match(out, /Current list \(0 pending, 0 in progress, 4 completed\)\n  \[x\] Reproduce the double failure\n/);
  assert.match(out, /Cards \(4\)/);
  assert.match(out, /~ Reproduce the double failure: in_progress -> completed/);
  assert.match(out, /\+ Check the other callers of retry\(\) \(pending\)/);
  assert.match(out, /\^ Add a regression test: moved from 4 to 3/);
  assert.match(out, /- Check the other callers of retry\(\)/);
  assert.match(out, /Plan: finished \(turn 2\)/);
  assert.match(out, /Suggestions: 1 open, 1 settled/);
  assert.match(out, /dismissed +s1 +Move upload retries into a shared helper/);
});

test("a path, a torn last line and an unreadable line; --json gives the replay objects", () => {
  const dir = mkdtempSync(join(tmpdir(), "oda-cli-"));
  try {
    const file = join(dir, "chat.jsonl");
    const lines = [
      { type: "turn_started" },
      { type: "todo_update", v: 1, todos: [{ content: "only step", status: "in_progress" }] },
    ].map((e) => JSON.stringify(e));
    writeFileSync(file, lines[0] + "\n{oops\n" + lines[1] + '\n{"type":"todo_upd');
    const out = run(file);
    assert.match(out, /2 entries, 1 unreadable line\(s\) left out, a torn last line left out/);
    assert.match(out, /line 2: not JSON/);
    assert.match(out, /\[~\] only step/);
    assert.match(out, /Plan: running \(turn 1\)/);
    const json = JSON.parse(run(file, "--json"));
    assert.deepEqual(json.todos.todos, [{ content: "only step", status: "in_progress" }]);
    assert.equal(json.tornBytes, Buffer.byteLength('{"type":"todo_upd'));
    assert.deepEqual(json.unreadable.map((u) => u.line), [2]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a missing file is a clear error with a non-zero exit", () => {
  const r = spawnSync(process.execPath, [cli, "/nonexistent/chat.jsonl"], { encoding: "utf8" });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^oda-tasks: cannot read \/nonexistent\/chat.jsonl/);
});
