// oda-tasks/langchain (odaTasksMiddleware): the suite in
// children/langchain-suite.mjs runs real LangChain v1 agents (`langchain` and
// `@langchain/core`, from the workspace's devDependencies) with LangChain's
// own fake chat model against the BUILT package, under Node 22 (tests/runtimes).
import { test } from "node:test";
import { runUnderNode22 } from "./support/node22.mjs";

test("odaTasksMiddleware in createAgent under Node 22: texts, artifacts, one turn per run (invoke, stream, aborted, throwing), reminder, refusals", () => {
  runUnderNode22("tests/node/children/langchain-suite.mjs", 18);
});
