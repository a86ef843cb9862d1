// oda-tasks/http: chatHandler's routes, statuses and security model against
// the built package, with real Request/Response objects and real streams:
// authorization before anything is read, no CORS, JSON-only POSTs, checked
// ids and numbers, bounded bodies and event streams, aborted streams closed,
// and no stack or path in any failure.
import { test } from "node:test";
import assert from "node:assert/strict";
import { beginTurn, ChatState, ChatStateCache, createChat, endTurn, MemoryStore, StoreError, suggestTask, toolHandlers } from "oda-tasks";
import { chatHandler } from "oda-tasks/http";
import { JsonlStore } from "oda-tasks/node";
import { getEventListeners } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const BASE = "http://app.test/api/oda";
const allow = () => true;
const todos = (...items) => ({ todos: items.map(([content, status]) => ({ content, status })) });
const offer = (n) => ({ title: `Task ${n}`, tldr: `Why ${n}.`, brief: `Do ${n}.` });

/** A chat with a workspace, a list, and `offers` open suggestions (one per turn). */
async function chatWith(store, chatId = "c", { offers = 1, workspace = "/w" } = {}) {
  await createChat(store, chatId, workspace === null ? {} : { workspace });
  const tools = toolHandlers({ store, chatId });
  await beginTurn(store, chatId);
  await tools.todo_write(todos(["Write tests", "in_progress"], ["Ship", "pending"]));
  await endTurn(store, chatId);
  for (let i = 1; i <= offers; i++) {
    await beginTurn(store, chatId);
    await tools.suggest_task(offer(i));
    await endTurn(store, chatId);
  }
}
const get = (handler, path, init = {}) => handler(new Request(`${BASE}/${path}`, init));
const post = (handler, path, body = {}, headers = { "content-type": "application/json" }) =>
  handler(new Request(`${BASE}/${path}`, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) }));
const errorOf = async (response) => (await response.json()).error;

test("chatHandler refuses to be built without authorize, or with an unknown or ill-typed option", () => {
  const store = new MemoryStore();
  assert.throws(
    () => chatHandler({ store }),
    /^TypeError: oda-tasks: invalid arguments of chatHandler: `authorize\(request, \{ chatId, action \}\)` is required/,
  );
  assert.throws(() => chatHandler({ store, authorize: true }), /`authorize\(request, \{ chatId, action \}\)` is required/);
  assert.throws(() => chatHandler({ authorize: allow }), /`store` must be a store/);
  assert.throws(() => chatHandler({ store, authorize: allow, cors: "*" }), /unknown option `cors`/);
  assert.throws(
    () => chatHandler({ store, authorize: allow, maxBodyBytes: 1e9 }),
    /`maxBodyBytes` must be a whole number from 2 to 1048576/,
  );
  assert.throws(() => chatHandler({ store, authorize: allow, pollMs: 5 }), /`pollMs` must be a whole number from 100 to 60000/);
  assert.throws(() => chatHandler({ store, authorize: allow, basePath: "/api/" }), /`basePath` must be ""/);
  assert.throws(
    () => chatHandler({ store, authorize: allow, cache: new ChatStateCache(store) }),
    /`cache` must be a ChatStateCache of the same store with `cards: true`/,
  );
  // A polluted Object.prototype supplies no authorize.
  Object.prototype.authorize = allow;
  try {
    assert.throws(() => chatHandler({ store }), /`authorize\(request, \{ chatId, action \}\)` is required/);
  } finally {
    delete Object.prototype.authorize;
  }
});

test("GET chats/:chatId: the first screen, the view with each started suggestion's progress; no CORS header even when asked", async () => {
  const store = new MemoryStore();
  await chatWith(store, "c", { offers: 2 });
  const handler = chatHandler({ store, authorize: allow, basePath: "/api/oda", cards: 1 });
  const started = await post(handler, "chats/c/suggestions/s1/start");
  assert.equal(started.status, 200);
  const { chatId: child } = await started.json();
  await toolHandlers({ store, chatId: child }).todo_write(todos(["A", "completed"], ["B", "pending"]));
  const r = await get(handler, "chats/c", { headers: { origin: "https://evil.test" } });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-type"), "application/json; charset=utf-8");
  assert.equal(r.headers.get("cache-control"), "no-store");
  assert.deepEqual(
    [...r.headers.keys()].filter((k) => k.startsWith("access-control-")),
    [],
  );
  const screen = await r.json();
  const state = ChatState.fromLog(await store.read("c"));
  const view = state.view({ cards: 1 });
  assert.deepEqual(screen, {
    chatId: "c",
    length: state.length,
    ...view,
    settled: [{ ...view.settled[0], progress: { completed: 1, total: 2 } }],
  });
  assert.equal(screen.settled[0].chatId, child);
  assert.equal(screen.cards.length, 1);
  state.free();
});

