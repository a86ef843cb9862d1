// The value channel and its realm guard, against the BUILT package: answers
// built as JS values (serde-wasm-bindgen) equal the JSON-text answers key for
// key and in key order, and no setter on Object.prototype or Array.prototype
// ever runs inside a call: while either prototype has an own key it did not
// have at load, each call answers through JSON text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ChatState } from "oda-tasks";
import * as glue from "../../pkg/wasm/oda_tasks.js";
import { sessionEntry } from "./support/entries.mjs";
import { randomLog } from "./support/random-log.mjs";

const child = fileURLToPath(new URL("./children/realm-answers.mjs", import.meta.url));
const session = sessionEntry();
const update = (todos) => ({ type: "todo_update", v: 1, todos });
const richLog = [
  session,
  { type: "turn_started" },
  update([
    { content: "Write tests", status: "in_progress" },
    { content: "Ship", status: "pending" },
  ]),
  { type: "suggestion_offered", v: 1, id: "s1", title: "Add retries", tldr: "Flaky uploads", brief: "In upload.ts" },
  { type: "turn_ended" },
  { type: "turn_started" },
  update([
    { content: "Ship", status: "in_progress" },
    { content: "Write tests", status: "completed" },
  ]),
  { type: "suggestion_settled", v: 1, id: "s1", outcome: "dismissed" },
  { type: "todo_update", v: 9, todos: [] },
  { type: "message", v: 1, role: "user", source: "person", text: "hi" },
  { type: "app_note", any: { nested: [1, 2] } },
];
const logs = [richLog, ...Array.from({ length: 30 }, (_, seed) => randomLog(seed + 1))];

const channels = [
  ["view", (c) => c.view(3), (c) => c.viewValue(3)],
  ["cards", (c) => c.cards(-5, Infinity), (c) => c.cardsValue(-5, Infinity)],
  ["listState", (c) => c.listState(), (c) => c.listStateValue()],
  ["replayTodos", (c) => c.replayTodos(), (c) => c.replayTodosValue()],
  ["replaySuggestions", (c) => c.replaySuggestions(), (c) => c.replaySuggestionsValue()],
];

/** The answers of a ChatState's value-channel calls, as one JSON text. */
function ask(state) {
  return JSON.stringify({
    view: state.view({ cards: 3 }),
    cards: state.cards(-5),
    listState: state.listState(),
    replayTodos: state.replayTodos(),
    replaySuggestions: state.replaySuggestions(),
  });
}

/** The same on `log`. */
function answersOf(log) {
  const state = ChatState.fromLog(log);
  try {
    return ask(state);
  } finally {
    state.free();
  }
}

// The chat the trap tests ask, built before any trap is set (the host's own
// reading of a log runs in JS, where a trap may run; only calls are guarded).
const richState = ChatState.fromLog(richLog);

/** Every key of every object in `value`. */
function keysOf(value, keys = new Set()) {
  if (Array.isArray(value)) value.forEach((v) => keysOf(v, keys));
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      keys.add(k);
      keysOf(v, keys);
    }
  }
  return keys;
}

/** Counts the calls of the glue's `…Value` exports while `run` runs. */
function countingValueCalls(run) {
  let calls = 0;
  const proto = glue.ChatStateCore.prototype;
  const names = Object.getOwnPropertyNames(proto).filter((n) => n.endsWith("Value"));
  const originals = names.map((n) => proto[n]);
  names.forEach((n, i) => {
    proto[n] = function (...args) {
      calls++;
      return originals[i].apply(this, args);
    };
  });
  try {
    run();
  } finally {
    names.forEach((n, i) => (proto[n] = originals[i]));
  }
  return calls;
}

test("each value answer equals its JSON-text answer, key for key and in key order", () => {
  for (const log of logs) {
    const core = ChatState.fromLog(log); // built only for its log; the glue core is fed below
    core.free();
    const state = new glue.ChatStateCore(true);
    state.ingestTexts(
      0,
      log.map((e) => JSON.stringify(e)),
    );
    for (const [kind, text, value] of channels) {
      assert.equal(JSON.stringify(value(state)), text(state), `${kind} on a log of ${log.length} entries`);
    }
    state.free();
  }
});

test("with the realm as it was at load, ChatState answers through values", () => {
  const calls = countingValueCalls(() => answersOf(richLog));
  assert.equal(calls, channels.length);
});

