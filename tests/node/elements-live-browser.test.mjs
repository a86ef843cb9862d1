// <oda-plan src> and <oda-suggestions src> in real Chromium against
// chatHandler served by Node's http through @hono/node-server's one-line
// adapter: the elements fetch the chat, follow its event stream as the agent
// writes, perform Start/Draft/Dismiss/Restore themselves and announce each
// outcome in their live region; preventDefault leaves the action to the app;
// one event stream per chat URL however many elements follow it; change
// events applied to the screen they hold, a dropped stream resumed by
// Last-Event-ID; axe-core finds no violation.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { getRequestListener } from "@hono/node-server";
import { beginTurn, createChat, deleteChat, endTurn, MemoryStore, toolHandlers } from "oda-tasks";
import { chatHandler } from "oda-tasks/http";
import { appTab } from "./support/browser.mjs";

const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const todos = (...items) => ({ todos: items.map(([content, status]) => ({ content, status })) });
const offer = (n) => ({ title: `Task ${n}`, tldr: `Why ${n}.`, brief: `Do ${n}.` });

const page = (src) => `<!doctype html><html lang="en"><meta charset="utf-8"><title>live elements</title>
<body><main><h1>Chat</h1><oda-plan src="${src}"></oda-plan><oda-suggestions src="${src}"></oda-suggestions>
<oda-plan id="second" src="${src}"></oda-plan></main>
<script type="module">
  import "/pkg/dist/elements/index.js";
  window.__events = [];
  for (const type of ["oda-start", "oda-draft", "oda-dismiss", "oda-restore"]) {
    document.addEventListener(type, (e) => {
      window.__events.push({ type, id: e.detail.id });
      if (window.__prevent) e.preventDefault();
    });
  }
  window.__ready = true;
</script>`;

/** The app: a store, the handler at /api/oda (authorized by a cookie), the page and the package's files. */
async function app(t, { pollMs = 100, watch = true } = {}) {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  const tools = toolHandlers({ store, chatId: "c" });
  await beginTurn(store, "c");
  await tools.todo_write(todos(["Write tests", "in_progress"], ["Ship", "pending"]));
  await tools.suggest_task(offer(1));
  await endTurn(store, "c");
  for (const n of [2, 3]) {
    await beginTurn(store, "c");
    await tools.suggest_task(offer(n));
    await endTurn(store, "c");
  }
  const requests = [];
  // Without watch: the store as an app's own store would be, read by the handler's poll only.
  const served = watch
    ? store
    : {
        read: (id) => store.read(id),
        readTextFrom: (id, from) => store.readTextFrom(id, from),
        append: (...a) => store.append(...a),
        create: (...a) => store.create(...a),
      };
  const handler = chatHandler({
    store: served,
    basePath: "/api/oda",
    pollMs,
    authorize: (request, { chatId, action }) => {
      requests.push(`${request.method} ${action}`);
      return chatId === "c" && /(?:^|;\s*)session=person-1(?:;|$)/.test(request.headers.get("cookie") ?? "");
    },
  });
  // Each event stream as the server sent it: the Last-Event-ID it was asked with, its text, its Node response.
  const streams = [];
  const responses = [];
  const recorded = async (request) => {
    const response = await handler(request);
    if (!request.url.endsWith("/events") || response.body === null) return response;
    const record = {
      lastEventId: request.headers.get("last-event-id"),
      text: "",
      res: responses[Number(request.headers.get("x-test-response"))],
    };
    streams.push(record);
    const decoder = new TextDecoder();
    const body = response.body.pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          record.text += decoder.decode(chunk, { stream: true });
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, response);
  };
  const api = getRequestListener(recorded); // the one-line adapter for Node's http
  const { tab, errors } = await appTab(
    t,
    (req, res) => {
      if (new URL(req.url, "http://x").pathname.endsWith("/events")) {
        responses.push(res);
        req.headers["x-test-response"] = String(responses.length - 1);
      }
      return api(req, res);
    },
    page("/api/oda/chats/c"),
  );
  return { store, tools, tab, errors, requests, streams };
}

