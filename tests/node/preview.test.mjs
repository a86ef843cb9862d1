// The preview page (www/) served by `npm run preview`, in real Chromium with
// real IndexedDB: what it shows and what its panel does. Screenshots of the
// example chat go to test-artifacts/ (git-ignored).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launch, root } from "./support/browser.mjs";
import { startServer } from "./support/consumer.mjs";
import { offerTurns } from "./support/entries.mjs";

const READY = /^Preview: (http:\/\/127\.0\.0\.1:\d+\/)$/m;
const example = readFileSync(join(root, "pkg/example/chat.jsonl"), "utf8");

/** Starts the preview server (on any free port) and a fresh Chromium; resolves to a function opening a tab. */
async function preview(t, ...args) {
  const server = await startServer(t, root, process.execPath, [join(root, "scripts/preview.mjs"), "--port", "0", ...args], READY);
  const browser = await launch();
  t.after(() => browser.close());
  const errors = [];
  const tab = async (width = 1280) => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width, height: 900 });
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(server.url);
    await page.waitForFunction(() => window.__preview?.ready === true, null, { timeout: 30_000 });
    return page;
  };
  return { url: server.url, tab, errors, browser };
}

const cards = (page) => page.getByRole("article", { name: "Update to-do list" });
const planState = (page) => page.locator("#plan .state");
const said = (page) => page.locator("#call-result .said");

async function send(page, tool, input) {
  await page.getByRole("radio", { name: tool }).check();
  await page.getByLabel("Input (JSON)").fill(typeof input === "string" ? input : JSON.stringify(input));
  await page.getByRole("button", { name: "Send call" }).click();
}

test("npm run preview -- chat.jsonl: the last start-up line is the URL; the page opens on that chat and lists skipped entries", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "oda-preview-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, "mine.jsonl"),
    [
      { type: "session", v: 1, chatId: "mine-1", title: "My own chat", workspace: "/w", agent: "top-level", settings: { model: "m1" } },
      { type: "turn_started" },
      { type: "todo_update", v: 1, todos: "not a list" },
      { type: "todo_update", v: 1, todos: [{ content: "Only step", status: "in_progress" }] },
      { type: "suggestion_offered", v: 99, id: "s1", title: "From the future", tldr: "t", brief: "b" },
    ]
      .map((e) => JSON.stringify(e) + "\n")
      .join(""),
  );
  const server = await startServer(t, root, "npm", ["run", "preview", "--", "--port", "0", join(dir, "mine.jsonl")], READY);
  assert.ok(server.output().endsWith(`Preview: ${server.url}\n`), `the URL is the last line:\n${server.output()}`);

  const browser = await launch();
  t.after(() => browser.close());
  const page = await browser.context.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => window.__preview?.ready === true, null, { timeout: 30_000 });
  assert.equal(await page.locator("#chat-title").textContent(), "My own chat");
  assert.equal(await cards(page).count(), 1);
  assert.equal(await planState(page).textContent(), "Running · turn 1");
  const skipped = page.getByRole("region", { name: /2 entries skipped by replay/ });
  await skipped.waitFor();
  const items = await skipped.getByRole("listitem").allTextContents();
  assert.equal(items.length, 2);
  assert.match(items[0], /^Entry 2 \(todo_update\): .+/);
  assert.match(items[1], /^Entry 4 \(suggestion_offered\): .+/);
  assert.match(await page.locator("#entries li[data-index='2']").textContent(), /todo_update skipped: /);
  assert.equal(server.output().trimEnd().split("\n").at(-1), `Preview: ${server.url}`, "nothing printed after it");
});

