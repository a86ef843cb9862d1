// A host's misuse of a ChatState handle, against the BUILT package: each is
// an `oda-tasks:` TypeError that says what was misused (never an engine or
// wasm-bindgen error), nothing is folded, and the handle stays usable where
// it was not freed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ChatState } from "oda-tasks";

const session = { type: "session", v: 1, chatId: "c", workspace: "/w", scheduledTaskFolder: false, agent: "top-level" };
const line = (entry) => Buffer.from(JSON.stringify(entry) + "\n");
const offer = { title: "Add retries", tldr: "Uploads fail", brief: "Retry the PUT." };
const list = { todos: [{ content: "Write tests", status: "in_progress" }] };

/** The state still answers: its length, and a suggestion decided on its log. */
function usable(state, length) {
  assert.equal(state.length, length);
  assert.equal(typeof state.suggestTask(offer).ok, "boolean");
  assert.deepEqual(state.replayTodos().skipped, []);
}

const HALF_FED =
  /^oda-tasks: ingest\(\) while a JSONL line is half fed \(the bytes given to ingestJsonl\(\) end inside a line\); feed the rest of that line, or call endJsonl\(\), before ingesting entries$/;

test("ingest() and ingestTexts() while a JSONL line is half fed throw a TypeError; the cut line still lands where its bytes began", () => {
  const state = ChatState.empty();
  try {
    state.ingestJsonl(line(session));
    const started = line({ type: "turn_started" });
    state.ingestJsonl(started.subarray(0, 7));
    assert.throws(
      () => state.ingest(1, [{ type: "turn_ended" }]),
      (e) => e instanceof TypeError && HALF_FED.test(e.message),
    );
    assert.throws(
      () => state.ingestTexts(1, ['{"type":"turn_ended"}']),
      (e) => e instanceof TypeError && HALF_FED.test(e.message),
    );
    assert.equal(state.length, 1, "nothing folded");
    state.ingestJsonl(started.subarray(7));
    state.ingest(2, [{ type: "message", role: "user", text: "hi" }]);
    assert.equal(state.length, 3);
    assert.equal(state.listState().turnOpen, true, "the turn_started the bytes began is entry 2, before the ingested one");
    assert.equal(state.suggestTask(offer).ok, true);
  } finally {
    state.free();
  }
});

test("a torn last line ended with endJsonl() no longer blocks ingest()", () => {
  const state = ChatState.empty();
  try {
    state.ingestJsonl(Buffer.concat([line(session), Buffer.from('{"type":"tu')]));
    assert.throws(
      () => state.ingest(1, [{ type: "turn_started" }]),
      (e) => HALF_FED.test(e.message),
    );
    assert.deepEqual(state.endJsonl(), { unreadable: [], tornBytes: 11 });
    state.ingest(1, [{ type: "turn_started" }]);
    usable(state, 2);
  } finally {
    state.free();
  }
});

