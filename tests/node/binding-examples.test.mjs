// The binding's doc examples (the `# Examples` blocks of src/wasm/*.rs, which
// wasm-bindgen copies into the glue's JSDoc) run against the BUILT glue: rustdoc
// cannot run them, because src/wasm/ compiles for wasm32 only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import "oda-tasks"; // initialises the module the glue below belongs to
import * as glue from "../../pkg/wasm/oda_tasks.js";

const dir = new URL("../../src/wasm/", import.meta.url);

/** Each ```js block of a `///` doc comment, with the file it is in. */
function examples() {
  const found = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".rs"))) {
    const doc = readFileSync(new URL(name, dir), "utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line.startsWith("///"))
      .map((line) => line.replace(/^\/\/\/ ?/, ""));
    let block = null;
    for (const line of doc) {
      if (block === null && line === "```js") block = [];
      else if (block !== null && line === "```") {
        found.push({ name, code: block.join("\n") });
        block = null;
      } else if (block !== null) block.push(line);
    }
  }
  return found;
}

test("every binding export's doc example runs and its assertions hold", () => {
  const all = examples();
  assert.ok(all.length >= 5, `found ${all.length} examples`); // ChatStateCore, JsonlLines, todoWriteCall, suggestTaskWithoutSession, clampPermission
  for (const { name, code } of all) {
    const exports = Object.entries(glue).filter(([n]) => /^[A-Za-z_$][\w$]*$/.test(n) && n !== "default");
    const run = new Function("assert", ...exports.map(([n]) => n), code);
    assert.doesNotThrow(() => run(assert, ...exports.map(([, v]) => v)), `the example in src/wasm/${name}:\n${code}`);
  }
});