test("GET chats/:chatId/cards?from=&to=: one page with slice semantics; bad, repeated or unknown numbers are 400s; pages are bounded", async () => {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  await beginTurn(store, "c");
  const tools = toolHandlers({ store, chatId: "c" });
  for (let i = 0; i < 5; i++) await tools.todo_write(todos([`item ${i}`, "pending"]));
  const handler = chatHandler({ store, authorize: allow, maxPageCards: 3 });
  const state = ChatState.fromLog(await store.read("c"));
  const page = await (await get(handler, "chats/c/cards?from=-3&to=-1")).json();
  assert.deepEqual(page, { cardCount: 5, cards: state.cards(-3, -1) });
  assert.deepEqual(await (await get(handler, "chats/c/cards?from=3")).json(), { cardCount: 5, cards: state.cards(3) });
  state.free();
  for (const [query, message] of [
    ["from=1.5", "`from` must be a whole number"],
    ["from=abc", "`from` must be a whole number"],
    ["to=1e3", "`to` must be a whole number"],
    ["from=99999999999", "`from` must be a whole number"],
    ["from=-4294967296", "`from` must be within ±2147483648"],
    ["from=1&from=2", "`from` is given more than once"],
    ["page=2", "unknown query parameter `page` (cards takes from and to)"],
    ["from=0", "a page holds at most 3 cards"],
    ["from=-5&to=5", "a page holds at most 3 cards"],
  ]) {
    const r = await get(handler, `chats/c/cards?${query}`);
    assert.equal(r.status, 400, query);
    assert.deepEqual(await errorOf(r), { code: "http/bad-request", message }, query);
  }
  assert.equal((await get(handler, "chats/none/cards?from=0&to=1")).status, 404);
});

test("POST …/suggestions/:id/start|draft|dismiss|restore: the service's answers, its failures with code, message and payload, as statuses", async () => {
  const store = new MemoryStore();
  await chatWith(store, "c", { offers: 3 });
  const handler = chatHandler({ store, authorize: allow });
  const act = (id, action, body) => post(handler, `chats/c/suggestions/${id}/${action}`, body);
  const expect = async (response, status, body) => {
    assert.equal(response.status, status);
    assert.deepEqual(await response.json(), body);
  };
  await expect(await act("s9", "start"), 404, {
    error: { code: "task-suggestion/not-found", message: 'no suggestion "s9"', payload: "s9" },
  });
  await expect(await act("s1", "dismiss"), 200, { ok: true });
  await expect(await act("s1", "start"), 409, {
    error: { code: "task-suggestion/not-open", message: 'suggestion "s1" is dismissed', payload: "dismissed" },
  });
  await expect(await act("s2", "draft"), 200, { ok: true });
  await expect(await act("s1", "restore"), 200, { ok: true });
  await expect(await act("s2", "dismiss"), 409, {
    error: { code: "task-suggestion/not-open", message: 'suggestion "s2" is drafted', payload: "drafted" },
  });
  const started = await act("s3", "start", { permission: "full-access" });
  assert.equal(started.status, 200);
  const { chatId } = await started.json();
  assert.deepEqual(await act("s3", "start").then((r) => r.json()), { ok: true, chatId }); // repeated: the same chat
  assert.equal((await store.read(chatId))[0].type, "session");
  await expect(await act("s1", "draft", { reason: "x" }), 400, {
    error: { code: "http/bad-request", message: "draft takes no fields in its body" },
  });
  await expect(await act("s4", "start", { permission: 3 }), 400, {
    error: { code: "http/bad-request", message: "`permission` must be a string of 1 to 200 characters" },
  });
  await expect(await act("s4", "start", { chatId: "x" }), 400, {
    error: { code: "http/bad-request", message: "unknown field `chatId` (start takes model and permission)" },
  });
  await expect(await post(handler, "chats/c/suggestions/s4/draft", "[1]"), 400, {
    error: { code: "http/bad-request", message: "the body must be a JSON object" },
  });
  await expect(await post(handler, "chats/c/suggestions/s4/draft", "{"), 400, {
    error: { code: "http/bad-request", message: "the body is not JSON" },
  });
  // Three open already: restoring a dismissed one hits the limit.
  const more = new MemoryStore();
  await chatWith(more, "m", { offers: 3 });
  const h2 = chatHandler({ store: more, authorize: allow });
  assert.equal((await post(h2, "chats/m/suggestions/s1/dismiss")).status, 200);
  await beginTurn(more, "m");
  assert.match(await toolHandlers({ store: more, chatId: "m" }).suggest_task(offer(4)), /^Suggested/);
  const limit = await post(h2, "chats/m/suggestions/s1/restore");
  assert.equal(limit.status, 409);
  assert.deepEqual(await limit.json(), {
    error: { code: "task-suggestion/open-limit", message: "3 suggestions are already open", payload: 3 },
  });
});

