// previewCard: the tentative card of a todo_write input still streaming, pure
// JS from the browser entry. On every complete list it draws the core's card
// (its changes, counts and list) exactly; on partial and malformed input it
// draws what it can read and never throws.
import { test } from "node:test";
import assert from "node:assert/strict";
import { replayTodos, todoWrite } from "oda-tasks";
import { previewCard as fromAi } from "oda-tasks/ai";
import { previewCard } from "oda-tasks/elements";

const session = { type: "session", v: 1, workspace: "/w" };
/** The core's card for `next` written after `prev` (null: first update). */
function coreCard(prev, next) {
  const log = [session];
  for (const input of prev === null ? [next] : [prev, next]) {
    const r = todoWrite(log, input, { oneActive: false });
    assert.ok(r.ok, r.error);
    log.push(r.entry);
  }
  return replayTodos(log).cards.at(-1);
}
/** A small seeded generator: the same lists on every run. */
function rng(seed) {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}
const STATUSES = ["pending", "in_progress", "completed"];
function list(next, words) {
  const pool = [...words];
  const todos = [];
  const length = next(pool.length + 1);
  for (let i = 0; i < length; i++) {
    const [content] = pool.splice(next(pool.length), 1);
    todos.push({ content, status: STATUSES[next(3)] });
  }
  return { todos };
}

test("previewCard draws the core's card for every complete list: changes (added, removed, state changed, moved), counts and list", () => {
  const next = rng(30);
  const words = ["Write tests", "Ship", "Fix CI", "Docs", "Bench", "Review", "Release notes", "Tag"];
  for (let round = 0; round < 400; round++) {
    const prev = round % 10 === 0 ? null : list(next, words);
    const now = list(next, words);
    const core = coreCard(prev, now);
    const lastCard = prev === null ? undefined : coreCard(null, prev);
    const preview = previewCard(now, lastCard);
    assert.deepEqual(
      { ...preview, index: core.index, turn: core.turn, preview: undefined },
      { ...core, preview: undefined },
      `round ${round}: ${JSON.stringify({ prev, now })}`,
    );
    assert.equal(preview.preview, true);
    assert.equal(preview.index, null);
  }
  assert.equal(fromAi, previewCard, "oda-tasks/ai and oda-tasks/elements export the same function");
});

test("previewCard on a partial input: every item with text so far, trimmed; an unfinished status keeps the last card's, else reads pending", () => {
  const last = coreCard(null, { todos: [{ content: "Write tests", status: "in_progress" }] });
  const card = previewCard(
    { todos: [{ content: "Write tests", status: "completed" }, { content: "  Shi", status: "in_pro" }, { conte: 1 }, {}] },
    last,
  );
  assert.deepEqual(card, {
    preview: true,
    index: null,
    turn: null,
    todos: [
      { content: "Write tests", status: "completed" },
      { content: "Shi", status: "pending" },
    ],
    counts: { pending: 1, inProgress: 0, completed: 1 },
    changes: {
      added: [{ content: "Shi", status: "pending", position: 1 }],
      removed: [],
      statusChanged: [{ content: "Write tests", from: "in_progress", to: "completed" }],
      moved: [],
    },
  });
  // A status not written yet keeps the item's status in the last card.
  assert.deepEqual(previewCard({ todos: [{ content: "Write tests", status: "comp" }] }, last).todos, [
    { content: "Write tests", status: "in_progress" },
  ]);
  const empty = {
    preview: true,
    index: null,
    turn: null,
    todos: [],
    counts: { pending: 0, inProgress: 0, completed: 0 },
    changes: { added: [], removed: [], statusChanged: [], moved: [] },
  };
  assert.deepEqual(previewCard({}), empty);
  assert.deepEqual(previewCard({ todos: [] }, null), empty);
});

test("previewCard never throws: malformed input, a malformed lastCard, throwing getters, proxies, sparse arrays", () => {
  const throwing = new Proxy(
    {},
    {
      get: () => {
        throw new Error("boom");
      },
      has: () => {
        throw new Error("boom");
      },
      getOwnPropertyDescriptor: () => {
        throw new Error("boom");
      },
    },
  );
  const getter = {
    get todos() {
      throw new Error("boom");
    },
  };
  const items = [{ content: "a", status: "pending" }];
  Object.defineProperty(items, 1, {
    get: () => {
      throw new Error("boom");
    },
    enumerable: true,
  });
  const inputs = [
    undefined,
    null,
    0,
    "todos",
    [],
    { todos: "abc" },
    { todos: [null, 1, "x", [], { content: 5 }] },
    throwing,
    getter,
    { todos: throwing },
    { todos: items },
    { todos: new Array(3) },
    Object.create({ todos: [{ content: "inherited" }] }),
  ];
  const lasts = [undefined, null, 5, "x", { todos: 5 }, { todos: [{ content: "a", status: "bogus" }, null] }, throwing, getter];
  for (const input of inputs) {
    for (const last of lasts) {
      const card = previewCard(input, last);
      assert.equal(card.preview, true);
      assert.ok(Array.isArray(card.todos));
    }
  }
  assert.deepEqual(previewCard({ todos: items }).todos, [{ content: "a", status: "pending" }]);
  assert.deepEqual(previewCard(Object.create({ todos: [{ content: "inherited" }] })).todos, [], "own properties only");
  // A recorded list's item with a bad status is left out of the comparison, not guessed.
  assert.deepEqual(previewCard({ todos: [{ content: "a" }] }, { todos: [{ content: "a", status: "bogus" }] }).changes.added, [
    { content: "a", status: "pending", position: 0 },
  ]);
});
