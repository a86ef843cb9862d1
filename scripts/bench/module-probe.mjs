// Times the fold of the 100k log (`ChatStateCore` fed the JSONL bytes, cards
// kept) with the shipped module and with another build of it, in the same
// rounds, next to JSON.parse of every line:
//   node scripts/bench/module-probe.mjs <dir with oda_tasks.js and oda_tasks_bg.wasm> [fold|open|all-cards]
// (a build made as scripts/build.mjs makes it, with the change to measure).
// `open` adds the first screen (`viewValue(50)`), `all-cards` every card
// page by page (`cardsValue(from, from + 1000)`), as `npm run bench` does.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { medians } from "./medians.mjs";
import { chatJsonl } from "./generate.mjs";
import { forEachEntry } from "./reference.mjs";

const [other, task = "fold"] = process.argv.slice(2);
if (!other || !["fold", "open", "all-cards"].includes(task)) {
  throw new Error("usage: node scripts/bench/module-probe.mjs <dir of another build> [fold|open|all-cards]");
}
const shippedDir = fileURLToPath(new URL("../../pkg/wasm/", import.meta.url));
const load = async (dir) => {
  const glue = await import(join(dir, "oda_tasks.js") + `?${dir}`);
  glue.initSync({ module: readFileSync(join(dir, "oda_tasks_bg.wasm")) });
  return glue;
};
const [shipped, probe] = [await load(shippedDir), await load(other)];
const bytes = chatJsonl(100_000, { seed: 100_000 });
const fold = (glue) => () => {
  const core = new glue.ChatStateCore(true);
  core.ingestJsonl(bytes);
  core.endJsonl();
  if (task === "open") core.viewValue(50);
  if (task === "all-cards") for (let from = 0; from < core.cardCount; from += 1000) core.cardsValue(from, from + 1000);
  core.free();
};
const [parseMs, shippedMs, probeMs] = medians(9, [() => forEachEntry(bytes, () => {}), fold(shipped), fold(probe)]);
console.log(
  JSON.stringify({
    json_parse_ms: +parseMs.toFixed(1),
    shipped_fold_ms: +shippedMs.toFixed(1),
    probe_fold_ms: +probeMs.toFixed(1),
    shipped_fold_vs_json_parse: +(parseMs / shippedMs).toFixed(3),
    probe_fold_vs_json_parse: +(parseMs / probeMs).toFixed(3),
    probe_vs_shipped: +(shippedMs / probeMs).toFixed(3),
    task,
    date: new Date().toISOString(),
  }),
);
