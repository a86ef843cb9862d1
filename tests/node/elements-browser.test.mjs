// oda-tasks/elements in real Chromium: each element draws the example chat's
// answers (ChatState#view and #cards), its buttons fire
// events with the right payload, the keyboard and a screen reader can use
// it, axe-core finds no violation at 390 and 1280 px in light and dark, and
// nothing scrolls sideways on a phone. Screenshots go to test-artifacts/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { openTabs, root } from "./support/browser.mjs";

const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

const page = `<!doctype html><html lang="en"><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>oda-tasks elements</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; background: #f6f7f9; color: #1c2430; }
  @media (prefers-color-scheme: dark) { :root { background: #10151c; color: #e7ebf0; } }
  body { margin: 0; padding: 12px; } ol { list-style: none; padding: 0; display: grid; gap: 10px; }
  .side { display: grid; gap: 10px; }
</style>
<body><main><h1>Elements</h1><h2>Fix flaky upload retries</h2>
<ol id="cards" aria-label="Timeline"></ol>
<div class="side"><oda-plan></oda-plan><oda-suggestions></oda-suggestions></div></main>
<script type="module">
  import "/pkg/dist/elements/index.js";
  // What importing the elements loaded: no core, no WASM.
  window.__loaded = performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname);
  const oda = await import("/pkg/dist/entrypoints/index.js");
  await oda.init();
  const text = await (await fetch("/pkg/example/chat.jsonl")).text();
  const state = oda.ChatState.fromJsonl(new TextEncoder().encode(text));
  // The first screen in one call, then the older cards as a page: the answers the elements are made for.
  const view = state.view({ cards: 2 });
  const cards = [...state.cards(0, view.cardCount - view.cards.length), ...view.cards];
  const todos = { cards, plan: view.plan };
  const offers = { open: view.open, settled: view.settled };
  window.__answers = { todos, offers };
  cards.forEach((card, n) => {
    const li = document.createElement("li");
    const el = document.createElement("oda-todo-card");
    Object.assign(el, { card, position: n + 1, total: view.cardCount });
    li.append(el);
    document.getElementById("cards").append(li);
  });
  Object.assign(document.querySelector("oda-plan"), { plan: view.plan, cardCount: view.cardCount });
  document.querySelector("oda-suggestions").list = offers;
  window.__events = [];
  for (const type of ["oda-start", "oda-draft", "oda-dismiss", "oda-restore", "oda-open-chat"]) {
    document.addEventListener(type, (e) => window.__events.push({ type, detail: e.detail, target: e.target.localName }));
  }
  window.__ready = true;
</script>`;

async function open(t, width = 1280, colorScheme = "light") {
  const {
    tabs: [tab],
    errors,
  } = await openTabs(t, page);
  await tab.emulateMedia({ colorScheme });
  await tab.setViewportSize({ width, height: 900 });
  await tab.waitForFunction(() => window.__ready === true, null, { timeout: 20_000 });
  return { tab, errors };
}

test("importing oda-tasks/elements loads no core and no WASM; in Node (no DOM) it loads and defines nothing", async (t) => {
  const { tab, errors } = await open(t);
  const loaded = await tab.evaluate(() => window.__loaded);
  assert.ok(
    loaded.some((p) => p === "/pkg/dist/elements/index.js"),
    JSON.stringify(loaded),
  );
  // Besides the elements' files, only shared chunks (dist/chunks/, the bundle's) whose code is the elements' own or
  // esbuild's helpers: their source maps name no other source.
  const others = loaded.filter((p) => !p.startsWith("/pkg/dist/elements/"));
  for (const p of others) {
    assert.match(p, /^\/pkg\/dist\/chunks\/[\w-]+\.js$/, "only the elements' own modules and shared chunks");
    const { sources } = JSON.parse(readFileSync(join(root, `${p.slice(1)}.map`), "utf8"));
    assert.deepEqual(
      sources.filter((s) => !s.startsWith("../../src/elements/")),
      [],
      `${p} holds only the elements' code`,
    );
  }
  const elements = await import(join(root, "pkg/dist/elements/index.js"));
  assert.equal(typeof elements.OdaTodoCardElement, "function");
  assert.equal(globalThis.customElements, undefined);
  assert.deepEqual(errors, []);
});