test("POST start in a chat with no workspace: 422 task-suggestion/workspace-missing; a missing chat's suggestion is a 404", async () => {
  const store = new MemoryStore();
  const entry = suggestTask([{ type: "session", v: 1 }, { type: "turn_started" }], offer(1)).entry;
  await store.create("c", [{ type: "session", v: 1 }, { type: "turn_started" }, entry, { type: "turn_ended" }]);
  const handler = chatHandler({ store, authorize: allow });
  const r = await post(handler, `chats/c/suggestions/${entry.id}/start`);
  assert.equal(r.status, 422);
  assert.deepEqual(await r.json(), {
    error: { code: "task-suggestion/workspace-missing", message: 'session "c" belongs to no workspace', payload: "c" },
  });
  assert.equal((await post(handler, "chats/nobody/suggestions/s1/dismiss")).status, 404);
  assert.equal((await get(handler, "chats/nobody")).status, 404);
});

test("authorize decides first: told the chat and action; a refusal is a 403 and nothing is read or written; a Response is sent as it is", async () => {
  const store = new MemoryStore();
  await chatWith(store, "c");
  const told = [];
  const reads = [];
  const read = store.read.bind(store);
  store.read = (...args) => (reads.push(args[0]), read(...args));
  const handler = chatHandler({
    store,
    authorize: async (request, context) => {
      told.push({ ...context, method: request.method });
      if (request.headers.get("authorization") === "Bearer ok") return true;
      if (request.headers.get("authorization") === null)
        return new Response("sign in", { status: 401, headers: { "www-authenticate": "Bearer" } });
      return false;
    },
  });
  const before = (await store.read("c")).length;
  reads.length = 0;
  const denied = await post(
    handler,
    "chats/c/suggestions/s1/start",
    {},
    { "content-type": "application/json", authorization: "Bearer no" },
  );
  assert.equal(denied.status, 403);
  assert.deepEqual(await denied.json(), { error: { code: "http/forbidden", message: "not allowed" } });
  const anonymous = await get(handler, "chats/c/events");
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.headers.get("www-authenticate"), "Bearer");
  assert.equal(await anonymous.text(), "sign in");
  assert.equal((await get(handler, "chats/c/cards?from=0&to=1", { headers: { authorization: "Bearer no" } })).status, 403);
  assert.deepEqual(reads, []);
  assert.equal((await store.read("c")).length, before);
  assert.deepEqual(told, [
    { chatId: "c", action: "start", suggestionId: "s1", method: "POST" },
    { chatId: "c", action: "events", method: "GET" },
    { chatId: "c", action: "cards", method: "GET" },
  ]);
  assert.equal((await get(handler, "chats/c", { headers: { authorization: "Bearer ok" } })).status, 200);
  // An authorize that throws is a 500 that says nothing of why.
  const failing = chatHandler({
    store,
    authorize: () => {
      throw new Error("token check failed at /etc/secrets/key.pem");
    },
  });
  const r = await get(failing, "chats/c");
  assert.equal(r.status, 500);
  assert.deepEqual(await r.json(), { error: { code: "http/internal", message: "internal error" } });
});

