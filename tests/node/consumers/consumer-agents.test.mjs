// The agent UI protocols against the packed package in a fresh project: the
// AG-UI recipe (odaAgUi on a real Mastra agent through @ag-ui/mastra, the AI
// SDK's scripted model) and the ACP recipe (odaAcp in an agent of the ACP
// SDK, over its own newline-delimited JSON pipe), as printed in
// docs/integration.md, type-checked and run under Node 22 (tests/node/support/agents-suite.mjs).
// `legacy-peer-deps`: @ag-ui/mastra names @copilotkit/runtime a required peer
// that its main entry never imports; npm would install the whole CopilotKit
// runtime for nothing. Every peer the recipes need is listed below.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "../support/browser.mjs";
import { consumer, fileCleanup, packTarball, runtimes, sh } from "../support/consumer.mjs";
import { recipes } from "../support/recipes.mjs";

const once = fileCleanup();
const node22 = runtimes()("node-22/bin/node");
const recipeTs = ["agent-ag-ui.ts", "agent-acp.ts"];
const { tarball } = packTarball(once);
const dir = consumer(once, tarball, {
  deps: {
    "@ag-ui/client": "1.0.0",
    "@ag-ui/core": "1.0.0",
    "@ag-ui/mastra": "1.1.2",
    "@mastra/core": "1.71.0",
    "@agentclientprotocol/sdk": "2.4.0",
    ai: "7.0.173",
    rxjs: "7.8.1",
    zod: "4.6.7",
    typescript: "5.9.3",
    "@types/node": "22.20.7",
  },
  files: {
    ".npmrc": "legacy-peer-deps=true\n",
    ...recipes(...recipeTs),
    "agents-suite.mjs": readFileSync(join(root, "tests/node/support/agents-suite.mjs"), "utf8"),
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

test("the AG-UI and ACP recipes type-check against the real packages' types", () => {
  sh(dir, process.execPath, ["node_modules/typescript/bin/tsc", "-p", "."]);
});

test("the recipes run under Node 22: Mastra's AG-UI events with the card, plan and suggestions in order; ACP plan updates and turns", () => {
  const env = Object.fromEntries(Object.entries({ ...process.env, NO_COLOR: "1" }).filter(([k]) => k !== "NODE_TEST_CONTEXT"));
  const r = spawnSync(node22, ["--test", "--test-reporter=spec", "agents-suite.mjs"], { cwd: dir, encoding: "utf8", env });
  assert.equal(r.status, 0, `${r.stdout.slice(-6000)}\n${r.stderr.slice(-3000)}`);
  assert.match(r.stdout, /ℹ pass 2\b/);
  assert.match(r.stdout, /ℹ fail 0\b/);
});
