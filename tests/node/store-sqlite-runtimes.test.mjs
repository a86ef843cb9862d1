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

// The three files at once under Node (each in a folder of its own; most of their time is waiting
// on children and change feeds); `bun test` runs them one after another.
const RUNS = {
  "Node 22 (node:sqlite)": [bin("node-22/bin/node"), ["--test", "--test-concurrency=3", "--test-reporter=tap", ...FILES]],
  "Node 24 (node:sqlite)": [bin("node-24/bin/node"), ["--test", "--test-concurrency=3", "--test-reporter=tap", ...FILES]],
  "Bun (bun:sqlite)": [bin("bun/bin/bun.exe"), ["test", ...FILES.map((f) => `./${f}`)]],
};

/** The first failures of a child's output (its tap or bun's report), each with what follows it. */
const failures = (text) =>
  [...text.matchAll(/not ok |\(fail\) /g)]
    .slice(0, 3)
    .map((m) => text.slice(m.index, m.index + 2000))
    .join("\n");

// The three runtimes at once, started with the file: each test waits for its own.
const { NODE_TEST_CONTEXT: _, ...env } = process.env; // the children report as runners of their own, not as this runner's subprocesses
const outputs = Object.fromEntries(
  Object.entries(RUNS).map(([name, [cmd, args]]) => [
    name,
    promisify(execFile)(cmd, args, { cwd: root, env, maxBuffer: 1 << 24 }).then(
      (out) => ({ out }),
      (e) => ({ error: e }),
    ),
  ]),
);

for (const name of Object.keys(RUNS)) {
  test(`SqliteStore's tests pass on ${name}`, async () => {
    const { out, error } = await outputs[name];
    if (error) {
      const all = `${error.stdout}\n${error.stderr}`;
      assert.fail(`${name} failed:\n${failures(all)}\n…\n${all.slice(-4000)}`);
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
