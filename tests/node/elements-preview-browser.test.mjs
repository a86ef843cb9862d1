// <oda-todo-card preview> in real Chromium: the tentative card of previewCard
// (from the browser entry, no WASM) is drawn marked "Not yet recorded" and
// busy; the recorded card, set as `card`, replaces it in the same element; a
// recorded card given as `preview` is refused with the property's TypeError.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pageResult } from "./support/browser.mjs";

const page = `<!doctype html><meta charset="utf-8"><body><script type="module">
  import { previewCard } from "/pkg/dist/elements/index.js";
  const oda = await import("/pkg/dist/entrypoints/index.js");
  await oda.init();
  const session = { type: "session", v: 1, chatId: "c", workspace: "/w", scheduledTaskFolder: false, agent: "top-level" };
  const first = { type: "todo_update", v: 1, todos: [{ content: "Write tests", status: "in_progress" }] };
  const second = { type: "todo_update", v: 1, todos: [{ content: "Write tests", status: "completed" }, { content: "Ship", status: "in_progress" }] };
  const cards = oda.ChatState.fromLog([session, { type: "turn_started" }, first, second]).view({ cards: 2 }).cards;
  const el = document.body.appendChild(document.createElement("oda-todo-card"));
  const seen = (root) => ({
    mark: root.querySelector("[part~=preview-mark]")?.textContent ?? null,
    busy: root.querySelector("article")?.getAttribute("aria-busy") ?? null,
    preview: root.querySelector("article")?.hasAttribute("data-preview") ?? null,
    items: [...root.querySelectorAll("[part=list] li .text")].map((n) => n.textContent),
    changes: root.querySelector("[part=changes]")?.textContent ?? null,
    position: root.querySelector("[part=position]")?.textContent ?? null,
  });
  const out = {};
  // Token by token, as the AI SDK's partial input grows.
  el.preview = previewCard({ todos: [{ content: "Write tests", status: "comp" }] }, cards[0]);
  out.early = seen(el.shadowRoot);
  el.preview = previewCard({ todos: [{ content: "Write tests", status: "completed" }, { content: "Sh" }] }, cards[0]);
  out.later = seen(el.shadowRoot);
  el.position = 2; el.total = 2;
  el.card = cards[1];
  out.recorded = seen(el.shadowRoot);
  el.preview = null;
  out.cleared = seen(el.shadowRoot);
  try { el.preview = cards[1]; } catch (e) { out.refused = e.message; }
  window.__out = out;
</script>`;

test("<oda-todo-card preview>: the tentative card, marked and busy, then replaced by the recorded card", async (t) => {
  const { out, errors } = await pageResult(t, page, "__out");
  assert.deepEqual(errors, []);
  assert.deepEqual(out.early, {
    mark: "Not yet recorded",
    busy: "true",
    preview: true,
    items: ["Write tests"],
    changes: "no change",
    position: null,
  });
  assert.deepEqual(out.later, {
    mark: "Not yet recorded",
    busy: "true",
    preview: true,
    items: ["Write tests", "Sh"],
    changes: "1 added, 1 state changed",
    position: null,
  });
  const recorded = {
    mark: null,
    busy: null,
    preview: false,
    items: ["Write tests", "Ship"],
    changes: "1 added, 1 state changed",
    position: "2 of 2 · turn 1",
  };
  assert.deepEqual(out.recorded, recorded);
  assert.deepEqual(out.cleared, recorded);
  assert.equal(
    out.refused,
    "oda-tasks: <oda-todo-card>.preview must be a card of previewCard(input, lastCard), or null: `preview` must be true",
  );
});
