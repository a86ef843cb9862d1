// A person's edit through chatHandler, against the built package: POST
// chats/:chatId/todos with `{ todos, basedOn }` (authorize told `edit`), 200
// `{ ok, length }`, 400 with the core's refusal text, 409 chat/changed with
// the current list, the request's own failures, two people at once, and every
// viewer's stream showing the edit's card live.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { beginTurn, createChat, MemoryStore, toolHandlers } from "oda-tasks";
import { chatHandler } from "oda-tasks/http";
import { sse, sseUntil } from "./support/sse.mjs";

const test = (name, fn) => nodeTest(name, { timeout: 30_000 }, fn);

const BASE = "http://app.test/api/oda";
const items = (...pairs) => pairs.map(([content, status]) => ({ content, status }));
const plan = items(["Write tests", "in_progress"], ["Ship", "pending"]);
const withDocs = [...plan, { content: "Write docs", status: "pending" }];
const call = (handler, path, init = {}) => handler(new Request(`${BASE}/${path}`, init));
const post = (handler, body, path = "chats/c/todos", headers = { "content-type": "application/json" }) =>
  call(handler, path, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });

/** A chat whose model recorded `plan` in an open turn; resolves to its length. */
async function chatWithPlan(store) {
  await createChat(store, "c", { workspace: "/w" });
  await beginTurn(store, "c");
  await toolHandlers({ store, chatId: "c" }).todo_write({ todos: plan });
  return (await store.read("c")).length;
}

test("POST chats/:chatId/todos records the person's edit (authorize told `edit`, `by` from the app) and answers the new length", async () => {
  const store = new MemoryStore();
  const length = await chatWithPlan(store);
  const told = [];
  const handler = chatHandler({
    store,
    basePath: "/api/oda",
    authorize: (_request, context) => (told.push(context), true),
    by: (request, { chatId }) => `${request.headers.get("x-user")} in ${chatId}`,
  });
  const r = await post(handler, { todos: withDocs, basedOn: length }, "chats/c/todos", {
    "content-type": "application/json",
    "x-user": "Ada",
  });
  assert.equal(r.status, 200);
  assert.equal(await r.text(), `{"ok":true,"length":${length + 1}}`);
  assert.deepEqual(told, [{ chatId: "c", action: "edit" }]);
  assert.deepEqual((await store.read("c")).at(-1), { type: "todo_update", v: 1, todos: withDocs, by: { name: "Ada in c" } });
  // The screen shows the edit's card, attributed.
  const screen = await (await call(handler, "chats/c")).json();
  assert.deepEqual(screen.cards.at(-1).by, { name: "Ada in c" });
  assert.deepEqual(screen.todos, withDocs);
  // Without `by`, the card still says a person made it.
  const plain = chatHandler({ store, basePath: "/api/oda", authorize: () => true });
  assert.equal((await post(plain, { todos: plan, basedOn: length + 1 })).status, 200);
  assert.deepEqual((await store.read("c")).at(-1).by, {});
});

test("an invalid list is a 400 with the core's own refusal text; nothing is written", async () => {
  const store = new MemoryStore();
  const length = await chatWithPlan(store);
  const handler = chatHandler({ store, authorize: () => true });
  for (const [todos, message] of [
    [items(["a", "in_progress"], ["b", "in_progress"]), "Error: invalid todos: at most one task may be in_progress (got 2)"],
    [items(["a", "pending"], ["a", "completed"]), 'Error: invalid todos: duplicate content "a"'],
    [items([" ", "pending"]), "Error: invalid todo: `content` must be a non-empty string"],
    [{ a: 1 }, "Error: invalid todos: `todos` must be an array (got an object)"],
  ]) {
    const r = await post(handler, { todos, basedOn: length });
    assert.equal(r.status, 400);
    assert.deepEqual(await r.json(), { error: { code: "todos/invalid", message } });
  }
  assert.equal((await store.read("c")).length, length);
});

test("an edit on a screen the list changed since is a 409 chat/changed with the current list and length", async () => {
  const store = new MemoryStore();
  const length = await chatWithPlan(store);
  const handler = chatHandler({ store, authorize: () => true });
  const now = items(["Write tests", "completed"], ["Ship", "in_progress"]);
  await toolHandlers({ store, chatId: "c" }).todo_write({ todos: now });
  const r = await post(handler, { todos: withDocs, basedOn: length });
  assert.equal(r.status, 409);
  assert.deepEqual(await r.json(), {
    error: {
      code: "chat/changed",
      message: `the todo list changed after length ${length}, the screen this edit was made on; re-apply the edit to the list as it stands`,
      payload: now,
      length: length + 1,
    },
  });
  assert.equal((await store.read("c")).length, length + 1);
  // Re-applied on the length it was told: recorded.
  assert.equal((await post(handler, { todos: [...now, withDocs[2]], basedOn: length + 1 })).status, 200);
});

