// The AI frameworks against the packed package in a fresh project: the
// recipes of docs/integration.md as printed, type-checked with the real
// packages' types and run under Node 22 (which `ai` 7 needs) with scripted
// models and no network: the Vercel AI SDK (tests/node/support/ai-suite.mjs), and
// @openai/agents, LangChain (its tools, and a v1 createAgent with odaTasksMiddleware), Mastra and
// @google/genai (tests/node/support/frameworks-suite.mjs).
import { test } from "node:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "../support/browser.mjs";
import { consumer, fileCleanup, packTarball, runSuite, runtimes, sh } from "../support/consumer.mjs";
import { recipes } from "../support/recipes.mjs";

const once = fileCleanup();

const node22 = runtimes()("node-22/bin/node");

const fixture = (name) => readFileSync(join(root, "tests/node/support", name), "utf8");
const recipeTs = [
  "reply-ai.ts",
  "tools-agents.ts",
  "tools-langchain.ts",
  "agent-langchain.ts",
  "tools-mastra.ts",
  "tools-genai.ts",
  "one-liners.ts",
];
const { tarball } = packTarball(once);
const dir = consumer(once, tarball, {
  deps: {
    ai: "7.0.173",
    "@openai/agents": "0.20.0",
    zod: "4.6.7",
    "@langchain/core": "1.4.0",
    langchain: "1.5.14",
    "@mastra/core": "1.71.0",
    "@google/genai": "3.3.0",
    openai: "7.59.0",
    "@anthropic-ai/sdk": "1.14.0",
    typescript: "5.9.3",
    "@types/node": "22.20.7",
  },
  files: {
    ...recipes(...recipeTs),
    "ai-suite.mjs": fixture("ai-suite.mjs"),
    "ai-models.mjs": fixture("ai-models.mjs"),
    "tool-fixtures.mjs": fixture("tool-fixtures.mjs"),
    "frameworks-suite.mjs": fixture("frameworks-suite.mjs"),
    "tsconfig.json": JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "nodenext",
        moduleResolution: "nodenext",
        strict: true,
        noEmit: true,
        types: ["node"],
        lib: ["ES2022", "DOM"],
        skipLibCheck: true,
        allowImportingTsExtensions: true,
      },
      files: recipeTs,
    }),
  },
});

test("the framework recipes type-check against the real packages' types (with the strict literals @openai/agents wants)", () => {
  sh(dir, process.execPath, ["node_modules/typescript/bin/tsc", "-p", "."]);
});

test("Vercel AI SDK: aiTools and aiTurn with generateText and streamText over MemoryStore and JsonlStore", () => {
  runSuite(node22, dir, "ai-suite.mjs", 12);
});

test("@openai/agents, LangChain (tools, and createAgent with odaTasksMiddleware), Mastra and @google/genai with scripted models", () => {
  runSuite(node22, dir, "frameworks-suite.mjs", 5);
});
