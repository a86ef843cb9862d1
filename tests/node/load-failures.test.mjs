// The loader's failure modes (docs/loading.md), against the BUILT package's
// browser entry (pkg/dist/entrypoints/index.js, which loads nothing on import): every
// failed load is an `oda-tasks:` error naming the source and the fix, sets
// nothing, and the next load with the right source works. Each case runs in
// a fresh process (a loaded core stays loaded), and in real Chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pageResult, root } from "./support/browser.mjs";

const entry = join(root, "pkg/dist/entrypoints/index.js");
const wasmPath = join(root, "pkg/wasm/oda_tasks_bg.wasm");
const scratch = mkdtempSync(join(tmpdir(), "oda-load-"));
test.after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Runs `body` (an async module body with `oda`, the browser entry, `wasm`, the
 * right bytes, and `other`, another build's) in a fresh Node; resolves to what it printed as JSON.
 */
let cases = 0;
function fresh(body) {
  const script = `import { readFileSync } from "node:fs";
const oda = await import(${JSON.stringify(entry)});
const wasm = readFileSync(${JSON.stringify(wasmPath)});
const other = readFileSync(${JSON.stringify(otherPath)});
const out = [];
const failure = async (what, run) => {
  try { await run(); out.push({ what, loaded: true }); }
  catch (e) { out.push({ what, type: e?.constructor?.name, message: String(e?.message ?? e) }); }
};
${body}
process.stdout.write(JSON.stringify(out));`;
  const file = join(scratch, `case-${++cases}.mjs`);
  writeFileSync(file, script);
  const r = spawnSync(process.execPath, [file], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** The bytes of the right core with one import renamed: what another build of the package (another glue) looks like. */
function otherBuild() {
  const bytes = new Uint8Array(readFileSync(wasmPath));
  const text = Buffer.from(bytes).toString("latin1");
  const at = text.search(/__wbg_[a-z_]+_[0-9a-f]{16}/);
  assert.ok(at > 0, "the core imports a hashed glue function");
  const hash = text.slice(at).match(/_([0-9a-f]{16})/).index + 1 + at;
  bytes[hash] = bytes[hash] === 0x30 ? 0x31 : 0x30;
  return bytes;
}

const otherPath = join(scratch, "other-build.wasm");
writeFileSync(otherPath, otherBuild());

const FIX = /Pass the oda_tasks_bg\.wasm that ships with this version of the package/;
const NOT_CORE = /^oda-tasks: refused .+: it is not the WebAssembly core of oda-tasks \d+\.\d+\.\d+ \(.+\); nothing was loaded\. /;
const EMPTY = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

test("init(): each bad source is refused with an oda-tasks error naming it and the fix, and sets nothing: the next init() with the right bytes works", () => {
  const out = fresh(`
    const empty = new Uint8Array(${JSON.stringify(EMPTY)});
    await failure("an empty module", () => oda.init(new WebAssembly.Module(empty)));
    await failure("empty module bytes", () => oda.init(empty));
    await failure("another build", () => oda.init(other));
    await failure("truncated bytes", () => oda.init(wasm.subarray(0, 1000)));
    await failure("garbage", () => oda.init(new Uint8Array([1, 2, 3, 4, 5])));
    await failure("null", () => oda.init(null));
    await failure("a number", () => oda.init(42));
    await failure("a rejected promise", () => oda.init(Promise.reject(new Error("no such asset"))));
    await failure("an unreachable URL", () => oda.init("http://127.0.0.1:9/oda_tasks_bg.wasm"));
    await failure("a non-wasm Response", () => oda.init(new Response("<html>not found</html>", { headers: { "content-type": "text/html" } })));
    await failure("a 404 Response", () => oda.init(new Response("gone", { status: 404 })));
    try { oda.todoWrite([], { todos: [] }); out.push({ what: "call before a good load", loaded: true }); }
    catch (e) { out.push({ what: "call before a good load", message: e.message }); }
    await failure("the right bytes", () => oda.init(wasm));
    out.push({ what: "a call", answer: oda.todoWrite([], { todos: [] }).output });
  `);
  const by = Object.fromEntries(out.map((o) => [o.what, o]));
  for (const what of ["an empty module", "empty module bytes", "another build"]) {
    assert.equal(by[what].type, "Error", what);
    assert.match(by[what].message, NOT_CORE, what);
    assert.match(by[what].message, FIX, what);
  }
  assert.match(by["an empty module"].message, /refused the WebAssembly\.Module given: .*\(it exports nothing\)/);
  assert.match(by["empty module bytes"].message, /refused the 8 bytes given: /);
  assert.match(by["another build"].message, /it lacks `__wbg_[a-z_]+_[0-9a-f]{16}`; it has the unexpected `__wbg_/);
  assert.match(
    by["truncated bytes"].message,
    /^oda-tasks: the 1000 bytes given to init\(\) could not be compiled as WebAssembly \(.+\)\. Pass /,
  );
  assert.match(by.garbage.message, /^oda-tasks: the 5 bytes given to init\(\) could not be compiled as WebAssembly /);
  for (const what of ["null", "a number"]) {
    assert.equal(by[what].type, "TypeError", what);
    assert.match(by[what].message, new RegExp(`^oda-tasks: init\\(\\) takes the core's \\.wasm as a URL .* \\(got ${what}\\)$`));
  }
  assert.match(
    by["a rejected promise"].message,
    /^oda-tasks: the promise given to init\(\) as the core's source rejected \(no such asset\)\. Pass /,
  );
  assert.match(
    by["an unreachable URL"].message,
    /^oda-tasks: could not fetch the WebAssembly core from http:\/\/127\.0\.0\.1:9\/oda_tasks_bg\.wasm \(/,
  );
  assert.match(by["a non-wasm Response"].message, /^oda-tasks: the Response given to init\(\) could not be compiled as WebAssembly \(/);
  assert.match(
    by["a 404 Response"].message,
    /^oda-tasks: could not load the WebAssembly core from the Response given to init\(\) \(HTTP 404\)\. Pass /,
  );
  for (const o of out.slice(0, 11)) assert.ok(!o.loaded, `${o.what} must not load`);
  assert.match(by["call before a good load"].message, /^oda-tasks: the WebAssembly core is not initialised/);
  assert.equal(by["the right bytes"].loaded, true);
  assert.equal(by["a call"].answer, "Updated todo list: 0 pending, 0 in progress, 0 completed");
});

test("initSync(): an empty or stale module, garbage, truncated bytes, a string or null is an oda-tasks error, and initSync with the right bytes works after", () => {
  const out = fresh(`
    const empty = new Uint8Array(${JSON.stringify(EMPTY)});
    await failure("an empty module", () => oda.initSync(new WebAssembly.Module(empty)));
    await failure("another build", () => oda.initSync(other));
    await failure("truncated bytes", () => oda.initSync(wasm.subarray(0, 4000)));
    await failure("garbage", () => oda.initSync(new Uint8Array(64).fill(7)));
    await failure("a string", () => oda.initSync("oda_tasks_bg.wasm"));
    await failure("null", () => oda.initSync(null));
    await failure("the right module", () => oda.initSync(new WebAssembly.Module(wasm)));
    out.push({ what: "a call", answer: oda.suggestTask(null, { title: "t", tldr: "w", brief: "b" }).error });
  `);
  const by = Object.fromEntries(out.map((o) => [o.what, o]));
  assert.match(
    by["an empty module"].message,
    /^oda-tasks: refused the WebAssembly\.Module given to initSync\(\): it is not the WebAssembly core .*\(it exports nothing\)/,
  );
  assert.match(
    by["another build"].message,
    /^oda-tasks: refused the \d+ bytes given to initSync\(\): it is not the WebAssembly core of oda-tasks /,
  );
  assert.match(
    by["truncated bytes"].message,
    /^oda-tasks: the 4000 bytes given to initSync\(\) could not be compiled as WebAssembly \(.+\)\. Pass /,
  );
  assert.match(by.garbage.message, /^oda-tasks: the 64 bytes given to initSync\(\) could not be compiled as WebAssembly /);
  assert.equal(by["a string"].type, "TypeError");
  assert.match(by["a string"].message, /^oda-tasks: initSync\(\) takes the core's \.wasm as bytes .* \(got a string\)$/);
  assert.match(by.null.message, /\(got null\)$/);
  for (const o of out.slice(0, 6)) assert.ok(!o.loaded && o.message.startsWith("oda-tasks: "), `${o.what}: ${JSON.stringify(o)}`);
  assert.equal(by["the right module"].loaded, true);
  assert.equal(by["a call"].answer, "suggest_task requires an owning agent session");
});

test("Chromium: init() of an empty module, a missing URL or an HTML page fails with words and sets nothing; init() with no argument then works", async (t) => {
  const page = `<!doctype html><meta charset="utf-8"><script type="module">
    import * as oda from "/pkg/dist/entrypoints/index.js";
    const out = [];
    const failure = async (what, run) => {
      try { await run(); out.push({ what, loaded: true }); } catch (e) { out.push({ what, type: e.constructor.name, message: e.message }); }
    };
    await failure("an empty module", () => oda.init(new WebAssembly.Module(new Uint8Array(${JSON.stringify(EMPTY)}))));
    await failure("a missing URL", () => oda.init("/pkg/wasm/no-such.wasm"));
    await failure("an HTML page", () => oda.init(new URL("/page.html", location.href)));
    await failure("initSync of garbage", () => oda.initSync(new Uint8Array([0, 97, 115, 109, 9])));
    await failure("the default location", () => oda.init());
    out.push({ what: "a call", answer: oda.todoWrite([], { todos: [{ content: "a", status: "pending" }] }).output });
    window.__out = out;
  </script>`;
  const { out, errors } = await pageResult(t, page, "__out");
  assert.deepEqual(errors, []);
  const by = Object.fromEntries(out.map((o) => [o.what, o]));
  assert.match(by["an empty module"].message, NOT_CORE);
  assert.match(
    by["a missing URL"].message,
    /^oda-tasks: could not load the WebAssembly core from http:\/\/127\.0\.0\.1:\d+\/pkg\/wasm\/no-such\.wasm \(HTTP 404/,
  );
  assert.match(by["an HTML page"].message, /^oda-tasks: http:\/\/127\.0\.0\.1:\d+\/page\.html could not be compiled as WebAssembly \(/);
  assert.match(by["initSync of garbage"].message, /^oda-tasks: the 5 bytes given to initSync\(\) could not be compiled as WebAssembly /);
  for (const o of out.slice(0, 4)) assert.match(o.message, FIX, o.what);
  assert.equal(by["the default location"].loaded, true);
  assert.equal(by["a call"].answer, "Updated todo list: 1 pending, 0 in progress, 0 completed");
});
