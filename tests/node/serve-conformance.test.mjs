// The official MCP conformance suite (`@modelcontextprotocol/conformance`
// 0.1.16, a dev dependency of tests/runtimes, run under its Node 22) against
// `oda-tasks serve --no-auth`, as a new user would try it: the server
// scenarios server-initialize, ping, tools-list and dns-rebinding-protection,
// each check read from what the suite prints. No network: the suite comes
// from the npm registry at install time only.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { conformanceCommand } from "./support/conformance.mjs";
import { startServe } from "./support/oda-serve.mjs";

/** Each scenario and the checks it must report as passed. */
const SCENARIOS = {
  "server-initialize": ["server-initialize"],
  ping: ["ping"],
  "tools-list": ["tools-list"],
  "dns-rebinding-protection": ["localhost-host-rebinding-rejected", "localhost-host-valid-accepted"],
};

test("the MCP conformance suite's server scenarios pass against serve --no-auth", async (t) => {
  const [node, suite] = conformanceCommand();
  const dir = mkdtempSync(join(tmpdir(), "oda-conformance-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { url } = await startServe(["--store", dir, "--no-auth"], { env: {}, t });
  // The suite's DNS rebinding scenario wants the server by the name localhost.
  const mcp = `${url.replace("127.0.0.1", "localhost")}/mcp`;
  for (const [scenario, checks] of Object.entries(SCENARIOS)) {
    const { stdout, stderr } = await promisify(execFile)(node, [suite, "server", "--url", mcp, "--scenario", scenario], {
      env: { PATH: process.env.PATH, NO_COLOR: "1" },
      timeout: 120_000,
    }).catch((e) => assert.fail(`${scenario} exited with ${e.code}:\n${e.stdout}\n${e.stderr}`));
    // The suite colours its lines whatever NO_COLOR says.
    const text = stdout.replace(/\x1b\[[0-9;]*m/g, "");
    const reported = [...text.matchAll(/^\S+ \[([a-z-]+) *\] (SUCCESS|FAILURE|WARNING|INFO|SKIPPED) /gm)].map(([, id, status]) => [
      id,
      status,
    ]);
    assert.deepEqual(
      reported,
      checks.map((id) => [id, "SUCCESS"]),
      `${scenario}:\n${text}\n${stderr}`,
    );
    assert.match(text, new RegExp(`^Passed: ${checks.length}/${checks.length}, 0 failed, 0 warnings$`, "m"), `${scenario}:\n${text}`);
  }
});