test("the example chat: cards with their changes, the finished plan, the chips; screenshots at 1280 and 390 px", async (t) => {
  const { tab, errors } = await preview(t);
  const page = await tab(1280);
  assert.equal(await page.locator("#chat-title").textContent(), "Fix flaky upload retries");
  assert.equal(await cards(page).count(), 4);
  const third = cards(page).nth(2);
  assert.match(await third.textContent(), /1 added, 2 state changed, 1 moved/);
  assert.equal(
    await third.getByRole("listitem").filter({ hasText: "Check the other callers of retry()" }).locator(".mark").textContent(),
    "Added",
  );
  assert.deepEqual(await third.getByRole("listitem").filter({ hasText: "Add a regression test" }).locator(".mark").allTextContents(), [
    "Pending → In progress",
    "Moved from 4 to 3",
  ]);
  const last = cards(page).nth(3);
  assert.deepEqual(await last.locator(".todo.removed").allTextContents(), ["Removed: Check the other callers of retry()Removed"]);
  // States are words for screen readers and icons for the eye, not only colour.
  assert.equal(await last.locator(".todo.s-completed .vh").first().textContent(), "Completed: ");
  assert.equal(await last.locator(".todo.s-completed > svg.i-completed").count(), 4);

  assert.equal(await planState(page).textContent(), "Finished · turn 2");
  assert.equal(await page.getByRole("list", { name: "Plan items" }).getByRole("listitem").count(), 4);
  const open = page.getByRole("list", { name: "Open suggestions" }).getByRole("listitem");
  assert.equal(await open.count(), 1);
  for (const name of ["Start: Add upload metrics", "Draft: Add upload metrics", "Dismiss: Add upload metrics"]) {
    assert.ok(await page.getByRole("button", { name }).isVisible(), name);
  }
  const settled = page.getByRole("list", { name: "Settled suggestions" }).getByRole("listitem");
  assert.equal(await settled.textContent(), "DismissedMove upload retries into a shared helperRestore");
  assert.ok(await page.getByRole("button", { name: "Restore: Move upload retries into a shared helper" }).isVisible());

  mkdirSync(join(root, "test-artifacts"), { recursive: true });
  await page.screenshot({ path: join(root, "test-artifacts/preview-1280.png"), fullPage: true });
  const phone = await tab(390);
  assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth), 390, "nothing wider than the phone");
  assert.ok(await phone.getByRole("button", { name: "Start: Add upload metrics" }).isVisible());
  await phone.screenshot({ path: join(root, "test-artifacts/preview-390.png"), fullPage: true });
  assert.deepEqual(errors, []);
});