test("<oda-todo-card>: the example's cards with their changes as words and icons; states as icons with words for screen readers", async (t) => {
  const { tab, errors } = await open(t);
  const cards = tab.getByRole("article", { name: "Update to-do list" });
  assert.equal(await cards.count(), 4);
  assert.equal(await tab.locator("oda-todo-card").nth(0).locator(".position").textContent(), "1 of 4 · turn 1");
  const third = cards.nth(2);
  assert.equal(await third.locator(".changes").textContent(), "1 added, 2 state changed, 1 moved");
  assert.equal(await third.locator(".counts-line").textContent(), "2 completed".replace(/^/, "2 pending · 1 in progress · "));
  const item = (card, text) => card.getByRole("listitem").filter({ hasText: text });
  assert.deepEqual(await item(third, "Check the other callers of retry()").locator(".mark").allTextContents(), ["Added"]);
  assert.deepEqual(await item(third, "Add a regression test").locator(".mark").allTextContents(), [
    "Pending → In progress",
    "Moved from 4 to 3",
  ]);
  // Each mark carries its own icon, its shape telling the kind.
  assert.equal(await item(third, "Add a regression test").locator(".mark .icon").count(), 2);
  assert.deepEqual(
    await item(third, "Add a regression test")
      .locator(".mark")
      .evaluateAll((m) => m.map((x) => x.getAttribute("part"))),
    ["mark mark-changed", "mark mark-moved"],
  );
  const last = cards.nth(3);
  assert.equal(await last.locator(".changes").textContent(), "1 removed, 2 state changed");
  assert.equal(await last.locator(".todo.removed").textContent(), "Removed: Check the other callers of retry()Removed");
  assert.equal(await last.locator(".todo.removed .marks").getAttribute("aria-hidden"), "true", "said once: by the Removed: prefix");
  assert.equal(await last.locator(".todo.s-completed .vh").first().textContent(), "Completed: ");
  assert.equal(await last.locator(".todo.s-completed > svg.i-completed").count(), 4);
  // The list's name for a screen reader says what it holds.
  assert.equal(await last.getByRole("list").getAttribute("aria-label"), "The list sent, 4 items, 1 removed");
  // A card set to null draws nothing; heading-level picks the heading.
  const level = await tab.evaluate(() => {
    const el = document.createElement("oda-todo-card");
    el.setAttribute("heading-level", "4");
    el.card = window.__answers.todos.cards[0];
    document.body.append(el);
    const tag = el.shadowRoot.querySelector(".title").localName;
    el.card = null;
    const left = el.shadowRoot.querySelectorAll("article").length;
    el.remove();
    return { tag, left };
  });
  assert.deepEqual(level, { tag: "h4", left: 0 });
  assert.deepEqual(errors, []);
});

test("<oda-todo-card>: a property set before the element is defined is kept when it upgrades", async (t) => {
  const {
    tabs: [tab],
    errors,
  } = await openTabs(
    t,
    `<!doctype html><meta charset="utf-8"><title>upgrade</title>
<oda-todo-card></oda-todo-card><script type="module">
  const oda = await import("/pkg/dist/entrypoints/index.js");
  await oda.init();
  const { cards } = oda.replayTodos([{ type: "turn_started" }, { type: "todo_update", v: 1, todos: [{ content: "Early", status: "pending" }] }]);
  document.querySelector("oda-todo-card").card = cards[0]; // before the class exists
  await import("/pkg/dist/elements/index.js");
  window.__ready = true;
</script>`,
  );
  await tab.waitForFunction(() => window.__ready === true);
  assert.equal(await tab.locator("oda-todo-card .text").textContent(), "Early");
  assert.deepEqual(errors, []);
});

