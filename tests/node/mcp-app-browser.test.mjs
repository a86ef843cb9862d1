// The MCP Apps widget in real Chromium, driven the way a host drives it: the
// test page is the host (ext-apps' AppBridge over a PostMessageTransport),
// the widget's HTML comes from `resources/read` on a real McpServer
// (registerOdaApp, built package) through a real SDK Client, runs in a
// sandboxed iframe and gets the tool result; its app-only calls go back
// through the bridge to that Client. Screenshots go to test-artifacts/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { join } from "node:path";
import { isToolVisibilityModelOnly } from "@modelcontextprotocol/ext-apps/app-bridge";
import { build } from "esbuild";
import { beginTurn, createChat, SuggestionService } from "../../pkg/dist/entrypoints/index.node.js";
import { launch, root, serve } from "./support/browser.mjs";
import { APP_URI, connectHost, modelCall } from "./support/mcp-app.mjs";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** The host's side of MCP Apps in the page: a sandboxed iframe and ext-apps' AppBridge, calls forwarded to the host's Client. */
const HOST = `
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
window.showWidget = async (html, result) => {
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.title = "To-do list and suggestions";
  document.getElementById("widget").append(iframe);
  const bridge = new AppBridge(null, { name: "test-host", version: "1.0.0" }, { serverTools: {}, openLinks: {} });
  bridge.oncalltool = (params) => window.hostCallTool(params);
  window.__opened = [];
  bridge.onopenlink = async ({ url }) => { window.__opened.push(url); return {}; };
  bridge.onsizechange = ({ height }) => { if (height) iframe.style.height = height + "px"; };
  const ready = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html;
  await ready;
  await bridge.sendToolResult(result);
  window.__bridge = bridge;
};`;

const hostScript = (
  await build({
    stdin: { contents: HOST, resolveDir: root, loader: "js" },
    bundle: true,
    format: "iife",
    platform: "browser",
    write: false,
    logLevel: "error",
  })
).outputFiles[0].text;

const page = (text) => `<!doctype html><html lang="en"><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>A chat host</title>
<style>body { margin: 0; padding: 12px; font-family: system-ui, sans-serif; background: #f6f7f9; } iframe { width: 100%; border: 0; display: block; height: 120px; }</style>
<body><main><h1>Chat</h1><p id="said"></p><div id="widget"></div></main>
<script>${hostScript.replaceAll("</script", "<\\/script")}</script>
<script>document.getElementById("said").textContent = ${JSON.stringify(text)};</script>`;