test("the panel: updates and offers add cards and chips, refusals show their exact texts, the plan clears on the next turn", async (t) => {
  const { tab, errors } = await preview(t);
  const page = await tab();
  await page.getByRole("button", { name: "Start turn" }).click();
  await page.getByRole("status").filter({ hasText: "Turn 3 is running" }).waitFor();
  assert.equal(await planState(page).textContent(), "Cleared: a new turn started");
  assert.equal(await page.getByRole("list", { name: "Plan items" }).count(), 0);

  const two = {
    todos: [
      { content: "Add metrics", status: "in_progress" },
      { content: "Write docs", status: "in_progress" },
    ],
  };
  await send(page, "todo_write", two);
  assert.equal(await said(page).textContent(), "Error: invalid todos: at most one task may be in_progress (got 2)");
  assert.equal(await cards(page).count(), 4, "a refusal records nothing");

  await page.getByRole("switch", { name: /one-active rule/ }).uncheck();
  await send(page, "todo_write", two);
  assert.equal(await said(page).textContent(), "Updated todo list: 0 pending, 2 in progress, 0 completed");
  await cards(page).nth(4).waitFor();
  assert.match(await cards(page).nth(4).textContent(), /2 added, 4 removed/);
  assert.equal(await planState(page).textContent(), "Running · turn 3");

  await send(page, "todo_write", "{ not json");
  assert.match(await page.locator("#call-result").textContent(), /^Not sent: the input is not JSON/);

  await send(page, "suggest_task", { title: "Write a runbook", tldr: "On-call needs it.", brief: "Write docs/runbook.md." });
  assert.equal(
    await said(page).textContent(),
    'Suggested "Write a runbook". The user decides whether to start it; do not start it yourself.',
  );
  await page.getByText("2 open · 1 settled").waitFor();
  const chips = page.getByRole("list", { name: "Open suggestions" }).getByRole("heading");
  assert.deepEqual(await chips.allTextContents(), ["Write a runbook", "Add upload metrics"], "newest first");
  await send(page, "suggest_task", { title: "Another", tldr: "t", brief: "b" });
  assert.equal(await said(page).textContent(), "suggest_task: one suggestion per turn; this turn already offered one");
  await send(page, "suggest_task", { title: "x".repeat(61), tldr: "t", brief: "b" });
  assert.equal(await said(page).textContent(), "suggest_task: one suggestion per turn; this turn already offered one");
  assert.equal(await chips.count(), 2);

  // From the keyboard: end the turn, dismiss an offer.
  await page.getByRole("button", { name: "End turn" }).focus();
  await page.keyboard.press("Enter");
  await page.getByRole("status").filter({ hasText: "No turn is running" }).waitFor();
  assert.equal(await planState(page).textContent(), "Finished · turn 3");
  await page.getByRole("button", { name: "Dismiss: Write a runbook" }).focus();
  await page.keyboard.press("Enter");
  await page.getByText("1 open · 2 settled").waitFor();
  assert.deepEqual(
    await page.getByRole("list", { name: "Settled suggestions" }).locator(".name").allTextContents(),
    ["Move upload retries into a shared helper", "Write a runbook"],
    "in offer order",
  );
  assert.equal(await page.locator("#suggestion-status").textContent(), "Dismissed “Write a runbook”.");
  // The one-active switch is remembered.
  await page.reload();
  await page.waitForFunction(() => window.__preview?.ready === true);
  assert.equal(await page.getByRole("switch", { name: /one-active rule/ }).isChecked(), false);
  assert.deepEqual(errors, []);
});

test("Start from two tabs at the same moment creates one chat; after a reload everything is still there", async (t) => {
  const { tab, errors } = await preview(t);
  const tabs = [await tab(), await tab()];
  // Both buttons are in hand before either is pressed: the first Start re-renders the other tab.
  const buttons = await Promise.all(tabs.map((p) => p.getByRole("button", { name: "Start: Add upload metrics" }).elementHandle()));
  await Promise.all(buttons.map((b) => b.evaluate((button) => button.click())));
  for (const page of tabs) {
    await page.locator("#chat-title", { hasText: "Add upload metrics" }).waitFor();
    assert.match(await page.locator(".origin").textContent(), /Started from suggestion s2 of chat chat-7f3a/);
    assert.deepEqual(
      await page
        .getByRole("list", { name: /^Settings/ })
        .getByRole("listitem")
        .allTextContents(),
      ["preset engineer", "model oda-large", "permission auto"],
    );
    const brief = page.locator(".msg.from-suggestion");
    assert.equal(await brief.count(), 1);
    assert.match(await brief.locator(".who").textContent(), /^From the suggestion s2 of chat chat-7f3a$/);
    assert.match(await brief.locator(".body").textContent(), /^Add a counter for upload retries/);
  }
  for (const page of tabs) {
    await page.reload();
    await page.waitForFunction(() => window.__preview?.ready === true);
    assert.equal(await page.locator("#chat-title").textContent(), "Add upload metrics");
    assert.deepEqual(await page.locator("#chat-list .id").allTextContents(), ["chat-7f3a", "chat-7f3a.s2"]);
  }
  // What is stored, read through the package in the page: one started settlement, one brief.
  const stored = await tabs[0].evaluate(async () => {
    const { IndexedDbStore } = await import("oda-tasks/browser");
    const store = new IndexedDbStore("oda-tasks-preview");
    const offering = await store.read("chat-7f3a");
    const started = await store.read("chat-7f3a.s2");
    return {
      settlements: offering.filter((e) => e.type === "suggestion_settled" && e.outcome === "started").length,
      types: started.map((e) => e.type),
    };
  });
  assert.deepEqual(stored, { settlements: 1, types: ["session", "message"] });
  await tabs[1].getByRole("button", { name: "chat-7f3a", exact: false }).first().click();
  await tabs[1].locator("#chat-title", { hasText: "Fix flaky upload retries" }).waitFor();
  assert.equal(
    await tabs[1].getByRole("list", { name: "Settled suggestions" }).locator(".o-started .name").textContent(),
    "Add upload metrics",
  );
  // The started chip shows how far its chat got, and follows it as another tab works in that chat.
  const progress = tabs[1].locator("#suggestions .o-started .progress");
  assert.equal(await progress.textContent(), "No to-do list yet");
  await tabs[0].getByRole("button", { name: "Start turn" }).click();
  await tabs[0].getByRole("status").filter({ hasText: "Turn 1 is running" }).waitFor();
  await send(tabs[0], "todo_write", {
    todos: [
      { content: "Add the counter", status: "completed" },
      { content: "Write the note", status: "in_progress" },
    ],
  });
  await tabs[1].locator("#suggestions .o-started .progress", { hasText: "1 of 2 completed" }).waitFor();
  await tabs[1].screenshot({ path: join(root, "test-artifacts/preview-started-1280.png") });
  assert.deepEqual(errors, []);
});

