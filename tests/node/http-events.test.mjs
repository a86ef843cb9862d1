// chatHandler's event stream against the built package, with real streams:
// each event's id is the log length it reflects; the screen first, then
// changes that carry only what changed (built once per chat and length and
// shared by every stream); a resume by Last-Event-ID gets what is new, or a
// screen when too far behind, when the log was replaced or the id is not one;
// an unread stream holds one event at most and is closed after staleMs; one
// store.watch per chat; a store without watch is polled in one batched pass
// that reads only what is new.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beginTurn, ChatState, ChatStateCache, createChat, endTurn, MemoryStore, toolHandlers } from "oda-tasks";
import { chatHandler } from "oda-tasks/http";
import { JsonlStore } from "oda-tasks/node";
import { applyChange } from "../../pkg/dist/elements/live.js";
import { sse } from "./support/sse.mjs";

// A stream waits forever when an event does not come: each test fails after 30 s instead.
const test = (name, fn) => nodeTest(name, { timeout: 30_000 }, fn);

const BASE = "http://app.test/api/oda";
const allow = () => true;
const todos = (...items) => ({ todos: items.map(([content, status]) => ({ content, status })) });
const offer = (n) => ({ title: `Task ${n}`, tldr: `Why ${n}.`, brief: `Do ${n}.` });
const get = (handler, p, init = {}) => handler(new Request(`${BASE}/${p}`, init));
const screenOf = async (handler, chatId = "c") => (await get(handler, `chats/${chatId}`)).json();
const lengthOf = async (store, chatId = "c") => (await store.read(chatId)).length;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A chat with a workspace, a list (one card) and one open suggestion. */
async function chatWith(store, chatId = "c") {
  await createChat(store, chatId, { workspace: "/w" });
  const tools = toolHandlers({ store, chatId });
  await beginTurn(store, chatId);
  await tools.todo_write(todos(["Write tests", "in_progress"], ["Ship", "pending"]));
  await tools.suggest_task(offer(1));
  await endTurn(store, chatId);
  return tools;
}

/** Reads `s` until an event at `length` or later. */
async function until(s, length) {
  for (;;) {
    const e = await s.next();
    if (Number(e.id) >= length) return e;
  }
}

/** The n-th update of the list: one new card each. */
const step = (tools, n) => tools.todo_write(todos([`Step ${n}`, "in_progress"], ["Ship", "pending"]));

test("ids and shapes: the screen first, then each change carries only what changed, the new cards, cardCount and length", async () => {
  const store = new MemoryStore();
  const tools = await chatWith(store);
  const handler = chatHandler({ store, authorize: allow });
  const s = sse(await get(handler, "chats/c/events"));
  const first = await s.next();
  const screen = await screenOf(handler);
  assert.equal(first.event, "screen");
  assert.equal(first.id, String(await lengthOf(store)));
  assert.deepEqual(first.data, screen);

  await step(tools, 1); // a new list: todos, plan and one card change
  const change = await s.next();
  assert.equal(change.event, "change");
  assert.equal(change.id, String(await lengthOf(store)));
  assert.deepEqual(Object.keys(change.data), ["length", "cardCount", "cards", "window", "todos", "plan"]);
  const now = await screenOf(handler);
  assert.deepEqual(change.data, {
    length: now.length,
    cardCount: now.cardCount,
    cards: now.cards.slice(-1),
    window: 50,
    todos: now.todos,
    plan: now.plan,
  });
  assert.deepEqual(applyChange(first.data, change.data), now);

  await endTurn(store, "c");
  await beginTurn(store, "c");
  const turn = await s.next(); // a new turn: the plan reads "cleared"
  assert.deepEqual(Object.keys(turn.data), ["length", "cardCount", "cards", "window", "plan"]);
  await tools.suggest_task(offer(2)); // only the suggestions change
  const offered = await s.next();
  assert.deepEqual(Object.keys(offered.data), ["length", "cardCount", "cards", "window", "open"]);
  assert.deepEqual(offered.data.cards, []);
  const after = await screenOf(handler);
  assert.deepEqual(offered.data.open, after.open);
  assert.deepEqual(applyChange(applyChange(applyChange(first.data, change.data), turn.data), offered.data), after);
  await s.reader.cancel();
});