const announcement = (tab, element) => tab.locator(element).first().locator("[part=announcement]").textContent();
/**
 * The announcement once it starts with `prefix`: the stream can redraw the chips
 * before the action's own answer comes back, and "Restoring…" turns into "Restored." then.
 */
const announced = async (tab, element, prefix) => {
  await tab.locator(element).first().locator("[part=announcement]").filter({ hasText: prefix }).waitFor({ timeout: 10_000 });
  return announcement(tab, element);
};

test("live elements: the screen from src, the plan following the event stream, the actions performed and announced", async (t) => {
  const { store, tools, tab, errors, requests } = await app(t);
  const plan = tab.locator("oda-plan").first();
  await plan.locator("[part=state]").filter({ hasText: "Cleared: a new turn started" }).waitFor({ timeout: 10_000 });
  const chips = tab.locator("oda-suggestions [part=chip]");
  await chips.first().waitFor({ timeout: 10_000 });
  assert.equal(await chips.count(), 3);

  // The agent works: the plan moves without a reload.
  await beginTurn(store, "c");
  await tools.todo_write(todos(["Write tests", "completed"], ["Ship", "in_progress"]));
  await plan.locator("[part=counts]").filter({ hasText: "1 of 2 completed" }).waitFor({ timeout: 10_000 });
  assert.equal(await announcement(tab, "oda-plan"), "Plan running, turn 4: 1 of 2 completed; in progress: Ship.");
  assert.equal(await tab.locator("#second [part=counts]").textContent(), "1 of 2 completed");

  // Start on a chip: the element posts it, the store holds the new chat, the live region says so.
  await tab.getByRole("button", { name: "Start: Task 1" }).click();
  await tab.waitForFunction(
    () => document.querySelector("oda-suggestions").shadowRoot.querySelector("[part=announcement]").textContent.startsWith("Started"),
    null,
    { timeout: 10_000 },
  );
  assert.equal(await announcement(tab, "oda-suggestions"), "Started “Task 1” in a new chat.");
  const started = (await store.read("c")).filter((e) => e.type === "suggestion_settled");
  assert.equal(started.length, 1);
  assert.equal(started[0].outcome, "started");
  const child = await store.read(started[0].chatId);
  assert.equal(child[0].type, "session");
  assert.equal(child.at(-1).type, "message"); // the brief
  await tab.getByRole("button", { name: "Open chat: Task 1" }).waitFor({ timeout: 10_000 });

  // Dismiss, then Restore; a refused action is announced with the service's message.
  await tab.getByRole("button", { name: "Dismiss: Task 2" }).click();
  await tab.getByRole("button", { name: "Restore: Task 2" }).waitFor({ timeout: 10_000 });
  assert.equal(await announced(tab, "oda-suggestions", "Dismissed"), "Dismissed “Task 2”.");
  await tab.getByRole("button", { name: "Restore: Task 2" }).click();
  await tab.getByRole("button", { name: "Draft: Task 2" }).waitFor({ timeout: 10_000 });
  assert.equal(await announced(tab, "oda-suggestions", "Restored"), "Restored “Task 2”.");
  assert.deepEqual((await tab.evaluate(() => window.__events)).slice(0, 3), [
    { type: "oda-start", id: "s1" },
    { type: "oda-dismiss", id: "s2" },
    { type: "oda-restore", id: "s2" },
  ]);
  // Three elements, one chat URL: one event stream.
  assert.equal(requests.filter((r) => r === "GET events").length, 1);
  assert.deepEqual(errors, []);
});