test("import and export: an invalid JSONL changes nothing and says why; a dropped file becomes a chat; export gives the log", async (t) => {
  const { tab, errors } = await preview(t);
  const page = await tab();
  const before = { chats: await page.locator("#chat-list li").count(), title: await page.locator("#chat-title").textContent() };
  const importFile = (name, text) =>
    page.locator("#import").setInputFiles({ name, mimeType: "application/jsonl", buffer: Buffer.from(text) });

  // The core's one JSONL reader decides (readJsonl): its reasons, its line numbers.
  await importFile("bad.jsonl", '{"type":"session","chatId":"x"}\n{not json\n');
  await page.getByRole("alert").waitFor();
  assert.equal(
    await page.getByRole("alert").textContent(),
    "Nothing was imported: bad.jsonl: line 2 cannot be read (key must be a string at line 1 column 2).Close",
  );
  await importFile("odd.jsonl", '{"type":"turn_started"}\n[1,2]\n');
  await page.getByRole("alert").filter({ hasText: "odd.jsonl" }).waitFor();
  assert.equal(
    await page.getByRole("alert").textContent(),
    "Nothing was imported: odd.jsonl: entry 1 is not a JSON object (it is an array).Close",
  );
  await importFile("torn.jsonl", '{"type":"turn_started"}\n{"type":"turn_en');
  await page.getByRole("alert").filter({ hasText: "torn.jsonl" }).waitFor();
  assert.equal(
    await page.getByRole("alert").textContent(),
    "Nothing was imported: torn.jsonl: its last line is cut off (16 bytes that are not JSON).Close",
  );
  await importFile("empty.jsonl", "\n\n");
  await page.getByRole("alert").filter({ hasText: "empty.jsonl" }).waitFor();
  assert.equal(await page.getByRole("alert").textContent(), "Nothing was imported: empty.jsonl: it holds no entries.Close");
  assert.deepEqual({ chats: await page.locator("#chat-list li").count(), title: await page.locator("#chat-title").textContent() }, before);
  const ids = await page.evaluate(async () => {
    const { IndexedDbStore } = await import("oda-tasks/browser");
    const store = new IndexedDbStore("oda-tasks-preview");
    return [await store.read("x"), await store.read("bad")];
  });
  assert.deepEqual(ids, [null, null], "nothing stored");

  // A byte order mark and lone CR line ends, as the core reads them: two entries.
  await importFile("cr.jsonl", '\uFEFF{"type":"session","v":1,"chatId":"cr","title":"CR endings"}\r{"type":"turn_started"}\r');
  await page.locator("#chat-title", { hasText: "CR endings" }).waitFor();
  assert.deepEqual(
    await page.evaluate(async () => {
      const { IndexedDbStore } = await import("oda-tasks/browser");
      return (await new IndexedDbStore("oda-tasks-preview").read("cr")).map((e) => e.type);
    }),
    ["session", "turn_started"],
  );
  before.chats += 1;

  const dropped = example.replace('"chatId":"chat-7f3a","title":"Fix flaky upload retries"', '"chatId":"dropped","title":"A dropped chat"');
  const dataTransfer = await page.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], "dropped.jsonl", { type: "application/jsonl" }));
    return dt;
  }, dropped);
  await page.dispatchEvent("body", "dragenter", { dataTransfer });
  assert.equal(await page.locator("#drop").isVisible(), true);
  await page.dispatchEvent("body", "drop", { dataTransfer });
  await page.locator("#chat-title", { hasText: "A dropped chat" }).waitFor();
  assert.equal(await page.getByRole("alert").isVisible(), false, "the old message is gone");
  assert.equal(await page.locator("#chat-list li").count(), before.chats + 1);
  assert.equal(await cards(page).count(), 4);

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export .jsonl" }).click()]);
  assert.equal(download.suggestedFilename(), "dropped.jsonl");
  assert.equal(readFileSync(await download.path(), "utf8"), dropped);
  assert.deepEqual(errors, []);
});

