// ChatState answers every question exactly as the pure functions do on the
// same log, however the state was built: from the log at once, by ingest in
// random chunks, or from JSONL bytes in random chunks. And a warm runTool or
// SuggestionService call reads only entries it has not seen.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as oda from "oda-tasks";
import { ChatState, ChatStateCache, MemoryStore, SuggestionService, planStart, replaySuggestions, replayTodos, runTool } from "oda-tasks";
import { sessionEntry } from "./support/entries.mjs";
import { prng, randomLog, randomPieces } from "./support/random-log.mjs";

// ---------------------------------------------------------------------------
// The questions, asked of the pure functions (`pure(log)`) or of a state.

const twoActive = {
  todos: [
    { content: "a", status: "in_progress" },
    { content: "b", status: "in_progress" },
  ],
};
const QUESTIONS = [
  ["replayTodos", (q) => q.replayTodos()],
  ["replaySuggestions", (q) => q.replaySuggestions()],
  [
    "todoWrite",
    (q) =>
      q.todoWrite({
        todos: [
          { content: "Write tests", status: "in_progress" },
          { content: "Ship", status: "pending" },
        ],
      }),
  ],
  [
    "todoWrite duplicate",
    (q) =>
      q.todoWrite({
        todos: [
          { content: "a", status: "pending" },
          { content: " a", status: "completed" },
        ],
      }),
  ],
  ["todoWrite oneActive off", (q) => q.todoWrite(twoActive, { oneActive: false })],
  ["suggestTask", (q) => q.suggestTask({ title: "Add retries", tldr: "Flaky uploads", brief: "Retry the PUT." })],
  ["suggestTask empty title", (q) => q.suggestTask({ title: " ", tldr: "w", brief: "b" })],
  ...["s1", "s2", "s3", "s9"].flatMap((id) =>
    ["draft", "dismiss", "restore"].map((action) => [`settle ${id} ${action}`, (q) => q.settleSuggestion(id, action)]),
  ),
  ...["s1", "s2"].flatMap((id) => [
    [`planStart ${id}`, (q) => q.planStart("p", id)],
    [`planStart ${id} request`, (q) => q.planStart("p", id, { model: "small", permission: "full-access" })],
    [`planStart ${id} own order`, (q) => q.planStart("p", id, { permission: "auto" }, ["ask", "auto"])],
  ]),
  ["startedChat p s1", (q) => q.startedChat("p", "s1")],
  ["startedChat p s2", (q) => q.startedChat("p", "s2")],
  ["checkGoal create", (q) => q.checkGoal("create")],
  ["checkGoal complete", (q) => q.checkGoal("complete")],
];

/** The pure functions ChatState answers as, each asked of `log` (their first argument): `pure(log).planStart("p", "s1")`. */
const PURE = ["replayTodos", "replaySuggestions", "todoWrite", "suggestTask", "settleSuggestion", "planStart", "startedChat", "checkGoal"];
// biome-ignore lint/performance/noDynamicNamespaceImportAccess: a test, never bundled: the pure functions by name
const pure = (log) => Object.fromEntries(PURE.map((name) => [name, (...args) => oda[name](log, ...args)]));

const answers = (q) => Object.fromEntries(QUESTIONS.map(([name, ask]) => [name, ask(q)]));

/** The JSONL bytes of a log, as JsonlStore writes it. */
const jsonlOf = (log) => Buffer.from(log.map((e) => JSON.stringify(e) + "\n").join(""), "utf8");

/** Every way to build a state of `log`, each with its own answers. */
function stateAnswers(log, rand) {
  const built = {};
  const ask = (name, state) => {
    try {
      assert.equal(state.length, log.length, `${name}: length`);
      built[name] = answers(state);
    } finally {
      state.free();
    }
  };
  ask("fromLog", ChatState.fromLog(log));
  const byIngest = ChatState.empty();
  for (const piece of randomPieces(rand, log)) byIngest.ingest(byIngest.length, piece);
  ask("ingest in chunks", byIngest);
  const bytes = jsonlOf(log);
  const byJsonl = ChatState.empty();
  let at = 0;
  while (at < bytes.length) {
    const size = 1 + Math.floor(rand() * (rand() < 0.5 ? 8 : 400)); // cuts through lines and UTF-8 sequences
    byJsonl.ingestJsonl(bytes.subarray(at, at + size));
    at += size;
  }
  assert.deepEqual(byJsonl.endJsonl(), { unreadable: [], tornBytes: 0 });
  ask("fromJsonl in chunks", byJsonl);
  ask("fromJsonl at once", ChatState.fromJsonl(bytes));
  return built;
}

