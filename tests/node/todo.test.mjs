// todo_write against the BUILT package, imported as a user would.
import { test } from "node:test";
import assert from "node:assert/strict";
import { replayTodos, todoWrite, todoWriteTool } from "oda-tasks";

const list = (...items) => ({ todos: items.map(([content, status]) => ({ content, status })) });
const session = { type: "session", chatId: "c1", workspace: "/w", scheduledTaskFolder: false, agent: "top-level", settings: {} };

test("every SPEC section 3 message, byte for byte", () => {
  const cases = [
    [null, list(["a", "pending"]), "Error: todo_write requires an owning agent session"],
    [[], list(["", "pending"]), "Error: invalid todo: `content` must be a non-empty string"],
    [[], list([" \t ", "pending"]), "Error: invalid todo: `content` must be a non-empty string"],
    [[], list(["Ship it", "pending"], [" Ship it ", "completed"]), 'Error: invalid todos: duplicate content "Ship it"'],
    [[], list(["a", "in_progress"], ["b", "in_progress"]), "Error: invalid todos: at most one task may be in_progress (got 2)"],
  ];
  for (const [log, input, want] of cases) {
    const r = todoWrite(log, input);
    assert.deepEqual(r, { ok: false, error: want });
  }
  const ok = todoWrite([session], list(["a", "pending"], ["b", "in_progress"], ["c", "completed"], ["d", "completed"]));
  assert.equal(ok.ok, true);
  assert.equal(ok.output, "Updated todo list: 1 pending, 1 in progress, 2 completed");
});

test("input shape errors name the item and the field", () => {
  assert.equal(
    todoWrite([], { todos: [{ content: "a", status: "pending", id: 1 }] }).error,
    "Error: invalid todo at index 0: unknown field `id` (an item is only `content` and `status`)",
  );
  assert.equal(
    todoWrite([], {
      todos: [
        { content: "a", status: "pending" },
        { content: "b", status: "blocked" },
      ],
    }).error,
    'Error: invalid todo at index 1: `status` must be "pending", "in_progress" or "completed" (got "blocked")',
  );
  assert.equal(todoWrite([], {}).error, "Error: invalid todos: `todos` must be an array (got nothing)");
  assert.equal(todoWrite([], { todos: null }).error, "Error: invalid todos: `todos` must be an array (got null)");
  assert.equal(todoWrite([], "todos").error, "Error: invalid todos: input must be an object with a `todos` array");
  assert.equal(
    todoWrite([], { todos: [], priority: 1 }).error,
    "Error: invalid todos: unknown field `priority` (the input is only `todos`)",
  );
  assert.equal(todoWrite([], { todos: [[]] }).error, "Error: invalid todo at index 0: an item must be an object (got an array)");
});

test("a bad status on item 3 is reported before an empty text on item 1", () => {
  const r = todoWrite([], list(["", "pending"], ["b", "pending"], ["c", "done"]));
  assert.match(r.error, /^Error: invalid todo at index 2: `status`/);
});

test("a refusal leaves the log and the input deep-equal to before", () => {
  const log = [session, { type: "turn_started" }, { type: "todo_update", v: 1, todos: [{ content: "x", status: "pending" }] }];
  const input = list(["a", "in_progress"], ["b", "in_progress"]);
  const logBefore = structuredClone(log);
  const inputBefore = structuredClone(input);
  const r = todoWrite(log, input);
  assert.equal(r.ok, false);
  assert.deepEqual(log, logBefore);
  assert.deepEqual(input, inputBefore);
  // Success does not touch the log either: the host appends.
  const ok = todoWrite(log, list(["a", "in_progress"]));
  assert.equal(ok.ok, true);
  assert.deepEqual(log, logBefore);
});

test("trimming and unicode: the entry holds the trimmed text as sent", () => {
  const r = todoWrite([], list(["\u3000 Écrire les tests 🧪\n", "pending"], ["日本語", "completed"]));
  assert.deepEqual(r.entry, {
    type: "todo_update",
    v: 1,
    todos: [
      { content: "Écrire les tests 🧪", status: "pending" },
      { content: "日本語", status: "completed" },
    ],
  });
  // Entries are plain JSON objects, not Maps.
  assert.equal(Object.getPrototypeOf(r.entry), Object.prototype);
  assert.equal(JSON.parse(JSON.stringify(r.entry)).todos[0].content, "Écrire les tests 🧪");
});

