// A chat's end through chatHandler, against the built package: DELETE
// chats/:chatId (authorize told `delete`), later reads 404, an open event
// stream gets one last `deleted` event and ends (by the store's watch, and by
// the poll of a store without one), a chat made again under the id is not
// shown to the old stream, a tool call afterwards answers as for a chat that
// never existed, and chats started from its offers stay.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { beginTurn, createChat, deleteChat, endTurn, MemoryStore, SuggestionService, toolHandlers } from "oda-tasks";
import { chatHandler } from "oda-tasks/http";
import { sse } from "./support/sse.mjs";

const test = (name, fn) => nodeTest(name, { timeout: 30_000 }, fn);

const BASE = "http://app.test/api/oda";
const allow = () => true;
const todos = (...items) => ({ todos: items.map(([content, status]) => ({ content, status })) });
const call = (handler, path, init = {}) => handler(new Request(`${BASE}/${path}`, init));
const DELETED = 'event: deleted\ndata: {"code":"chat/deleted","message":"the chat was deleted"}\n\n';

/** A chat with a workspace, a list and one open suggestion. */
async function chatWith(store, chatId = "c") {
  await createChat(store, chatId, { workspace: "/w", title: "Fix the upload" });
  const tools = toolHandlers({ store, chatId });
  await beginTurn(store, chatId);
  await tools.todo_write(todos(["Write tests", "in_progress"]));
  await tools.suggest_task({ title: "Add retries", tldr: "Uploads fail.", brief: "Retry failed uploads." });
  await endTurn(store, chatId);
  return tools;
}

/** A MemoryStore without a change feed: its chats are polled. */
function unwatched() {
  const store = new MemoryStore();
  store.watch = undefined;
  return store;
}

test("DELETE chats/:chatId deletes the chat once (authorize told `delete`), then it reads 404 and deletes 404", async () => {
  const store = new MemoryStore();
  await chatWith(store);
  const told = [];
  const handler = chatHandler({ store, authorize: (_request, context) => (told.push(context), true) });
  const gone = await call(handler, "chats/c", { method: "DELETE" });
  assert.equal(gone.status, 200);
  assert.equal(await gone.text(), '{"ok":true,"deleted":true}');
  assert.deepEqual(told, [{ chatId: "c", action: "delete" }]);
  assert.equal(await store.read("c"), null);
  for (const [path, init] of [
    ["chats/c", {}],
    ["chats/c/cards", {}],
    ["chats/c", { method: "DELETE" }],
  ]) {
    const r = await call(handler, path, init);
    assert.equal(r.status, 404, path);
    assert.equal(await r.text(), '{"error":{"code":"store/missing-chat","message":"no such chat"}}');
  }
});

