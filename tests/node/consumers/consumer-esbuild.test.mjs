// The packed package bundled by esbuild, for the browser (real Chromium) and
// for Node. esbuild copies no .wasm by itself: for the browser the documented
// way is the `oda-tasks/oda_tasks_bg.wasm` import with a file loader; the Node
// entry carries the core inlined (consumer-runtimes.test.mjs: no loader at all),
// and the older recipes with a loader keep working.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { launch, serve } from "../support/browser.mjs";
import { consumer, packTarball, sh, write } from "../support/consumer.mjs";

const cleanup = [];
test.after(() => cleanup.forEach((fn) => fn()));
const once = { after: (fn) => cleanup.push(fn) };
const { tarball } = packTarball(once);

const log = `[{ type: "session", chatId: "c", workspace: "/w", agent: "top-level" }, { type: "turn_started" }]`;
const call = `{ todos: [{ content: "Ship it", status: "in_progress" }] }`;
const dir = consumer(once, tarball, {
  deps: { esbuild: "0.28.2" },
  files: {
    "browser.js": `import { init, todoWrite } from "oda-tasks";
import wasmUrl from "oda-tasks/oda_tasks_bg.wasm";
const out = {};
try { await init(); out.plain = "loaded"; } catch (e) { out.plain = e.message; }
await init(new URL(wasmUrl, import.meta.url));
out.result = todoWrite(${log}, ${call});
window.__result = out;
`,
    "node-file.js": `import { init, todoWrite } from "oda-tasks";
import wasm from "oda-tasks/oda_tasks_bg.wasm";
const out = {};
try { todoWrite([], { todos: [] }); out.before = "loaded"; } catch (e) { out.before = e.message; }
await init(new URL(wasm, import.meta.url));
out.result = todoWrite(${log}, ${call});
console.log(JSON.stringify(out));
`,
    "node-binary.js": `import { init, todoWrite } from "oda-tasks";
import bytes from "oda-tasks/oda_tasks_bg.wasm";
await init(bytes);
console.log(JSON.stringify({ result: todoWrite(${log}, ${call}) }));
`,
  },
});

const accepted = {
  ok: true,
  entry: { type: "todo_update", v: 1, todos: [{ content: "Ship it", status: "in_progress" }] },
  output: "Updated todo list: 0 pending, 1 in progress, 0 completed",
};

/** Runs esbuild; it must print no warning. */
function esbuild(...args) {
  const out = sh(dir, join(dir, "node_modules/.bin/esbuild"), [...args, "--bundle", "--format=esm", "--log-level=warning"]);
  assert.equal(out, "");
}

test("esbuild for the browser: the .wasm imported with a file loader is emitted beside the bundle and loads", async (t) => {
  esbuild("browser.js", "--loader:.wasm=file", "--outdir=out-browser");
  assert.ok(readdirSync(join(dir, "out-browser")).some((f) => /^oda_tasks_bg-\w+\.wasm$/.test(f)));
  write(dir, { "out-browser/index.html": `<!doctype html><meta charset="utf-8"><script type="module" src="browser.js"></script>` });
  const server = await serve({}, join(dir, "out-browser"));
  t.after(() => server.close());
  const browser = await launch();
  t.after(() => browser.close());
  const tab = await browser.context.newPage();
  await tab.goto(server.url + "/");
  const out = await tab.waitForFunction(() => window.__result, null, { timeout: 60_000 }).then((h) => h.jsonValue());
  assert.deepEqual(out.result, accepted);
  // Without the URL the bundle has no .wasm beside its glue: the error says what to do.
  assert.match(out.plain, /^oda-tasks: could not load the WebAssembly core from http:\/\/127\.0\.0\.1:\d+\/wasm\/oda_tasks_bg\.wasm \(/);
  assert.match(out.plain, /with a file loader \(esbuild\), then `await init\(wasmUrl\)`/);
});

test("esbuild for Node (file loader): the entry carries the core inlined, so it loads on import; init(url) is a no-op", () => {
  esbuild("node-file.js", "--platform=node", "--loader:.wasm=file", "--outdir=out-node");
  const out = JSON.parse(sh(dir, process.execPath, ["out-node/node-file.js"]));
  // The Node entry ran on import (no false sideEffects claim) and needed no file beside the bundle.
  assert.equal(out.before, "loaded");
  assert.deepEqual(out.result, accepted);
});

test("esbuild for Node (binary loader): one self-contained file, init(bytes)", () => {
  esbuild("node-binary.js", "--platform=node", "--target=node20", "--loader:.wasm=binary", "--outfile=single/app.mjs");
  assert.deepEqual(readdirSync(join(dir, "single")), ["app.mjs"]);
  assert.deepEqual(JSON.parse(sh(dir, process.execPath, ["single/app.mjs"])).result, accepted);
});