test("options.oneActive defaults to true and can be turned off", () => {
  const two = list(["a", "in_progress"], ["b", "in_progress"]);
  assert.equal(todoWrite([], two).ok, false);
  assert.equal(todoWrite([], two, {}).ok, false);
  assert.equal(todoWrite([], two, { oneActive: true }).ok, false);
  const off = todoWrite([], two, { oneActive: false });
  assert.equal(off.output, "Updated todo list: 0 pending, 2 in progress, 0 completed");
});

test("host misuse throws an Error; model mistakes never do", () => {
  assert.throws(
    () => todoWrite("not a log", list()),
    (e) => e instanceof Error && /the log must be an array/.test(e.message),
  );
  assert.throws(
    () => todoWrite([], list(), { oneActive: "yes" }),
    (e) => e instanceof Error && /`oneActive` must be a boolean/.test(e.message),
  );
  assert.throws(
    () => todoWrite([], list(), { oneActiv: false }),
    (e) => e instanceof Error && /unknown field `oneActiv`/.test(e.message),
  );
  for (const input of [undefined, null, 1, "x", [], { todos: [1, null, "x"] }, { todos: [{ content: { a: 1 }, status: [] }] }]) {
    assert.equal(todoWrite([], input).ok, false);
  }
});

test("replay: the latest recorded update is the list, also after reopening", () => {
  let log = [session, { type: "turn_started" }];
  for (const input of [list(["a", "in_progress"], ["b", "pending"]), list(["b", "in_progress"], ["c", "pending"])]) {
    const r = todoWrite(log, input);
    log = [...log, r.entry];
  }
  // "Reopen": what a store gives back is the JSON text parsed again.
  const reopened = JSON.parse(JSON.stringify(log));
  const replay = replayTodos(reopened);
  assert.deepEqual(replay.todos, [
    { content: "b", status: "in_progress" },
    { content: "c", status: "pending" },
  ]);
  assert.equal(replay.cards.length, 2);
  assert.deepEqual(replay.cards[1].changes, {
    added: [{ content: "c", status: "pending", position: 1 }],
    removed: [{ content: "a", status: "in_progress", position: 0 }],
    statusChanged: [{ content: "b", from: "pending", to: "in_progress" }],
    moved: [],
  });
  assert.deepEqual(replay.skipped, []);
});

test("replay: plan runs, stays finished, clears at the next turn", () => {
  const u = (status) => ({ type: "todo_update", v: 1, todos: [{ content: "a", status }] });
  const log = [session, { type: "turn_started" }, u("in_progress")];
  assert.deepEqual(replayTodos(log).plan, { state: "running", todos: [{ content: "a", status: "in_progress" }], turn: 1 });
  log.push(u("completed"), { type: "turn_ended" });
  assert.deepEqual(replayTodos(log).plan, { state: "finished", todos: [{ content: "a", status: "completed" }], turn: 1 });
  log.push({ type: "turn_started" });
  assert.deepEqual(replayTodos(log).plan, { state: "none", todos: [], turn: null });
  assert.deepEqual(replayTodos(log).todos, [{ content: "a", status: "completed" }]);
});

test("replay: foreign entries are ignored, unusable ones reported, recorded lists kept as recorded", () => {
  const log = [
    { type: "tool_call", name: "bash" },
    {
      type: "todo_update",
      todos: [
        { content: "x", status: "in_progress" },
        { content: "y", status: "in_progress" },
      ],
    },
    { type: "todo_update", todos: "broken" },
    42,
  ];
  const r = replayTodos(log);
  assert.deepEqual(r.todos, [
    { content: "x", status: "in_progress" },
    { content: "y", status: "in_progress" },
  ]);
  assert.deepEqual(
    r.skipped.map((s) => [s.index, s.type]),
    [
      [2, "todo_update"],
      [3, null],
    ],
  );
});

test("todoWriteTool is a function-calling definition matching what the core accepts", () => {
  assert.equal(todoWriteTool.name, "todo_write");
  assert.equal(typeof todoWriteTool.description, "string");
  const schema = todoWriteTool.inputSchema;
  assert.deepEqual(schema.required, ["todos"]);
  assert.equal(schema.additionalProperties, false);
  const itemSchema = schema.properties.todos.items;
  assert.deepEqual(itemSchema.properties.status.enum, ["pending", "in_progress", "completed"]);
  assert.deepEqual(itemSchema.required, ["content", "status"]);
  assert.equal(itemSchema.additionalProperties, false);
  // What the schema allows, the core accepts: one item per status.
  const sample = { todos: itemSchema.properties.status.enum.map((status, i) => ({ content: `step ${i}`, status })) };
  assert.equal(todoWrite([], sample).ok, true);
});
