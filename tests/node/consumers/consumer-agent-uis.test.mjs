// The chat UI kits' recipes of docs/integration.md, as printed, in one fresh
// project that installed the packed tarball: a CopilotKit page fed by the real
// AG-UI producer (Mastra through @ag-ui/mastra, odaAgUi, the AI SDK's mock
// model) and an assistant-ui page on the AI SDK runtime (aiTurnResponse, the
// same model), type-checked against the kits' own types, built by Vite (two
// pages), served with chatHandler by one small Node 22 server
// (support/agent-uis/server.ts), and driven in real Chromium. The model waits
// at gates the test opens, so the plan is seen mid-run and the card while the
// model still writes the call. With ODA_SCREENSHOTS=1 it also writes the four
// pictures docs/elements.md shows.
// `legacy-peer-deps`: @ag-ui/mastra names @copilotkit/runtime a required peer
// that its main entry never imports (consumer-agents.test.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root, sessionTab } from "../support/browser.mjs";
import { consumer, fileCleanup, packTarball, runtimes } from "../support/consumer.mjs";
import { sessionCheck } from "../support/nextjs.mjs";
import { recipes } from "../support/recipes.mjs";
import { freePort, serveUntil } from "../support/serve.mjs";

const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const once = fileCleanup();
const node22 = runtimes()("node-22/bin/node");
const { tarball } = packTarball(once);
const support = (name) => readFileSync(join(root, "tests/node/support/agent-uis", name), "utf8");
/** A page of the Vite build: mount.tsx draws app/<name>/page.tsx (a few lines of style for the pictures: the recipes bring none of their own). */
const page = (name) => `<!doctype html>
<html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Chat</title>
<style>body { margin: 0; font-family: system-ui, sans-serif; } main, aside { max-width: 48rem; margin: 0 auto; padding: 0.5rem; }
oda-todo-card, oda-plan, oda-suggestions { display: block; margin: 0.5rem 0; } [data-role="user"] { text-align: right; margin: 0.5rem 0; }
form { display: flex; gap: 0.5rem; } textarea { flex: 1; font: inherit; }</style>
<div id="root" data-page="${name}"></div><script type="module" src="/mount.tsx"></script></html>
`;
const pageFiles = ["app/copilotkit/page.tsx", "app/assistant-ui/page.tsx"];
const dir = consumer(once, tarball, {
  deps: {
    "@copilotkit/react-core": "1.74.0",
    "@assistant-ui/react": "0.15.22",
    "@assistant-ui/react-ai-sdk": "1.4.12",
    "@ai-sdk/react": "4.0.177",
    "@ag-ui/client": "1.0.0",
    "@ag-ui/core": "1.0.0",
    "@ag-ui/mastra": "1.1.2",
    "@mastra/core": "1.71.0",
    ai: "7.0.173",
    react: "19.3.1",
    "react-dom": "19.3.1",
    rxjs: "7.8.1",
    zod: "4.6.7",
    vite: "6.4.6",
    typescript: "5.9.3",
    "@types/react": "19.3.0",
    "@types/react-dom": "19.3.0",
    "@types/node": "22.20.7",
  },
  files: {
    ".npmrc": "legacy-peer-deps=true\n",
    ...recipes(
      "lib/oda.ts",
      "app/api/oda/[...path]/route.ts",
      "app/api/chat/route.ts",
      "agent-ag-ui.ts",
      "app/api/agent/route.ts",
      ...pageFiles,
    ),
    "lib/auth.ts": sessionCheck,
    "lib/model.ts": support("model.ts"),
    "server.ts": support("server.ts"),
    "mount.tsx": support("mount.tsx"),
    "copilotkit.html": page("copilotkit"),
    "assistant-ui.html": page("assistant-ui"),
    "vite.config.mjs": `export default { logLevel: "error", build: { target: "es2022", rollupOptions: { input: ["copilotkit.html", "assistant-ui.html"] } } };\n`,
    "tsconfig.json": JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        lib: ["dom", "dom.iterable", "ES2022"],
        types: ["node"],
        strict: true,
        noEmit: true,
        module: "esnext",
        moduleResolution: "bundler",
        jsx: "react-jsx",
        skipLibCheck: true,
        isolatedModules: true,
      },
      include: ["**/*.ts", "**/*.tsx"],
      exclude: ["node_modules", "dist"],
    }),
  },
});

