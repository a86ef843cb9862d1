// The smoke suite on every runtime: docs/integration.md's recipes, as printed,
// in a fresh project that installed the packed tarball, on Node 20, 22 and 24,
// Bun, Deno, Cloudflare's workerd (through esbuild and through wrangler) and
// esbuild's three serverless shapes. The runtimes come from the registry
// packages that ship their binaries (tests/runtimes/package.json).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consumer, fileCleanup, packTarball, runtimes } from "../support/consumer.mjs";
import { freePort, serveUntil } from "../support/serve.mjs";
import { printed, recipes } from "../support/recipes.mjs";

const once = fileCleanup();

const bin = runtimes();
const NODES = { 20: process.execPath, 22: bin("node-22/bin/node"), 24: bin("node-24/bin/node") };

const { tarball } = packTarball(once);
const dir = consumer(once, tarball, {
  deps: { esbuild: "0.28.2", wrangler: "4.164.0", workerd: "1.20261117.1" },
  files: {
    ...recipes("app.js", "chats.js", "worker.js", "wrangler.toml", "config.capnp"),
    // Test-only: importing oda-tasks/node asks for no permission.
    "import-node.js": 'import "oda-tasks/node";\nimport "oda-tasks";\nconsole.log("imported");\n',
    // Test-only: what a Worker gets from the browser entry and from the inlined one.
    "worker-init.js": `import { init, todoWrite } from "oda-tasks";
import bytes from "oda-tasks/oda_tasks_bg.wasm";
export default {
  async fetch() {
    const out = {};
    try { todoWrite([], { todos: [] }); out.before = "ran"; } catch (e) { out.before = e.message; }
    try { await init(); out.init = "loaded"; } catch (e) { out.init = e.message; }
    try { await init(bytes); out.bytes = "loaded"; } catch (e) { out.bytes = e.message; }
    return Response.json(out);
  },
};
`,
    "worker-inline.js": `import { todoWrite } from "oda-tasks/inline";
export default { async fetch() { return Response.json(todoWrite([], { todos: [] }).output); } };
`,
  },
});