test("routes, methods and ids: 404 for no route, 405 for the wrong method, 400 for an id that is none; authorize is not asked", async () => {
  const store = new MemoryStore();
  await chatWith(store, "c");
  let asked = 0;
  const handler = chatHandler({ store, authorize: () => (asked++, true) });
  for (const path of [
    "",
    "chats",
    "chats/c/whatever",
    "chats/c/suggestions/s1",
    "chats/c/suggestions/s1/steal",
    "chats/c/a/b/c/d",
    "other/c",
  ]) {
    const r = await get(handler, path);
    assert.equal(r.status, 404, path);
    assert.deepEqual(await errorOf(r), { code: "http/not-found", message: "no such route" });
  }
  const wrong = await get(handler, "chats/c/suggestions/s1/start");
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get("allow"), "POST");
  assert.equal((await post(handler, "chats/c")).status, 405);
  assert.equal((await handler(new Request(`${BASE}/chats/c`, { method: "PUT" }))).status, 405);
  // A preflight is answered like any other wrong method: no CORS header, so no cross-site JSON POST.
  const preflight = await handler(
    new Request(`${BASE}/chats/c/suggestions/s1/start`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.test", "access-control-request-method": "POST" },
    }),
  );
  assert.equal(preflight.status, 405);
  assert.deepEqual(
    [...preflight.headers.keys()].filter((k) => k.startsWith("access-control-")),
    [],
  );
  for (const [path, message] of [
    ["chats/%E0%A4%A", "the chat id is not a well-formed URL segment"],
    ["chats/%ED%A0%80", "the chat id is not a well-formed URL segment"],
    ["chats/a%2Fb", 'invalid chat id "a/b": it holds a path separator or a control character'],
    ["chats/a%00b", 'invalid chat id "a\\u0000b": it holds a path separator or a control character'],
    [`chats/${"x".repeat(201)}`, `invalid chat id "${"x".repeat(201)}": it is longer than 200 characters`],
    ["chats//events", 'invalid chat id "": it is empty'],
    ["chats/c/suggestions/%01/start", "invalid suggestion id: it holds a control character"],
    [`chats/c/suggestions/${"s".repeat(201)}/start`, "invalid suggestion id: it is longer than 200 characters"],
  ]) {
    const r = await get(handler, path);
    assert.equal(r.status, 400, path);
    assert.deepEqual(await errorOf(r), { code: "http/bad-request", message }, path);
  }
  assert.equal(asked, 0);
});

test("a POST needs a JSON content type: a form post or text is a 415 and writes nothing", async () => {
  const store = new MemoryStore();
  await chatWith(store, "c");
  const handler = chatHandler({ store, authorize: allow });
  const before = (await store.read("c")).length;
  for (const type of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain", "application/jsonp", null]) {
    const headers = type === null ? {} : { "content-type": type };
    const r = await handler(
      new Request(`${BASE}/chats/c/suggestions/s1/dismiss`, { method: "POST", headers, body: type === null ? null : "{}" }),
    );
    assert.equal(r.status, 415, String(type));
    assert.deepEqual(await errorOf(r), { code: "http/unsupported-media-type", message: "a POST needs Content-Type: application/json" });
  }
  assert.equal((await store.read("c")).length, before);
  assert.equal(
    (await post(handler, "chats/c/suggestions/s1/dismiss", {}, { "content-type": "Application/JSON; charset=utf-8" })).status,
    200,
  );
});

test("huge bodies are refused with a 413, by Content-Length and by what actually arrives (a stream with no length)", async () => {
  const store = new MemoryStore();
  await chatWith(store, "c");
  const handler = chatHandler({ store, authorize: allow, maxBodyBytes: 1024 });
  const before = (await store.read("c")).length;
  const huge = JSON.stringify({ permission: "x".repeat(10 * 1024 * 1024) });
  const r = await post(handler, "chats/c/suggestions/s1/start", huge);
  assert.equal(r.status, 413);
  assert.deepEqual(await errorOf(r), { code: "http/payload-too-large", message: "the body is larger than 1024 bytes" });
  let pulled = 0;
  const endless = new ReadableStream({
    pull(c) {
      pulled++;
      c.enqueue(new TextEncoder().encode(" ".repeat(512)));
    },
  });
  const streamed = await handler(
    new Request(`${BASE}/chats/c/suggestions/s1/start`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: endless,
      duplex: "half",
    }),
  );
  assert.equal(streamed.status, 413);
  assert.ok(pulled <= 4, `read ${pulled} chunks of an endless body`);
  assert.equal((await store.read("c")).length, before);
});