function assertSame(log, rand, label) {
  const want = answers(pure(log));
  for (const [how, got] of Object.entries(stateAnswers(log, rand))) {
    for (const [name] of QUESTIONS) assert.deepEqual(got[name], want[name], `${label}: ${how}: ${name}`);
  }
  return want;
}

// ---------------------------------------------------------------------------

const session = sessionEntry({ chatId: "p", settings: { preset: "eng", model: "large", permission: "auto" } });
const turn = { type: "turn_started" };
const end = { type: "turn_ended" };
const offer = (id, title = `Offer ${id}`) => ({ type: "suggestion_offered", v: 1, id, title, tldr: "why", brief: "how" });
const settled = (id, outcome, chatId) => ({ type: "suggestion_settled", v: 1, id, outcome, ...(chatId ? { chatId } : {}) });
const update = (...items) => ({ type: "todo_update", v: 1, todos: items.map(([content, status]) => ({ content, status })) });
const brief = (id) => ({
  type: "message",
  v: 1,
  role: "user",
  text: "brief",
  source: { kind: "suggestion", chatId: "p", suggestionId: id },
});

const EDGE_CASES = {
  "empty log": [],
  "only a session": [session],
  "no session, an open turn": [turn],
  "a helper": [{ ...session, agent: "helper" }, turn],
  "a scheduled folder": [{ ...session, scheduledTaskFolder: true }, turn],
  "no workspace": [{ ...session, workspace: null }, turn, offer("s1")],
  "a session of v2 fails closed": [{ ...session, v: 2 }, turn, offer("s1")],
  "plan running, finished, none": [session, turn, update(["a", "in_progress"], ["b", "pending"]), end],
  "plan cleared by the next turn": [session, turn, update(["a", "in_progress"]), end, turn],
  "an update outside any turn": [session, update(["a", "pending"])],
  "cards: add, remove, status, move": [
    session,
    turn,
    update(["a", "pending"], ["b", "pending"], ["c", "pending"], ["d", "pending"]),
    update(["d", "in_progress"], ["a", "completed"], ["c", "pending"], ["e", "pending"]),
  ],
  "a stored list with repeats": [session, update(["a", "pending"], ["a", "completed"]), update(["a", "in_progress"])],
  "an empty list clears": [session, turn, update(["a", "pending"]), update()],
  "ten offers": [
    session,
    ...Array.from({ length: 10 }, (_, i) => [turn, offer(`s${i + 1}`), settled(`s${i + 1}`, "dismissed"), end]).flat(),
    turn,
  ],
  "three open": [session, turn, offer("s1"), end, turn, offer("s2"), end, turn, offer("s3"), end, turn],
  "dismiss and restore": [
    session,
    turn,
    offer("s1"),
    offer("s2"),
    settled("s1", "dismissed"),
    settled("s1", "restored"),
    settled("s2", "drafted"),
  ],
  "settlements that do not fit": [
    session,
    offer("s1"),
    settled("s1", "restored"),
    settled("s9", "dismissed"),
    settled("s1", "started"),
    settled("s1", "started", "p.s1"),
    settled("s1", "dismissed"),
  ],
  "a repeated offer id": [session, turn, offer("s1"), end, turn, offer("s1", "again")],
  "a started chat needing its brief": [{ ...session, chatId: "p.s1", origin: { chatId: "p", suggestionId: "s1" } }],
  "a started chat with its brief": [{ ...session, chatId: "p.s1", origin: { chatId: "p", suggestionId: "s1" } }, brief("s1")],
  "a brief then the person": [
    { ...session, origin: { chatId: "p", suggestionId: "s1" } },
    brief("s1"),
    { type: "message", role: "user", text: "go" },
  ],
  "odd entries": [session, null, 314, [], { v: 1 }, { type: 7 }, { type: "todo_update", v: 1, todos: "x" }, { type: "app", x: [1] }],
};