test("Draft and Restore from the chips; the service's refusal shows with its code and exact message", async (t) => {
  const { tab, errors } = await preview(t);
  const page = await tab();
  const chat = [
    { type: "session", v: 1, chatId: "offers", title: "Four offers", workspace: "/w", agent: "top-level", settings: { permission: "ask" } },
    { type: "message", role: "user", text: "Go." },
    ...offerTurns(["First", "Second", "Third", "Fourth"]),
    { type: "suggestion_settled", v: 1, id: "s1", outcome: "dismissed" },
  ]
    .map((e) => JSON.stringify(e) + "\n")
    .join("");
  await page.locator("#import").setInputFiles({ name: "offers.jsonl", mimeType: "application/jsonl", buffer: Buffer.from(chat) });
  await page.locator("#chat-title", { hasText: "Four offers" }).waitFor();
  const open = page.getByRole("list", { name: "Open suggestions" }).getByRole("heading");
  assert.deepEqual(await open.allTextContents(), ["Fourth", "Third", "Second"]);

  await page.getByRole("button", { name: "Restore: First" }).click();
  await page.locator("#suggestion-status", { hasText: "task-suggestion/" }).waitFor();
  assert.equal(await page.locator("#suggestion-status").textContent(), "task-suggestion/open-limit: 3 suggestions are already open");
  assert.deepEqual(await open.allTextContents(), ["Fourth", "Third", "Second"], "nothing changed");

  await page.getByRole("button", { name: "Draft: Third" }).click();
  await page.getByText("2 open · 2 settled").waitFor();
  assert.deepEqual(await page.getByRole("list", { name: "Settled suggestions" }).getByRole("listitem").allTextContents(), [
    "DismissedFirstRestore",
    "DraftedThird",
  ]);
  await page.getByRole("button", { name: "Restore: First" }).click();
  await page.getByText("3 open · 1 settled").waitFor();
  assert.deepEqual(await open.allTextContents(), ["Fourth", "Second", "First"], "a restored offer takes its place by when it was offered");
  assert.equal(await page.locator("#suggestion-status").textContent(), "Restored “First”.");
  assert.deepEqual(errors, []);
});

/** Raw GET (the path exactly as given, not normalised by a URL parser); resolves to status and body. */
function rawGet(url, path, method = "GET") {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method }, (res) => {
      let body = "";
      res
        .setEncoding("utf8")
        .on("data", (c) => (body += c))
        .on("end", () =>
          resolve({ status: res.statusCode, type: res.headers["content-type"], nosniff: res.headers["x-content-type-options"], body }),
        );
    });
    req.on("error", reject).end();
  });
}

