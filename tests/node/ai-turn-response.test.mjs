// aiTurnResponse, aiTurnStream and aiTools({ writer }) with the real AI SDK
// (`ai` 7, the workspace's devDependency) and its mock model, against the
// built package: ai 7 needs Node >= 22, so the suite
// (tests/node/support/ai-response-suite.mjs) runs under tests/runtimes' Node 22.
import { test } from "node:test";
import { runUnderNode22 } from "./support/node22.mjs";

test("aiTurnResponse and aiTurnStream under Node 22 with the real ai 7", { timeout: 120_000 }, () => {
  runUnderNode22("tests/node/support/ai-response-suite.mjs", 9, 8000);
});