test("SPEC example chat (pkg/example/chat.jsonl): every build answers as the pure functions", () => {
  const bytes = readFileSync(new URL("../../pkg/example/chat.jsonl", import.meta.url));
  const log = bytes
    .toString("utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  const want = assertSame(log, prng(1), "example");
  assert.ok(want.replayTodos.cards.length >= 3, "the example has cards");
  assert.ok(want.replaySuggestions.open.length + want.replaySuggestions.settled.length >= 1, "the example has offers");
  // And its file bytes as they are (not re-serialised).
  const state = ChatState.fromJsonl(bytes);
  try {
    assert.deepEqual(answers(state), want);
  } finally {
    state.free();
  }
});

for (const [name, log] of Object.entries(EDGE_CASES)) {
  test(`edge case "${name}": every build answers as the pure functions`, () => {
    assertSame(log, prng(name.length), name);
  });
}

test("300 random logs (seeded): every build answers every question as the pure functions", () => {
  const seen = { accepted: 0, refused: 0, skipped: 0, cards: 0, settled: 0 };
  for (let seed = 1; seed <= 300; seed++) {
    const log = randomLog(seed);
    const want = assertSame(log, prng(seed * 7919), `seed ${seed}`);
    seen[want.suggestTask.ok ? "accepted" : "refused"]++;
    seen.skipped += want.replayTodos.skipped.length;
    seen.cards += want.replayTodos.cards.length;
    seen.settled += want.replaySuggestions.settled.length;
  }
  // The logs are varied enough to exercise both paths of each rule.
  assert.ok(seen.accepted > 10 && seen.refused > 10, JSON.stringify(seen));
  assert.ok(seen.skipped > 100 && seen.cards > 100 && seen.settled > 20, JSON.stringify(seen));
});

// ---------------------------------------------------------------------------
// Counting: a warm call reads no entry it has already seen.

/** A store that counts the entries its reads hand out, with a readFrom of its own. */
function countingStore(inner = new MemoryStore()) {
  const counts = { read: 0, readFrom: 0 };
  let beforeAppend = null;
  const store = {
    counts,
    /** Runs `fn` just before the next append: another writer coming first. */
    raceNextAppend(fn) {
      beforeAppend = fn;
    },
    async read(chatId) {
      const log = await inner.read(chatId);
      counts.read += log?.length ?? 0;
      return log;
    },
    async readFrom(chatId, from) {
      const log = await inner.read(chatId);
      if (log === null) return null;
      assert.ok(from <= log.length, "readFrom past the end");
      const fresh = log.slice(from);
      counts.readFrom += fresh.length;
      return fresh;
    },
    async append(chatId, entries, expectedLength) {
      const race = beforeAppend;
      beforeAppend = null;
      if (race) await race();
      return inner.append(chatId, entries, expectedLength);
    },
    create: (chatId, entries) => inner.create(chatId, entries),
    inner,
  };
  return store;
}

const seen = (store) => store.counts.read + store.counts.readFrom;
const reset = (store) => {
  store.counts.read = 0;
  store.counts.readFrom = 0;
};

test("a warm runTool call reads only entries appended by others since; its own entry is not read back", async () => {
  const store = countingStore();
  const log = [session, ...Array.from({ length: 500 }, (_, i) => (i % 50 === 0 ? turn : update([`step ${i}`, "pending"])))];
  await store.create("c", log);
  const cache = new ChatStateCache(store);
  const call = (input) => runTool(store, "c", { name: "todo_write", input }, { cache });

  assert.equal((await call({ todos: [] })).ok, true);
  assert.equal(seen(store), log.length, "the first (cold) call reads the chat once");

  for (let i = 0; i < 5; i++) {
    reset(store);
    assert.equal((await call({ todos: [{ content: `n${i}`, status: "pending" }] })).ok, true);
    assert.deepEqual(store.counts, { read: 0, readFrom: 0 }, `warm call ${i} read entries it had seen`);
  }

  reset(store);
  const length = (await store.inner.read("c")).length;
  await store.inner.append("c", [end, turn, { type: "app" }], length);
  assert.equal((await runTool(store, "c", { name: "suggest_task", input: { title: "t", tldr: "w", brief: "b" } }, { cache })).ok, true);
  assert.deepEqual(store.counts, { read: 0, readFrom: 3 }, "only the three entries another writer appended");

  // Another writer appends between the decision and the append: a conflict, then a catch-up of just that entry.
  reset(store);
  store.raceNextAppend(async () => {
    const now = (await store.inner.read("c")).length;
    await store.inner.append("c", [{ type: "app", by: "someone else" }], now);
  });
  assert.equal((await call({ todos: [{ content: "after the race", status: "pending" }] })).ok, true);
  assert.deepEqual(store.counts, { read: 0, readFrom: 1 }, "the lost race reads back only the other writer's entry");
  const final = await store.inner.read("c");
  assert.deepEqual(final.at(-1).todos, [{ content: "after the race", status: "pending" }]);
  assert.deepEqual(final.at(-2), { type: "app", by: "someone else" });
});

test("a warm SuggestionService reads only what is new: list, dismiss, restore, start", async () => {
  const store = countingStore();
  const log = [session, turn, offer("s1"), end, turn, offer("s2"), end, turn, ...Array.from({ length: 300 }, () => ({ type: "app" }))];
  await store.create("p", log);
  const cache = new ChatStateCache(store);
  const service = new SuggestionService({ store, cache });

  assert.deepEqual(
    (await service.list("p")).open.map((s) => s.id),
    ["s2", "s1"],
  );
  assert.equal(seen(store), log.length);

  const steps = [
    ["list", () => service.list("p")],
    ["dismiss", () => service.dismiss("p", "s1")],
    ["list", () => service.list("p")],
    ["restore", () => service.restore("p", "s1")],
    ["draft", () => service.draft("p", "s2")],
  ];
  for (const [what, run] of steps) {
    reset(store);
    await run();
    assert.deepEqual(store.counts, { read: 0, readFrom: 0 }, `warm ${what} read entries it had seen`);
  }

  reset(store);
  const { chatId } = await service.start("p", "s1");
  assert.equal(chatId, "p.s1");
  // The offering chat is warm (nothing to read); the new chat is created by this
  // call and read once, when its brief is written.
  assert.equal(store.counts.readFrom, 0);
  assert.equal(store.counts.read, 1, "the started chat's session entry, read once");
  assert.deepEqual((await store.inner.read("p")).at(-1), settled("s1", "started", "p.s1"));
});

test("a Start copies settings' numbers exactly as written (the core keeps a number's text)", () => {
  const number = -7.808815919511217e-271;
  const log = [
    {
      type: "session",
      chatId: "c",
      workspace: "/w",
      agent: "top-level",
      settings: { sandbox: { limit: number }, approval: [number, 1.5, 1e21] },
    },
    { type: "turn_started" },
    { type: "suggestion_offered", v: 1, id: "s1", title: "T", tldr: "W", brief: "B" },
  ];
  const plan = planStart(log, "c", "s1");
  assert.equal(plan.ok && plan.kind === "create", true);
  assert.equal(plan.session.settings.sandbox.limit, number);
  assert.deepEqual(plan.session.settings.approval, [number, 1.5, 1e21]);
});

// ---------------------------------------------------------------------------
// Answers in pages: view, cards and cardCount answer exactly what replayTodos
// and replaySuggestions answer, card for card.

/** Every page question of `state`, checked against the pure replays of `log`. */
function assertPagesAgree(log, rand, label) {
  const todos = replayTodos(log);
  const suggestions = replaySuggestions(log);
  const state = ChatState.fromLog(log);
  try {
    const count = todos.cards.length;
    assert.equal(state.cardCount, count, `${label}: cardCount`);
    for (const n of [0, 1, 3, 50, count, count + 5]) {
      const view = state.view({ cards: n });
      assert.deepEqual(
        view,
        {
          todos: todos.todos,
          plan: todos.plan,
          open: suggestions.open,
          settled: suggestions.settled,
          cardCount: count,
          cards: n === 0 ? [] : todos.cards.slice(-n),
          skipped: todos.skipped,
        },
        `${label}: view({ cards: ${n} })`,
      );
    }
    const ends = [undefined, 0, 1, -1, -3, 2, count, count + 3, -count - 4, 1.7, -1.2, NaN, Infinity, -Infinity];
    for (let k = 0; k < 12; k++) {
      const from = ends[Math.floor(rand() * ends.length)];
      const to = ends[Math.floor(rand() * ends.length)];
      assert.deepEqual(state.cards(from, to), todos.cards.slice(from, to), `${label}: cards(${from}, ${to})`);
    }
    assert.deepEqual(state.cards(), todos.cards, `${label}: cards()`);
  } finally {
    state.free();
  }
}

test("view, cards and cardCount agree with replayTodos on the edge cases and 300 random logs (seeded)", () => {
  for (const [name, log] of Object.entries(EDGE_CASES)) assertPagesAgree(log, prng(7), name);
  let cards = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const log = randomLog(seed);
    assertPagesAgree(log, prng(seed * 31), `seed ${seed}`);
    cards += replayTodos(log).cards.length;
  }
  assert.ok(cards > 300, `the random logs have cards (${cards})`);
});

