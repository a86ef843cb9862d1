// Measures the fold of the 100k log at the current build: `node scripts/bench/opt-probe.mjs` (after `npm run build`).
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { Bench } from "tinybench";
import { ChatState } from "oda-tasks";
import { chatJsonl } from "./generate.mjs";

const bytes = chatJsonl(100_000, { seed: 100_000 });
const parse = () => {
  const text = bytes.toString("utf8");
  for (let start = 0; ; ) {
    const end = text.indexOf("\n", start);
    if (end < 0) break;
    if (end > start) JSON.parse(text.slice(start, end));
    start = end + 1;
  }
};
// Rounds interleave the four, so a noisy neighbour slows them alike (as scripts/bench.mjs does).
const samples = [[], [], [], []];
for (let round = 0; round < 9; round++) {
  const bench = new Bench({ iterations: 1, time: 0, warmup: round === 0, warmupIterations: 1, warmupTime: 0 });
  bench.add("JSON.parse", parse);
  bench.add("fold cards", () => ChatState.fromJsonl(bytes).free());
  bench.add("fold no cards", () => ChatState.fromJsonl(bytes, { cards: false }).free());
  bench.add("open", () => {
    const s = ChatState.fromJsonl(bytes);
    s.view({ cards: 50 });
    s.free();
  });
  bench.runSync();
  bench.tasks.forEach((t, i) => samples[i].push(t.result.latency.p50));
}
const [p, f, n, o] = samples.map((list) => list.sort((a, b) => a - b)[4]);
const wasm = readFileSync(new URL("../../pkg/wasm/oda_tasks_bg.wasm", import.meta.url));
console.log(
  JSON.stringify({
    gzip: gzipSync(wasm, { level: 9 }).length,
    parse_ms: +p.toFixed(1),
    fold_vs_parse: +(p / f).toFixed(3),
    nocards_vs_parse: +(p / n).toFixed(3),
    open_vs_parse: +(p / o).toFixed(3),
  }),
);
