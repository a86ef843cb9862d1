// The README's end-to-end example, run as printed against the built package:
// its output must be the text block printed after it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const readme = readFileSync(join(root, "README.md"), "utf8");

test("the README's chat-app example prints what the README says it prints", (t) => {
  const block = readme.match(/<!-- file: chat\.mjs -->\n```js\n([\s\S]*?)```/);
  assert.ok(block, "README.md prints chat.mjs");
  const printed = readme.slice(block.index + block[0].length).match(/```text\n([\s\S]*?)```/);
  assert.ok(printed, "README.md prints the example's output after it");
  // Inside the repository, so that `oda-tasks` resolves to the built package (the workspace link).
  mkdirSync(join(root, "test-artifacts"), { recursive: true });
  const dir = mkdtempSync(join(root, "test-artifacts", "readme-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "chat.mjs"), block[1]);
  const r = spawnSync(process.execPath, ["chat.mjs"], { cwd: dir, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, printed[1]);
  // The store wrote real files in the folder the example names.
  assert.ok(readFileSync(join(dir, "chats", "chat-1.jsonl"), "utf8").includes('"type":"suggestion_settled"'));
});