test("a getter on the input that frees the state mid-call is the freed-state TypeError, not a null pointer; a getter that does not free changes nothing", () => {
  const calls = [
    [
      "todoWrite",
      (s, input) => s.todoWrite(input),
      (s) => ({
        get todos() {
          s.free();
          return [];
        },
      }),
    ],
    [
      "suggestTask",
      (s, input) => s.suggestTask(input),
      (s) => ({
        ...offer,
        get title() {
          s.free();
          return "t";
        },
      }),
    ],
    [
      "ingest",
      (s, entry) => s.ingest(s.length, [entry]),
      (s) => ({
        get type() {
          s.free();
          return "turn_ended";
        },
      }),
    ],
    [
      "todoWrite options",
      (s, options) => s.todoWrite(list, options),
      (s) => ({
        get oneActive() {
          s.free();
          return true;
        },
      }),
    ],
    [
      "view",
      (s, options) => s.view(options),
      (s) => ({
        get cards() {
          s.free();
          return 1;
        },
      }),
    ],
    [
      "planStart request",
      (s, request) => s.planStart("c", "s1", request),
      (s) => ({
        get model() {
          s.free();
          return "m";
        },
      }),
    ],
    [
      "settleSuggestion id",
      (s, id) => s.settleSuggestion(id, "dismiss"),
      (s) => ({
        toJSON() {
          s.free();
          return "s1";
        },
      }),
    ],
  ];
  for (const [what, call, hostile] of calls) {
    const state = ChatState.fromLog([session, { type: "turn_started" }]);
    assert.throws(
      () => call(state, hostile(state)),
      (e) => e instanceof TypeError && e.message === "oda-tasks: this ChatState was freed; build a new one",
      what,
    );
    assert.throws(() => state.length, /^TypeError: oda-tasks: this ChatState was freed/, `${what}: stays freed`);
  }
  const state = ChatState.fromLog([session, { type: "turn_started" }]);
  try {
    let reads = 0;
    assert.equal(
      state.todoWrite({
        get todos() {
          reads++;
          return list.todos;
        },
      }).ok,
      true,
    );
    assert.equal(reads, 1);
    usable(state, 2);
  } finally {
    state.free();
  }
});

test("methods called with an unbound or foreign `this` throw a TypeError naming the method and the receiver", () => {
  const state = ChatState.fromLog([session, { type: "turn_started" }]);
  try {
    const proto = ChatState.prototype;
    const getter = (name) => Object.getOwnPropertyDescriptor(proto, name).get;
    const cases = [
      ["todoWrite", undefined, () => proto.todoWrite.call(undefined, list)],
      ["suggestTask", "null", () => proto.suggestTask.call(null, offer)],
      ["ingest", "an object", () => proto.ingest.call({}, 0, [])],
      ["ingestJsonl", "a number", () => proto.ingestJsonl.call(5, new Uint8Array(1))],
      ["replayTodos", "a Map", () => proto.replayTodos.call(new Map())],
      ["view", "an object that only inherits from ChatState.prototype", () => proto.view.call(Object.create(proto), { cards: 1 })],
      ["free", undefined, () => proto.free.call(undefined)],
      ["length", "an object", () => getter("length").call({})],
      ["cardCount", undefined, () => getter("cardCount").call(undefined)],
    ];
    for (const [method, receiver, run] of cases) {
      assert.throws(
        run,
        (e) =>
          e instanceof TypeError &&
          e.message ===
            `oda-tasks: ChatState#${method} was called on ${receiver ?? "undefined"}, not on a ChatState; call it as state.${method}(…), or pass it on bound (state.${method}.bind(state))`,
        method,
      );
    }
    const { listState, replaySuggestions } = state;
    assert.throws(() => listState(), /^TypeError: oda-tasks: ChatState#listState was called on undefined/);
    assert.deepEqual(replaySuggestions.call(state), { open: [], settled: [], skipped: [] });
    usable(state, 2);
  } finally {
    state.free();
  }
});

test("a chunk over a detached ArrayBuffer is a TypeError saying so, and the state reads on", () => {
  const state = ChatState.empty();
  try {
    state.ingestJsonl(line(session));
    const chunk = line({ type: "turn_started" });
    const copy = new Uint8Array(chunk);
    structuredClone(copy.buffer, { transfer: [copy.buffer] });
    assert.equal(copy.byteLength, 0);
    assert.throws(
      () => state.ingestJsonl(copy),
      (e) =>
        e instanceof TypeError &&
        e.message ===
          "oda-tasks: ingestJsonl was given a chunk whose ArrayBuffer is detached (transferred away); pass the bytes before transferring them, or a copy",
    );
    assert.throws(() => ChatState.fromJsonl([copy]), /^TypeError: oda-tasks: ingestJsonl was given a chunk whose ArrayBuffer is detached/);
    state.ingestJsonl(new Uint8Array(0));
    state.ingestJsonl(chunk);
    state.endJsonl();
    usable(state, 2);
  } finally {
    state.free();
  }
});