/** Counts the cards every ChatState makes (`view`'s and `cards`') while `fn` runs. */
async function countingCards(fn) {
  const { cards, view } = ChatState.prototype;
  const made = { cards: 0 };
  ChatState.prototype.cards = function (...args) {
    const answer = cards.apply(this, args);
    made.cards += answer.length;
    return answer;
  };
  ChatState.prototype.view = function (...args) {
    const answer = view.apply(this, args);
    made.cards += answer.cards.length;
    return answer;
  };
  try {
    return await fn(made);
  } finally {
    Object.assign(ChatState.prototype, { cards, view });
  }
}

test("a write costs its change: 20 streams of a 60-card chat, 10 writes make 10 cards, never the window again; the changes applied are the screen", () =>
  countingCards(async (made) => {
    const store = new MemoryStore();
    await createChat(store, "c", { workspace: "/w" });
    const tools = toolHandlers({ store, chatId: "c" });
    for (let n = 0; n < 60; n++) await step(tools, n);
    const handler = chatHandler({ store, authorize: allow, cards: 50 });
    const streams = [];
    for (let i = 0; i < 20; i++) streams.push(sse(await get(handler, "chats/c/events")));
    const held = [];
    for (const s of streams) held.push((await s.next()).data);
    assert.equal(made.cards, 50, "the window is made once for the 20 streams' screens");
    for (let n = 1; n <= 10; n++) {
      await step(tools, 60 + n);
      const length = await lengthOf(store);
      for (const [i, s] of streams.entries()) {
        const e = await until(s, length);
        assert.equal(e.event, "change");
        held[i] = applyChange(held[i], e.data);
      }
    }
    assert.equal(made.cards, 60, "each write made its one new card, once for all the streams");
    const screen = await screenOf(handler);
    for (const h of held) assert.deepEqual(h, screen);
    for (const s of streams) await s.reader.cancel();
  }));

test("a state read again (evicted from a cache of one chat): the window is compared and each change stays right", async () => {
  const store = new MemoryStore();
  const a = await chatWith(store, "a");
  const b = await chatWith(store, "b");
  const cache = new ChatStateCache(store, { size: 1, cards: true });
  const handler = chatHandler({ store, authorize: allow, cards: 2, cache });
  const [sa, sb] = [sse(await get(handler, "chats/a/events")), sse(await get(handler, "chats/b/events"))];
  let [ha, hb] = [(await sa.next()).data, (await sb.next()).data];
  for (let n = 1; n <= 4; n++) {
    await step(a, n);
    const ea = await until(sa, await lengthOf(store, "a"));
    assert.equal(ea.event, "change", `chat a, write ${n}`);
    ha = applyChange(ha, ea.data);
    await step(b, n);
    const eb = await until(sb, await lengthOf(store, "b"));
    assert.equal(eb.event, "change", `chat b, write ${n}`);
    hb = applyChange(hb, eb.data);
  }
  assert.deepEqual(ha, await screenOf(handler, "a"));
  assert.deepEqual(hb, await screenOf(handler, "b"));
  await sa.reader.cancel();
  await sb.reader.cancel();
});

test("a missed change never shows a wrong screen: the screen with every change applied is the screen the handler answers", async () => {
  const store = new MemoryStore();
  const tools = await chatWith(store);
  const handler = chatHandler({ store, authorize: allow, cards: 3 });
  const s = sse(await get(handler, "chats/c/events"));
  let held = (await s.next()).data;
  for (let n = 1; n <= 8; n++) {
    if (n % 3 === 0) {
      await endTurn(store, "c");
      await beginTurn(store, "c");
      await tools.suggest_task(offer(n));
    } else await step(tools, n);
    const length = await lengthOf(store);
    while (held.length < length) {
      const e = await s.next();
      held = e.event === "screen" ? e.data : applyChange(held, e.data);
      assert.equal(e.id, String(held.length));
    }
    assert.deepEqual(held, await screenOf(handler), `after write ${n}`);
  }
  await s.reader.cancel();
});

