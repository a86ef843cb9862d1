// Runs a command (scripts/ci/node: `node --test ...`) with what the test files
// share made once for the whole run, and removed after it:
//   ODA_TEST_TARBALL   the built package packed once (consumer.mjs's packTarball)
//   ODA_TEST_POSTGRES  one PostgreSQL server (postgres.mjs's sharedPostgres: a database per file)
//   ODA_TEST_RUNTIMES  tests/runtimes installed (consumer.mjs's runtimes(): files running at once
//                      must not run npm install in one folder at once)
// Each file run alone makes its own instead.
//   node tests/node/support/shared-run.mjs node --test tests/node/store-postgres*.test.mjs
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packBuilt, runtimes } from "./consumer.mjs";
import { startServer } from "./postgres.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node tests/node/support/shared-run.mjs <command> [args ...]");
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), "oda-run-"));
let server;
let status = 1;
try {
  const tarball = packBuilt(dir);
  runtimes();
  // Files run at once each hold their pools and children's: room for several.
  server = await startServer({ max_connections: 500 });
  const child = spawn(command, args, {
    stdio: "inherit",
    env: { ...process.env, ODA_TEST_TARBALL: tarball, ODA_TEST_POSTGRES: server.url, ODA_TEST_RUNTIMES: "installed" },
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  status = await new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
} finally {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(status);
