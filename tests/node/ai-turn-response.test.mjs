// aiTurnResponse, aiTurnStream and aiTools({ writer }) with the real AI SDK
// (`ai` 7, the workspace's devDependency) and its mock model, against the
// built package: ai 7 needs Node >= 22, so the suite
// (tests/node/support/ai-response-suite.mjs) runs under tests/runtimes' Node 22.
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

test("aiTurnResponse and aiTurnStream under Node 22 with the real ai 7", { timeout: 120_000 }, () => {
  const r = spawnSync(node22, ["--test", "--test-reporter=spec", "tests/node/support/ai-response-suite.mjs"], {
    cwd: root,
    encoding: "utf8",
    env,
  });
  assert.equal(r.status, 0, `${r.stdout.slice(-8000)}\n${r.stderr.slice(-3000)}`);
  assert.match(r.stdout, /ℹ pass 8\b/);
  assert.match(r.stdout, /ℹ fail 0\b/);
});