test("live elements: once the stream gave a screen, a property set later (a chat UI's late snapshot) is checked but not drawn; before it, the property draws", async (t) => {
  const { store, tools, tab, errors } = await app(t);
  const plan = tab.locator("oda-plan").first();
  await beginTurn(store, "c");
  await tools.todo_write(todos(["Write tests", "completed"], ["Ship", "in_progress"]));
  await endTurn(store, "c");
  await plan.locator("[part=state]").filter({ hasText: "Finished · turn 4" }).waitFor({ timeout: 10_000 });
  await tab.locator("oda-suggestions [part=chip]").nth(2).waitFor({ timeout: 10_000 });
  // What a renderer hands over late: the run's plan while it ran, and an empty list.
  const running = {
    state: "running",
    turn: 4,
    todos: [
      { content: "Write tests", status: "in_progress" },
      { content: "Ship", status: "pending" },
    ],
  };
  const refused = await tab.evaluate((running) => {
    const [el, suggestions] = [document.querySelector("oda-plan"), document.querySelector("oda-suggestions")];
    el.plan = running;
    el.cardCount = 0;
    suggestions.list = { open: [], settled: [] };
    try {
      el.plan = { state: "sideways" };
      return null;
    } catch (e) {
      return e.constructor.name;
    }
  }, running);
  assert.equal(refused, "TypeError", "a wrong plan is still refused");
  assert.equal(await plan.locator("[part=state]").textContent(), "Finished · turn 4");
  assert.equal(await plan.locator("[part=counts]").textContent(), "1 of 2 completed");
  assert.equal(await tab.locator("oda-suggestions").first().locator("[part=chip]").count(), 3);
  // The next change is drawn.
  await beginTurn(store, "c");
  await plan.locator("[part=state]").filter({ hasText: "Cleared: a new turn started" }).waitFor({ timeout: 10_000 });
  // An element whose stream never speaks (a chat it may not read) draws its property.
  const drawn = await tab.evaluate(async (running) => {
    const el = Object.assign(document.createElement("oda-plan"), { id: "unread", plan: running });
    el.setAttribute("src", "/api/oda/chats/other");
    document.querySelector("main").append(el);
    await new Promise((resolve) => setTimeout(resolve, 300));
    el.plan = { ...running, state: "finished" };
    return el.shadowRoot.querySelector("[part=state]").textContent;
  }, running);
  assert.equal(drawn, "Finished · turn 4");
  assert.deepEqual(errors, []);
});

test("live elements: a refusal is announced with the service's message; preventDefault leaves the action to the app", async (t) => {
  // No push comes in this test (a store without watch, polled once a minute): what the element shows is what it fetched or was answered.
  const { store, tab, errors } = await app(t, { pollMs: 60_000, watch: false });
  await tab.getByRole("button", { name: "Draft: Task 3" }).waitFor({ timeout: 10_000 });
  // Another tab dismissed s3; this one still shows it open when the person clicks Draft.
  await store.append("c", [{ type: "suggestion_settled", v: 1, id: "s3", outcome: "dismissed" }], (await store.read("c")).length);
  await tab.getByRole("button", { name: "Draft: Task 3" }).click();
  await tab.getByRole("button", { name: "Restore: Task 3" }).waitFor({ timeout: 10_000 }); // the element read the chat again
  assert.equal(await announced(tab, "oda-suggestions", "Could not draft"), 'Could not draft “Task 3”: suggestion "s3" is dismissed.');
  // preventDefault: the event fires, nothing is posted.
  await tab.evaluate(() => {
    window.__prevent = true;
  });
  const before = (await store.read("c")).length;
  await tab.getByRole("button", { name: "Dismiss: Task 1" }).click();
  await tab.waitForTimeout(300);
  assert.equal((await store.read("c")).length, before);
  assert.deepEqual((await tab.evaluate(() => window.__events)).slice(-2), [
    { type: "oda-draft", id: "s3" },
    { type: "oda-dismiss", id: "s1" },
  ]);
  assert.deepEqual(errors, []);
});

