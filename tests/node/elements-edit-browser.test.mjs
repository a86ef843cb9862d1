// <oda-plan editable> in real Chromium against chatHandler (Node's http
// through @hono/node-server): the person checks items off and edits the whole
// list by keyboard, each edit saved as a person's update that every viewer
// sees live; refusals shown with their reason; an edit made while the agent
// changed the list re-applied, or the person asked; without `editable`
// nothing can be edited; `oda-edit` for an app without `src`; axe-core at 390
// and 1280 px, light and dark. With ODA_SCREENSHOTS=1 it writes
// docs/plan-edit-<390|1280>.png (the form open) and docs/plan-edit-saved-1280.png.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join } from "node:path";
import { getRequestListener } from "@hono/node-server";
import { beginTurn, createChat, MemoryStore, replayTodos, toolHandlers } from "oda-tasks";
import { chatHandler } from "oda-tasks/http";
import { appTab, root } from "./support/browser.mjs";

const test = (name, fn) => nodeTest(name, { timeout: 60_000 }, fn);
const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const items = (...pairs) => pairs.map(([content, status]) => ({ content, status }));
const plan = items(["Write tests", "in_progress"], ["Ship", "pending"], ["Tell the team", "pending"]);

const page = (src) => `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>editable plan</title>
<body><main><h1>Chat</h1><oda-plan id="mine" src="${src}" editable></oda-plan>
<oda-plan id="viewer" src="${src}" heading="Plan (another viewer)"></oda-plan>
<oda-plan id="props" heading="Plan (an app's own)" editable></oda-plan></main>
<script type="module">
  import "/pkg/dist/elements/index.js";
  window.__edits = [];
  document.getElementById("props").addEventListener("oda-edit", (e) => {
    window.__edits.push({ todos: e.detail.todos, basedOn: e.detail.basedOn });
    window.__respond = e.detail.respond;
  });
  window.__ready = true;
</script>`;

/** The app: a store with a chat whose agent recorded `plan` in an open turn, the handler at /api/oda, the page. */
async function app(t) {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  await beginTurn(store, "c");
  const tools = toolHandlers({ store, chatId: "c" });
  await tools.todo_write({ todos: plan });
  const posts = [];
  const handler = chatHandler({
    store,
    basePath: "/api/oda",
    authorize: (request, { action }) => {
      if (request.method === "POST") posts.push(action);
      return /(?:^|;\s*)session=person-1(?:;|$)/.test(request.headers.get("cookie") ?? "");
    },
    by: () => "Ada",
  });
  const { tab, errors } = await appTab(t, getRequestListener(handler), page("/api/oda/chats/c"));
  const mine = tab.locator("#mine");
  await mine.locator("input[type=checkbox]").first().waitFor({ timeout: 10_000 });
  return { store, tools, tab, errors, posts, mine, viewer: tab.locator("#viewer") };
}

const list = async (store) => replayTodos(await store.read("c")).todos;
const message = (plan) => plan.locator("[part=edit-message]");
/** Waits until the element's message reads `text`. */
const says = async (plan, text) => {
  await message(plan).filter({ hasText: text }).waitFor({ timeout: 10_000 });
  return message(plan).textContent();
};
/** The name of the element the keyboard is on, inside the plan's shadow root. */
const focused = (tab, id) =>
  tab.evaluate((which) => {
    const el = document.getElementById(which).shadowRoot.activeElement;
    return el === null ? null : `${el.localName}:${el.getAttribute("aria-label") ?? el.dataset.key ?? el.textContent}`;
  }, id);

test("checking an item off by keyboard saves a person's edit of it at once; every viewer's plan shows it; the keyboard stays on the box", async (t) => {
  const { store, tab, errors, posts, mine, viewer } = await app(t);
  const box = mine.locator("input[type=checkbox]").nth(1);
  assert.equal(await box.getAttribute("aria-disabled"), null);
  // Its name is the item, state and text, so a screen reader says what it checks.
  assert.equal(
    await tab.evaluate(() => document.getElementById("mine").shadowRoot.querySelectorAll("label")[1].textContent),
    "Pending: Ship",
  );
  await box.focus();
  await tab.keyboard.press("Space");
  assert.equal(await says(mine, "Saved your edit."), "Saved your edit.");
  assert.deepEqual(await list(store), items(["Write tests", "in_progress"], ["Ship", "completed"], ["Tell the team", "pending"]));
  assert.deepEqual((await store.read("c")).at(-1).by, { name: "Ada" });
  assert.deepEqual(posts, ["edit"]);
  // The other viewer follows the chat's stream: it shows the edit.
  await viewer.locator("[part=counts]").filter({ hasText: "1 of 3 completed" }).waitFor({ timeout: 10_000 });
  assert.ok(await mine.locator("input[type=checkbox]").nth(1).isChecked());
  assert.equal(await focused(tab, "mine"), "input:done:Ship");
  // Un-checking it puts it back to pending.
  await tab.keyboard.press("Space");
  await mine.locator("[part=counts]").filter({ hasText: "0 of 3 completed" }).waitFor({ timeout: 10_000 });
  assert.equal((await list(store))[1].status, "pending");
  // A plan without `editable` offers nothing to edit.
  assert.equal(await viewer.locator("input, button").count(), 0);
  assert.deepEqual(errors, []);
});

