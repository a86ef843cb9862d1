// The SQLite store's own test files (store-sqlite, store-sqlite-processes, store-sqlite-watch)
// on the runtimes whose driver is built in: Node 22 and 24 (node:sqlite,
// with no flag) and Bun (bun:sqlite, under `bun test`). Node 20, which runs
// npm test, covers better-sqlite3 itself. The runtimes are the registry
// packages of tests/runtimes/package.json.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { root } from "./support/browser.mjs";
import { runtimes } from "./support/consumer.mjs";

const bin = runtimes();
const FILES = ["tests/node/store-sqlite.test.mjs", "tests/node/store-sqlite-processes.test.mjs", "tests/node/store-sqlite-watch.test.mjs"];

const RUNS = {
  "Node 22 (node:sqlite)": [bin("node-22/bin/node"), ["--test", "--test-reporter=tap", ...FILES]],
  "Node 24 (node:sqlite)": [bin("node-24/bin/node"), ["--test", "--test-reporter=tap", ...FILES]],
  "Bun (bun:sqlite)": [bin("bun/bin/bun.exe"), ["test", ...FILES.map((f) => `./${f}`)]],
};

for (const [name, [cmd, args]] of Object.entries(RUNS)) {
  test(`SqliteStore's tests pass on ${name}`, async () => {
    let out;
    try {
      // Without NODE_TEST_CONTEXT: the child reports as a runner of its own, not as this runner's subprocess.
      const { NODE_TEST_CONTEXT: _, ...env } = process.env;
      out = await promisify(execFile)(cmd, args, { cwd: root, env, maxBuffer: 1 << 24 });
    } catch (e) {
      // The failures themselves (a TAP `not ok` and the lines after it; bun's `(fail)` lines), not the run's tail.
      const lines = String(e.stdout).split("\n");
      const failures = lines.flatMap((line, i) => (/^\s*not ok |^\(fail\)/.test(line) ? lines.slice(i, i + 30) : []));
      assert.fail(
        `${name} failed:\n${failures.join("\n").slice(0, 12000) || String(e.stdout).slice(-6000)}\n${String(e.stderr).slice(-6000)}`,
      );
    }
    const text = out.stdout + out.stderr;
    // Every test of the files ran there (52 + 5 + 8 today): none was skipped for want of a driver.
    const passed = Number(/# pass (\d+)/.exec(text)?.[1] ?? / (\d+) pass\n/.exec(text)?.[1]);
    assert.ok(passed >= 65, `${name} ran ${passed} tests:\n${text.slice(-3000)}`);
    assert.match(text, /SqliteStore on (node|bun):sqlite: SIGKILL mid-write/);
    assert.match(text, /SqliteStore on (node|bun):sqlite: watch across two processes on one file/);
    assert.match(text, /SqliteStore on (node|bun):sqlite: 4 processes append while this one deletes the chat/);
    assert.match(text, /SqliteStore on (node|bun):sqlite \(fs\.watch\): another process's delete is heard as 0/);
    assert.match(text, /SqliteStore on (node|bun):sqlite: list: paging is stable/);
  });
}