/** Answers every request with 200 and counts them: what the widget must never reach. */
async function probeServer() {
  const hits = [];
  const server = createServer((req, res) => {
    hits.push(req.url);
    res.writeHead(200, { "access-control-allow-origin": "*" }).end("reached");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, hits, close: () => new Promise((r) => server.close(r)) };
}

/**
 * A chat of two turns (two cards, two offers), the host's server and Client,
 * and the widget of the second turn's `todo_write` call (or its
 * `suggest_task` call) shown in a fresh Chromium.
 */
async function openWidget(t, { width = 1280, colorScheme = "light", shown = "todo_write", appOptions = {} } = {}) {
  const host = await connectHost({ appOptions });
  await createChat(host.store, "chat-1", { workspace: "/repos/app", title: "Fix flaky uploads" });
  await beginTurn(host.store, "chat-1");
  await modelCall(host.client, "chat-1", "todo_write", {
    todos: [
      { content: "Reproduce the failing upload", status: "in_progress" },
      { content: "Fix the retry loop", status: "pending" },
      { content: "Add a regression test", status: "pending" },
    ],
  });
  await modelCall(host.client, "chat-1", "suggest_task", {
    title: "Add upload metrics",
    tldr: "We cannot see how often uploads fail.",
    brief: "Count upload attempts, failures and retries; export them.",
  });
  await beginTurn(host.store, "chat-1");
  const written = await modelCall(host.client, "chat-1", "todo_write", {
    todos: [
      { content: "Reproduce the failing upload", status: "completed" },
      { content: "Add a regression test", status: "in_progress" },
      { content: "Fix the retry loop", status: "pending" },
      { content: "Check the other callers of retry()", status: "pending" },
    ],
  });
  const offered = await modelCall(host.client, "chat-1", "suggest_task", {
    title: "Retry uploads with backoff",
    tldr: "Retries hammer the server at once.",
    brief: "Use exponential backoff with jitter for upload retries.",
  });
  const result = shown === "todo_write" ? written : offered;
  const html = (await host.client.readResource({ uri: APP_URI })).contents[0].text;

  const server = await serve({ "/page.html": page(result.content[0].text) });
  const browser = await launch();
  t.after(async () => {
    await browser.close();
    await server.close();
    await host.close();
  });
  // Before any script of any frame: CSP violations are recorded (an init script is not subject to the page's CSP).
  await browser.context.addInitScript(() => {
    window.__violations = [];
    document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const tab = await browser.context.newPage();
  const errors = [];
  const requests = [];
  const finished = [];
  const calls = [];
  tab.on("pageerror", (e) => errors.push(e.message));
  tab.on("request", (r) => requests.push(r.url()));
  tab.on("requestfinished", (r) => finished.push(r.url()));
  const tools = (await host.client.listTools()).tools;
  // The host forwards a widget's call to its Client, as ext-apps' hosts do: never a model-only tool.
  await tab.exposeFunction("hostCallTool", async (params) => {
    calls.push(params.name);
    const tool = tools.find((x) => x.name === params.name);
    if (tool === undefined || isToolVisibilityModelOnly(tool)) throw new Error(`no app tool ${params.name}`);
    return host.client.callTool(params);
  });
  await tab.setViewportSize({ width, height: 900 });
  await tab.emulateMedia({ colorScheme });
  await tab.goto(`${server.url}/page.html`);
  await tab.evaluate(({ html, result }) => window.showWidget(html, result), { html, result });
  const frame = await (await tab.$("iframe")).contentFrame();
  await frame.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 20_000 });
  return { host, tab, frame, errors, requests, finished, calls, page: `${server.url}/page.html` };
}

test("the widget draws this call's card, the plan and the suggestion chips from the tool result and oda_screen", async (t) => {
  const { frame, errors, calls } = await openWidget(t);
  const card = frame.getByRole("article", { name: "Update to-do list" });
  assert.equal(await card.count(), 1);
  assert.equal(await frame.locator("oda-todo-card .position").textContent(), "turn 2");
  assert.equal(await card.locator(".changes").textContent(), "1 added, 2 state changed, 1 moved");
  const plan = frame.locator("oda-plan");
  assert.deepEqual(await plan.locator(".todo").allTextContents(), [
    "Completed: Reproduce the failing upload",
    "In progress: Add a regression test",
    "Pending: Fix the retry loop",
    "Pending: Check the other callers of retry()",
  ]);
  // Open offers newest first, each a chip with Start, Draft and Dismiss.
  const chips = frame.locator("oda-suggestions").getByRole("list", { name: "Open suggestions" }).getByRole("listitem");
  assert.deepEqual(await chips.locator(".chip-title").allTextContents(), ["Retry uploads with backoff", "Add upload metrics"]);
  assert.equal(await frame.getByRole("button", { name: "Start: Retry uploads with backoff" }).count(), 1);
  assert.deepEqual(calls, ["oda_screen"]);
  // The host may tear the widget down: it answers at once.
  assert.deepEqual(await frame.page().evaluate(() => window.__bridge.teardownResource({})), {});
  assert.deepEqual(errors, []);
});

test("Start calls oda_start and creates exactly one chat, which the widget names; Dismiss and Restore; a refusal is said", async (t) => {
  const { host, frame, errors, calls } = await openWidget(t);
  /** The widget's own status line once it says `text` (else, after 10 s, what it says). */
  const says = async (text) => {
    const line = frame.locator("#status");
    await frame.waitForFunction((t) => document.getElementById("status").textContent === t, text, { timeout: 10_000 }).catch(() => {});
    return line.textContent();
  };
  // Twice, quickly: one chat all the same.
  await frame.getByRole("button", { name: "Start: Retry uploads with backoff" }).dblclick();
  const startedText = "Started in a new chat: “Retry uploads with backoff” (chat-1.s2). Open it in the app that shares this chat's store.";
  assert.equal(await says(startedText), startedText);
  assert.equal(await frame.getByRole("button", { name: "Open chat: Retry uploads with backoff" }).count(), 1);
  assert.deepEqual(host.store.created, ["chat-1", "chat-1.s2"]);
  const started = await host.store.read("chat-1.s2");
  assert.deepEqual(
    started.filter((e) => e.type === "message").map((e) => e.text ?? e.content),
    ["Use exponential backoff with jitter for upload retries."],
  );

  await frame.getByRole("button", { name: "Dismiss: Add upload metrics" }).click();
  assert.equal(await says("Dismissed “Add upload metrics”."), "Dismissed “Add upload metrics”.");
  await frame.getByRole("button", { name: "Restore: Add upload metrics" }).click();
  assert.equal(await says("Restored “Add upload metrics”."), "Restored “Add upload metrics”.");
  assert.equal(await frame.getByRole("button", { name: "Dismiss: Add upload metrics" }).count(), 1);

  // Another person dismisses it meanwhile; this widget's Dismiss is refused with the service's message and redraws.
  await new SuggestionService({ store: host.store }).dismiss("chat-1", "s1");
  await frame.getByRole("button", { name: "Dismiss: Add upload metrics" }).click();
  const refused = 'Could not dismiss “Add upload metrics”: suggestion "s1" is dismissed.';
  assert.equal(await says(refused), refused);
  await frame.getByRole("button", { name: "Restore: Add upload metrics" }).waitFor();
  assert.deepEqual(calls, ["oda_screen", "oda_start", "oda_dismiss", "oda_restore", "oda_dismiss", "oda_screen"]);
  assert.deepEqual(host.store.created, ["chat-1", "chat-1.s2"], "still one started chat");
  assert.deepEqual(errors, []);
});

test("the person edits the plan in the widget: a check box or Edit list calls oda_edit; the list is the person's update; a refusal is said", async (t) => {
  const { host, frame, errors, calls } = await openWidget(t);
  const plan = frame.locator("oda-plan");
  const before = (await host.store.read("chat-1")).length;
  // Check the pending "Fix the retry loop" off.
  await plan.locator("input[type=checkbox]").nth(2).click();
  await plan.locator("[part=edit-message]").filter({ hasText: "Saved your edit." }).waitFor({ timeout: 10_000 });
  const log = await host.store.read("chat-1");
  assert.equal(log.length, before + 1);
  assert.deepEqual(log.at(-1).by, {});
  assert.equal(log.at(-1).todos[2].status, "completed");
  assert.equal(await plan.locator("[part=counts]").textContent(), "2 of 4 completed");
  // A list the core refuses: its reason, under the plan; the form stays open.
  await plan.getByRole("button", { name: "Edit list" }).click();
  await plan.getByRole("textbox", { name: "Text of item 2" }).fill("Reproduce the failing upload");
  await plan.getByRole("button", { name: "Save" }).click();
  await plan
    .locator("[part=edit-message]")
    .filter({ hasText: 'Could not save your edit: Error: invalid todos: duplicate content "Reproduce the failing upload".' })
    .waitFor({ timeout: 10_000 });
  assert.equal((await host.store.read("chat-1")).length, before + 1);
  assert.deepEqual(calls.filter((c) => c === "oda_edit").length, 2);
  assert.deepEqual(errors, []);
});

test("with chatUrl, Start and Open chat ask the host to open the started chat's page", async (t) => {
  const chatUrl = (chatId) => `https://chat.example/chats/${encodeURIComponent(chatId)}`;
  const { tab, frame, errors, calls } = await openWidget(t, { appOptions: { chatUrl } });
  await frame.getByRole("button", { name: "Start: Add upload metrics" }).click();
  await tab.waitForFunction(() => window.__opened.length === 1, null, { timeout: 10_000 });
  assert.equal(await frame.locator("#status").textContent(), "Started in a new chat: “Add upload metrics” (chat-1.s1).");
  await frame.getByRole("button", { name: "Open chat: Add upload metrics" }).click();
  await tab.waitForFunction(() => window.__opened.length === 2, null, { timeout: 10_000 });
  assert.deepEqual(await tab.evaluate(() => window.__opened), [
    "https://chat.example/chats/chat-1.s1",
    "https://chat.example/chats/chat-1.s1",
  ]);
  assert.deepEqual(calls, ["oda_screen", "oda_start"]);
  assert.deepEqual(errors, []);
});

for (const [width, colorScheme, shown] of [
  [390, "dark", "suggest_task"],
  [1280, "light", "todo_write"],
]) {
  test(`at ${width} px, ${colorScheme}, a ${shown} result: no request leaves the widget (its CSP blocks them), axe-core finds no violation; screenshot`, async (t) => {
    const { tab, frame, errors, requests, finished, page } = await openWidget(t, { width, colorScheme, shown });
    // A suggest_task result has no card: the plan and the suggestions only.
    assert.equal(await frame.getByRole("article", { name: "Update to-do list" }).count(), shown === "todo_write" ? 1 : 0);
    assert.equal(await frame.getByRole("button", { name: "Start: Retry uploads with backoff" }).count(), 1);
    // The widget loaded nothing: the host page is the only request.
    assert.deepEqual(requests, [page]);
    assert.deepEqual(await frame.evaluate(() => window.__violations), [], "nothing of the widget's own was blocked");

    await frame.evaluate(axeSource);
    const result = await frame.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
    assert.deepEqual(
      result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
      [],
    );
    assert.equal(await frame.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, "nothing scrolls sideways");

    mkdirSync(join(root, "test-artifacts"), { recursive: true });
    await tab.screenshot({ path: join(root, `test-artifacts/mcp-app-${width}-${colorScheme}.png`), fullPage: true });

    // What a script in the widget could try: fetch and an image, both refused by the CSP before they leave.
    const probe = await probeServer();
    t.after(probe.close);
    const tried = await frame.evaluate(async (url) => {
      const fetched = await fetch(`${url}/fetch`).then(
        () => "reached",
        (e) => `refused: ${e.name}`,
      );
      const image = await new Promise((resolve) => {
        const img = new Image();
        img.onload = () => resolve("reached");
        img.onerror = () => resolve("refused");
        img.src = `${url}/image.png`;
      });
      return { fetched, image };
    }, probe.url);
    assert.deepEqual(tried, { fetched: "refused: TypeError", image: "refused" });
    assert.deepEqual(probe.hits, []);
    assert.deepEqual(
      (await frame.evaluate(() => window.__violations)).map((v) => v.split(" ")[0]),
      ["connect-src", "img-src"],
    );
    // Chromium tells of the image it refused as a request, which never finished.
    assert.deepEqual(finished, [page]);
    assert.deepEqual(errors, []);
  });
}