test("a JsonlStore whose folder was removed answers 503 store/unavailable with its fixed text, never the folder's path", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "oda-http-gone-"));
  const store = new JsonlStore(path.join(dir, "chats"));
  await chatWith(store, "c");
  fs.rmSync(dir, { recursive: true });
  const heard = [];
  const handler = chatHandler({ store, authorize: allow, onError: (e) => heard.push(e.code) });
  for (const r of [await get(handler, "chats/c"), await post(handler, "chats/c/suggestions/s1/dismiss")]) {
    assert.equal(r.status, 503);
    assert.equal(r.headers.get("retry-after"), "1");
    const text = await r.text();
    assert.deepEqual(JSON.parse(text), { error: { code: "store/unavailable", message: "the store is unavailable; try again" } });
    assert.ok(!text.includes(dir));
  }
  assert.deepEqual(heard, ["store/unavailable", "store/unavailable"]);
  assert.equal(fs.existsSync(dir), false);
});

test("a store that may not be read answers 503 store/no-access with its fixed text", async () => {
  const store = new MemoryStore();
  await chatWith(store, "c");
  const refusing = {
    read: async () => {
      throw new StoreError("store/no-access", 'chat "c" cannot be read: this process may not read the file /srv/c.jsonl (EACCES)', "c");
    },
    append: store.append.bind(store),
    create: store.create.bind(store),
  };
  const r = await get(chatHandler({ store: refusing, authorize: allow, onError: () => {} }), "chats/c");
  assert.equal(r.status, 503);
  assert.deepEqual(await r.json(), { error: { code: "store/no-access", message: "the store may not be read" } });
});

test("no failure leaks a stack or a path: a store's error is its code and a fixed text; onError hears the real error", async () => {
  const secret = "/srv/app/data/chats/c.jsonl";
  const store = new MemoryStore();
  await chatWith(store, "c");
  const heard = [];
  store.read = async () => {
    throw new StoreError("store/unavailable", `cannot open ${secret}: EIO`, "c");
  };
  store.readSince = undefined;
  const broken = { ...store, read: store.read, append: store.append.bind(store), create: store.create.bind(store) };
  const handler = chatHandler({ store: broken, authorize: allow, onError: (e) => heard.push(e) });
  const r = await get(handler, "chats/c");
  assert.equal(r.status, 503);
  assert.equal(r.headers.get("retry-after"), "1");
  const text = await r.text();
  assert.deepEqual(JSON.parse(text), { error: { code: "store/unavailable", message: "the store is unavailable; try again" } });
  assert.ok(!text.includes("/srv") && !text.includes("EIO"));
  const odd = {
    read: async () => {
      const e = new Error(`boom at ${secret}`);
      throw e;
    },
    append: async () => 0,
    create: async () => true,
  };
  const r2 = await get(chatHandler({ store: odd, authorize: allow, onError: (e) => heard.push(e) }), "chats/c");
  assert.equal(r2.status, 500);
  const text2 = await r2.text();
  assert.deepEqual(JSON.parse(text2), { error: { code: "http/internal", message: "internal error" } });
  assert.ok(!/srv|boom|\bat\b.*:\d+/.test(text2));
  assert.deepEqual(
    heard.map((e) => e.message),
    [`cannot open ${secret}: EIO`, `boom at ${secret}`],
  );
});

/** Reads SSE events off a response body until `until` says stop. */
async function events(response, until) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const seen = [];
  let buffer = "";
  while (!until(seen)) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event !== undefined) seen.push({ event, data: JSON.parse(data) });
    }
  }
  return { seen, reader };
}