test("streams of one chat share one store.watch and one build: the same bytes at the same length; the watch stops after the last one", async () => {
  const inner = new MemoryStore();
  const tools = await chatWith(inner);
  let watching = 0;
  let reads = 0;
  const store = {
    read: (id) => inner.read(id),
    readTextFrom: (id, from) => {
      reads++;
      return inner.readTextFrom(id, from);
    },
    append: (...a) => inner.append(...a),
    create: (...a) => inner.create(...a),
    watch: (id, onChange) => {
      watching++;
      const stop = inner.watch(id, onChange);
      return () => {
        watching--;
        stop();
      };
    },
  };
  const handler = chatHandler({ store, authorize: allow });
  const streams = await Promise.all(Array.from({ length: 20 }, async () => sse(await get(handler, "chats/c/events"))));
  for (const s of streams) assert.equal((await s.next()).event, "screen");
  assert.equal(watching, 1);
  const before = reads;
  await step(tools, 1);
  const changes = await Promise.all(streams.map((s) => s.next()));
  assert.ok(changes.every((e) => e.event === "change" && e.text === changes[0].text));
  // The same bytes object went to every stream: the change was built once.
  assert.ok(streams.every((s) => s.chunks.at(-1) === streams[0].chunks.at(-1)));
  assert.ok(reads - before <= 2, `the new entry was read ${reads - before} times for 20 streams`);
  for (const s of streams) await s.reader.cancel();
  assert.equal(watching, 1, "a chat stays watched a little after its last stream, for a resume");
});

const KEEP_ALIVE_TEXT = ": keep-alive\n\n";
const isKeepAlive = (chunk) => new TextDecoder().decode(chunk) === KEEP_ALIVE_TEXT;
/** Moves the mocked clock (and the handler's 1 s tick) to `second` seconds after `from`, a second at a time. */
async function tickTo(t, from, second, each = async () => {}) {
  while (Date.now() - from < second * 1000) {
    t.mock.timers.tick(1_000);
    await each((Date.now() - from) / 1000);
  }
}