test("the preview server: serves www/, pkg/dist and pkg/wasm with their types, and nothing outside them however the path is spelt", async (t) => {
  const server = await startServer(t, root, process.execPath, [join(root, "scripts/preview.mjs"), "--port", "0"], READY);
  const ok = async (path, type) => {
    const r = await rawGet(server.url, path);
    assert.equal(r.status, 200, path);
    assert.match(r.type, type, path);
    assert.equal(r.nosniff, "nosniff", path);
    return r.body;
  };
  assert.match(await ok("/", /^text\/html/), /<oda-plan id="plan"/);
  await ok("/app.js", /^text\/javascript/);
  await ok("/pkg/dist/elements/index.js", /^text\/javascript/);
  await ok("/pkg/wasm/oda_tasks_bg.wasm", /^application\/wasm$/);
  assert.equal(await ok("/opening-chat.jsonl", /^application\/jsonl/), example);
  assert.deepEqual(JSON.parse(await ok("/opening.json", /^application\/json/)), { name: "chat.jsonl", url: "/opening-chat.jsonl" });
  for (const path of [
    "/../package.json",
    "/%2e%2e/package.json",
    "/%2E%2E/%2E%2E/etc/passwd",
    "/..%2fpackage.json",
    "/..%5cpackage.json",
    "/pkg/dist/../../package.json",
    "/pkg/dist/%2e%2e/%2e%2e/package.json",
    "/pkg/wasm/../../scripts/preview.mjs",
    "/pkg/dist/../wasm/oda_tasks.js",
    "/pkg/src/chat/service.ts",
    "/pkg/package.json",
    "/pkg/dist",
    "/scripts/preview.mjs",
    "//etc/passwd",
    "/www/index.html",
    "/%00",
    "/%",
  ]) {
    const r = await rawGet(server.url, path);
    assert.equal(r.status, 404, `${path}: ${r.status} ${r.body.slice(0, 60)}`);
    assert.equal(r.body, "not found", path);
  }
  assert.equal((await rawGet(server.url, "/", "POST")).status, 405);
});

test("npm run preview with no --port: 4178, or the next free port when it is taken", async (t) => {
  const blocker = createServer();
  const held = await new Promise((resolve) => {
    blocker.once("error", () => resolve(false)).listen(4178, "127.0.0.1", () => resolve(true));
  });
  t.after(() => blocker.close());
  const server = await startServer(t, root, process.execPath, [join(root, "scripts/preview.mjs")], READY);
  const port = Number(new URL(server.url).port);
  assert.ok(port > 4178 && port <= 4198, `${server.url}: 4178 is ${held ? "held by this test" : "taken by another process"}`);
  assert.equal(server.output().trimEnd().split("\n").at(-1), `Preview: http://127.0.0.1:${port}/`);
});

/** A long chat: `turns` turns of ten entries, three of them todo updates (so about 0.3 cards per entry). */
function longChat(turns) {
  const lines = [JSON.stringify({ type: "session", v: 1, chatId: "long", title: "A long chat", workspace: "/w", agent: "top-level" })];
  const list = (t, step) =>
    ["Read the failing test", "Find the cause", "Fix it", "Run the suite"].map((content, i) => ({
      content: `${content} (${t})`,
      status: i < step ? "completed" : i === step ? "in_progress" : "pending",
    }));
  for (let t = 1; t <= turns; t++) {
    lines.push(
      JSON.stringify({ type: "turn_started" }),
      JSON.stringify({ type: "message", role: "user", text: `Request number ${t}: please look at the upload retries again.` }),
      JSON.stringify({ type: "todo_update", v: 1, todos: list(t, 0) }),
      JSON.stringify({ type: "tool_call", name: "bash", input: { command: `npm test -- upload --run ${t}` } }),
      JSON.stringify({ type: "todo_update", v: 1, todos: list(t, 1) }),
      JSON.stringify({ type: "tool_call", name: "edit", input: { path: "src/upload.ts" } }),
      JSON.stringify({ type: "message", role: "assistant", text: `Done with step two of request ${t}.` }),
      JSON.stringify({ type: "todo_update", v: 1, todos: list(t, 4) }),
      JSON.stringify({ type: "tool_call", name: "bash", input: { command: "npm test" } }),
      JSON.stringify({ type: "turn_ended" }),
    );
  }
  return lines.join("\n") + "\n";
}