test("live elements: a deleted chat's elements say so, stop following it (no reconnect), and draw nothing of it after", async (t) => {
  const { store, tab, errors, requests } = await app(t);
  await tab.locator("oda-suggestions [part=chip]").nth(2).waitFor({ timeout: 10_000 });
  await tab.locator("oda-plan").first().locator("[part=state]").waitFor({ timeout: 10_000 });
  assert.equal(await deleteChat(store, "c"), true);
  for (const element of ["oda-plan >> nth=0", "oda-suggestions", "#second"]) {
    const notice = tab.locator(element).locator("[part=deleted]");
    await notice.waitFor({ timeout: 10_000 });
    assert.equal(await notice.textContent(), "This chat was deleted.");
    assert.equal(await notice.getAttribute("role"), "status");
    // Only the notice is on show: the plan and the chips are hidden.
    assert.deepEqual(
      await tab
        .locator(element)
        .evaluate((el) =>
          [...el.shadowRoot.children].filter((c) => c.localName !== "style" && !c.hidden).map((c) => c.getAttribute("part")),
        ),
      ["deleted"],
    );
  }
  // A chat made again under the id is another chat: the elements do not follow it.
  await createChat(store, "c", { workspace: "/w" });
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(requests.filter((r) => r === "GET events").length, 1, "no reconnect after the deleted event");
  assert.equal(await tab.locator("oda-plan").first().locator("[part=deleted]").isVisible(), true);
  assert.deepEqual(errors, []);
});

test("live elements: axe-core finds no violation", async (t) => {
  const { tab } = await app(t);
  await tab.locator("oda-suggestions [part=chip]").first().waitFor({ timeout: 10_000 });
  await tab.locator("oda-plan [part=state]").first().filter({ hasText: "Cleared" }).waitFor({ timeout: 10_000 });
  // The second plan only checks that followers share a stream; a page has one plan (two would be two landmarks named "Plan").
  await tab.evaluate(() => document.getElementById("second").remove());
  await tab.addScriptTag({ path: axePath });
  const result = await tab.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  assert.deepEqual(
    result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    [],
  );
});

test("live elements: a change event is applied to the screen they hold; a dropped stream reconnects with Last-Event-ID and resumes with a change", async (t) => {
  const { store, tools, tab, errors, streams } = await app(t);
  const plan = tab.locator("oda-plan").first();
  await plan.locator("[part=state]").filter({ hasText: "Cleared: a new turn started" }).waitFor({ timeout: 10_000 });
  await beginTurn(store, "c");
  await tools.todo_write(todos(["Write tests", "completed"], ["Ship", "in_progress"]));
  await plan.locator("[part=counts]").filter({ hasText: "1 of 2 completed" }).waitFor({ timeout: 10_000 });
  assert.equal(streams.length, 1);
  const first = streams[0];
  assert.equal(first.lastEventId, null);
  const events = (text) => [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
  assert.deepEqual(events(first.text), ["screen", "change", "change"]); // the screen, the new turn, the list
  const lastId = [...first.text.matchAll(/^id: (\d+)$/gm)].at(-1)[1];
  assert.equal(lastId, String((await store.read("c")).length));

  // The connection drops; the agent writes meanwhile; EventSource comes back with the last id it had.
  first.res.destroy();
  await tools.todo_write(todos(["Write tests", "completed"], ["Ship", "completed"]));
  await plan.locator("[part=counts]").filter({ hasText: "2 of 2 completed" }).waitFor({ timeout: 10_000 });
  assert.equal(streams.length, 2);
  assert.equal(streams[1].lastEventId, lastId);
  assert.deepEqual(events(streams[1].text), ["change"]);
  assert.equal(await announcement(tab, "oda-plan"), "Plan running, turn 4: 2 of 2 completed.");
  assert.equal(await tab.locator("#second [part=counts]").textContent(), "2 of 2 completed");
  assert.deepEqual(errors, []);
});