test("Edit list by keyboard: reword, change a state, reorder, remove and add, then save; Escape cancels; the card says who", async (t) => {
  const { store, tab, errors, mine } = await app(t);
  await mine.locator("[data-key=edit]").focus();
  await tab.keyboard.press("Enter");
  assert.equal(await focused(tab, "mine"), "input:Text of item 1");
  // Reword item 1 (select all, type), then Tab to its state and make it completed.
  await tab.keyboard.press("Control+A");
  await tab.keyboard.type("Write the tests");
  await tab.keyboard.press("Shift+Tab");
  assert.equal(await focused(tab, "mine"), "select:State of item 1");
  await tab.keyboard.press("End"); // the last state: Completed
  // Move item 3 up: to 2.
  await mine.locator("[aria-label='Move item 3 up']").focus();
  await tab.keyboard.press("Enter");
  assert.equal(await focused(tab, "mine"), "button:Move item 2 up");
  assert.equal(await says(mine, "Moved item 3 to 2."), "Moved item 3 to 2.");
  // Remove item 3 (now "Ship"): the keyboard goes to the row that takes its place, else the one before.
  await mine.locator("[aria-label='Remove item 3']").focus();
  await tab.keyboard.press("Enter");
  assert.equal(await focused(tab, "mine"), "input:Text of item 2");
  await mine.locator("[aria-label='New item']").focus();
  // Add an item: Enter in the new item's field adds it and stays there.
  await tab.keyboard.type("Write the docs");
  await tab.keyboard.press("Enter");
  assert.equal(await focused(tab, "mine"), "input:New item");
  // Enter in an item's text saves the list.
  await mine.locator("[aria-label='Text of item 1']").focus();
  await tab.keyboard.press("Enter");
  assert.equal(await says(mine, "Saved your edit."), "Saved your edit.");
  assert.equal(await focused(tab, "mine"), "button:edit");
  assert.deepEqual(await list(store), items(["Write the tests", "completed"], ["Tell the team", "pending"], ["Write the docs", "pending"]));
  // The card of the edit, drawn by <oda-todo-card>, says who made it.
  const card = replayTodos(await store.read("c")).cards.at(-1);
  const by = await tab.evaluate((c) => {
    const el = document.createElement("oda-todo-card");
    document.querySelector("main").append(el);
    el.card = c;
    return el.shadowRoot.querySelector("[part=by]").textContent;
  }, card);
  assert.equal(by, "Edited by Ada");
  // Escape closes the form and keeps nothing of it.
  await mine.locator("[data-key=edit]").focus();
  await tab.keyboard.press("Enter");
  await tab.keyboard.type(" more");
  await tab.keyboard.press("Escape");
  assert.equal(await focused(tab, "mine"), "button:edit");
  assert.equal(await mine.locator("form").count(), 0);
  assert.equal((await list(store))[0].content, "Write the tests");
  assert.deepEqual(errors, []);
});

test("a refusal is shown with the core's reason and the form stays open to fix it", async (t) => {
  const { store, tab, mine } = await app(t);
  await mine.locator("[data-key=edit]").click();
  await mine.locator("[aria-label='New item']").fill("Ship");
  await mine.locator("[data-key=add]").click();
  await mine.locator("[data-key=save]").click();
  assert.equal(await says(mine, "Could not save"), 'Could not save your edit: Error: invalid todos: duplicate content "Ship".');
  assert.equal(await mine.locator("form").count(), 1);
  // Fixed (the added row removed), it saves.
  await mine.locator("[aria-label='Remove item 4']").click();
  await mine.locator("[data-key=save]").click();
  await says(mine, "Saved your edit.");
  assert.deepEqual(await list(store), plan, "the same list: nothing recorded, nothing lost");
  assert.equal(
    await tab.evaluate(() => document.getElementById("mine").shadowRoot.querySelector("[part=edit-message]").getAttribute("role")),
    "status",
  );
});

