// aiTurn's rule for tool calls (docs/decisions.md, "A turn and its tool calls"):
// the suite in children/turn-tool-calls-suite.mjs runs the real Vercel AI SDK
// (`ai` 7, from the workspace's devDependencies) with its mock models against
// the BUILT package, under Node 22, which `ai` 7 needs (tests/runtimes).
import { test } from "node:test";
import { runUnderNode22 } from "./support/node22.mjs";

test("aiTurn with generateText and streamText, aborted or throwing while a todo_write is recorded: the turn ends after it; a late call is refused", () => {
  runUnderNode22("tests/node/children/turn-tool-calls-suite.mjs", 6);
});
