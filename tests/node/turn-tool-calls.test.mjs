// aiTurn's rule for tool calls (docs/decisions.md, "A turn and its tool calls"):
// the suite in children/turn-tool-calls-suite.mjs runs the real Vercel AI SDK
// (`ai` 7, from the workspace's devDependencies) with its mock models against
// the BUILT package, under Node 22, which `ai` 7 needs (tests/runtimes).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { root } from "./support/browser.mjs";

const runtimes = join(root, "tests/runtimes");
const node22 = join(runtimes, "node_modules/node-22/bin/node");
if (!existsSync(node22)) {
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd: runtimes, stdio: "ignore" });
}
// Without the parent runner's NODE_TEST_CONTEXT, the child reports to its own stdout.
const env = Object.fromEntries(Object.entries({ ...process.env, NO_COLOR: "1" }).filter(([k]) => k !== "NODE_TEST_CONTEXT"));

test("aiTurn with generateText and streamText, aborted or throwing while a todo_write is recorded: the turn ends after it; a late call is refused", () => {
  const r = spawnSync(node22, ["--test", "--test-reporter=spec", join(root, "tests/node/children/turn-tool-calls-suite.mjs")], {
    cwd: root,
    encoding: "utf8",
    env,
  });
  assert.equal(r.status, 0, `${r.stdout.slice(-6000)}\n${r.stderr.slice(-3000)}`);
  assert.match(r.stdout, /ℹ pass 6\b/);
  assert.match(r.stdout, /ℹ fail 0\b/);
});
