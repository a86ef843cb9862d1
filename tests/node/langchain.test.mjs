// oda-tasks/langchain (odaTasksMiddleware): the suite in
// children/langchain-suite.mjs runs real LangChain v1 agents (`langchain` and
// `@langchain/core`, from the workspace's devDependencies) with LangChain's
// own fake chat model against the BUILT package, under Node 22 (tests/runtimes).
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

test("odaTasksMiddleware in createAgent under Node 22: texts, artifacts, one turn per run (invoke, stream, aborted, throwing), reminder, refusals", () => {
  const r = spawnSync(node22, ["--test", "--test-reporter=spec", join(root, "tests/node/children/langchain-suite.mjs")], {
    cwd: root,
    encoding: "utf8",
    env,
  });
  assert.equal(r.status, 0, `${r.stdout.slice(-6000)}\n${r.stderr.slice(-3000)}`);
  assert.match(r.stdout, /ℹ pass 17\b/);
  assert.match(r.stdout, /ℹ fail 0\b/);
});
