// No bundler: the import map docs/integration.md prints, installed from the
// tarball and loaded by a plain `<script type="module">` page in real Chromium.
// The map must follow the package's exports (the `browser`, else `default`,
// target of each subpath) and be enough: the package's own files import
// each other by relative paths.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { launch, root, serve } from "../support/browser.mjs";
import { consumer, packTarball } from "../support/consumer.mjs";

const doc = readFileSync(join(root, "docs/integration.md"), "utf8");
const mapTag = /<script type="importmap">\n([\s\S]*?)\n<\/script>/.exec(doc);
const importMap = JSON.parse(mapTag?.[1] ?? "null");
const manifest = JSON.parse(readFileSync(join(root, "pkg/package.json"), "utf8"));

/** The file a browser would get for `subpath` under the package's exports: the `browser` target, else `default`. */
function browserTarget(subpath) {
  let target = manifest.exports[subpath];
  while (target !== null && typeof target === "object") target = target.browser ?? target.default;
  return target;
}

const cleanup = [];
test.after(() => cleanup.forEach((fn) => fn()));
const once = { after: (fn) => cleanup.push(fn) };

test("docs/integration.md's import map maps each name to the file the package's exports give a browser", () => {
  assert.ok(importMap, "docs/integration.md prints an import map");
  const names = Object.keys(importMap.imports);
  assert.ok(names.includes("oda-tasks") && names.includes("oda-tasks/browser") && names.includes("oda-tasks/elements"), names.join(", "));
  for (const [name, url] of Object.entries(importMap.imports)) {
    const subpath = name === "oda-tasks" ? "." : `./${name.slice("oda-tasks/".length)}`;
    const target = browserTarget(subpath);
    assert.equal(typeof target, "string", `${subpath} is exported`);
    assert.equal(url, `/node_modules/oda-tasks/${target.slice(2)}`, name);
  }
});

/** A page with the documented import map and `script` as its module; a failure to load or run is its result too. */
const page = (script) =>
  `<!doctype html><meta charset="utf-8"><title>oda-tasks, no bundler</title><link rel="icon" href="data:,">\n${mapTag[0]}\n` +
  `<script>for (const type of ["error", "unhandledrejection"]) addEventListener(type, (e) => { window.__result = { error: String(e.message ?? e.reason) }; });</script>\n` +
  `<script type="module">${script}\n</script>`;

test("a plain <script type=module> page with that import map loads the tarball's files in Chromium: core, store, elements, handler", async (t) => {
  const { tarball } = packTarball(once);
  const dir = consumer(once, tarball);
  const server = await serve(
    {
      "/index.html": page(`
  import { createChat, init, todoWrite, NOT_INITIALISED } from "oda-tasks";
  import { IndexedDbStore } from "oda-tasks/browser";
  import { chatHandler } from "oda-tasks/http";
  import "oda-tasks/elements";
  const out = {};
  try { todoWrite([], { todos: [] }); } catch (e) { out.before = e.message === NOT_INITIALISED; }
  await init();
  out.result = todoWrite([{ type: "turn_started" }], { todos: [{ content: "Ship it", status: "in_progress" }] });
  const store = new IndexedDbStore("importmap-" + Math.random());
  await createChat(store, "c", { workspace: "/w" });
  out.read = (await store.read("c")).map((e) => e.type);
  out.element = typeof customElements.get("oda-todo-card");
  out.handler = typeof chatHandler;
  out.files = performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname);
  window.__result = out;`),
      "/inline.html": page(`
  import { todoWrite } from "oda-tasks/inline";
  window.__result = { result: todoWrite([], { todos: [] }) };`),
    },
    dir,
  );
  t.after(() => server.close());
  const browser = await launch();
  t.after(() => browser.close());
  const errors = [];
  const open = async (path) => {
    const tab = await browser.context.newPage();
    tab.on("pageerror", (e) => errors.push(e.message));
    tab.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await tab.goto(server.url + path);
    return tab.waitForFunction(() => window.__result, null, { timeout: 60_000 }).then((h) => h.jsonValue());
  };

  const out = await open("/index.html");
  assert.equal(out.before, true, "calls before init() say so");
  assert.deepEqual(out.result, {
    ok: true,
    entry: { type: "todo_update", v: 1, todos: [{ content: "Ship it", status: "in_progress" }] },
    output: "Updated todo list: 0 pending, 1 in progress, 0 completed",
  });
  assert.deepEqual(out.read, ["session"]);
  assert.equal(out.element, "function");
  assert.equal(out.handler, "function");
  // Every file came from the installed package; the .wasm from beside it.
  assert.ok(out.files.includes("/node_modules/oda-tasks/wasm/oda_tasks_bg.wasm"), out.files.join(", "));
  assert.deepEqual(
    out.files.filter((f) => !f.startsWith("/node_modules/oda-tasks/")),
    [],
  );

  const inline = await open("/inline.html");
  assert.equal(inline.result.output, "Updated todo list: 0 pending, 0 in progress, 0 completed");
  assert.deepEqual(errors, []);
});
