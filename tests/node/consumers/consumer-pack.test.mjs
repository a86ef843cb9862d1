// Packaging: `npm pack` on a fresh clone packs a complete package (prepack
// builds it), with README, LICENSE and CHANGELOG; the CLI installs from the tarball and
// `oda-tasks --help` prints its usage. The clone shares the repository's cargo
// `target/` and `node_modules/` (its files keep their times, so cargo and
// scripts/setup.sh find them up to date): prepack runs the whole build, without
// compiling the core again (CI's `build` step compiles it from a fresh clone).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { root } from "../support/browser.mjs";
import { consumer } from "../support/consumer.mjs";

const manifest = JSON.parse(readFileSync(join(root, "pkg/package.json"), "utf8"));

/**
 * What a fresh clone of this tree holds: tracked and new files, nothing git ignores (no build output),
 * their modification times kept; beside them the repository's cargo target and npm packages, linked.
 */
function freshClone(t) {
  const dir = mkdtempSync(join(tmpdir(), "oda-clone-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter(Boolean);
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    try {
      cpSync(join(root, file), join(dir, file), { preserveTimestamps: true });
    } catch (e) {
      if (e.code !== "ENOENT") throw e; // deleted in the work tree, not yet committed
    }
  }
  symlinkSync(join(root, "target"), join(dir, "target"), "dir");
  // A folder of links to each installed package, never a link to the folder: an `npm ci` in the
  // clone (setup.sh's, were the lock file newer) removes the links, not the repository's packages.
  mkdirSync(join(dir, "node_modules"));
  for (const name of readdirSync(join(root, "node_modules")))
    symlinkSync(join(root, "node_modules", name), join(dir, "node_modules", name));
  return dir;
}

// The tarball the first test packs, for the second to install.
const keep = mkdtempSync(join(tmpdir(), "oda-keep-"));
test.after(() => rmSync(keep, { recursive: true, force: true }));
let packed;
test("npm pack on a fresh clone builds first and packs the whole package, README, LICENSE and CHANGELOG included", (t) => {
  const clone = freshClone(t);
  const out = mkdtempSync(join(tmpdir(), "oda-packed-"));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const r = spawnSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: join(clone, "pkg"), encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr.slice(-4000));
  assert.doesNotMatch(r.stderr, /npm warn/i, "npm has nothing to correct in package.json");
  assert.ok(existsSync(join(clone, "pkg/src/gen/tools.ts")), "the build ran in the clone (it writes the generated sources)");
  const [info] = JSON.parse(r.stdout);
  const files = info.files.map((f) => f.path).sort();
  for (const file of [
    "README.md",
    "LICENSE",
    "CHANGELOG.md",
    "package.json",
    "example/chat.jsonl",
    "dist/entrypoints/index.js",
    "dist/entrypoints/index.d.ts",
    "dist/entrypoints/index.node.js",
    "dist/entrypoints/index.inline.js",
    "dist/entrypoints/index.workerd.js",
    "dist/entrypoints/wasm-inline.js",
    "dist/entrypoints/ai.js",
    "dist/entrypoints/langchain.js",
    "dist/entrypoints/cli.js",
    "dist/entrypoints/browser.js",
    "dist/entrypoints/node.js",
    "dist/entrypoints/postgres.js",
    "dist/entrypoints/sqlite.js",
    "dist/entrypoints/testing.js",
    "dist/entrypoints/index.node.js.map",
    "dist/stores/sqlite/sql.d.ts",
    "dist/testing/contract.d.ts",
    "dist/integrations/sdk-tools.d.ts",
    "wasm/oda_tasks.js",
    "wasm/oda_tasks.d.ts",
    "wasm/oda_tasks_bg.wasm",
  ]) {
    assert.ok(files.includes(file), `${file} is packed (got ${files.join(", ")})`);
  }
  assert.ok(!files.some((f) => f.startsWith("src/")), "sources stay out");
  // Bundled: the JS is the exported entries (and the bin) and their shared chunks (and the inlined .wasm); a module of
  // its own elsewhere is one of the stubs the repository's tests import, which only re-exports a chunk.
  const targets = new Set(JSON.stringify([manifest.exports, manifest.bin]).match(/dist\/[\w/.-]+\.js/g));
  for (const file of files.filter((f) => f.endsWith(".js") && f.startsWith("dist/"))) {
    if (targets.has(file) || /^dist\/chunks\/[\w-]+\.js$/.test(file) || file === "dist/entrypoints/wasm-inline.js") continue;
    // The script of `oda-tasks serve`'s page, which the server sends to browsers from dist/.
    if (file === "dist/serve/chat-page.js") continue;
    const text = readFileSync(join(clone, "pkg", file), "utf8").replace(/^\/\/.*$/gm, "");
    assert.match(text, /^(\s*(import|export) \{[^}]*\}( from "[^"]+")?;|\s*import "[^"]+";)+\s*$/, `${file} only re-exports`);
  }
  assert.equal(readFileSync(join(clone, "pkg/LICENSE"), "utf8"), readFileSync(join(root, "LICENSE"), "utf8"));
  assert.match(readFileSync(join(root, "LICENSE"), "utf8"), /^MIT License\n/);
  assert.equal(readFileSync(join(clone, "pkg/CHANGELOG.md"), "utf8"), readFileSync(join(root, "CHANGELOG.md"), "utf8"));
  packed = join(keep, info.filename);
  cpSync(join(out, info.filename), packed);
});