test("the agent writes while the person edits: a change to other items is re-applied and saved; to the same item, the person is asked", async (t) => {
  const { store, tools, mine } = await app(t);
  // The person ticks "Ship" in the form; meanwhile the agent completes "Write tests".
  await mine.locator("[data-key=edit]").click();
  await mine.locator("[aria-label='State of item 2']").selectOption("completed");
  await tools.todo_write({ todos: items(["Write tests", "completed"], ["Ship", "pending"], ["Tell the team", "in_progress"]) });
  await mine.locator("[data-key=save]").click();
  assert.equal(await says(mine, "The list had changed"), "The list had changed meanwhile: your edit was made again on it, and saved.");
  assert.deepEqual(await list(store), items(["Write tests", "completed"], ["Ship", "completed"], ["Tell the team", "in_progress"]));
  // Now both change "Tell the team": the person is asked, with the list as it stands; saving again is their choice.
  await mine.locator("[data-key=edit]").click();
  await mine.locator("[aria-label='Text of item 3']").fill("Tell everyone");
  // The agent's first write after the person's edit is refused (it had not seen it); told so, it writes again.
  const done = { todos: items(["Write tests", "completed"], ["Ship", "completed"], ["Tell the team", "completed"]) };
  assert.match(await tools.todo_write(done), /^Error: the user edited the todo list/);
  assert.equal(await tools.todo_write(done), "Updated todo list: 0 pending, 0 in progress, 3 completed");
  await mine.locator("[data-key=save]").click();
  assert.equal(
    await says(mine, "Not saved"),
    "Not saved: the list changed while you edited, in items you changed too. It now reads: Write tests (completed); Ship (completed); Tell the team (completed). Check your edit below and save it again, or cancel.",
  );
  assert.equal((await list(store))[2].content, "Tell the team", "nothing was overwritten");
  assert.equal(await mine.locator("[aria-label='Text of item 3']").inputValue(), "Tell everyone");
  await mine.locator("[data-key=save]").click();
  await says(mine, "Saved your edit.");
  assert.deepEqual(
    (await list(store)).map((i) => i.content),
    ["Write tests", "Ship", "Tell everyone"],
  );
});

test("an app's own plan (no src): oda-edit carries the list and length; the app's answer is shown, and a change re-applied", async (t) => {
  const { tab } = await app(t);
  const props = tab.locator("#props");
  await tab.evaluate(
    (p) => Object.assign(document.getElementById("props"), { plan: { state: "running", todos: p, turn: 1 }, todos: p, length: 3 }),
    plan,
  );
  await props.locator("input[type=checkbox]").first().click();
  await tab.waitForFunction(() => window.__edits.length === 1);
  assert.deepEqual(await tab.evaluate(() => window.__edits[0]), {
    todos: items(["Write tests", "completed"], ["Ship", "pending"], ["Tell the team", "pending"]),
    basedOn: 3,
  });
  // The app says the list changed: the element re-applies the one change and asks again, on the new length.
  await tab.evaluate(() =>
    window.__respond({
      ok: false,
      message: "changed",
      changed: {
        todos: [
          { content: "Ship", status: "pending" },
          { content: "Write tests", status: "in_progress" },
        ],
        length: 5,
      },
    }),
  );
  await tab.waitForFunction(() => window.__edits.length === 2);
  assert.deepEqual(await tab.evaluate(() => window.__edits[1]), {
    todos: items(["Ship", "pending"], ["Write tests", "completed"]),
    basedOn: 5,
  });
  await tab.evaluate(() => window.__respond({ ok: false, message: "this needs the scope oda:write" }));
  assert.equal(await says(props, "Could not"), "Could not save your edit: this needs the scope oda:write.");
});

test("axe-core finds no violation in the editable plan, its form and its messages, at 390 and 1280 px, light and dark", async (t) => {
  const { tab, mine } = await app(t);
  await tab.evaluate(() => {
    document.getElementById("viewer").remove();
    document.getElementById("props").remove();
  });
  await tab.addScriptTag({ path: axePath });
  const violations = async () => {
    const r = await tab.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
    return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  };
  for (const scheme of ["light", "dark"]) {
    await tab.emulateMedia({ colorScheme: scheme });
    for (const width of [390, 1280]) {
      await tab.setViewportSize({ width, height: 900 });
      assert.deepEqual(await violations(), [], `${scheme} ${width} the check list`);
      await mine.locator("[data-key=edit]").click();
      await mine.locator("[aria-label='New item']").fill("Ship");
      await mine.locator("[data-key=add]").click();
      await mine.locator("[data-key=save]").click();
      await says(mine, "Could not save");
      assert.deepEqual(await violations(), [], `${scheme} ${width} the form with a refusal`);
      // Nothing scrolls sideways on a phone.
      assert.ok(await tab.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${scheme} ${width} fits`);
      if (process.env.ODA_SCREENSHOTS === "1" && scheme === "light") {
        await mine.screenshot({ path: join(root, `docs/plan-edit-${width}.png`) });
      }
      await mine.locator("[data-key=cancel]").click();
    }
  }
  if (process.env.ODA_SCREENSHOTS === "1") {
    await tab.emulateMedia({ colorScheme: "light" });
    await mine.locator("input[type=checkbox]").first().click();
    await says(mine, "Saved your edit.");
    await mine.screenshot({ path: join(root, "docs/plan-edit-saved-1280.png") });
  }
});
