// Every answer of the golden corpus (tests/golden/corpus.mjs) equals, byte for
// byte, what the core answered when the fixture was recorded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { goldenAnswers } from "../golden/corpus.mjs";

/** How many differing answers a failed run prints (the count covers them all). */
const SHOWN = 5;

/**
 * The report of a golden run: "" when `now` equals `recorded` line for line,
 * else how many answers differ and the first `SHOWN` of them, now and recorded.
 */
function goldenReport(now, recorded) {
  const differ = [];
  for (let i = 0; i < Math.max(now.length, recorded.length); i++) {
    if (now[i] !== recorded[i]) differ.push(i);
  }
  if (differ.length === 0) return "";
  const lines = [`${differ.length} of ${recorded.length} recorded answers differ (${now.length} now)`];
  for (const i of differ.slice(0, SHOWN)) {
    lines.push(`answer ${i}:`, `  now:      ${now[i] ?? "(none)"}`, `  recorded: ${recorded[i] ?? "(none)"}`);
  }
  if (differ.length > SHOWN) lines.push(`... and ${differ.length - SHOWN} more`);
  return lines.join("\n");
}

test("the built package answers the golden corpus byte for byte as recorded", () => {
  const recorded = readFileSync(new URL("../golden/answers.jsonl", import.meta.url), "utf8")
    .trimEnd()
    .split("\n");
  const now = goldenAnswers().map(([name, text]) => JSON.stringify(name) + "\t" + text);
  assert.equal(goldenReport(now, recorded), "");
});

test("a golden report names the count of differing answers and shows the first five, now and recorded", () => {
  const recorded = Array.from({ length: 10 }, (_, i) => `"a${i}"\t{"answer":${i}}`);
  const now = recorded.map((line, i) => ([1, 2, 4, 5, 6, 8, 9].includes(i) ? `"a${i}"\t{"answer":-${i}}` : line));
  const report = goldenReport(now, recorded).split("\n");
  assert.equal(report[0], "7 of 10 recorded answers differ (10 now)");
  assert.deepEqual(
    report.filter((l) => l.startsWith("answer ")),
    ["answer 1:", "answer 2:", "answer 4:", "answer 5:", "answer 6:"],
  );
  assert.ok(report.includes('  now:      "a6"\t{"answer":-6}'));
  assert.ok(report.includes('  recorded: "a6"\t{"answer":6}'));
  assert.equal(report.at(-1), "... and 2 more");
  assert.equal(goldenReport(recorded, recorded), "");
  assert.deepEqual(goldenReport(recorded.slice(0, 9), recorded).split("\n").slice(0, 4), [
    "1 of 10 recorded answers differ (9 now)",
    "answer 9:",
    "  now:      (none)",
    '  recorded: "a9"\t{"answer":9}',
  ]);
});