test("GET chats/:chatId/events: the screen at once, then the new screen when the log changes; an abort closes the stream", async () => {
  const store = new MemoryStore();
  await chatWith(store, "c");
  const handler = chatHandler({ store, authorize: allow, pollMs: 100, maxStreamsPerChat: 1 });
  const controller = new AbortController();
  const r = await get(handler, "chats/c/events", { signal: controller.signal });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-type"), "text/event-stream; charset=utf-8");
  assert.deepEqual(
    [...r.headers.keys()].filter((k) => k.startsWith("access-control-")),
    [],
  );
  const reader = r.body.getReader();
  const wrapped = new Response(
    new ReadableStream({
      pull: async (c) => {
        const { done, value } = await reader.read();
        if (done) c.close();
        else c.enqueue(value);
      },
    }),
  );
  const first = await events(wrapped, (seen) => seen.length >= 1);
  assert.equal(first.seen[0].event, "screen");
  assert.deepEqual(first.seen[0].data.todos, todos(["Write tests", "in_progress"], ["Ship", "pending"]).todos);
  await beginTurn(store, "c");
  await toolHandlers({ store, chatId: "c" }).todo_write(todos(["Write tests", "completed"], ["Ship", "in_progress"]));
  const next = await events(
    new Response(
      new ReadableStream({
        pull: async (c) => {
          const { done, value } = await first.reader.read();
          if (done) c.close();
          else c.enqueue(value);
        },
      }),
    ),
    (seen) => seen.some((e) => e.data.plan?.state === "running"),
  );
  const screen = next.seen.at(-1).data;
  assert.deepEqual(screen.todos, todos(["Write tests", "completed"], ["Ship", "in_progress"]).todos);
  assert.equal(screen.plan.state, "running");
  // One stream per chat allowed here: a second is a 429 until the first is aborted.
  const second = await get(handler, "chats/c/events");
  assert.equal(second.status, 429);
  assert.deepEqual(await errorOf(second), {
    code: "http/too-many-streams",
    message: "too many open event streams for this chat; close one first",
  });
  controller.abort();
  const { done } = await first.reader.read().then(async (r) => (r.done ? r : first.reader.read()));
  assert.equal(done, true);
  const again = await get(handler, "chats/c/events");
  assert.equal(again.status, 200);
  await again.body.cancel();
  assert.equal(
    await get(handler, "chats/c/events").then(async (r) => {
      const s = r.status;
      await r.body?.cancel();
      return s;
    }),
    200,
  );
});

test("an event stream listens once to its request's abort, stops listening when cancelled, and an abort closes it", async () => {
  const store = new MemoryStore();
  for (let i = 0; i < 5; i++) await createChat(store, `c${i}`, { workspace: "/w" });
  const handler = chatHandler({ store, authorize: allow });
  const controller = new AbortController();
  const requests = Array.from({ length: 5 }, (_, i) => new Request(`${BASE}/chats/c${i}/events`, { signal: controller.signal }));
  const streams = [];
  for (const request of requests) streams.push(await handler(request));
  assert.deepEqual(
    streams.map((r) => r.status),
    [200, 200, 200, 200, 200],
  );
  const listening = () => requests.map((r) => getEventListeners(r.signal, "abort").length);
  assert.deepEqual(listening(), [1, 1, 1, 1, 1]);
  for (const r of streams.slice(0, 3)) await r.body.cancel();
  assert.deepEqual(listening(), [0, 0, 0, 1, 1]);
  const readers = streams.slice(3).map((r) => r.body.getReader());
  controller.abort();
  for (const reader of readers) {
    let r = await reader.read();
    while (!r.done) r = await reader.read();
    assert.equal(r.done, true);
  }
  assert.deepEqual(listening(), [0, 0, 0, 0, 0]);
  // Their places are free again.
  const again = await get(handler, "chats/c3/events");
  assert.equal(again.status, 200);
  await again.body.cancel();
});

test("1,000 event streams: at most maxStreamsPerChat per chat and maxStreams in all; the rest are 429s, and aborting frees them", async () => {
  const store = new MemoryStore();
  for (let i = 0; i < 20; i++) await createChat(store, `c${i}`, { workspace: "/w" });
  const handler = chatHandler({ store, authorize: allow, pollMs: 1000, maxStreamsPerChat: 8, maxStreams: 100 });
  const controllers = [];
  const open = (chatId) => {
    const controller = new AbortController();
    controllers.push(controller);
    return get(handler, `chats/${chatId}/events`, { signal: controller.signal });
  };
  const oneChat = await Promise.all(Array.from({ length: 1000 }, () => open("c0")));
  assert.deepEqual(count(oneChat.map((r) => r.status)), { 200: 8, 429: 992 });
  const many = await Promise.all(Array.from({ length: 1000 }, (_, i) => open(`c${1 + (i % 19)}`)));
  // 100 in all: 8 on c0, and 92 more spread over the other chats (at most 8 each).
  assert.deepEqual(count(many.map((r) => r.status)), { 200: 92, 429: 908 });
  for (const c of controllers) c.abort();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const after = await Promise.all(Array.from({ length: 8 }, () => open("c0")));
  assert.deepEqual(count(after.map((r) => r.status)), { 200: 8 });
  for (const c of controllers) c.abort();
});

function count(statuses) {
  const out = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}
