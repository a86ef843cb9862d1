// The package as shipped: entry points, init, errors as Error objects.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import * as pkg from "oda-tasks";

const require = createRequire(import.meta.url);
const wasmPath = require.resolve("oda-tasks/oda_tasks_bg.wasm");

test("Node: plain import works with no init and exports the public API", async () => {
  for (const name of [
    "todoWrite",
    "suggestTask",
    "replayTodos",
    "replaySuggestions",
    "settleSuggestion",
    "planStart",
    "startedChat",
    "clampPermission",
    "checkGoal",
    "init",
  ]) {
    // biome-ignore lint/performance/noDynamicNamespaceImportAccess: the test looks each public name up on the module
    assert.equal(typeof pkg[name], "function", name);
  }
  assert.equal(pkg.todoWriteTool.name, "todo_write");
  assert.equal(pkg.suggestTaskTool.name, "suggest_task");
  await pkg.init(); // a no-op once loaded, so isomorphic code can always await it
  assert.equal(pkg.todoWrite([], { todos: [] }).ok, true);
});

test("browser entry: calls before init() say what to do; init() once, then it works", () => {
  // The default (non-Node) entry is what browsers and bundlers load. It gets a
  // process of its own: in this one the Node entry has initialised the core.
  const entry = new URL("../../pkg/dist/entrypoints/index.js", import.meta.url).href;
  const script = `
    import { readdirSync, readFileSync } from "node:fs";
    const web = await import(${JSON.stringify(entry)});
    const out = {};
    try { web.todoWrite([], { todos: [] }); out.before = "no error"; } catch (e) { out.before = e instanceof Error && e.message === web.NOT_INITIALISED; }
    out.tool = web.suggestTaskTool.name; // constants need no init
    const bytes = readFileSync(${JSON.stringify(wasmPath)});
    await Promise.all([web.init(bytes), web.init(bytes)]);
    out.after = web.todoWrite([], { todos: [] }).output;
    console.log(JSON.stringify(out));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.deepEqual(JSON.parse(out), {
    before: true,
    tool: "suggest_task",
    after: "Updated todo list: 0 pending, 0 in progress, 0 completed",
  });
});

test("results cross the boundary as plain objects and arrays, never Maps", () => {
  const r = pkg.replayTodos([{ type: "turn_started" }, { type: "todo_update", v: 1, todos: [{ content: "a", status: "pending" }] }]);
  const walk = (v) => {
    if (v === null || typeof v !== "object") return;
    assert.ok(Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype, `plain: ${Object.prototype.toString.call(v)}`);
    Object.values(v).forEach(walk);
  };
  walk(r);
  walk(pkg.todoWriteTool);
  assert.deepEqual(JSON.parse(JSON.stringify(r)), r);
});

test("host misuse arrives as an Error object with a clear message", () => {
  const cases = [
    () => pkg.replayTodos(null),
    () => pkg.replayTodos({ length: 1 }),
    () => pkg.settleSuggestion([], 5, "dismiss"),
    () => pkg.settleSuggestion([], "s1", "explode"),
    () => pkg.planStart([], "c", "s1", { permision: "auto" }),
    () => pkg.checkGoal([], "delete"),
  ];
  for (const f of cases) assert.throws(f, (e) => e instanceof Error && e.message.startsWith("oda-tasks: "));
});

test("odd JS values in a log are skipped; one that cannot be serialised is the host's error", () => {
  const r = pkg.replayTodos([undefined, null, Symbol("x"), () => 1, { type: "todo_update", v: 1, todos: [] }]);
  assert.deepEqual(r.todos, []);
  assert.equal(r.cards.length, 1);
  assert.deepEqual(
    r.skipped.map((s) => s.index),
    [0, 1, 2, 3],
  );
  assert.throws(
    () => pkg.replayTodos([{ type: "session" }, 1n]),
    (e) =>
      e instanceof Error &&
      e.message === "oda-tasks: log entry 1 cannot be read as JSON data: reading it threw TypeError: Do not know how to serialize a BigInt",
  );
});

test("export conditions: edge-light (Next.js Edge routes) gets the inlined entry, also beside worker; workerd and worker the .wasm-module entry", () => {
  // Node's resolver follows the same `exports` rules as the bundlers: the first listed condition that is set wins.
  const resolved = (...conditions) =>
    execFileSync(
      process.execPath,
      [...conditions.flatMap((c) => ["--conditions", c]), "--input-type=module", "-e", 'console.log(import.meta.resolve("oda-tasks"))'],
      { encoding: "utf8" },
    )
      .trim()
      .replace(/^.*\/dist\/entrypoints\//, "");
  assert.equal(resolved("edge-light"), "index.inline.js");
  assert.equal(resolved("edge-light", "worker"), "index.inline.js");
  assert.equal(resolved("worker", "edge-light"), "index.inline.js");
  assert.equal(resolved("workerd", "worker"), "index.workerd.js");
  assert.equal(resolved("worker"), "index.workerd.js");
  assert.equal(resolved("workerd", "edge-light"), "index.workerd.js");
});

test("source maps: with --enable-source-maps an oda-tasks: error from the built package names the TypeScript file and line", () => {
  const script = `
    import { ChatState } from "oda-tasks";
    try { ChatState.empty({ maxLineBytes: -1 }); } catch (e) { console.log(e.stack); }`;
  const stack = execFileSync(process.execPath, ["--enable-source-maps", "--input-type=module", "-e", script], { encoding: "utf8" });
  assert.match(stack, /^TypeError: oda-tasks: invalid arguments of ChatState: `maxLineBytes` must be/);
  const [, file, line] = /\n {4}at [^\n]*?\((\/[^\n]*\/pkg\/src\/[\w/.-]+\.ts):(\d+):\d+\)/.exec(stack) ?? [];
  assert.ok(file, `the first frame names a pkg/src/*.ts file:\n${stack}`);
  // The line it names is the throw in the source.
  assert.match(readFileSync(file, "utf8").split("\n")[Number(line) - 1], /throw /);
  // Without the flag the same frame is the bundle's file: the map is what points at the source.
  const plain = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.match(plain.split("\n")[1], /\/pkg\/dist\/[\w/-]+\.js:\d+:\d+\)$/);
});

test("bundled: every subpath export loads, and Node's entry loads a handful of files (the core in one shared chunk) and none of Node's own modules", async () => {
  const manifest = JSON.parse(readFileSync(new URL("../../pkg/package.json", import.meta.url), "utf8"));
  const subpaths = Object.keys(manifest.exports).filter((k) => !k.includes("*") && !/\.(wasm|json)$/.test(k));
  for (const subpath of subpaths) {
    const name = subpath === "." ? "oda-tasks" : `oda-tasks/${subpath.slice(2)}`;
    const module = await import(name);
    assert.ok(Object.keys(module).length > 0, `${name} exports something`);
    // Bundling renames what two modules both name (init2) and self-referring classes (_ChatState):
    // every exported function and class still carries its own name (stack traces, errors, devtools).
    for (const [key, value] of Object.entries(module))
      if (typeof value === "function") assert.equal(value.name, key, `${name}: ${key}.name`);
  }
  // Only the package's own sources are bundled: peers (ai, pg, ...) and runtime modules stay imports.
  const dist = new URL("../../pkg/dist/", import.meta.url);
  for (const map of readdirSync(dist, { recursive: true }).filter((f) => f.endsWith(".js.map"))) {
    const { sources } = JSON.parse(readFileSync(new URL(map, dist), "utf8"));
    assert.deepEqual(
      sources.filter((s) => !/^(\.\.\/)+src\/[\w/.-]+\.ts$/.test(s)),
      [],
      `${map} bundles only pkg/src`,
    );
  }
  assert.match(readFileSync(new URL("entrypoints/ai.js", dist), "utf8"), /^import \{[^}]*\} from "ai";$/m);
  // The files a fresh process reads for `import "oda-tasks"` (the loader's own hooks see each one).
  const script = `
    import { registerHooks } from "node:module";
    const seen = [];
    registerHooks({ load(url, context, next) { if (url.includes("/pkg/")) seen.push(url.replace(/^.*\\/pkg\\//, "")); return next(url, context); } });
    const builtins = new Set(process.moduleLoadList);
    const { todoWrite } = await import("oda-tasks");
    todoWrite([], { todos: [] });
    const loaded = process.moduleLoadList.filter((m) => !builtins.has(m) && m.startsWith("NativeModule "));
    console.log(JSON.stringify({ seen, loaded }));`;
  const node24 = fileURLToPath(new URL("../runtimes/node_modules/node-24/bin/node", import.meta.url));
  const { seen, loaded } = JSON.parse(execFileSync(node24, ["--input-type=module", "-e", script], { encoding: "utf8" }));
  // None of Node's own modules: a top-level node:fs/promises made Node 24 load 11 (readline's among them) on every cold start.
  assert.deepEqual(loaded, [], "Node's own modules loaded by the import and the first call");
  assert.ok(seen.includes("dist/entrypoints/index.node.js") && seen.includes("wasm/oda_tasks.js"), seen.join(", "));
  // The entry, the core chunk, the glue and the inlined .wasm: the main entry it re-exports is inlined (scripts/bundle.mjs).
  assert.ok(seen.length <= 4, `Node's entry loads ${seen.length} files: ${seen.join(", ")}`);
});

test("the core's exports each return at most one value (out-pointer returns, so V8 compiles no wrapper per export signature)", async () => {
  // scripts/build.mjs hides `multivalue` from wasm-bindgen (scripts/target-features.mjs); with it, 25 exports returned 2–4 values.
  const { default: binaryen } = await import("binaryen");
  const module = binaryen.readBinary(readFileSync(wasmPath));
  const multi = [];
  for (let i = 0; i < module.getNumExports(); i++) {
    const info = binaryen.getExportInfo(module.getExportByIndex(i));
    if (info.kind !== binaryen.ExternalFunction) continue;
    const results = binaryen.getFunctionInfo(module.getFunction(info.value)).results;
    if (binaryen.expandType(results).length > 1) multi.push(info.name);
  }
  module.dispose();
  assert.deepEqual(multi, [], "exports that return several values");
});
