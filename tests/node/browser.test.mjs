// The package in a real browser: a plain <script type="module">, init once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pageResult } from "./support/browser.mjs";

const page = `<!doctype html><meta charset="utf-8"><title>oda-tasks</title>
<script type="module">
  import * as oda from "/pkg/dist/entrypoints/index.js";
  const out = {};
  try { oda.todoWrite([], { todos: [] }); out.before = "no error"; } catch (e) { out.before = e.message; }
  out.toolBeforeInit = oda.todoWriteTool.name;
  await oda.init();
  const log = [{ type: "session", chatId: "c", workspace: "/w", agent: "top-level" }, { type: "turn_started" }];
  const r = oda.todoWrite(log, { todos: [{ content: " Écrire 🧪 ", status: "in_progress" }] });
  out.write = r;
  log.push(r.entry);
  out.refusal = oda.todoWrite(log, { todos: [{ content: "a", status: "in_progress" }, { content: "b", status: "in_progress" }] });
  out.plan = oda.replayTodos(log).plan;
  const s = oda.suggestTask(log, { title: "Add retries", tldr: "why", brief: "do" });
  out.suggest = s.output;
  try { oda.replayTodos("nope"); } catch (e) { out.thrown = e instanceof Error ? e.message : String(e); }
  window.__result = out;
</script>`;

test("a browser loads the package with <script type=module>, init() once", async (t) => {
  const { out, errors } = await pageResult(t, page, "__result");
  assert.deepEqual(errors, []);
  assert.match(out.before, /^oda-tasks: the WebAssembly core is not initialised; call `await init\(\)` once/);
  assert.equal(out.toolBeforeInit, "todo_write");
  assert.deepEqual(out.write, {
    ok: true,
    entry: { type: "todo_update", v: 1, todos: [{ content: "Écrire 🧪", status: "in_progress" }] },
    output: "Updated todo list: 0 pending, 1 in progress, 0 completed",
  });
  assert.deepEqual(out.refusal, { ok: false, error: "Error: invalid todos: at most one task may be in_progress (got 2)" });
  assert.deepEqual(out.plan, { state: "running", todos: [{ content: "Écrire 🧪", status: "in_progress" }], turn: 1 });
  assert.equal(out.suggest, 'Suggested "Add retries". The user decides whether to start it; do not start it yourself.');
  assert.match(out.thrown, /^oda-tasks: the log must be an array/);
});
