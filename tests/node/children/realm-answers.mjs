// Spawned by realm-guard.test.mjs: prepares the realm as argv[2] says (before
// or after the package loads), answers every value-channel call on the logs of
// argv[3] (a JSON file), and prints what it saw as one JSON line: the answers
// (as JSON text), how often the value exports ran, and the setters' calls.
import { readFileSync } from "node:fs";

const mode = process.argv[2];
const logs = JSON.parse(readFileSync(process.argv[3], "utf8"));
const setterCalls = [];
const trap = (prototype, key) =>
  Object.defineProperty(prototype, key, {
    configurable: true,
    get: () => undefined,
    set() {
      setterCalls.push(String(key));
      throw new Error(`setter ${String(key)} ran`);
    },
  });

if (mode === "setter-before-load") trap(Object.prototype, "todos");

const { ChatState } = await import("oda-tasks");
const glue = await import("../../../pkg/wasm/oda_tasks.js");
let valueCalls = 0;
for (const name of Object.getOwnPropertyNames(glue.ChatStateCore.prototype).filter((n) => n.endsWith("Value"))) {
  const original = glue.ChatStateCore.prototype[name];
  glue.ChatStateCore.prototype[name] = function (...args) {
    valueCalls++;
    return original.apply(this, args);
  };
}

if (mode === "freeze") {
  Object.freeze(Object.prototype);
  Object.freeze(Array.prototype);
}
if (mode === "setter-after-load") trap(Object.prototype, "cards");

const answers = logs.map((log) => {
  const state = ChatState.fromLog(log);
  const answer = {
    view: state.view({ cards: 3 }),
    cards: state.cards(-5),
    listState: state.listState(),
    replayTodos: state.replayTodos(),
    replaySuggestions: state.replaySuggestions(),
  };
  state.free();
  return JSON.stringify(answer);
});
console.log(JSON.stringify({ answers, valueCalls, setterCalls }));
