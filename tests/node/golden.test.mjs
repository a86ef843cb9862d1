// Every answer of the golden corpus (tests/golden/corpus.mjs) equals, byte for
// byte, what the core answered when the fixture was recorded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { goldenAnswers } from "../golden/corpus.mjs";

test("the built package answers the golden corpus byte for byte as recorded", () => {
  const recorded = readFileSync(new URL("../golden/answers.jsonl", import.meta.url), "utf8").trimEnd().split("\n");
  const now = goldenAnswers().map(([name, text]) => JSON.stringify(name) + "\t" + text);
  assert.equal(now.length, recorded.length, "number of answers");
  let differ = 0;
  for (let i = 0; i < now.length; i++) {
    if (now[i] !== recorded[i]) {
      if (differ < 5) assert.equal(now[i], recorded[i], `answer ${i}`);
      differ++;
    }
  }
  assert.equal(differ, 0);
});