test("a throwing, recording setter on Object.prototype for any answer key never runs; the call answers through text", () => {
  const expected = logs.map(answersOf);
  const keys = new Set();
  for (const text of expected) keysOf(JSON.parse(text), keys);
  assert.ok(keys.size >= 20, `the answers have ${keys.size} keys`);
  for (const key of keys) {
    const ran = [];
    Object.defineProperty(Object.prototype, key, {
      configurable: true,
      get: () => undefined,
      set() {
        ran.push(key);
        throw new Error(`setter ${key} ran`);
      },
    });
    try {
      let got;
      const calls = countingValueCalls(() => (got = ask(richState)));
      assert.deepEqual(ran, [], `the setter of ${key} ran`);
      assert.equal(calls, 0, `a value was built while Object.prototype.${key} had a setter`);
      // JSON.parse defines members, so the setter cannot hide an answer member: compare own data.
      assert.equal(got, expected[0]);
    } finally {
      delete Object.prototype[key];
    }
  }
  assert.equal(
    countingValueCalls(() => answersOf(richLog)),
    channels.length,
    "the value channel is back once the key is gone",
  );
});

test("a setter on Array.prototype for an index turns the value channel off", () => {
  const expected = answersOf(richLog);
  for (const key of ["0", "1", "7", "4294967294"]) {
    let ran = 0; // a counter: pushing to an array would run the setter itself
    Object.defineProperty(Array.prototype, key, {
      configurable: true,
      get: () => undefined,
      set() {
        ran++;
        throw new Error(`setter ${key} ran`);
      },
    });
    try {
      let got;
      const calls = countingValueCalls(() => (got = ask(richState)));
      assert.equal(ran, 0, `the setter of Array.prototype[${key}] ran`);
      assert.equal(calls, 0);
      assert.equal(got, expected);
    } finally {
      delete Array.prototype[key];
      Array.prototype.length = 0; // the index had set it
    }
  }
});

test("a setter on Array.prototype for a name never runs: no array of an answer is assigned a name", () => {
  let ran = 0;
  Object.defineProperty(Array.prototype, "todos", {
    configurable: true,
    get: () => undefined,
    set() {
      ran++;
    },
  });
  try {
    let got;
    const calls = countingValueCalls(() => (got = ask(richState)));
    assert.equal(calls, channels.length, "names on Array.prototype leave the value channel on");
    assert.equal(ran, 0);
    assert.equal(got, answersOf(richLog));
  } finally {
    delete Array.prototype.todos;
  }
});

test("a replaced global Object or Array turns the value channel off", () => {
  const expected = answersOf(richLog);
  for (const name of ["Object", "Array"]) {
    const original = globalThis[name];
    let constructed = 0;
    globalThis[name] = new Proxy(original, { construct: (target, args) => (constructed++, Reflect.construct(target, args)) });
    try {
      let got;
      const calls = countingValueCalls(() => (got = ask(richState)));
      assert.equal(calls, 0, `a value was built while ${name} was replaced`);
      assert.equal(constructed, 0, `the replaced ${name} was called`);
      assert.equal(got, expected);
    } finally {
      globalThis[name] = original;
    }
  }
});

/** Runs the child in `mode` (with `flags` for node) on `logs`. */
function inChild(mode, flags = []) {
  const dir = mkdtempSync(join(tmpdir(), "oda-realm-"));
  try {
    const file = join(dir, "logs.json");
    writeFileSync(file, JSON.stringify(logs));
    const out = execFileSync(process.execPath, [...flags, child, mode, file], { encoding: "utf8" });
    return JSON.parse(out.trim().split("\n").pop());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("Object.freeze(Object.prototype) and Array.prototype: the same answers, through values", () => {
  const r = inChild("freeze");
  assert.deepEqual(r.answers, logs.map(answersOf));
  assert.equal(r.valueCalls, logs.length * channels.length);
});

test("node --frozen-intrinsics: the same answers, through values", () => {
  const r = inChild("plain", ["--frozen-intrinsics", "--no-warnings"]);
  assert.deepEqual(r.answers, logs.map(answersOf));
  assert.equal(r.valueCalls, logs.length * channels.length);
});

test("a setter already on Object.prototype when the package loads: every call answers through text, the setter never runs", () => {
  const r = inChild("setter-before-load");
  assert.deepEqual(r.setterCalls, []);
  assert.equal(r.valueCalls, 0);
  assert.deepEqual(r.answers, logs.map(answersOf));
});

test("a setter added after load in another process: text answers, the setter never runs", () => {
  const r = inChild("setter-after-load");
  assert.deepEqual(r.setterCalls, []);
  assert.equal(r.valueCalls, 0);
  assert.deepEqual(r.answers, logs.map(answersOf));
});
