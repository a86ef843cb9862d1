// Which channel each answer takes out of WASM: JSON text + JSON.parse, or a
// JS value built by serde-wasm-bindgen (Serializer::json_compatible()).
// Builds a probe module with the `value-channel` feature (not shipped) and
// times both on the same chat. Usage: node scripts/bench/channel-probe.mjs
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Bench } from "tinybench";
import { chatJsonl } from "./generate.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const out = mkdtempSync(join(tmpdir(), "oda-channel-"));
execFileSync("cargo", ["build", "--release", "--target", "wasm32-unknown-unknown", "--features", "value-channel", "--quiet"], { cwd: root, stdio: "inherit" });
execFileSync("wasm-bindgen", ["target/wasm32-unknown-unknown/release/oda_tasks.wasm", "--out-dir", out, "--target", "web"], { cwd: root, stdio: "inherit" });
const glue = await import(join(out, "oda_tasks.js"));
glue.initSync({ module: readFileSync(join(out, "oda_tasks_bg.wasm")) });

const core = new glue.ChatStateCore(true);
core.ingestJsonl(chatJsonl(10_000, { seed: 7 }));
core.ingestJsonl(new TextEncoder().encode('{"type":"turn_started"}\n{"type":"suggestion_offered","v":1,"id":"zz","title":"t","tldr":"w","brief":"b"}\n'));
core.endJsonl();
const list = JSON.stringify({ input: { todos: Array.from({ length: 20 }, (_, i) => ({ content: `Step ${i} of the plan`, status: i === 0 ? "in_progress" : "pending" })) } });
const settle = '{"id":"zz","action":"dismiss"}';

const kinds = [
  ["tool answer (todo_write, 20 items)", () => JSON.parse(core.todoWrite(list)[0]), () => core.todoWriteValue(list)],
  ["settle decision", () => JSON.parse(core.settleSuggestion(settle)[0]), () => core.settleValue(settle)],
  ["first screen: view({ cards: 50 })", () => JSON.parse(core.view(50)), () => core.viewValue(50)],
  ["a page of 1000 cards", () => JSON.parse(core.cards(0, 1000)), () => core.cardsValue(0, 1000)],
];
const results = {};
for (const [kind, text, value] of kinds) {
  const a = JSON.stringify(text());
  const b = JSON.stringify(value());
  if (a !== b) throw new Error(`${kind}: the channels answer differently`);
  const bench = new Bench({ iterations: 200, time: 0, warmupIterations: 20, warmupTime: 0 });
  bench.add("text", text).add("value", value);
  bench.runSync();
  const [t, v] = bench.tasks.map((task) => task.result.latency.p50);
  results[kind] = { json_text_us: +(t * 1000).toFixed(1), swb_value_us: +(v * 1000).toFixed(1), value_vs_text: +(t / v).toFixed(2) };
}
// serde-wasm-bindgen sets each member by assignment: an inherited setter runs, under Rust frames.
let ran = 0;
Object.defineProperty(Object.prototype, "cardCount", { set() { ran++; }, configurable: true });
core.viewValue(1);
delete Object.prototype.cardCount;
results.inherited_setter_ran_under_rust_frames = ran > 0;
core.free();
console.log(JSON.stringify(results, null, 1));
