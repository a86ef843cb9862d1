// The main job: the replay CLI, run as `npm start` runs it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../../pkg/dist/entrypoints/cli.js", import.meta.url));
const run = (...args) => execFileSync(process.execPath, [cli, ...args], { encoding: "utf8" });

test("with no path it replays the bundled example: list, cards with changes, plan, suggestions", () => {
  const out = run();
  assert.match(out, /Current list \(0 pending, 0 in progress, 4 completed\)\n {2}\[x\] Reproduce the double failure\n/);
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
    const lines = [{ type: "turn_started" }, { type: "todo_update", v: 1, todos: [{ content: "only step", status: "in_progress" }] }].map(
      (e) => JSON.stringify(e),
    );
    writeFileSync(file, lines[0] + "\n{oops\n" + lines[1] + '\n{"type":"todo_upd');
    const out = run(file);
    assert.match(out, /2 entries, 1 unreadable line\(s\) left out, a torn last line left out/);
    assert.match(out, /line 2: not JSON/);
    assert.match(out, /\[~\] only step/);
    assert.match(out, /Plan: running \(turn 1\)/);
    const json = JSON.parse(run(file, "--json"));
    assert.deepEqual(json.todos.todos, [{ content: "only step", status: "in_progress" }]);
    assert.equal(json.tornBytes, Buffer.byteLength('{"type":"todo_upd'));
    assert.deepEqual(
      json.unreadable.map((u) => u.line),
      [2],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a person's edit: its card says who made it; --json's card carries `by`", () => {
  const dir = mkdtempSync(join(tmpdir(), "oda-cli-"));
  try {
    const file = join(dir, "chat.jsonl");
    const lines = [
      { type: "todo_update", v: 1, todos: [{ content: "Ship", status: "pending" }] },
      { type: "todo_update", v: 1, todos: [{ content: "Ship", status: "completed" }], by: { name: "Ada\u001b[2J" } },
      { type: "todo_update", v: 1, todos: [], by: {} },
      { type: "todo_told", v: 1, text: "Error: the user edited the todo list, …" },
    ];
    writeFileSync(file, lines.map((e) => JSON.stringify(e)).join("\n"));
    const out = run(file);
    assert.match(out, /1\. Update to-do list — entry 0: 1 pending/);
    assert.match(out, /2\. Update to-do list — entry 1, edited by Ada\\u001b\[2J: 0 pending, 0 in progress, 1 completed/);
    assert.match(out, /3\. Update to-do list — entry 2, edited by the person: 0 pending/);
    assert.match(out, /4 entries\n/);
    const json = JSON.parse(run(file, "--json"));
    assert.deepEqual(
      json.todos.cards.map((c) => c.by),
      [undefined, { name: "Ada\u001b[2J" }, {}],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a missing file is a clear error with a non-zero exit", () => {
  const r = spawnSync(process.execPath, [cli, "/nonexistent/chat.jsonl"], { encoding: "utf8" });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^oda-tasks: cannot read \/nonexistent\/chat.jsonl/);
});

test("control characters in todos, titles and reasons are shown visibly; --json stays exact", () => {
  const dir = mkdtempSync(join(tmpdir(), "oda-cli-"));
  try {
    const file = join(dir, "chat.jsonl");
    const evil = "\u001b]0;pwned\u0007fake\r[x] done\u001b[2J\u009b31m\u202e";
    const lines = [
      { type: "session", workspace: "/w", agent: "top-level" },
      { type: "turn_started" },
      { type: "todo_update", v: 1, todos: [{ content: evil, status: "in_progress" }] },
      { type: "suggestion_offered", v: 1, id: "s1", title: `Title ${evil}`, tldr: `tl\u001b]52;c;Zm9v\u0007dr`, brief: "b" },
      {
        type: "todo_update",
        v: 1,
        todos: [
          { content: evil, status: "completed" },
          { content: "b\u0000", status: "pending" },
        ],
      },
    ].map((e) => JSON.stringify(e));
    writeFileSync(file, lines.join("\n") + "\n");
    const out = run(file);
    assert.doesNotMatch(out, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/, "no control character reaches the terminal but line ends");
    assert.match(out, /\[x\] \\u001b\]0;pwned\\u0007fake\\u000d\[x\] done\\u001b\[2J\\u009b31m\\u202e/);
    assert.match(out, /Title \\u001b\]0;pwned/);
    assert.match(out, /tl\\u001b\]52;c;Zm9v\\u0007dr/);
    assert.match(out, /\+ b\\u0000 \(pending\)/);
    const json = JSON.parse(run(file, "--json"));
    assert.equal(json.todos.todos[0].content, evil);
    assert.equal(json.suggestions.open[0].title, `Title ${evil}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a chat with more cards than a page prints every card, in order", () => {
  const dir = mkdtempSync(join(tmpdir(), "oda-cli-"));
  try {
    const file = join(dir, "chat.jsonl");
    const lines = [JSON.stringify({ type: "turn_started" })];
    for (let i = 0; i < 1203; i++)
      lines.push(JSON.stringify({ type: "todo_update", v: 1, todos: [{ content: `step ${i}`, status: "pending" }] }));
    writeFileSync(file, lines.join("\n") + "\n");
    const out = run(file);
    assert.match(out, /Cards \(1203\)/);
    const numbers = [...out.matchAll(/^ {2}(\d+)\. Update to-do list — entry (\d+)/gm)].map((m) => [Number(m[1]), Number(m[2])]);
    assert.deepEqual(
      numbers,
      Array.from({ length: 1203 }, (_, i) => [i + 1, i + 1]),
    );
    assert.match(out, /1203\. Update to-do list — entry 1203, turn 1: 1 pending/);
    assert.match(out, /\+ step 1202 \(pending\)\n {7}- step 1201\n/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