test("<oda-plan>: the finished checklist; each change is announced in its live region, which stays the same node", async (t) => {
  const { tab, errors } = await open(t);
  const plan = tab.locator("oda-plan");
  assert.equal(await plan.locator(".state").textContent(), "Finished · turn 2");
  assert.equal(await plan.locator(".counts").textContent(), "4 of 4 completed");
  assert.equal(await plan.getByRole("list", { name: "Plan items" }).getByRole("listitem").count(), 4);
  assert.equal(await plan.getByRole("heading", { name: "Plan" }).evaluate((e) => e.localName), "h2");
  const live = plan.getByRole("status");
  assert.equal(await live.getAttribute("aria-live"), "polite");
  assert.equal(await live.textContent(), "Plan finished, turn 2: 4 of 4 completed.");
  const said = await tab.evaluate(() => {
    const el = document.querySelector("oda-plan");
    const region = el.shadowRoot.querySelector("[role=status]");
    const out = [];
    el.plan = {
      state: "running",
      turn: 3,
      todos: [
        { content: "Ship", status: "in_progress" },
        { content: "Tell", status: "pending" },
      ],
    };
    out.push(region.textContent, el.shadowRoot.querySelector(".state").textContent);
    el.plan = { state: "none", turn: null, todos: [] };
    out.push(region.textContent, el.shadowRoot.querySelectorAll("li").length);
    el.cardCount = 0;
    out.push(region.textContent, region === el.shadowRoot.querySelector("[role=status]"));
    return out;
  });
  assert.deepEqual(said, [
    "Plan running, turn 3: 0 of 2 completed; in progress: Ship.",
    "Running · turn 3",
    "Plan: Cleared: a new turn started.",
    0,
    "Plan: No plan yet.",
    true,
  ]);
  assert.deepEqual(errors, []);
});

test("<oda-suggestions>: chips and settled offers; Start, Draft, Dismiss, Restore and Open chat fire their events with the id", async (t) => {
  const { tab, errors } = await open(t);
  const el = tab.locator("oda-suggestions");
  assert.equal(await el.locator(".counts").textContent(), "1 open · 1 settled");
  const chips = el.getByRole("list", { name: "Open suggestions" }).getByRole("listitem");
  assert.equal(await chips.count(), 1);
  assert.equal(await chips.getByRole("heading").textContent(), "Add upload metrics");
  assert.equal(
    await el.getByRole("list", { name: "Settled suggestions" }).getByRole("listitem").textContent(),
    "DismissedMove upload retries into a shared helperRestore",
  );
  for (const name of ["Start", "Draft", "Dismiss"]) await el.getByRole("button", { name: `${name}: Add upload metrics` }).click();
  await el.getByRole("button", { name: "Restore: Move upload retries into a shared helper" }).click();
  // A started offer with its chat's progress (as service.list(chatId, { progress: true }) answers it).
  await tab.evaluate(() => {
    const { offers } = window.__answers;
    document.querySelector("oda-suggestions").list = {
      open: [],
      settled: [...offers.settled, { ...offers.open[0], outcome: "started", chatId: "chat-7f3a.s2", progress: { completed: 3, total: 5 } }],
    };
  });
  const started = el.locator(".settled-item.o-started");
  assert.equal(await started.locator(".outcome").textContent(), "Started");
  assert.equal(await started.locator(".progress").textContent(), "3 of 5 completed");
  await el.getByRole("button", { name: "Open chat: Add upload metrics" }).click();
  const noList = await tab.evaluate(() => {
    const el = document.querySelector("oda-suggestions");
    const started = el.list.settled.at(-1);
    el.list = { open: [], settled: [...el.list.settled.slice(0, -1), { ...started, progress: { completed: 0, total: 0 } }] };
    const text = el.shadowRoot.querySelector(".o-started .progress").textContent;
    el.list = { open: [], settled: [...el.list.settled.slice(0, -1), started] };
    return text;
  });
  assert.equal(noList, "No to-do list yet");
  assert.deepEqual(await tab.evaluate(() => window.__events), [
    { type: "oda-start", detail: { id: "s2" }, target: "oda-suggestions" },
    { type: "oda-draft", detail: { id: "s2" }, target: "oda-suggestions" },
    { type: "oda-dismiss", detail: { id: "s2" }, target: "oda-suggestions" },
    { type: "oda-restore", detail: { id: "s1" }, target: "oda-suggestions" },
    { type: "oda-open-chat", detail: { id: "s2", chatId: "chat-7f3a.s2" }, target: "oda-suggestions" },
  ]);
  // It wrote nothing: the list it shows is the one it was given.
  assert.equal(await el.locator(".counts").textContent(), "0 open · 2 settled");
  assert.equal(await el.locator(".empty").count(), 0);
  await tab.evaluate(() => {
    document.querySelector("oda-suggestions").list = { open: [], settled: [] };
  });
  assert.equal(await el.locator(".empty").textContent(), "No suggestions yet.");
  assert.deepEqual(errors, []);
});

