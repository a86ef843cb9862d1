// The elements given malformed data, in real Chromium: each malformed value
// is a TypeError naming the element, the property and what was wrong, thrown
// by the property before anything is drawn; the element keeps its last good
// drawing, its other properties still work, and good data draws again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pageResult } from "./support/browser.mjs";

const page = `<!doctype html><meta charset="utf-8"><body><script type="module">
  import "/pkg/dist/elements/index.js";
  const oda = await import("/pkg/dist/entrypoints/index.js");
  await oda.init();
  const session = { type: "session", v: 1, chatId: "c", workspace: "/w", scheduledTaskFolder: false, agent: "top-level" };
  const log = [session, { type: "turn_started" },
    { type: "todo_update", v: 1, todos: [{ content: "Write tests", status: "in_progress" }, { content: "Ship", status: "pending" }] },
    { type: "suggestion_offered", v: 1, id: "s1", title: "Add retries", tldr: "Flaky uploads", brief: "Retry the PUT." }];
  const state = oda.ChatState.fromLog(log);
  const view = state.view({ cards: 1 });
  const good = { card: view.cards[0], plan: view.plan, list: { open: view.open, settled: view.settled } };
  const card = view.cards[0];
  const bad = {
    card: [{}, 5, "abc", true, [], { ...card, todos: "abc" }, { ...card, todos: [5] }, { ...card, todos: [{ content: 1, status: "pending" }] },
      { ...card, todos: [{ content: "a", status: "done" }] }, { ...card, changes: undefined }, { ...card, changes: "none" },
      { ...card, changes: { ...card.changes, added: null } }, { ...card, changes: { ...card.changes, moved: [{ content: "a" }] } },
      { ...card, changes: { ...card.changes, statusChanged: [{ content: "a", from: "x", to: "completed" }] } },
      { ...card, counts: null }, { ...card, counts: { pending: "1", inProgress: 0, completed: 0 } }, { ...card, turn: "1" }],
    plan: [{}, 5, "running", { state: "running", todos: "abc", turn: 1 }, { state: "busy", todos: [], turn: 1 },
      { state: "running", todos: [null], turn: 1 }, { state: "finished", todos: [], turn: {} }],
    list: [{}, 7, "open", { open: 5, settled: [] }, { open: [], settled: [{ id: "s1", title: "t", tldr: "w", brief: "b", outcome: "lost" }] },
      { open: [{ id: 1, title: "t", tldr: "w", brief: "b" }], settled: [] }, { open: [], settled: "none" },
      { open: [], settled: [{ id: "s1", title: "t", tldr: "w", brief: "b", outcome: "started", progress: 3 }] }],
  };
  const tags = { card: "oda-todo-card", plan: "oda-plan", list: "oda-suggestions" };
  const out = {};
  for (const [prop, tag] of Object.entries(tags)) {
    const el = document.createElement(tag);
    document.body.append(el);
    el[prop] = good[prop];
    const drawn = el.shadowRoot.textContent;
    const results = [];
    for (const value of bad[prop]) {
      let thrown = null;
      try { el[prop] = value; } catch (e) { thrown = { type: e.constructor.name, message: e.message }; }
      let other = "ok";
      try {
        if (tag === "oda-todo-card") { el.position = 2; el.total = 3; }
        else if (tag === "oda-plan") el.cardCount = 4;
        else el.setAttribute("data-x", "1");
      } catch (e) { other = e.message; }
      results.push({ value: JSON.stringify(value) ?? String(value), thrown, kept: el[prop] === good[prop], other,
        sameDrawing: tag === "oda-todo-card" ? el.shadowRoot.querySelector(".title") !== null : el.shadowRoot.textContent.length > 0 });
    }
    el[prop] = good[prop];
    const again = el.shadowRoot.textContent;
    el[prop] = null;
    out[prop] = { results, drawn, again, cleared: el.shadowRoot.textContent };
  }
  window.__out = out;
</script>`;

test("18+ malformed values per element: a TypeError naming element and property; the element keeps its drawing and works on", async (t) => {
  const { out, errors } = await pageResult(t, page, "__out");
  assert.deepEqual(errors, []);
  const tags = { card: "oda-todo-card", plan: "oda-plan", list: "oda-suggestions" };
  let cases = 0;
  for (const [prop, { results, drawn, again }] of Object.entries(out)) {
    for (const r of results) {
      cases++;
      assert.equal(r.thrown?.type, "TypeError", `${tags[prop]}.${prop} = ${r.value}: ${JSON.stringify(r.thrown)}`);
      assert.match(r.thrown.message, new RegExp(`^oda-tasks: <${tags[prop]}>\\.${prop} must be .+, or null: .+`), r.value);
      assert.doesNotMatch(r.thrown.message, /Cannot (read|destructure)|undefined \(reading/, r.value);
      assert.equal(r.kept, true, `${r.value}: the last good value stays`);
      assert.equal(r.other, "ok", `${r.value}: other properties still work`);
      assert.equal(r.sameDrawing, true, r.value);
    }
    assert.ok(drawn.length > 0);
    assert.equal(again.replace(/\d+ of \d+ · /g, ""), drawn, `${prop}: good data draws as before`);
  }
  assert.ok(cases >= 30, `${cases} malformed values`);
  assert.match(
    out.card.results[0].thrown.message,
    /^oda-tasks: <oda-todo-card>\.card must be a card of view\(\)\.cards or cards\(from, to\), or null: `todos` must be an array \(got undefined\)$/,
  );
  assert.match(out.card.results[9].thrown.message, /`changes` must be an object \(got undefined\)$/);
  assert.match(
    out.plan.results[3].thrown.message,
    /^oda-tasks: <oda-plan>\.plan must be a plan of view\(\)\.plan, or null: `todos` must be an array \(got a string\)$/,
  );
  assert.match(
    out.list.results[3].thrown.message,
    /^oda-tasks: <oda-suggestions>\.list must be a list of service\.list\(\) \(\{ open, settled \}\), or null: `open` must be an array \(got a number\)$/,
  );
  assert.equal(out.plan.cleared.includes("No plan yet") || out.plan.cleared.includes("Cleared"), true, "null is the empty state");
});
