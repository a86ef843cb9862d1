// Tiny consumer projects built against the packed tarball (`npm pack`), as a
// new user of the package would: installed from the npm registry with exact
// versions, into a temp dir, through npm's shared cache.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { root } from "./browser.mjs";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** The test file's cleanup: `once.after(fn)` runs fn when all its tests have ended (pass it as `t` below). */
export function fileCleanup() {
  const cleanup = [];
  test.after(() => cleanup.forEach((fn) => fn()));
  return { after: (fn) => cleanup.push(fn) };
}

/**
 * Installs tests/runtimes (quick when it is there; once per run under shared-run.mjs, which
 * installs it before the files start: `ODA_TEST_RUNTIMES`); returns bin(path), a path in its node_modules.
 */
export function runtimes() {
  const dir = join(root, "tests/runtimes");
  if (!process.env.ODA_TEST_RUNTIMES)
    execFileSync(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd: dir, stdio: "ignore" });
  return (path) => join(dir, "node_modules", path);
}

/**
 * Runs a command in `cwd`; resolves to its output, throws with both streams on a non-zero exit
 * or after `timeout` ms (default 10 minutes: a synchronous child that hangs would block the
 * file's own timeouts, and so the whole run).
 */
export function sh(cwd, cmd, args, options = {}) {
  const timeout = options.timeout ?? 600_000;
  try {
    return execFileSync(cmd, args, {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      killSignal: "SIGKILL",
      ...options,
      timeout,
    });
  } catch (e) {
    const tail = (text) => String(text ?? "").slice(-4000);
    const why = e.code === "ETIMEDOUT" ? `timed out after ${timeout / 1000} s` : "failed";
    throw new Error(`${cmd} ${args.join(" ")} ${why} in ${cwd}:\n${tail(e.stdout)}\n${tail(e.stderr)}`, { cause: e });
  }
}

/**
 * Runs the node:test suite `file` of the project in `cwd` with the Node binary `node` (Node 22's
 * type stripping runs .ts recipes as printed); checks that `passes` tests passed and none failed.
 *
 * @example
 * runSuite(runtimes()("node-22/bin/node"), dir, "agents-suite.mjs", 2);
 */
export function runSuite(node, cwd, file, passes) {
  // Without the parent runner's NODE_TEST_CONTEXT, the child reports to its own stdout.
  const env = Object.fromEntries(Object.entries({ ...process.env, NO_COLOR: "1" }).filter(([k]) => k !== "NODE_TEST_CONTEXT"));
  const r = spawnSync(node, ["--test", "--test-reporter=spec", file], {
    cwd,
    encoding: "utf8",
    env,
    timeout: 600_000,
    killSignal: "SIGKILL",
  });
  assert.equal(r.error, undefined, `${file} under ${node}: ${r.error}`);
  assert.equal(r.status, 0, `${file} under ${node}:\n${r.stdout.slice(-6000)}\n${r.stderr.slice(-3000)}`);
  assert.match(r.stdout, new RegExp(`ℹ pass ${passes}\\b`));
  assert.match(r.stdout, /ℹ fail 0\b/);
}

/**
 * The `npm pack` tarball of the package as `npm run build` built it: the one
 * tests/node/support/shared-run.mjs packed for the whole run (`ODA_TEST_TARBALL`),
 * else packed into a temp dir removed when `t` ends. Nothing is built again
 * (consumer-pack.test.mjs checks that `npm pack` builds first on a fresh clone).
 */
export function packTarball(t) {
  if (process.env.ODA_TEST_TARBALL) return { tarball: process.env.ODA_TEST_TARBALL };
  const dir = mkdtempSync(join(tmpdir(), "oda-pack-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { tarball: packBuilt(dir) };
}

/** Packs the built pkg/ into `dir` (prepack's copies and checks, not its build); returns the tarball's path. */
export function packBuilt(dir) {
  sh(root, process.execPath, ["scripts/prepack.mjs", "--built"]);
  const [info] = JSON.parse(sh(join(root, "pkg"), npm, ["pack", "--json", "--ignore-scripts", "--pack-destination", dir]));
  return join(dir, info.filename);
}

/**
 * A consumer project in a temp dir: `files` (path → text) and a package.json
 * depending on the tarball and on `deps` (exact versions), installed once.
 */
export function consumer(t, tarball, { deps = {}, files = {}, type = "module" } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "oda-consumer-"));
  // Retried: a server's workers may still be writing in it (a dev server's cache) as they exit.
  t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }));
  const manifest = {
    name: "consumer",
    private: true,
    version: "1.0.0",
    ...(type ? { type } : {}),
    dependencies: { "oda-tasks": `file:${tarball}`, ...deps },
  };
  write(dir, { "package.json": JSON.stringify(manifest, null, 2), ...files });
  sh(dir, npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"]);
  return dir;
}

/** Writes `files` (path → text) under `dir`, making folders as needed. */
export function write(dir, files) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/**
 * Starts a long-running command (a dev server) and resolves to its URL once
 * a line of its output matches `ready` (the URL is the first capture);
 * stops it when test `t` ends.
 */
export function startServer(t, cwd, cmd, args, ready) {
  const child = spawn(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"], detached: process.platform !== "win32" });
  t.after(() => {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      child.kill("SIGTERM");
    }
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const look = (chunk) => {
      output += chunk;
      const match = ready.exec(output.replace(/\u001b\[[0-9;]*m/g, ""));
      if (match) resolve({ url: match[1], output: () => output });
    };
    child.stdout.setEncoding("utf8").on("data", look);
    child.stderr.setEncoding("utf8").on("data", look);
    child.on("exit", (code) => reject(new Error(`${cmd} ${args.join(" ")} exited (${code}) before it was ready:\n${output}`)));
  });
}