test("DELETE is refused by authorize like any action, and a store without delete answers 405 GET only", async () => {
  const store = new MemoryStore();
  await chatWith(store);
  const readOnly = chatHandler({ store, authorize: (_request, { action }) => action !== "delete" });
  const refused = await call(readOnly, "chats/c", { method: "DELETE" });
  assert.equal(refused.status, 403);
  assert.equal(await refused.text(), '{"error":{"code":"http/forbidden","message":"not allowed"}}');
  assert.notEqual(await store.read("c"), null, "nothing was deleted");

  const both = await call(readOnly, "chats/c", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  assert.equal(both.status, 405);
  assert.equal(both.headers.get("allow"), "GET, DELETE");
  assert.equal(await both.text(), '{"error":{"code":"http/method-not-allowed","message":"GET or DELETE only"}}');

  const appStore = new MemoryStore();
  appStore.delete = undefined; // an app's own store with no delete
  await chatWith(appStore);
  const r = await call(chatHandler({ store: appStore, authorize: allow }), "chats/c", { method: "DELETE" });
  assert.equal(r.status, 405);
  assert.equal(r.headers.get("allow"), "GET");
  assert.equal(await r.text(), '{"error":{"code":"http/method-not-allowed","message":"GET only"}}');
  assert.notEqual(await appStore.read("c"), null);
});

for (const [kind, makeStore] of [
  ["watched (the store's change feed)", () => new MemoryStore()],
  ["polled (a store without watch)", unwatched],
]) {
  test(`an open event stream gets one last deleted event and ends: ${kind}`, async () => {
    const store = makeStore();
    await chatWith(store);
    const handler = chatHandler({ store, authorize: allow, pollMs: 100 });
    const streams = [sse(await call(handler, "chats/c/events")), sse(await call(handler, "chats/c/events"))];
    for (const s of streams) assert.equal((await s.next()).event, "screen");
    assert.equal(await deleteChat(store, "c"), true);
    for (const s of streams) {
      const last = await s.next();
      assert.equal(last.text, DELETED);
      assert.equal(await s.next(), null, "the stream ends after it");
    }
    // A stream opened now is told the chat is missing, as for a chat never made.
    const later = sse(await call(handler, "chats/c/events"));
    const missing = await later.next();
    assert.deepEqual([missing.event, missing.data], ["error", { code: "store/missing-chat", message: "no such chat" }]);
    await later.reader.cancel();
  });
}

test("a chat deleted and made again at once under the same id: the old stream ends, and never shows the new chat", async () => {
  const store = new MemoryStore();
  await chatWith(store);
  const handler = chatHandler({ store, authorize: allow });
  const s = sse(await call(handler, "chats/c/events"));
  assert.equal((await s.next()).event, "screen");
  await store.delete("c");
  await createChat(store, "c", { workspace: "/other", title: "Someone else's chat" });
  const last = await s.next();
  assert.equal(last.text, DELETED);
  assert.equal(await s.next(), null);
  assert.ok(!Buffer.concat(s.chunks).toString().includes("Someone else"), "nothing of the new chat");
  // A new stream shows the new chat from its screen.
  const fresh = sse(await call(handler, "chats/c/events"));
  const screen = await fresh.next();
  assert.equal(screen.event, "screen");
  assert.equal(screen.data.length, 1);
  assert.deepEqual(screen.data.todos, []);
  await fresh.reader.cancel();
});

test("a tool call on a deleted chat writes nothing and answers as for a chat that never existed, warm cache or not", async () => {
  const store = new MemoryStore();
  const tools = await chatWith(store); // its state is warm in the shared cache
  await deleteChat(store, "c");
  const never = toolHandlers({ store, chatId: "never-made" });
  const input = todos(["Again", "pending"]);
  assert.equal(await tools.todo_write(input), "Error: todo_write requires an owning agent session");
  assert.equal(await tools.todo_write(input), await never.todo_write(input));
  const offer = { title: "T", tldr: "W", brief: "B" };
  assert.equal(await tools.suggest_task(offer), await never.suggest_task(offer));
  assert.equal(await store.read("c"), null, "nothing written: the chat stays gone");
});

test("chats started from a deleted chat's offers stay, and the action routes answer 404 after the deletion", async () => {
  const store = new MemoryStore();
  await chatWith(store);
  const service = new SuggestionService({ store });
  const [offer] = (await service.list("c")).open;
  const { chatId } = await service.start("c", offer.id);
  const handler = chatHandler({ store, authorize: allow });
  assert.equal((await call(handler, "chats/c", { method: "DELETE" })).status, 200);
  assert.notEqual(await store.read(chatId), null, "the started chat is a chat of its own");
  const started = await call(handler, `chats/${encodeURIComponent(chatId)}`);
  assert.equal(started.status, 200);
  const restore = await call(handler, `chats/c/suggestions/${offer.id}/dismiss`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(restore.status, 404);
  assert.equal((await restore.json()).error.code, "task-suggestion/not-found");
  assert.equal(await store.read("c"), null, "an action on a deleted chat writes nothing");
});

test("deleteChat refuses a store without delete, with a clear error", async () => {
  const store = new MemoryStore();
  store.delete = undefined;
  await assert.rejects(deleteChat(store, "c"), {
    name: "TypeError",
    message: "oda-tasks: deleteChat needs a store with delete(chatId) (every store of the package has it)",
  });
});