test("<oda-suggestions offer>: that one offer alone, open or settled, with no counts; `heading` names the region of the plan and of the suggestions", async (t) => {
  const { tab, errors } = await open(t);
  const el = tab.locator("oda-suggestions");
  await tab.evaluate(() => document.querySelector("oda-suggestions").setAttribute("offer", "s2"));
  assert.equal(await el.locator(".counts").count(), 0);
  assert.equal(await el.getByRole("region", { name: "Suggestion" }).count(), 1, "the heading is there for screen readers");
  assert.equal(await el.locator("#heading").getAttribute("class"), "heading vh");
  assert.deepEqual(await el.getByRole("list", { name: "Open suggestions" }).getByRole("heading").allTextContents(), ["Add upload metrics"]);
  assert.equal(await el.getByRole("list", { name: "Settled suggestions" }).count(), 0, "s1 is not this chip's");
  // The settled one, by its id: its outcome and Restore, no "Settled" heading.
  await tab.evaluate(() => {
    document.querySelector("oda-suggestions").offer = "s1";
  });
  assert.equal(await el.getByRole("list", { name: "Open suggestions" }).count(), 0);
  assert.equal(
    await el.getByRole("list", { name: "Settled suggestions" }).getByRole("listitem").textContent(),
    "DismissedMove upload retries into a shared helperRestore",
  );
  assert.equal(await el.locator(".sub").count(), 0);
  // An id the list lacks draws no chip and no "No suggestions yet."; removing `offer` draws every offer again.
  await tab.evaluate(() => document.querySelector("oda-suggestions").setAttribute("offer", "s9"));
  assert.equal(await el.locator("li").count(), 0);
  assert.equal(await el.locator(".empty").count(), 0);
  await tab.evaluate(() => {
    document.querySelector("oda-suggestions").offer = null;
  });
  assert.equal(await el.locator(".counts").textContent(), "1 open · 1 settled");
  // `heading`: the text of the heading and the region's name; without it, "Plan" and "Suggestions".
  await tab.evaluate(() => {
    document.querySelector("oda-plan").setAttribute("heading", "This chat's plan");
    document.querySelector("oda-suggestions").setAttribute("heading", "This chat's suggestions");
  });
  assert.equal(await tab.getByRole("region", { name: "This chat's plan" }).count(), 1);
  assert.equal(await tab.getByRole("region", { name: "This chat's suggestions" }).count(), 1);
  await tab.evaluate(() => document.querySelector("oda-plan").removeAttribute("heading"));
  assert.equal(await tab.locator("oda-plan").getByRole("heading", { level: 2 }).textContent(), "Plan");
  assert.deepEqual(errors, []);
});