test("view and cards refuse bad arguments with an oda-tasks TypeError, and need cards kept", () => {
  const state = ChatState.fromLog([session, turn, update(["a", "pending"])]);
  for (const bad of [undefined, null, 5, {}, { cards: -1 }, { cards: 1.5 }, { cards: "2" }, { cards: 1, more: true }]) {
    assert.throws(
      () => state.view(bad),
      (e) => e instanceof TypeError && e.message.startsWith("oda-tasks: "),
      JSON.stringify(bad),
    );
  }
  for (const bad of [["1"], [null], [0, {}]]) {
    assert.throws(
      () => state.cards(...bad),
      (e) => e instanceof TypeError && e.message.startsWith("oda-tasks: "),
      JSON.stringify(bad),
    );
  }
  state.free();
  const lean = ChatState.fromLog([session], { cards: false });
  assert.throws(() => lean.view({ cards: 1 }), /keeps no todo cards/);
  assert.throws(() => lean.cards(0, 1), /keeps no todo cards/);
  assert.equal(lean.cardCount, 0);
  lean.free();
});

test("ingestTexts reads entries as stored: exact numbers, repeated keys as JSON.parse reads them, a text that is not JSON skipped", () => {
  const texts = [
    '{"type":"session","chatId":"c","workspace":"/w","agent":"helper","agent":"top-level","settings":{"sandbox":{"n":1e400,"m":18446744073709551615},"approval":1.50}}',
    '{"type":"turn_started"}',
    '{"type":"suggestion_offered","v":1,"id":"s9","id":"s1","title":"T","tldr":"W","brief":"B"}',
    "{not json",
    '{"type":"app","deep":' + "[".repeat(10000) + "]".repeat(10000) + "}",
  ];
  const state = ChatState.empty();
  state.ingestTexts(0, texts);
  assert.equal(state.length, 5);
  const skipped = state.replayTodos().skipped;
  assert.deepEqual(
    skipped.map((s) => [s.index, s.type]),
    [[3, null]],
  );
  assert.match(skipped[0].reason, /^not JSON \(/);
  // The repeated agent reads as JSON.parse reads it (the last one): a top-level chat; the repeated id too.
  assert.equal(JSON.parse(texts[0]).agent, "top-level");
  assert.deepEqual(
    state.replaySuggestions().open.map((o) => o.id),
    ["s1"],
  );
  const plan = state.planStart("c", "s1");
  assert.equal(plan.ok && plan.kind, "create");
  const raw = Symbol.for("oda-tasks.rawText");
  assert.match(plan.session[raw], /"sandbox":\{"n":1e400,"m":18446744073709551615\},"approval":1\.50\}/);
  assert.equal(Object.keys(plan.session).includes(raw), false, "the text is not an enumerable member");
  assert.deepEqual(JSON.parse(plan.session[raw]), plan.session);
  for (const entry of [plan.settled, plan.brief]) assert.deepEqual(JSON.parse(entry[raw]), entry);
  // The chat keeps working after the deep entry.
  assert.equal(state.suggestTask({ title: "x", tldr: "y", brief: "z" }).ok, false); // one per turn
  assert.throws(() => state.ingestTexts(4, ["{}"]), /does not continue/);
  assert.throws(() => state.ingestTexts(5, [1]), TypeError);
  state.free();
});