/** Runs `args` in the project, niced; resolves when it exits 0, rejects with its output otherwise. */
function run(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn("nice", ["-n", "10", command, ...args], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    child.on("exit", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(" ")} failed:\n${output.slice(-6000)}`)),
    );
  });
}

/** The pages built and the server bundled once: tsc checks the recipes meanwhile (against CopilotKit's, assistant-ui's and Mastra's own types). */
let ready;
function built() {
  ready ??= Promise.all([
    run(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "."]),
    run(process.execPath, ["node_modules/vite/bin/vite.js", "build"]),
    run("node_modules/esbuild/bin/esbuild", [
      "server.ts",
      "--bundle",
      "--platform=node",
      "--format=esm",
      "--packages=external",
      "--outfile=server.mjs",
      "--log-level=warning",
    ]),
  ]);
  return ready;
}

/** The server (Node 22: Mastra's floor) over a fresh chats folder; resolves to its URL. */
async function server(t) {
  await built();
  const chats = mkdtempSync(join(tmpdir(), "oda-agent-uis-"));
  t.after(() => rmSync(chats, { recursive: true, force: true }));
  const url = `http://127.0.0.1:${await freePort()}`;
  await serveUntil(t, {
    cwd: dir,
    env: { ...process.env, ODA_CHATS: chats, PORT: new URL(url).port },
    command: node22,
    args: ["server.mjs"],
    url: `${url}/copilotkit.html`,
    answer: () => undefined,
  });
  return url;
}

/** The chat's screen as chatHandler serves it, with the session (`null` for a chat the store lacks), and what a request without it gets. */
async function screen(url, chatId) {
  const response = await fetch(`${url}/api/oda/chats/${chatId}`, { headers: { cookie: "session=person-1" } });
  const stranger = (await fetch(`${url}/api/oda/chats/${chatId}`)).status;
  return { screen: response.status === 200 ? await response.json() : null, status: response.status, stranger };
}

const release = (url, gate) => fetch(`${url}/test/release/${gate}`, { method: "POST" });

/** axe-core's violations on the page, less `exclude` (selectors of the kit's own parts). */
async function axe(tab, exclude = []) {
  await tab.addScriptTag({ path: axePath });
  const result = await tab.evaluate(
    (exclude) => window.axe.run({ include: [["html"]], exclude: exclude.map((s) => [s]) }, { resultTypes: ["violations"] }),
    exclude,
  );
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** With ODA_SCREENSHOTS=1: the page's main region at 390 and 1280 px, as docs/agent-ui-<name>-<width>.png. */
async function pictures(tab, name) {
  if (process.env.ODA_SCREENSHOTS !== "1") return;
  for (const width of [390, 1280]) {
    await tab.setViewportSize({ width, height: 900 });
    await tab.waitForTimeout(300);
    await tab.locator("main").screenshot({ path: join(root, `docs/agent-ui-${name}-${width}.png`) });
  }
}

test("CopilotKit: odaActivityRenderers draw odaAgUi's card, plan and suggestions from Mastra's AG-UI run; the plan moves while the agent runs; Start makes the chat; a reload shows the store's list; axe finds nothing", {
  timeout: 600_000,
}, async (t) => {
  const url = await server(t);
  const { tab, errors } = await sessionTab(t, url, "/copilotkit.html");
  const chat = tab.locator("main");
  const input = chat.getByRole("textbox");
  await input.fill("Plan the release");
  await input.press("Enter");

  // The first recorded list, while the model waits at its gate: the run is still going.
  const plan = chat.locator("oda-plan");
  await plan.getByText("Running · turn 1").waitFor({ timeout: 60_000 });
  assert.equal(await plan.locator("[part=counts]").textContent(), "0 of 2 completed");
  assert.equal(await chat.locator("oda-todo-card").count(), 1);
  assert.equal(await chat.locator("oda-suggestions").count(), 0);
  assert.deepEqual(await plan.locator("[part~=item]").allTextContents(), ["In progress: Write tests", "Pending: Ship"]);

  await release(url, "plan");
  await chat.getByText("Planned.").waitFor({ timeout: 60_000 });
  await plan.getByText("Finished · turn 1").waitFor({ timeout: 60_000 }); // the run ended its turn; the plan follows the store
  assert.equal(await plan.locator("[part=counts]").textContent(), "1 of 2 completed");
  const cards = chat.locator("oda-todo-card");
  assert.equal(await cards.count(), 2, "one card per recorded todo_write");
  assert.match(await cards.nth(1).locator("[part=summary]").textContent(), /0 pending · 1 in progress · 1 completed/);
  assert.match(await cards.nth(1).locator("[part~=mark-changed]").first().textContent(), /In progress → Completed/);

  await pictures(tab, "copilotkit");
  await tab.setViewportSize({ width: 1280, height: 900 });

  // Start on the chip in the chat: chatHandler starts the chat (the store has it), and says so.
  const suggestions = chat.locator("oda-suggestions");
  await suggestions.getByRole("button", { name: "Start: Add retries" }).click();
  await suggestions.getByText("Started “Add retries” in a new chat.").waitFor({ timeout: 30_000 });
  const started = await screen(url, "chat-ck.s1");
  assert.equal(started.screen?.chatId, "chat-ck.s1", `the started chat: ${started.status}`);
  assert.equal(started.stranger, 403, "no session, no chat");
  const offering = await screen(url, "chat-ck");
  assert.deepEqual(
    offering.screen.settled.map(({ id, outcome, chatId }) => ({ id, outcome, chatId })),
    [{ id: "s1", outcome: "started", chatId: "chat-ck.s1" }],
  );
  // CopilotKit 1.74's own input bar is left out: its add-menu and send buttons are icons with no name (axe's button-name).
  assert.deepEqual(await axe(tab, ["[data-testid=copilot-chat-input]"]), []);

  // A reload: CopilotKit's messages are gone, the page's plan and suggestions read the store.
  await tab.reload();
  const aside = tab.locator("aside");
  assert.equal(await aside.locator("oda-plan h2").textContent(), "This chat's plan");
  await aside.locator("oda-plan").getByText("Finished · turn 1").waitFor({ timeout: 30_000 });
  assert.deepEqual(await aside.locator("oda-plan [part~=item]").allTextContents(), ["Completed: Write tests", "In progress: Ship"]);
  await aside.locator("oda-suggestions").getByRole("button", { name: "Open chat: Add retries" }).waitFor({ timeout: 60_000 });
  assert.deepEqual(errors, []);
});

test("assistant-ui: odaAssistantUi draws the todo_write call as its card (the tentative card while the model writes it), the suggest_task chip, and the plan and suggestions data parts of aiTurnResponse; Start makes the chat; axe finds nothing", {
  timeout: 600_000,
}, async (t) => {
  const url = await server(t);
  const { tab, errors } = await sessionTab(t, url, "/assistant-ui.html");
  const chat = tab.locator("main");
  await chat.getByRole("textbox", { name: "Message" }).fill("Write the plan");
  await chat.getByRole("button", { name: "Send" }).click();

  // input-streaming: the model stopped halfway through the list, so the tentative card shows what is written.
  const card = chat.locator("oda-todo-card");
  await card.locator("[part~=preview-mark]").waitFor({ timeout: 60_000 });
  assert.equal(await card.locator("[part~=preview-mark]").textContent(), "Not yet recorded");
  assert.match(await card.locator("[part~=item]").first().textContent(), /Write tests/);
  assert.equal(await card.locator("[part~=item]").count(), 1, "the second item is not written yet");
  assert.equal(await screen(url, "chat-aui").then((s) => s.screen.cardCount), 0, "nothing recorded yet");

  await release(url, "input");
  await chat.getByText("Planned.").waitFor({ timeout: 60_000 });
  assert.equal(await card.count(), 1, "the recorded card replaced the tentative one");
  assert.equal(await card.locator("[part~=preview-mark]").count(), 0);
  assert.match(await card.locator("[part=summary]").textContent(), /1 pending · 1 in progress · 0 completed/);
  const plan = chat.locator("oda-plan");
  await plan.getByText("Finished · turn 1").waitFor({ timeout: 30_000 });
  assert.equal(await plan.locator("[part=counts]").textContent(), "0 of 2 completed");

  // Two drawings of the offer: the suggest_task call's chip (offer="s1") and the data-oda-suggestions part.
  await pictures(tab, "assistant-ui");
  await tab.setViewportSize({ width: 1280, height: 900 });
  const chip = chat.locator("oda-suggestions[offer=s1]");
  assert.equal(await chat.locator("oda-suggestions").count(), 2);
  await chip.getByRole("button", { name: "Start: Add retries" }).click();
  await chip.getByText("Started “Add retries” in a new chat.").waitFor({ timeout: 30_000 });
  await chip.getByRole("button", { name: "Open chat: Add retries" }).waitFor({ timeout: 60_000 });
  await chat.locator("oda-suggestions:not([offer])").getByRole("button", { name: "Open chat: Add retries" }).waitFor({ timeout: 60_000 });
  const started = await screen(url, "chat-aui.s1");
  assert.equal(started.screen?.chatId, "chat-aui.s1", `the started chat: ${started.status}`);
  assert.equal(started.stranger, 403);
  assert.deepEqual(await axe(tab), []);
  assert.deepEqual(errors, []);
});
