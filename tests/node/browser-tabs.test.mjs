// Start across browser tabs: real Chromium, real IndexedDB, real Web Locks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openTabs } from "./support/browser.mjs";

const page = `<!doctype html><meta charset="utf-8"><title>tab</title>
<script type="module">
  import { init, runTool, SuggestionService } from "/pkg/dist/entrypoints/index.js";
  import { IndexedDbStore } from "/pkg/dist/entrypoints/browser.js";
  await init();
  const store = new IndexedDbStore("oda-tabs-test");
  const service = new SuggestionService({ store });
  window.oda = {
    hasLocks: () => typeof navigator.locks?.request === "function",
    async setup() {
      await store.create("chat-1", [
        { type: "session", v: 1, chatId: "chat-1", workspace: "/w", scheduledTaskFolder: false, agent: "top-level",
          settings: { preset: "engineer", model: "m", permission: "auto" } },
        { type: "turn_started" },
      ]);
      return runTool(store, "chat-1", { name: "suggest_task", input: { title: "Add retries", tldr: "why", brief: "Do it." } });
    },
    starts: (n) => Promise.all(Array.from({ length: n }, () => service.start("chat-1", "s1").then((r) => r.chatId))),
    read: (id) => store.read(id),
  };
  window.ready = true;
</script>`;

test("two tabs starting one suggestion at once create one chat with one brief", async (t) => {
  const { tabs, errors } = await openTabs(t, page, 2);
  for (const tab of tabs) await tab.waitForFunction(() => window.ready === true, null, { timeout: 20_000 });
  assert.equal(await tabs[0].evaluate(() => window.oda.hasLocks()), true, "Chromium has Web Locks");
  const offered = await tabs[0].evaluate(() => window.oda.setup());
  assert.equal(offered.output, 'Suggested "Add retries". The user decides whether to start it; do not start it yourself.');

  const results = await Promise.all(tabs.map((tab) => tab.evaluate(() => window.oda.starts(10))));
  const ids = results.flat();
  assert.equal(ids.length, 20);
  assert.deepEqual([...new Set(ids)], ["chat-1.s1"]);

  const offering = await tabs[1].evaluate(() => window.oda.read("chat-1"));
  assert.equal(offering.filter((e) => e.type === "suggestion_settled" && e.outcome === "started").length, 1);
  const started = await tabs[1].evaluate(() => window.oda.read("chat-1.s1"));
  assert.deepEqual(
    started.map((e) => e.type),
    ["session", "message"],
  );
  assert.deepEqual(started[1].source, { kind: "suggestion", chatId: "chat-1", suggestionId: "s1" });
  assert.equal(started[1].text, "Do it.");
  // A reopened tab sees the same (IndexedDB is durable across page loads).
  await tabs[0].reload();
  await tabs[0].waitForFunction(() => window.ready === true);
  assert.deepEqual(await tabs[0].evaluate(() => window.oda.read("chat-1.s1")), started);
  assert.deepEqual(errors, []);
});

// In a real browser, a warm state in one tab, the database deleted
// and the chat imported again (now a helper's) in another.
const importPage = `<!doctype html><meta charset="utf-8"><title>tab</title>
<script type="module">
  import { init, runTool } from "/pkg/dist/entrypoints/index.js";
  import { IndexedDbStore } from "/pkg/dist/entrypoints/browser.js";
  await init();
  const store = new IndexedDbStore("oda-import-test");
  const session = (agent) => ({ type: "session", v: 1, chatId: "chat-1", workspace: "/w", scheduledTaskFolder: false, agent,
    settings: { preset: "engineer", model: "m", permission: "auto" } });
  const hello = { type: "message", role: "user", text: "hi" };
  window.oda = {
    async warm() {
      await store.create("chat-1", [session("top-level"), { type: "turn_started" }]);
      return runTool(store, "chat-1", { name: "todo_write", input: { todos: [{ content: "Read", status: "in_progress" }] } });
    },
    async reimport() {
      store.close();
      await new Promise((resolve, reject) => {
        const request = indexedDB.deleteDatabase("oda-import-test");
        request.onsuccess = resolve;
        request.onerror = () => reject(request.error);
      });
      return store.create("chat-1", [session("helper"), { type: "turn_started" }, hello, hello]);
    },
    suggest: () => runTool(store, "chat-1", { name: "suggest_task", input: { title: "Follow up", tldr: "why", brief: "Do it." } }),
    read: () => store.read("chat-1"),
  };
  window.ready = true;
</script>`;

test("a tab's warm state notices the database was deleted and the chat imported again in another tab", async (t) => {
  const { tabs, errors } = await openTabs(t, importPage, 2);
  for (const tab of tabs) await tab.waitForFunction(() => window.ready === true, null, { timeout: 20_000 });
  assert.equal((await tabs[0].evaluate(() => window.oda.warm())).ok, true, "warm in tab 1");
  assert.equal(await tabs[1].evaluate(() => window.oda.reimport()), true, "imported again in tab 2, now a helper's chat");
  assert.deepEqual(await tabs[0].evaluate(() => window.oda.suggest()), {
    ok: false,
    error: "suggest_task is only for the top-level agent; report the follow-up in your result instead",
  });
  assert.equal((await tabs[1].evaluate(() => window.oda.read())).length, 4, "nothing recorded");
  assert.deepEqual(errors, []);
});