test("keep-alives: a stream's first comes between half a period and a period after it opened, each later one 25 s (keepAliveMs) after its last write, whatever order the streams were opened and written in; a chat is let go 10 s after its last stream", async (t) => {
  t.mock.timers.enable({ apis: ["setInterval", "Date"], now: 1_000_000 });
  const inner = new MemoryStore();
  const tools = await chatWith(inner, "a");
  await chatWith(inner, "b");
  const watching = new Set();
  const store = {
    read: (id) => inner.read(id),
    readTextFrom: (id, from) => inner.readTextFrom(id, from),
    append: (...a) => inner.append(...a),
    create: (...a) => inner.create(...a),
    watch: (id, onChange) => {
      watching.add(id);
      const stop = inner.watch(id, onChange);
      return () => {
        watching.delete(id);
        stop();
      };
    },
  };
  const handler = chatHandler({ store, authorize: allow });
  const a = sse(await get(handler, "chats/a/events"));
  const b = sse(await get(handler, "chats/b/events"));
  assert.equal((await a.next()).event, "screen");
  assert.equal((await b.next()).event, "screen");
  const keepAlives = (s) => s.chunks.filter(isKeepAlive).length;
  const last = (s) => new TextDecoder().decode(s.chunks.at(-1));
  const opened = Date.now();
  const first = {};
  await tickTo(t, opened, 25, async (second) => {
    for (const [name, s] of Object.entries({ a, b })) {
      assert.ok(await s.quietFor(20));
      if (keepAlives(s) === 1) first[name] ??= second;
    }
  });
  assert.deepEqual([keepAlives(a), keepAlives(b)], [1, 1], "one each within a period of the opening");
  for (const [name, second] of Object.entries(first))
    assert.ok(second > 12.5 && second <= 25, `${name}'s first keep-alive came ${second} s after it opened`);
  assert.notEqual(first.a, first.b, "two streams opened together get their first keep-alives in different ticks");
  await tickTo(t, opened, 35);
  await step(tools, 1);
  assert.equal((await a.next()).event, "change"); // a, opened first, written last
  await tickTo(t, opened, first.b + 24);
  assert.ok(await b.quietFor(50));
  assert.equal(keepAlives(b), 1, "24 s after b's last write: nothing yet");
  await tickTo(t, opened, first.b + 26);
  assert.ok(await b.quietFor(50));
  assert.equal(keepAlives(b), 2, "26 s after b's last write");
  await tickTo(t, opened, 35 + 24);
  assert.ok(await a.quietFor(50));
  assert.match(last(a), /^id: \d+\nevent: change\n/, "24 s after a's last write: nothing yet");
  await tickTo(t, opened, 35 + 26);
  assert.ok(await a.quietFor(50));
  assert.equal(last(a), KEEP_ALIVE_TEXT, "26 s after a's last write");
  await a.reader.cancel();
  await b.reader.cancel();
  t.mock.timers.tick(9_000);
  assert.deepEqual([...watching].sort(), ["a", "b"], "watched a while for a resume");
  t.mock.timers.tick(2_000);
  assert.deepEqual([...watching], [], "let go 10 s after the last stream");
});

test("keep-alives of streams opened together (a restart's reconnects): the first ones spread over the second half of the period, a share per tick, and stay spread", async (t) => {
  t.mock.timers.enable({ apis: ["setInterval", "Date"], now: 1_000_000 });
  const store = new MemoryStore();
  const N = 60;
  for (let i = 0; i < N; i++) await chatWith(store, `c${i}`);
  const handler = chatHandler({ store, authorize: allow });
  const opened = Date.now();
  const seen = Array.from({ length: N }, () => []); // the seconds of each stream's keep-alives
  const readers = [];
  for (let i = 0; i < N; i++) {
    const reader = (await get(handler, `chats/c${i}/events`)).body.getReader();
    readers.push(reader);
    void (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (isKeepAlive(value)) seen[i].push((Date.now() - opened) / 1000);
      }
    })();
  }
  const settle = async () => {
    for (let k = 0; k < 3; k++) await new Promise((resolve) => setImmediate(resolve));
  };
  await settle();
  await tickTo(t, opened, 50, settle);
  const firsts = seen.map((s) => s[0]);
  assert.ok(
    seen.every((s) => s.length === 2),
    `two keep-alives each in two periods: ${JSON.stringify(seen.map((s) => s.length))}`,
  );
  assert.ok(Math.min(...firsts) > 12.5, "none in the first half of the period");
  const perTick = new Map();
  for (const second of firsts) perTick.set(second, (perTick.get(second) ?? 0) + 1);
  const evenShare = N / 12.5;
  assert.ok(perTick.size >= 12, `the first ones came in ${perTick.size} ticks`);
  assert.ok(Math.max(...perTick.values()) <= 2 * evenShare, `at most twice the even share in one tick: ${JSON.stringify([...perTick])}`);
  assert.ok(
    seen.every(([x, y]) => y - x === 25),
    "each later keep-alive a period after the last write: the spread stays",
  );
  for (const reader of readers) await reader.cancel();
});

