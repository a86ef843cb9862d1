// The agent protocols against the packed package in a fresh project, as printed in
// docs/integration.md: the AG-UI recipe (odaAgUi on a real Mastra agent through
// @ag-ui/mastra, the AI SDK's scripted model) and the ACP recipe (odaAcp in an agent of
// the ACP SDK, over its own newline-delimited JSON pipe), type-checked and run under
// Node 22 (tests/node/support/agents-suite.mjs); the Claude Agent SDK recipe with the
// real Claude Code CLI (tests/node/support/claude-recipe-suite.mjs); and the MCP hosts'
// configurations, whose `npx oda-tasks mcp` runs the project's installed bin.
// `legacy-peer-deps`: @ag-ui/mastra names @copilotkit/runtime a required peer
// that its main entry never imports; npm would install the whole CopilotKit
// runtime for nothing. Every peer the recipes need is listed below.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { root } from "../support/browser.mjs";
import { consumer, fileCleanup, packTarball, runSuite, runtimes, sh } from "../support/consumer.mjs";
import { recipes } from "../support/recipes.mjs";

const once = fileCleanup();
const node22 = runtimes()("node-22/bin/node");
const recipeTs = ["agent-ag-ui.ts", "agent-acp.ts", "reply-claude.ts"];
const fixture = (name) => readFileSync(join(root, "tests/node/support", name), "utf8");
const { tarball } = packTarball(once);
const dir = consumer(once, tarball, {
  deps: {
    "@ag-ui/client": "1.0.0",
    "@ag-ui/core": "1.0.0",
    "@ag-ui/mastra": "1.1.2",
    "@mastra/core": "1.71.0",
    "@agentclientprotocol/sdk": "2.4.0",
    "@anthropic-ai/claude-agent-sdk": "0.3.335",
    "@anthropic-ai/sdk": "1.16.0",
    "@modelcontextprotocol/sdk": "1.32.2",
    ai: "7.0.173",
    rxjs: "7.8.1",
    zod: "4.6.7",
    typescript: "5.9.3",
    "@types/node": "22.20.7",
  },
  files: {
    ".npmrc": "legacy-peer-deps=true\n",
    ...recipes(...recipeTs),
    "agents-suite.mjs": fixture("agents-suite.mjs"),
    "claude-recipe-suite.mjs": fixture("claude-recipe-suite.mjs"),
    "anthropic-fake.mjs": fixture("anthropic-fake.mjs"),
    "tool-fixtures.mjs": fixture("tool-fixtures.mjs"),
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

test("the AG-UI, ACP and Claude Agent SDK recipes type-check against the real packages' types", () => {
  sh(dir, process.execPath, ["node_modules/typescript/bin/tsc", "-p", "."]);
});

test("the recipes run under Node 22: Mastra's AG-UI events with the card, plan and suggestions in order; ACP plan updates and turns", () => {
  runSuite(node22, dir, "agents-suite.mjs", 2);
});

test("the Claude Agent SDK recipe runs under Node 22 with the real Claude Code CLI: the chat's cards drawn, one turn", () => {
  runSuite(node22, dir, "claude-recipe-suite.mjs", 1);
});

test("the Claude Desktop and VS Code configurations of docs/integration.md start the project's server as printed (npx oda-tasks mcp)", async (t) => {
  const printed = recipes("claude_desktop_config.json", ".vscode/mcp.json");
  const desktop = JSON.parse(printed["claude_desktop_config.json"]).mcpServers["oda-tasks"];
  const vscode = JSON.parse(printed[".vscode/mcp.json"]).servers["oda-tasks"];
  assert.equal(vscode.type, "stdio");
  for (const [host, server] of [
    ["Claude Desktop", desktop],
    ["VS Code", vscode],
  ]) {
    const store = mkdtempSync(join(tmpdir(), "oda-mcp-"));
    t.after(() => rmSync(store, { recursive: true, force: true }));
    // The host's own paths: the store in a temp folder, VS Code's ${workspaceFolder} as it substitutes it.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's own variable, as the configuration prints it
    const args = server.args.map((arg, i) => (server.args[i - 1] === "--store" ? store : arg.replaceAll("${workspaceFolder}", store)));
    const client = new Client({ name: host, version: "1.0.0" });
    // In the project, where npx finds its installed oda-tasks; offline, so nothing can be downloaded.
    const env = { ...getDefaultEnvironment(), npm_config_offline: "true" };
    await client.connect(new StdioClientTransport({ command: server.command, args, cwd: dir, env, stderr: "pipe" }));
    t.after(() => client.close());
    const listed = (await client.listTools()).tools.map((tool) => tool.name);
    assert.deepEqual(listed, server.args.includes("--no-suggest-task") ? ["todo_write"] : ["todo_write", "suggest_task"], host);
    const r = await client.callTool({ name: "todo_write", arguments: { todos: [{ content: `From ${host}`, status: "in_progress" }] } });
    assert.deepEqual(r.content, [{ type: "text", text: "Updated todo list: 0 pending, 1 in progress, 0 completed" }], host);
    assert.equal(readdirSync(store).filter((f) => f.endsWith(".jsonl")).length, 1, host);
  }
});
