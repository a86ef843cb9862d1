// Times the fold of the 100k log (`ChatStateCore` fed the JSONL bytes, cards
// kept) with the shipped module and with other builds of it, in the same
// rounds, next to JSON.parse of every line:
//   node scripts/bench/module-probe.mjs [--slice=BYTES] [--rounds=N] <dir> [<dir> ...] [fold|open|all-cards|no-cards]
// each <dir> holding oda_tasks.js and oda_tasks_bg.wasm, a build made as
// scripts/build.mjs makes it, with the change to measure. `open` adds the
// first screen (`viewValue(50)`), `all-cards` every card page by page
// (`cardsValue(from, from + 1000)`), as `npm run bench` does; `no-cards` folds
// for decisions only. `--slice` feeds the bytes that many at a time (as
// `ChatState.ingestJsonl` does: 262144), else all at once. Each round runs
// every task once, starting one further along, so no build always goes first.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chatJsonl } from "./generate.mjs";
import { forEachEntry } from "./reference.mjs";

const TASKS = ["fold", "open", "all-cards", "no-cards"];
const args = process.argv.slice(2);
const option = (name, fallback) => Number(args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const positional = args.filter((a) => !a.startsWith("--"));
const task = TASKS.includes(positional.at(-1)) ? positional.pop() : "fold";
const [slice, rounds] = [option("slice", 0), option("rounds", 9)];
if (positional.length === 0 || !(slice >= 0) || !(rounds >= 1)) {
  throw new Error(
    "usage: node scripts/bench/module-probe.mjs [--slice=BYTES] [--rounds=N] <dir> [<dir> ...] [fold|open|all-cards|no-cards]",
  );
}
const dirs = [fileURLToPath(new URL("../../pkg/wasm/", import.meta.url)), ...positional];
const glues = [];
for (const dir of dirs) {
  const glue = await import(`${join(dir, "oda_tasks.js")}?${dir}`);
  glue.initSync({ module: readFileSync(join(dir, "oda_tasks_bg.wasm")) });
  glues.push(glue);
}
const bytes = chatJsonl(100_000, { seed: 100_000 });
const fold = (glue) => () => {
  const core = new glue.ChatStateCore(task !== "no-cards");
  if (slice > 0) for (let at = 0; at < bytes.length; at += slice) core.ingestJsonl(bytes.subarray(at, at + slice));
  else core.ingestJsonl(bytes);
  core.endJsonl();
  if (task === "open") core.viewValue(50);
  if (task === "all-cards") for (let from = 0; from < core.cardCount; from += 1000) core.cardsValue(from, from + 1000);
  core.free();
};
const tasks = [() => forEachEntry(bytes, () => {}), ...glues.map(fold)];
const samples = tasks.map(() => []);
for (let round = -1; round < rounds; round++) {
  for (let k = 0; k < tasks.length; k++) {
    const i = (k + Math.max(round, 0)) % tasks.length;
    const start = performance.now();
    tasks[i]();
    if (round >= 0) samples[i].push(performance.now() - start); // round -1 warms up
  }
}
const [parseMs, ...ms] = samples.map((list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)]);
console.log(
  JSON.stringify({
    task,
    slice,
    rounds,
    json_parse_ms: +parseMs.toFixed(1),
    builds: dirs.map((dir, i) => ({
      dir: i === 0 ? "pkg/wasm (shipped)" : dir,
      ms: +ms[i].toFixed(1),
      vs_json_parse: +(parseMs / ms[i]).toFixed(3),
      vs_shipped: +(ms[0] / ms[i]).toFixed(3),
    })),
    date: new Date().toISOString(),
  }),
);
