// TypeScript projects using the packed package: Node-only (no DOM lib), the
// old `moduleResolution: "node"`, CommonJS, the README's snippet under
// `strict`, and the SDK tool shapes against the real `openai` and
// `@anthropic-ai/sdk` types (dev dependencies of this test only).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "../support/browser.mjs";
import { consumer, packTarball, sh } from "../support/consumer.mjs";

const cleanup = [];
test.after(() => cleanup.forEach((fn) => fn()));
const once = { after: (fn) => cleanup.push(fn) };
const { tarball } = packTarball(once);

/**
 * The README's chat-app example, exactly as printed, as a TypeScript file of
 * the Node-only project: its imports on top, the rest in an async function.
 */
const readme = readFileSync(join(root, "README.md"), "utf8");
const example = readme.match(/<!-- file: chat\.mjs -->\n```js\n([\s\S]*?)```/);
const snippets = example ? [example[1]] : [];
const usage = Object.fromEntries(
  snippets.map((code, n) => {
    const lines = code.split("\n");
    const imports = lines.filter((l) => l.startsWith("import "));
    const body = lines.filter((l) => !l.startsWith("import "));
    return [
      `node-only/usage-${n}.ts`,
      `${imports.join("\n")}
export async function example() {
${body.join("\n")}
}
`,
    ];
  }),
);

const tsconfig = (options, files) =>
  JSON.stringify({
    compilerOptions: { target: "ES2022", strict: true, skipLibCheck: false, types: ["node"], lib: ["ES2022"], ...options },
    files,
  });
const use = `import { init, openaiTools, replayTodos, todoWrite, MemoryStore, type TodoReplay } from "oda-tasks";
import { JsonlStore } from "oda-tasks/node";
import { SqliteStore, type SqliteConnection } from "oda-tasks/sqlite";
import { storeContract } from "oda-tasks/testing";
await init();
const replay: TodoReplay = replayTodos([]);
const r = todoWrite([], { todos: [{ content: "a", status: "pending" }] });
declare const db: SqliteConnection;
export const out = [replay, r, openaiTools({ strict: true }), new MemoryStore(), new JsonlStore("chats"), new SqliteStore(db), storeContract];
`;

const dir = consumer(once, tarball, {
  deps: { typescript: "5.9.3", "@types/node": "20.19.43", openai: "7.59.0", "@anthropic-ai/sdk": "1.14.0" },
  files: {
    // A Node-only project: no DOM names may leak from the package's .d.ts.
    "node-only/tsconfig.json": tsconfig({ module: "nodenext", moduleResolution: "nodenext", noEmit: true }, [
      "app.ts",
      ...Object.keys(usage).map((f) => f.slice("node-only/".length)),
    ]),
    "node-only/app.ts": use,
    ...usage,
    // The old resolution reads the top-level `types` (and typesVersions for the subpaths).
    "node10/tsconfig.json": tsconfig({ module: "esnext", moduleResolution: "node", noEmit: true }, ["app.ts"]),
    "node10/app.ts": use,
    // CommonJS: `await import()` with module node16; `require` with module nodenext (Node >= 20.19).
    "cjs/package.json": JSON.stringify({ type: "commonjs" }),
    "cjs/tsconfig.json": tsconfig({ module: "node16", moduleResolution: "node16", outDir: "out16" }, ["dynamic.ts"]),
    "cjs/tsconfig.require.json": tsconfig({ module: "nodenext", moduleResolution: "nodenext", outDir: "outnext" }, ["require.ts"]),
    "cjs/dynamic.ts": `async function main(): Promise<void> {
  const { todoWrite } = await import("oda-tasks");
  console.log(todoWrite([], { todos: [] }).ok);
}
void main();
`,
    "cjs/require.ts": `import { todoWrite } from "oda-tasks";
console.log(todoWrite([], { todos: [] }).ok);
`,
    // The SDKs' own tool and request types accept the ready-made shapes.
    "sdk/tsconfig.json": tsconfig(
      { module: "nodenext", moduleResolution: "nodenext", noEmit: true, skipLibCheck: true, lib: ["ES2022", "DOM"] },
      ["sdk.ts"],
    ),
    "sdk/sdk.ts": `import type OpenAI from "openai";
import type Anthropic from "@anthropic-ai/sdk";
import { anthropicTools, openaiTools } from "oda-tasks";

export const chat: OpenAI.Chat.Completions.ChatCompletionTool[] = openaiTools();
export const strict: OpenAI.Chat.Completions.ChatCompletionTool[] = openaiTools({ strict: true });
export const request: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming = {
  model: "m", messages: [{ role: "user", content: "hi" }], tools: openaiTools({ strict: true }),
};
export const responses: OpenAI.Responses.Tool[] = openaiTools({ strict: true }).map((t) => ({ type: "function" as const, ...t.function }));
export const claude: Anthropic.Tool[] = anthropicTools();
export const claudeRequest: Anthropic.MessageCreateParamsNonStreaming = {
  model: "m", max_tokens: 1024, messages: [{ role: "user", content: "hi" }], tools: anthropicTools(),
};
`,
  },
});

const tsc = (project) => sh(dir, process.execPath, ["node_modules/typescript/bin/tsc", "-p", project]);

// One tsc run checks both: the project's files include the README's example.
test("a Node-only project (lib ES2022, @types/node, skipLibCheck false) type-checks, the README's chat-app example under strict included: no DOM names in the .d.ts", () => {
  assert.equal(snippets.length, 1, "README prints chat.mjs");
  tsc("node-only");
});

test('moduleResolution "node" resolves the package and its subpaths', () => {
  tsc("node10");
});

test("CommonJS: await import() with module node16, require with module nodenext; both run", () => {
  tsc("cjs");
  assert.equal(sh(join(dir, "cjs"), process.execPath, ["out16/dynamic.js"]).trim(), "true");
  tsc("cjs/tsconfig.require.json");
  const emitted = readFileSync(join(dir, "cjs/outnext/require.js"), "utf8");
  assert.match(emitted, /require\("oda-tasks"\)/);
  assert.equal(sh(join(dir, "cjs"), process.execPath, ["outnext/require.js"]).trim(), "true");
});

test("openaiTools and anthropicTools type-check against the openai and @anthropic-ai/sdk types", () => {
  tsc("sdk");
});
