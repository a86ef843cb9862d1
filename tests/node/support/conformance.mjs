// The official MCP conformance suite, a dev dependency of tests/runtimes
// (beside the Node 22 it needs), installed there on demand from the npm
// registry as the runtimes are (support/node22.mjs).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { root } from "./browser.mjs";

const runtimes = join(root, "tests/runtimes");
const node22 = join(runtimes, "node_modules/node-22/bin/node");
const suite = join(runtimes, "node_modules/@modelcontextprotocol/conformance/dist/index.js");

/**
 * `[node, script]`: the Node 22 binary and the suite's CLI (`conformance`),
 * after installing tests/runtimes when either is missing.
 *
 * @example
 * const [node, script] = conformanceCommand();
 * execFileSync(node, [script, "server", "--url", "http://localhost:8765/mcp", "--scenario", "ping"]);
 */
export function conformanceCommand() {
  if (!existsSync(node22) || !existsSync(suite)) {
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd: runtimes, stdio: "ignore" });
  }
  return [node22, suite];
}