/** A folder of links naming the runtime binaries, first on PATH, with `node` the version asked for. */
function pathFor(node) {
  const links = mkdtempSync(join(tmpdir(), "oda-bin-"));
  once.after(() => rmSync(links, { recursive: true, force: true }));
  symlinkSync(node, join(links, "node"));
  symlinkSync(bin("bun/bin/bun.exe"), join(links, "bun"));
  symlinkSync(bin("deno/deno"), join(links, "deno"));
  return `${join(dir, "node_modules/.bin")}:${links}:${process.env.PATH}`;
}
const PATHS = Object.fromEntries(Object.entries(NODES).map(([v, node]) => [v, pathFor(node)]));
const env = (node = 20) => ({ ...process.env, PATH: PATHS[node], WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" });

/** Runs a printed command in the consumer project; resolves to its stdout. */
function run(command, { node = 20, cwd = dir } = {}) {
  printed(command);
  try {
    return execFileSync("bash", ["-c", command], { cwd, env: env(node), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    throw new Error(`${command} failed:\n${e.stdout}\n${e.stderr}`, { cause: e });
  }
}

const firstScreen =
  JSON.stringify([
    "Updated todo list: 0 pending, 1 in progress, 0 completed",
    'Suggested "Add retries". The user decides whether to start it; do not start it yourself.',
    "finished",
  ]) + "\n";
const chatsOutput = "Updated todo list: 1 pending, 0 in progress, 0 completed\n";

/** Runs chats.js (a JsonlStore in ./chats) in a fresh folder beside the project's node_modules. */
function runChats(command, node) {
  rmSync(join(dir, "chats"), { recursive: true, force: true });
  mkdirSync(join(dir, "chats"));
  return run(command, { node });
}

for (const [version, node] of Object.entries(NODES)) {
  test(`Node ${version}: the first example and JsonlStore, no flags, no init`, () => {
    assert.equal(execFileSync(node, ["--version"], { encoding: "utf8" }).split(".")[0], `v${version}`);
    assert.equal(run("node app.js", { node: version }), firstScreen);
    assert.equal(runChats("node chats.js", version), chatsOutput);
  });
}

test("Bun: the first example and JsonlStore", () => {
  assert.equal(run("bun app.js"), firstScreen);
  assert.equal(runChats("bun chats.js"), chatsOutput);
});

test("Deno: the main entry and oda-tasks/node import with no permission; JsonlStore needs the folder and the host name", () => {
  assert.equal(run("deno run app.js"), firstScreen);
  const imported = execFileSync(bin("deno/deno"), ["run", "--no-prompt", "import-node.js"], { cwd: dir, env: env(), encoding: "utf8" });
  assert.equal(imported, "imported\n");
  assert.equal(runChats("deno run --allow-read=chats --allow-write=chats --allow-sys=hostname chats.js"), chatsOutput);
});

test("esbuild serverless bundles: Node ESM, CommonJS and --platform=neutral, no loader, no asset, no init", () => {
  run("npx esbuild app.js --bundle --platform=node --format=esm --outfile=out/app.mjs");
  run("npx esbuild app.js --bundle --platform=node --format=cjs --outfile=out/app.cjs");
  run("npx esbuild app.js --bundle --platform=neutral --outfile=out/neutral.mjs");
  for (const file of ["out/app.mjs", "out/app.cjs", "out/neutral.mjs"]) {
    for (const node of [NODES[20], NODES[24]]) {
      assert.equal(execFileSync(node, [file], { cwd: dir, encoding: "utf8" }), firstScreen, `${file} on ${node}`);
    }
  }
});

/** Starts a server command in its own process group; resolves to the JSON `url` answers; stops it when `t` ends. */
async function serve(t, command, args, url, node = 20) {
  return (await serveUntil(t, { cwd: dir, env: env(node), command, args, url, tries: 120 })).value;
}

const workerAnswer = ["Updated todo list: 0 pending, 1 in progress, 0 completed", "finished"];

test("Cloudflare Workers through wrangler (on Node 22): nothing to configure", async (t) => {
  printed("npx wrangler dev");
  const port = await freePort();
  // The printed command, on a free port instead of 8787 (other tests may hold it).
  const answer = await serve(t, "bash", ["-c", `npx wrangler dev --ip 127.0.0.1 --port ${port}`], `http://127.0.0.1:${port}/`, 22);
  assert.deepEqual(answer, workerAnswer);
});

test("Cloudflare Workers through esbuild and workerd: the workerd condition, the .wasm copied and listed as a module", async (t) => {
  run("npx esbuild worker.js --bundle --format=esm --conditions=workerd --loader:.wasm=copy --asset-names=[name] --outdir=dist");
  const port = await freePort();
  // The printed config, on a free port instead of 8787.
  const config = readFileSync(join(dir, "config.capnp"), "utf8");
  assert.match(config, /127\.0\.0\.1:8787/);
  writeFileSync(join(dir, "config.capnp"), config.replace("127.0.0.1:8787", `127.0.0.1:${port}`));
  printed("npx workerd serve config.capnp");
  assert.deepEqual(
    await serve(t, join(dir, "node_modules/.bin/workerd"), ["serve", "config.capnp"], `http://127.0.0.1:${port}/`),
    workerAnswer,
  );
});

test("workerd without the condition: every failure is an oda-tasks: error naming the workerd condition; the inlined entry loads at startup", async (t) => {
  const esbuild = join(dir, "node_modules/.bin/esbuild");
  execFileSync(
    esbuild,
    ["worker-init.js", "worker-inline.js", "--bundle", "--format=esm", "--loader:.wasm=binary", "--outdir=edge", "--log-level=warning"],
    { cwd: dir },
  );
  const [a, b] = [await freePort(), await freePort()];
  writeFileSync(
    join(dir, "edge.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "init", worker = .init), (name = "inline", worker = .inline)],
  sockets = [
    (name = "init", address = "127.0.0.1:${a}", http = (), service = "init"),
    (name = "inline", address = "127.0.0.1:${b}", http = (), service = "inline"),
  ],
);
const init :Workerd.Worker = (modules = [(name = "w.js", esModule = embed "edge/worker-init.js")], compatibilityDate = "2026-11-17");
const inline :Workerd.Worker = (modules = [(name = "w.js", esModule = embed "edge/worker-inline.js")], compatibilityDate = "2026-11-17");
`,
  );
  const out = await serve(t, join(dir, "node_modules/.bin/workerd"), ["serve", "edge.capnp"], `http://127.0.0.1:${a}/`);
  const fix = 'On Cloudflare Workers import "oda-tasks" with the `workerd` condition';
  assert.match(out.before, /^oda-tasks: the WebAssembly core is not initialised; /);
  assert.ok(out.before.includes(fix), out.before);
  assert.match(out.init, /^oda-tasks: could not fetch the WebAssembly core from file:\/\/\/wasm\/oda_tasks_bg\.wasm \(/);
  assert.ok(out.init.includes(fix), out.init);
  assert.match(
    out.bytes,
    /^oda-tasks: the \d+ bytes given to init\(\) could not be compiled as WebAssembly \(.*Wasm code generation disallowed by embedder\)\. /,
  );
  assert.ok(out.bytes.includes(fix), out.bytes);
  assert.equal(await (await fetch(`http://127.0.0.1:${b}/`)).json(), "Updated todo list: 0 pending, 0 in progress, 0 completed");
});
