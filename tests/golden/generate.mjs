// Writes tests/golden/answers.jsonl from the BUILT package: `npm run build && node tests/golden/generate.mjs`.
import { writeFileSync } from "node:fs";
import { goldenAnswers } from "./corpus.mjs";

const lines = goldenAnswers().map(([name, text]) => JSON.stringify(name) + "\t" + text);
writeFileSync(new URL("./answers.jsonl", import.meta.url), lines.join("\n") + "\n");
console.log(`golden: ${lines.length} answers`);