test("two people post at once on the same screen: one 200, one 409 carrying the winner's list; nothing is lost", async () => {
  const store = new MemoryStore();
  const length = await chatWithPlan(store);
  const handler = chatHandler({ store, authorize: () => true, by: (request) => request.headers.get("x-user") });
  const as = (user, todos) =>
    post(handler, { todos, basedOn: length }, "chats/c/todos", { "content-type": "application/json", "x-user": user });
  const answers = await Promise.all([
    as("Ada", items(["Write tests", "completed"], ["Ship", "pending"])),
    as("Bo", [...plan, { content: "Tell the team", status: "pending" }]),
  ]);
  const statuses = answers.map((r) => r.status).sort();
  assert.deepEqual(statuses, [200, 409]);
  const loser = await answers.find((r) => r.status === 409).json();
  const log = await store.read("c");
  assert.equal(log.length, length + 1);
  assert.deepEqual(loser.error.payload, log.at(-1).todos);
  assert.equal(loser.error.length, length + 1);
});

test("the request's own mistakes: unknown fields, a bad basedOn, no JSON, too large, GET, another chat, refused by authorize", async () => {
  const store = new MemoryStore();
  const length = await chatWithPlan(store);
  let allow = true;
  const handler = chatHandler({ store, authorize: () => allow, maxEditBytes: 200 });
  const bad = async (r, status, error) => {
    assert.equal(r.status, status);
    assert.deepEqual((await r.json()).error, error);
  };
  await bad(await post(handler, { todos: plan, basedOn: length, by: "Eve" }), 400, {
    code: "http/bad-request",
    message: "unknown field `by` (an edit takes todos and basedOn)",
  });
  await bad(await post(handler, { todos: plan }), 400, {
    code: "http/bad-request",
    message: "`basedOn` must be the log length the screen showed (a whole number >= 0)",
  });
  await bad(await post(handler, { todos: plan, basedOn: "3" }), 400, {
    code: "http/bad-request",
    message: "`basedOn` must be the log length the screen showed (a whole number >= 0)",
  });
  await bad(await post(handler, { basedOn: length }), 400, { code: "http/bad-request", message: "an edit needs `todos`, the whole list" });
  await bad(await post(handler, [plan]), 400, { code: "http/bad-request", message: "the body must be a JSON object" });
  await bad(await post(handler, "{}", "chats/c/todos", { "content-type": "text/plain" }), 415, {
    code: "http/unsupported-media-type",
    message: "a POST needs Content-Type: application/json",
  });
  await bad(await post(handler, { todos: items(["x".repeat(300), "pending"]), basedOn: length }), 413, {
    code: "http/payload-too-large",
    message: "the body is larger than 200 bytes",
  });
  await bad(await call(handler, "chats/c/todos"), 405, { code: "http/method-not-allowed", message: "POST only" });
  await bad(await post(handler, { todos: plan, basedOn: 0 }, "chats/nope/todos"), 404, {
    code: "store/missing-chat",
    message: "no such chat",
  });
  allow = false;
  await bad(await post(handler, { todos: withDocs, basedOn: length }), 403, { code: "http/forbidden", message: "not allowed" });
  assert.equal((await store.read("c")).length, length);
});

test("every viewer's stream shows the edit live: the list, the plan and the card attributed to the person", async () => {
  const store = new MemoryStore();
  const length = await chatWithPlan(store);
  const handler = chatHandler({ store, authorize: () => true, by: () => "Ada" });
  const controller = new AbortController();
  const viewers = await Promise.all([1, 2].map(() => call(handler, "chats/c/events", { signal: controller.signal })));
  try {
    const streams = viewers.map(sse);
    for (const s of streams) assert.equal((await s.next()).event, "screen");
    assert.equal((await post(handler, { todos: withDocs, basedOn: length })).status, 200);
    for (const s of streams) {
      const change = await sseUntil(s, length + 1);
      assert.equal(change.event, "change");
      assert.deepEqual(change.data.todos, withDocs);
      assert.deepEqual(change.data.plan, { state: "running", todos: withDocs, turn: 1 });
      assert.deepEqual(change.data.cards.at(-1).by, { name: "Ada" });
      assert.deepEqual(change.data.cards.at(-1).changes.added, [{ content: "Write docs", status: "pending", position: 2 }]);
    }
  } finally {
    controller.abort();
  }
});
