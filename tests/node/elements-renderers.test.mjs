// The pure parts of the chat UI renderers of oda-tasks/elements/react: the
// content schemas CopilotKit checks an activity with (`safeParse`, and
// Standard Schema's `~standard.validate`), and the chat URL the renderers
// give the elements' `src`. (The renderers themselves run in Chromium, in
// CopilotKit and assistant-ui apps: tests/node/consumers/consumer-agent-uis.test.mjs.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ChatState } from "oda-tasks";
import { odaCardSchema, odaPlanSchema, odaSuggestionsSchema } from "../../pkg/dist/elements/content-schema.js";
import { chatOptions, chatSrc } from "../../pkg/dist/elements/chat-src.js";

const log = [
  { type: "session", v: 1, chatId: "c", workspace: "/w", agent: "top-level" },
  { type: "turn_started" },
  { type: "todo_update", v: 1, todos: [{ content: "Ship", status: "in_progress" }] },
  { type: "suggestion_offered", v: 1, id: "s1", title: "Add retries", tldr: "Why", brief: "Do" },
];
const view = ChatState.fromLog(log).view({ cards: 1 });
const list = { open: view.open, settled: view.settled };

test("each schema accepts the core's own answer and hands back the very object", () => {
  for (const [schema, value] of [
    [odaCardSchema, view.cards[0]],
    [odaPlanSchema, view.plan],
    [odaSuggestionsSchema, list],
  ]) {
    const parsed = schema.safeParse(value);
    assert.equal(parsed.success, true);
    assert.equal(parsed.data, value);
    assert.deepEqual(schema["~standard"].validate(value), { value });
    assert.equal(schema["~standard"].version, 1);
    assert.equal(schema["~standard"].vendor, "oda-tasks");
  }
});

test("a malformed content is refused with what was wrong, by safeParse and by validate alike", () => {
  const cases = [
    [odaCardSchema, { todos: [] }, "oda-tasks: not a card of view().cards: `changes` must be an object (got undefined)"],
    [
      odaPlanSchema,
      { state: "running", todos: "abc", turn: 1 },
      "oda-tasks: not a plan of view().plan: `todos` must be an array (got a string)",
    ],
    [
      odaSuggestionsSchema,
      { open: 5 },
      "oda-tasks: not a list of service.list() ({ open, settled }): `open` must be an array (got a number)",
    ],
    [odaCardSchema, null, "oda-tasks: not a card of view().cards: it must be an object (got null)"],
  ];
  for (const [schema, value, message] of cases) {
    const parsed = schema.safeParse(value);
    assert.equal(parsed.success, false);
    assert.ok(parsed.error instanceof TypeError);
    assert.equal(parsed.error.message, message);
    assert.deepEqual(schema["~standard"].validate(value), { issues: [{ message }] });
  }
});

test("chatSrc: the chat's URL under chatHandler's basePath, the id encoded; nothing without either", () => {
  assert.equal(chatSrc("/api/oda", "chat-1"), "/api/oda/chats/chat-1");
  assert.equal(chatSrc("/api/oda", "a b/c"), "/api/oda/chats/a%20b%2Fc");
  assert.equal(chatSrc("", "chat-1"), "/chats/chat-1");
  assert.equal(chatSrc(undefined, "chat-1"), undefined);
  assert.equal(chatSrc("/api/oda", undefined), undefined);
  assert.equal(chatSrc("/api/oda", ""), undefined);
});

test("the renderers' options are checked, with the call named", () => {
  assert.deepEqual(chatOptions("odaActivityRenderers", undefined), {});
  assert.deepEqual(chatOptions("odaAssistantUi", { basePath: "/api/oda", chatId: "chat-1" }), { basePath: "/api/oda", chatId: "chat-1" });
  assert.throws(() => chatOptions("odaActivityRenderers", "/api/oda"), {
    name: "TypeError",
    message: "oda-tasks: invalid arguments of odaActivityRenderers: the options must be an object",
  });
  assert.throws(() => chatOptions("odaAssistantUi", { basePath: "api/oda" }), {
    name: "TypeError",
    message: 'oda-tasks: invalid arguments of odaAssistantUi: `basePath` must be chatHandler\'s basePath, a path like "/api/oda"',
  });
  assert.throws(() => chatOptions("odaAssistantUi", { chatId: 7 }), {
    name: "TypeError",
    message: "oda-tasks: invalid arguments of odaAssistantUi: `chatId` must be a non-empty string",
  });
  assert.deepEqual(chatOptions("odaAssistantUi", { basePath: "/api/oda", editable: true }), { basePath: "/api/oda", editable: true });
  assert.throws(() => chatOptions("odaActivityRenderers", { editable: "yes" }), {
    name: "TypeError",
    message: "oda-tasks: invalid arguments of odaActivityRenderers: `editable` must be a boolean",
  });
});