test("installed from the tarball, `oda-tasks --help` prints usage to stdout and exits 0; no path replays the example", (t) => {
  assert.ok(packed, "the tarball of the previous test");
  const dir = consumer(t, packed);
  const help = spawnSync("npx", ["--no-install", "oda-tasks", "--help"], { cwd: dir, encoding: "utf8" });
  assert.equal(help.status, 0);
  assert.equal(help.stderr, "");
  assert.match(help.stdout, /^usage: oda-tasks \[log\.jsonl\] \[--json\]\n/);
  assert.match(help.stdout, /-h, --help {2}print this help\n$/);
  const bad = spawnSync("npx", ["--no-install", "oda-tasks", "--nope"], { cwd: dir, encoding: "utf8" });
  assert.equal(bad.status, 2);
  assert.equal(bad.stdout, "");
  assert.match(bad.stderr, /^usage: oda-tasks/);
  const replay = spawnSync("npx", ["--no-install", "oda-tasks"], { cwd: dir, encoding: "utf8" });
  assert.equal(replay.status, 0, replay.stderr);
  assert.match(replay.stdout, /Plan: finished \(turn 2\)/);
});

test("package.json: bin without ./, engines as tested, side effects only where there are some", () => {
  assert.deepEqual(manifest.bin, { "oda-tasks": "dist/entrypoints/cli.js" });
  assert.equal(manifest.engines.node, ">=20.19");
  const [major, minor] = process.versions.node.split(".").map(Number);
  assert.ok(major > 20 || (major === 20 && minor >= 19), `these tests run on Node ${process.versions.node}`);
  // The entries that load the core on import, the CLI, the elements (they define themselves on import), and the
  // bundle's shared chunks (one may run code on import that an entry relies on: a bare `import "chunk"`).
  assert.deepEqual(manifest.sideEffects, [
    "./dist/entrypoints/index.node.js",
    "./dist/entrypoints/index.inline.js",
    "./dist/entrypoints/index.workerd.js",
    "./dist/entrypoints/cli.js",
    "./dist/elements/index.js",
    "./dist/elements/react.js",
    "./dist/chunks/*.js",
  ]);
  assert.equal(manifest.types, "./dist/entrypoints/index.d.ts");
  assert.equal(manifest.scripts.prepack, "node ../scripts/prepack.mjs");
});