test("a repeated type, agent or id never fails open: the core reads what JSON.parse reads", () => {
  const lines = [
    '{"type":"session","workspace":"/w","agent":"top-level","agent":"helper"}',
    '{"type":"session","workspace":"/w","agent":"helper","agent":"top-level"}',
    '{"type":"session","type":"app","workspace":"/w","agent":"helper"}',
    '{"type":"app","type":"session","workspace":"/w","agent":"helper"}',
    '{"type":"session","workspace":"/w","scheduledTaskFolder":false,"scheduledTaskFolder":true}',
  ];
  const ask = (state) => {
    const r = state.suggestTask({ title: "t", tldr: "w", brief: "b" });
    state.free();
    return r;
  };
  const answers = lines.map((line) => {
    const asStored = ask(ChatState.fromJsonl(Buffer.from(line + '\n{"type":"turn_started"}\n')));
    const asParsed = ask(ChatState.fromLog([JSON.parse(line), { type: "turn_started" }]));
    assert.deepEqual(asStored, asParsed, line);
    return asStored.ok;
  });
  assert.deepEqual(answers, [false, true, true, false, false]);
});

test('a session\'s v is read by value: 1, 1.0 and 1e0 are version 1; 1e400, 1.5, 2 and "1" fail closed, in every reader', () => {
  for (const [v, one] of [
    ["1", true],
    ["1.0", true],
    ["1e0", true],
    ["10e-1", true],
    ["1e400", false],
    ["1.5", false],
    ["2", false],
    ['"1"', false],
    ["0", false],
  ]) {
    const text = `{"type":"session","v":${v},"workspace":"/w","agent":"top-level"}`;
    for (const state of [
      ChatState.fromJsonl(Buffer.from(`${text}\n{"type":"turn_started"}\n`)),
      (() => {
        const s = ChatState.empty();
        s.ingestTexts(0, [text, '{"type":"turn_started"}']);
        return s;
      })(),
    ]) {
      const r = state.suggestTask({ title: "t", tldr: "w", brief: "b" });
      assert.equal(r.ok, one, `v ${v}: ${JSON.stringify(r)}`);
      if (!one) assert.equal(r.error, "suggest_task is only for the top-level agent; report the follow-up in your result instead");
      state.free();
    }
  }
});

test("an entry object nested too deep for JSON.stringify is skipped (a session fails closed); the chat keeps working", () => {
  const deep = (n) => {
    let v = {};
    for (let i = 0; i < n; i++) v = { v };
    return v;
  };
  const nested = deep(200_000);
  const state = ChatState.fromLog([
    { type: "session", workspace: "/w", agent: "top-level" },
    { type: "turn_started" },
    { type: "app", nested },
    { type: "todo_update", v: 1, todos: [], nested },
  ]);
  assert.equal(state.length, 4);
  assert.deepEqual(state.replayTodos().skipped, [
    { index: 3, type: "todo_update", reason: '`v` must be a whole number from 1 (got "nested too deep to serialise")' },
  ]);
  assert.equal(state.suggestTask({ title: "t", tldr: "w", brief: "b" }).ok, true);
  state.free();
  const closed = ChatState.fromLog([
    { type: "session", workspace: "/w", agent: "top-level", settings: { sandbox: nested } },
    { type: "turn_started" },
  ]);
  assert.equal(closed.suggestTask({ title: "t", tldr: "w", brief: "b" }).ok, false);
  closed.free();
});