test("editable: the renderers' plan is <oda-plan editable> only where it follows the chat (basePath), which its edits post to", async () => {
  const { odaActivityRenderers, odaAssistantUi } = await import("oda-tasks/elements/react");
  const planOf = (renderers) => renderers.find((r) => r.activityType === "oda-plan");
  const props = { activityType: "oda-plan", content: view.plan, message: { id: "m" }, agent: { threadId: "chat-1" } };
  // CopilotKit: the activity's component is told where the chat is and whether it edits.
  assert.deepEqual(planOf(odaActivityRenderers({ basePath: "/api/oda", editable: true })).render(props).props.where, {
    basePath: "/api/oda",
    editable: true,
  });
  // assistant-ui: the data part's component edits with a chat to post to, never without.
  assert.equal(
    odaAssistantUi({ basePath: "/api/oda", chatId: "chat-1", editable: true }).data.plan.render({ data: view.plan }).props.edits,
    true,
  );
  assert.equal(odaAssistantUi({ editable: true }).data.plan.render({ data: view.plan }).props.edits, false);
  assert.equal(odaAssistantUi({ basePath: "/api/oda", chatId: "chat-1" }).data.plan.render({ data: view.plan }).props.edits, false);
});

/** The bare imports (packages) of a built file and of every file it imports, relative ones followed. */
function packagesImported(file, seen = new Set()) {
  if (seen.has(file)) return new Set();
  seen.add(file);
  const found = new Set();
  for (const [, spec] of readFileSync(file, "utf8").matchAll(/(?:^|[;\s])(?:import|export)\s*(?:[^"';]*?from\s*)?"([^"]+)"/g)) {
    if (spec.startsWith(".")) for (const p of packagesImported(resolve(dirname(file), spec), seen)) found.add(p);
    else found.add(spec);
  }
  return found;
}

test("oda-tasks/elements imports no package (React included); oda-tasks/elements/react imports react, kept external", () => {
  const dist = fileURLToPath(new URL("../../pkg/dist/elements/", import.meta.url));
  assert.deepEqual([...packagesImported(join(dist, "index.js"))], []);
  assert.deepEqual([...packagesImported(join(dist, "react.js"))], ["react"]);
});

test("the renderers' shapes: CopilotKit's three activity types with their schemas; assistant-ui's render-only entries and data parts by name", async () => {
  const { odaActivityRenderers, odaAssistantUi } = await import("oda-tasks/elements/react");
  const renderers = odaActivityRenderers({ basePath: "/api/oda" });
  assert.deepEqual(
    renderers.map((r) => [r.activityType, r.content, typeof r.render]),
    [
      ["oda-card", odaCardSchema, "function"],
      ["oda-plan", odaPlanSchema, "function"],
      ["oda-suggestions", odaSuggestionsSchema, "function"],
    ],
  );
  const { tools, data } = odaAssistantUi({ basePath: "/api/oda", chatId: "chat 1" });
  for (const entry of [tools.todo_write, tools.suggest_task]) {
    assert.equal(entry.type, "backend");
    assert.equal(entry.display, "standalone");
    // The element the entry renders is told the chat's URL.
    assert.equal(entry.render({ args: {}, status: { type: "running" } }).props.src, "/api/oda/chats/chat%201");
  }
  assert.deepEqual([data.plan.name, data.suggestions.name], ["oda-plan", "oda-suggestions"]);
  assert.equal(data.plan.render({ name: "oda-plan", data: view.plan }).props.data, view.plan);
  assert.equal(odaAssistantUi().tools.todo_write.render({ args: {}, status: { type: "running" } }).props.src, undefined);
  assert.throws(
    () => odaActivityRenderers({ chatId: "" }),
    /invalid arguments of odaActivityRenderers: `chatId` must be a non-empty string/,
  );
});
