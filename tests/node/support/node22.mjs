// The suites that need Node >= 22 (ai 7, LangChain v1) run in a child under
// tests/runtimes' Node 22; the parent test checks the child's own report.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { root } from "./browser.mjs";

const runtimes = join(root, "tests/runtimes");
const node22 = join(runtimes, "node_modules/node-22/bin/node");

/**
 * Runs the test file `suite` (a path from the repository's root) under Node 22
 * and asserts it passed `passes` tests and failed none; `tail` bounds the
 * stdout quoted on failure.
 */
export function runUnderNode22(suite, passes, tail = 6000) {
  if (!existsSync(node22)) {
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd: runtimes, stdio: "ignore" });
  }
  // Without the parent runner's NODE_TEST_CONTEXT, the child reports to its own stdout.
  const env = Object.fromEntries(Object.entries({ ...process.env, NO_COLOR: "1" }).filter(([k]) => k !== "NODE_TEST_CONTEXT"));
  const r = spawnSync(node22, ["--test", "--test-reporter=spec", join(root, suite)], { cwd: root, encoding: "utf8", env });
  assert.equal(r.status, 0, `${r.stdout.slice(-tail)}\n${r.stderr.slice(-3000)}`);
  assert.match(r.stdout, new RegExp(`ℹ pass ${passes}\\b`));
  assert.match(r.stdout, /ℹ fail 0\b/);
}