test("keepAliveMs: a stream gets its keep-alive that long after its last write (its first up to half of it sooner); the option is checked when the handler is built", async (t) => {
  const store = new MemoryStore();
  await chatWith(store, "a");
  for (const bad of [999, 300_001, 2.5, "25s"]) {
    assert.throws(
      () => chatHandler({ store, authorize: allow, keepAliveMs: bad }),
      new RegExp(`\`keepAliveMs\` must be a whole number from 1000 to 300000 \\(got ${typeof bad === "string" ? `"${bad}"` : bad}\\)`),
    );
  }
  t.mock.timers.enable({ apis: ["setInterval", "Date"], now: 1_000_000 });
  const a = sse(await get(chatHandler({ store, authorize: allow, keepAliveMs: 5_000 }), "chats/a/events"));
  assert.equal((await a.next()).event, "screen");
  const keepAlives = () => a.chunks.filter(isKeepAlive).length;
  const opened = Date.now();
  await tickTo(t, opened, 2);
  assert.ok(await a.quietFor(50));
  assert.equal(keepAlives(), 0, "2 s: nothing yet");
  let first = null;
  await tickTo(t, opened, 5, async (second) => {
    assert.ok(await a.quietFor(20));
    if (keepAlives() === 1) first ??= second;
  });
  assert.ok(first !== null && first > 2.5, `the first between 2.5 and 5 s after the screen (${first})`);
  await tickTo(t, opened, first + 4);
  assert.ok(await a.quietFor(50));
  assert.equal(keepAlives(), 1, "4 s after the first: nothing yet");
  await tickTo(t, opened, first + 6);
  assert.ok(await a.quietFor(50));
  assert.equal(keepAlives(), 2, "6 s after the first");
  await a.reader.cancel();
});

test("resume by Last-Event-ID: a small gap gets a change; the length it has gets nothing; a big gap or an id that is none gets the screen", async () => {
  const store = new MemoryStore();
  const tools = await chatWith(store);
  const handler = chatHandler({ store, authorize: allow, cards: 2 });
  const open = async (id) => sse(await get(handler, "chats/c/events", id === undefined ? {} : { headers: { "last-event-id": id } }));
  const s1 = await open();
  const screen = await s1.next();
  await s1.reader.cancel(); // the client goes away; it comes back with the last id it had
  await step(tools, 1);
  const s2 = await open(screen.id);
  const resumed = await s2.next();
  assert.equal(resumed.event, "change");
  assert.deepEqual(applyChange(screen.data, resumed.data), await screenOf(handler));
  // At the length it has: nothing until the next change.
  const s3 = await open(resumed.id);
  assert.equal(await s3.quietFor(300), true);
  // Past the window of two: a change still, the client keeps the last two.
  await step(tools, 2);
  const filled = await s3.next();
  assert.equal(filled.event, "change");
  assert.equal(filled.data.window, 2);
  const held = applyChange(applyChange(screen.data, resumed.data), filled.data);
  assert.deepEqual(held, await screenOf(handler));
  await step(tools, 3);
  const next = await s3.next();
  assert.equal(next.event, "change");
  // Three cards behind a window of two: the screen.
  for (let n = 4; n <= 6; n++) await step(tools, n);
  await until(s3, await lengthOf(store)); // the handler has read the chat up to now
  const s4 = await open(next.id);
  const far = await s4.next();
  assert.equal(far.event, "screen");
  assert.deepEqual(far.data, await screenOf(handler));
  // Two behind: a change again.
  for (let n = 7; n <= 8; n++) await step(tools, n);
  await until(s3, await lengthOf(store));
  const s5 = await open(far.id);
  const near = await s5.next();
  assert.equal(near.event, "change");
  assert.deepEqual(applyChange(far.data, near.data), await screenOf(handler));
  // Ids that are no length it knows: the screen.
  for (const id of ["abc", "-1", "1e3", " 7", "99999", "123456789012345678"]) {
    const s = await open(id);
    const e = await s.next();
    assert.equal(e.event, "screen", `Last-Event-ID ${JSON.stringify(id)}`);
    assert.equal(e.id, String(await lengthOf(store)));
    await s.reader.cancel();
  }
  for (const s of [s2, s3, s4, s5]) await s.reader.cancel();
});