test("<oda-suggestions> from the keyboard: Tab order Start, Draft, Dismiss, Restore; after a re-render the focus stays with the offer", async (t) => {
  const { tab, errors } = await open(t);
  const focused = () =>
    tab.evaluate(() => {
      let a = document.activeElement;
      while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
      return a?.getAttribute("aria-label") ?? a?.textContent ?? null;
    });
  await tab.locator("oda-suggestions").getByRole("button", { name: "Start: Add upload metrics" }).focus();
  const order = [await focused()];
  for (let i = 0; i < 3; i++) {
    await tab.keyboard.press("Tab");
    order.push(await focused());
  }
  // The brief's summary comes before the buttons; Tab goes past it into Draft and Dismiss, then Restore.
  assert.deepEqual(order, [
    "Start: Add upload metrics",
    "Draft: Add upload metrics",
    "Dismiss: Add upload metrics",
    "Restore: Move upload retries into a shared helper",
  ]);
  // Enter on Dismiss fires the event; the app's new list moves the offer to Settled, and the focus to its Restore.
  await tab.keyboard.press("Shift+Tab");
  assert.equal(await focused(), "Dismiss: Add upload metrics");
  await tab.keyboard.press("Enter");
  assert.deepEqual(await tab.evaluate(() => window.__events.map((e) => e.type)), ["oda-dismiss"]);
  await tab.evaluate(() => {
    const { offers } = window.__answers;
    document.querySelector("oda-suggestions").list = {
      open: [],
      settled: [...offers.settled, { ...offers.open[0], outcome: "dismissed" }],
    };
  });
  assert.equal(await focused(), "Restore: Add upload metrics");
  // A re-render with the same list keeps the focus on the same button and an unfolded brief unfolded.
  await tab.evaluate(() => {
    const el = document.querySelector("oda-suggestions");
    el.list = window.__answers.offers;
  });
  await tab.locator("oda-suggestions summary").click();
  await tab.locator("oda-suggestions").getByRole("button", { name: "Draft: Add upload metrics" }).focus();
  await tab.evaluate(() => {
    const el = document.querySelector("oda-suggestions");
    el.list = { ...el.list };
  });
  assert.equal(await focused(), "Draft: Add upload metrics");
  assert.equal(await tab.locator("oda-suggestions details").evaluate((d) => d.open), true);
  assert.deepEqual(errors, []);
});

for (const width of [390, 1280]) {
  for (const colorScheme of ["light", "dark"]) {
    test(`axe-core: no violation at ${width} px, ${colorScheme}; nothing scrolls sideways`, async (t) => {
      const { tab, errors } = await open(t, width, colorScheme);
      // A started chip with its progress, so that every part is checked.
      await tab.evaluate(() => {
        const { offers } = window.__answers;
        document.querySelector("oda-suggestions").list = {
          open: offers.open,
          settled: [
            ...offers.settled,
            {
              id: "s0",
              title: "Add upload metrics to the dashboard",
              tldr: "t",
              brief: "b",
              outcome: "started",
              chatId: "chat-7f3a.s0",
              progress: { completed: 3, total: 5 },
            },
            { id: "s9", title: "Drafted one", tldr: "t", brief: "b", outcome: "drafted" },
          ],
        };
      });
      await tab.addScriptTag({ path: axePath });
      const result = await tab.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
      const violations = result.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(" ")) }));
      assert.deepEqual(violations, []);
      assert.equal(await tab.evaluate(() => document.documentElement.scrollWidth), width, "nothing wider than the window");
      mkdirSync(join(root, "test-artifacts"), { recursive: true });
      await tab.screenshot({ path: join(root, `test-artifacts/elements-${width}-${colorScheme}.png`), fullPage: true });
      assert.deepEqual(errors, []);
    });
  }
}
