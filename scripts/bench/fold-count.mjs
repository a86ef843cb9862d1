// Folds the 100k log `reps` times with one build, and nothing else: the
// program to count instructions of, where timings are too noisy to compare
// two builds (V8's optimising tier only, so every run compiles alike):
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null --smc-check=all-non-file \
//     node --no-liftoff --no-wasm-tier-up scripts/bench/fold-count.mjs <build dir> <reps> [log.jsonl]
// The fold's count is the 2-rep run's minus the 1-rep run's. The log is the
// 100k log of `npm run bench`, or the file given (generating it under
// valgrind takes minutes: write it once with generate.mjs's chatJsonl).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chatJsonl } from "./generate.mjs";

const [dir, reps = "1", file] = process.argv.slice(2);
if (!dir) throw new Error("usage: node scripts/bench/fold-count.mjs <dir with oda_tasks.js and oda_tasks_bg.wasm> [reps] [log.jsonl]");
const glue = await import(join(dir, "oda_tasks.js"));
glue.initSync({ module: readFileSync(join(dir, "oda_tasks_bg.wasm")) });
const bytes = file ? readFileSync(file) : chatJsonl(100_000, { seed: 100_000 });
for (let i = 0; i < Number(reps); i++) {
  const core = new glue.ChatStateCore(true);
  core.ingestJsonl(bytes);
  core.endJsonl();
  core.free();
}