test("a replaced or shortened log: the open stream and a resume get a screen, never a change onto the old one", async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "oda-events-"));
  const other = fs.mkdtempSync(path.join(os.tmpdir(), "oda-events-other-"));
  t.after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(other, { recursive: true, force: true });
  });
  const store = new JsonlStore(dir);
  await chatWith(store);
  const handler = chatHandler({ store, authorize: allow, pollMs: 100 });
  const kept = sse(await get(handler, "chats/c/events"));
  const first = await kept.next();
  // Another log of the same chat, longer, with other lists, put in its place.
  const replacement = new JsonlStore(other);
  await createChat(replacement, "c", { workspace: "/w" });
  const tools = toolHandlers({ store: replacement, chatId: "c" });
  for (let n = 1; n <= 5; n++) await beginTurn(replacement, "c");
  await step(tools, 1);
  await step(tools, 2);
  fs.copyFileSync(replacement.file("c"), `${store.file("c")}.new`);
  fs.renameSync(`${store.file("c")}.new`, store.file("c"));
  const next = await kept.next();
  assert.equal(next.event, "screen");
  assert.deepEqual(next.data, await screenOf(handler));
  // A client that had the old log's length resumes with a screen.
  const resumed = sse(await get(handler, "chats/c/events", { headers: { "last-event-id": first.id } }));
  assert.equal((await resumed.next()).event, "screen");
  // Shortened: the open stream gets the shorter screen.
  const short = new JsonlStore(fs.mkdtempSync(path.join(other, "s-")));
  await createChat(short, "c", { workspace: "/w" });
  fs.copyFileSync(short.file("c"), `${store.file("c")}.new`);
  fs.renameSync(`${store.file("c")}.new`, store.file("c"));
  const shorter = await kept.next();
  assert.equal(shorter.event, "screen");
  assert.equal(shorter.id, "1");
  assert.deepEqual(shorter.data, await screenOf(handler));
  await kept.reader.cancel();
  await resumed.reader.cancel();
});

test("an unread stream holds one event at most: 300 changes behind it are one queued event and one catch-up, nothing more", async () => {
  const store = new MemoryStore();
  const tools = await chatWith(store);
  const handler = chatHandler({ store, authorize: allow });
  const s = sse(await get(handler, "chats/c/events"));
  const screen = await s.next(); // then the client stops reading
  for (let n = 1; n <= 300; n++) await step(tools, n);
  const reading = sse(await get(handler, "chats/c/events"));
  await until(reading, await lengthOf(store)); // the handler has read the chat up to now
  const queued = await s.next(); // given before the client stopped: the first change
  assert.equal(queued.event, "change");
  assert.ok(Number(queued.id) < 50, `the queued event is the first change (id ${queued.id})`);
  const catchUp = await s.next(); // built when read: everything since, here too many cards for a change
  assert.equal(catchUp.event, "screen");
  assert.equal(catchUp.id, String(await lengthOf(store)));
  assert.deepEqual(catchUp.data, await screenOf(handler));
  assert.equal(await s.quietFor(300), true);
  // A few changes behind: the catch-up is one change from what the client has.
  const few = sse(await get(handler, "chats/c/events"));
  const at = (await few.next()).data;
  for (let n = 301; n <= 310; n++) await step(tools, n);
  await until(reading, await lengthOf(store));
  const one = await few.next();
  const two = await few.next();
  assert.equal(two.event, "change");
  assert.equal(two.data.cards.length, 10 - one.data.cards.length);
  assert.deepEqual(applyChange(applyChange(at, one.data), two.data), await screenOf(handler));
  assert.equal(await few.quietFor(300), true);
  assert.ok(Number(screen.id) < Number(catchUp.id));
  await s.reader.cancel();
  await few.reader.cancel();
  await reading.reader.cancel();
});