test("a 100k-entry chat opens on its latest page: a page of entries and its cards in the DOM, more as the person scrolls up", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "oda-preview-long-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const text = longChat(9_999); // 1 + 99,990 entries, 29,997 cards
  writeFileSync(join(dir, "long.jsonl"), text);
  const server = await startServer(
    t,
    root,
    process.execPath,
    [join(root, "scripts/preview.mjs"), "--port", "0", join(dir, "long.jsonl")],
    READY,
  );
  const browser = await launch();
  t.after(() => browser.close());
  const page = await browser.context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(server.url);
  await page.waitForFunction(() => window.__preview?.ready === true, null, { timeout: 240_000 });
  const counted = () =>
    page.evaluate(() => ({
      cards: document.querySelectorAll("oda-todo-card").length,
      entries: document.querySelectorAll("#entries > li[data-index]").length,
      first: Number(document.querySelector("#entries > li[data-index]").dataset.index),
    }));
  assert.equal(await page.locator("#chat-title").textContent(), "A long chat");
  assert.deepEqual(await counted(), { cards: 30, entries: 100, first: 99_891 });
  const last = page.locator("oda-todo-card").last();
  assert.equal(await last.locator(".position").textContent(), "29,997 of 29,997 · turn 9999");
  assert.ok(await last.isVisible(), "opens at the latest entries");
  mkdirSync(join(root, "test-artifacts"), { recursive: true });
  await page.screenshot({ path: join(root, "test-artifacts/preview-long-1280.png") });
  assert.equal(await page.locator("#plan .state").textContent(), "Finished · turn 9999");
  assert.equal(await page.locator("#plan .counts").textContent(), "4 of 4 completed");
  // Scrolling up to the top of the page draws the page before, and keeps what was on screen in place.
  const anchor = page.locator("#entries > li[data-index='99891']");
  await page.locator("#entries > li.older").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelectorAll("#entries > li[data-index]").length === 200);
  assert.deepEqual(await counted(), { cards: 60, entries: 200, first: 99_791 });
  assert.ok((await anchor.boundingBox()).y > 0, "the entry that was first is still below the new page");
  // From the keyboard: the button draws the next page.
  await page.getByRole("button", { name: /^Show earlier entries \(99,791 more\)$/ }).focus();
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.querySelectorAll("#entries > li[data-index]").length >= 300);
  const third = await counted();
  assert.equal(
    await page.evaluate(() => document.activeElement?.textContent),
    "Show earlier entries (99,691 more)",
    "the keyboard stays on the button",
  );
  assert.deepEqual(third, { cards: 90, entries: 300, first: 99_691 });
  assert.equal(
    await page.locator("oda-todo-card").first().locator(".position").textContent(),
    `${(29_997 - third.cards + 1).toLocaleString("en")} of 29,997 · turn ${Math.floor((third.first - 1) / 10) + 1}`,
  );
  assert.deepEqual(errors, []);
});

test("axe-core finds no violation in the preview at 390 and 1280 px, light and dark; nothing scrolls sideways", async (t) => {
  const { tab, errors } = await preview(t);
  const axe = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
  mkdirSync(join(root, "test-artifacts"), { recursive: true });
  for (const width of [390, 1280]) {
    for (const colorScheme of ["light", "dark"]) {
      const page = await tab(width);
      await page.emulateMedia({ colorScheme });
      await page.addScriptTag({ path: axe });
      const { violations } = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
      assert.deepEqual(
        violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(" ")) })),
        [],
        `${width} px, ${colorScheme}`,
      );
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), width, `${width} px, ${colorScheme}: nothing wider`);
      await page.screenshot({ path: join(root, `test-artifacts/preview-${width}-${colorScheme}.png`), fullPage: true });
      await page.close();
    }
  }
  assert.deepEqual(errors, []);
});