test("staleMs: a stream whose client reads nothing is closed, and frees its place; staleMs is checked when the handler is built", async () => {
  const store = new MemoryStore();
  await chatWith(store);
  assert.throws(
    () => chatHandler({ store, authorize: allow, staleMs: 10 }),
    /`staleMs` must be a whole number from 1000 to 600000 \(got 10\)/,
  );
  assert.throws(() => chatHandler({ store, authorize: allow, staleMs: "30s" }), /`staleMs` must be a whole number from 1000 to 600000/);
  const handler = chatHandler({ store, authorize: allow, staleMs: 1000, maxStreamsPerChat: 1 });
  const unread = await get(handler, "chats/c/events");
  const refused = await get(handler, "chats/c/events");
  assert.equal(refused.status, 429);
  let status = 429;
  for (let i = 0; i < 50 && status === 429; i++) {
    await sleep(100);
    const r = await get(handler, "chats/c/events");
    status = r.status;
    await r.body.cancel();
  }
  assert.equal(status, 200, "the unread stream was closed within 5 s");
  // What it held: the retry hint it never read, then the end.
  const reader = unread.body.getReader();
  const held = await reader.read();
  assert.match(new TextDecoder().decode(held.value), /^retry: \d+\n\n$/);
  assert.equal((await reader.read()).done, true);
});

test("a store without watch: one batched pass per pollMs reads each watched chat from its length, never a whole log; only the chat that moved gets an event", async () => {
  const inner = new MemoryStore();
  const chats = ["a", "b", "c"];
  const tools = {};
  for (const id of chats) tools[id] = await chatWith(inner, id);
  const calls = [];
  // An app's own store: read, readFrom, append, create; no watch, no texts, no marks.
  const store = {
    read: async (id) => {
      calls.push(["read", id]);
      return inner.read(id);
    },
    readFrom: async (id, from) => {
      calls.push(["readFrom", id, from]);
      return inner.readFrom(id, from);
    },
    append: (...a) => inner.append(...a),
    create: (...a) => inner.create(...a),
  };
  const handler = chatHandler({ store, authorize: allow, pollMs: 100 });
  const streams = {};
  for (const id of chats) {
    streams[id] = sse(await get(handler, `chats/${id}/events`));
    assert.equal((await streams[id].next()).event, "screen");
  }
  calls.length = 0;
  await sleep(650);
  const polled = calls.slice();
  assert.deepEqual(
    polled.filter((c) => c[0] === "read"),
    [],
  );
  const lengths = Object.fromEntries(await Promise.all(chats.map(async (id) => [id, await lengthOf(inner, id)])));
  assert.ok(
    polled.every(([, id, from]) => from === lengths[id]),
    "each read starts at the chat's length",
  );
  const per = chats.map((id) => polled.filter((c) => c[1] === id).length);
  assert.ok(per[0] >= 3 && per.every((n) => Math.abs(n - per[0]) <= 1), `one read per chat per pass (${per})`);
  await step(tools.b, 1);
  const e = await streams.b.next();
  assert.equal(e.event, "change");
  assert.deepEqual(e.data.cards, (await screenOf(handler, "b")).cards.slice(-1));
  assert.equal(await streams.a.quietFor(300), true);
  assert.equal(await streams.c.quietFor(1), true);
  for (const s of Object.values(streams)) await s.reader.cancel();
});

test("a chat that does not exist yet: an error event without an id, then the screen once it is created", async () => {
  const store = new MemoryStore();
  const handler = chatHandler({ store, authorize: allow });
  const s = sse(await get(handler, "chats/later/events"));
  const missing = await s.next();
  assert.deepEqual(missing, {
    id: null,
    event: "error",
    data: { code: "store/missing-chat", message: "no such chat" },
    text: 'event: error\ndata: {"code":"store/missing-chat","message":"no such chat"}\n\n',
  });
  await createChat(store, "later", { workspace: "/w" });
  const created = await s.next();
  assert.equal(created.event, "screen");
  assert.equal(created.id, "1");
  await s.reader.cancel();
});

test("docs/http.md's worked stream is what the handler sends, byte for byte", async () => {
  const doc = fs.readFileSync(new URL("../../docs/http.md", import.meta.url), "utf8");
  const worked = /A worked stream[\s\S]*?```text\n([\s\S]*?)```/.exec(doc)[1];
  const store = new MemoryStore();
  await createChat(store, "chat-1", { workspace: "/w" });
  const tools = toolHandlers({ store, chatId: "chat-1" });
  await beginTurn(store, "chat-1");
  await tools.todo_write(todos(["Write tests", "in_progress"], ["Ship", "pending"]));
  const handler = chatHandler({ store, authorize: allow, cards: 1 });
  const s = sse(await handler(new Request("http://app.test/chats/chat-1/events")));
  await s.next();
  await tools.todo_write(todos(["Write tests", "completed"], ["Ship", "in_progress"]));
  await s.next();
  await tools.suggest_task({ title: "Add retries", tldr: "Uploads fail on flaky networks.", brief: "Retry uploads three times." });
  await s.next();
  const sent = Buffer.concat(s.chunks).toString("utf8");
  assert.equal(sent, worked);
  await s.reader.cancel();
});

test("a started suggestion's progress: a write in the started chat sends the parent's stream a change with `settled`, with watch and by the poll", async () => {
  for (const watch of [true, false]) {
    const inner = new MemoryStore();
    await chatWith(inner);
    const store = watch
      ? inner
      : {
          read: (id) => inner.read(id),
          readFrom: (id, from) => inner.readFrom(id, from),
          append: (...a) => inner.append(...a),
          create: (...a) => inner.create(...a),
        };
    const handler = chatHandler({ store, authorize: allow, pollMs: 100 });
    const started = await handler(
      new Request(`${BASE}/chats/c/suggestions/s1/start`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }),
    );
    const { chatId: child } = await started.json();
    const s = sse(await get(handler, "chats/c/events"));
    let held = (await s.next()).data;
    assert.deepEqual(held.settled[0].progress, { completed: 0, total: 0 }, "no list in the started chat yet");
    await sleep(300); // the poll has found the started chat's length
    await toolHandlers({ store: inner, chatId: child }).todo_write(todos(["A", "completed"], ["B", "pending"]));
    const e = await s.next();
    assert.equal(e.event, "change", `watch: ${watch}`);
    assert.equal(e.id, String(held.length), "the parent's log did not move: the same length, a new version");
    assert.deepEqual(Object.keys(e.data), ["length", "cardCount", "cards", "window", "settled"]);
    held = applyChange(held, e.data);
    assert.deepEqual(held.settled[0].progress, { completed: 1, total: 2 });
    assert.deepEqual(held, await screenOf(handler));
    await s.reader.cancel();
  }
});

test("ten thousand viewers arriving at once are read a few chats at a time: at most 8 screen reads under way, every stream gets its screen", async () => {
  const inner = new MemoryStore();
  const ids = Array.from({ length: 40 }, (_, i) => `v${i}`);
  for (const id of ids) await createChat(inner, id, { workspace: "/w" });
  let under = 0;
  let most = 0;
  // A store whose reads take a while, as a disk's or a database's do.
  const slow =
    (read) =>
    async (...a) => {
      most = Math.max(most, ++under);
      try {
        await sleep(20);
        return await read(...a);
      } finally {
        under--;
      }
    };
  const store = {
    read: slow((id) => inner.read(id)),
    readFrom: slow((id, from) => inner.readFrom(id, from)),
    append: (...a) => inner.append(...a),
    create: (...a) => inner.create(...a),
    watch: (id, onChange) => inner.watch(id, onChange),
  };
  const handler = chatHandler({ store, authorize: allow });
  const streams = await Promise.all(ids.map(async (id) => sse(await get(handler, `chats/${id}/events`))));
  const first = await Promise.all(streams.map((s) => s.next()));
  assert.deepEqual(
    first.map((e) => e.event),
    ids.map(() => "screen"),
  );
  assert.ok(most >= 2 && most <= 8, `screen reads under way at once: ${most}`);
  for (const s of streams) await s.reader.cancel();
});
