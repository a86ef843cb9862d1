// The bad-input catalogue, against the BUILT package: every
// export gets hostile or malformed input. Each case must end in a clear
// refusal, an `oda-tasks:` Error (or a StoreError/SuggestionError with its
// code), or an entry skipped on replay with its reason; none may trap, hang,
// or change the log, and a normal call must still give the right answer
// afterwards. At the end the catalogue runs again and WASM memory and the
// externref table must not have grown.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ChatState,
  ChatStateCache,
  MemoryStore,
  SuggestionError,
  SuggestionService,
  StoreError,
  checkGoal,
  clampPermission,
  planStart,
  replaySuggestions,
  replayTodos,
  runTool,
  settleSuggestion,
  startedChat,
  suggestTask,
  todoWrite,
} from "oda-tasks";
// The glue the package itself loaded (the same module instance): it holds the WASM exports.
import * as glue from "../../pkg/wasm/oda_tasks.js";
import { sessionEntry } from "./support/entries.mjs";
import { inTempDir } from "./support/temp-dir.mjs";

const wasm = glue.initSync(); // already initialised by the package: returns its instance's exports
const footprint = () => ({ memory: wasm.memory.buffer.byteLength, table: wasm.__wbindgen_externrefs.length });

// ---------------------------------------------------------------------------
// Logs and inputs.

const session = sessionEntry();
const turn = { type: "turn_started" };
const offerEntry = (id = "s1") => ({ type: "suggestion_offered", v: 1, id, title: "t", tldr: "w", brief: "b" });
const openChat = () => [structuredClone(session), { type: "turn_started" }];
const offered = () => [...openChat(), offerEntry()];
const goodList = {
  todos: [
    { content: "Write tests", status: "in_progress" },
    { content: "Ship", status: "pending" },
  ],
};
const goodOffer = { title: "Add retries", tldr: "Uploads fail on flaky networks", brief: "In upload.ts, retry the PUT." };
const MiB = 1 << 20;
const TEN_MB = 10 * MiB;

const deepArray = (n) => {
  let v = "x";
  for (let i = 0; i < n; i++) v = [v];
  return v;
};
const deepText = (n) => "[".repeat(n) + '"x"' + "]".repeat(n);
const cyclic = () => {
  const o = { type: "app" };
  o.self = o;
  return o;
};
const throwingGetter = (base = {}) =>
  Object.defineProperty({ ...base }, "boom", {
    enumerable: true,
    get() {
      throw new Error("getter says no");
    },
  });
const revoked = () => {
  const r = Proxy.revocable({}, {});
  r.revoke();
  return r.proxy;
};
const trap = (name) =>
  new Proxy(
    { title: "t" },
    {
      [name]() {
        throw new Error(`${name} trap says no`);
      },
    },
  );
const typedProto = (o) => Object.setPrototypeOf(o, Uint8Array.prototype);
const arrayWithThrowingIndex = () => {
  const a = [{ content: "a", status: "pending" }];
  Object.defineProperty(a, 0, {
    get() {
      throw new Error("index getter says no");
    },
  });
  return a;
};
const jsonl = (...lines) => Buffer.from(lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n");

const TODO_UNREADABLE = "Error: invalid todos: the input cannot be read as JSON data: ";
const SUGGEST_UNREADABLE = "suggest_task: the input cannot be read as JSON data: ";
const STACK = "reading it threw RangeError: Maximum call stack size exceeded";

// ---------------------------------------------------------------------------
// What a normal call answers, computed before any bad input.

const KNOWN = [
  session,
  { type: "turn_started" },
  {
    type: "todo_update",
    v: 1,
    todos: [
      { content: "a", status: "completed" },
      { content: "b", status: "in_progress" },
    ],
  },
  offerEntry("s1"),
  { type: "turn_ended" },
  { type: "turn_started" },
];
const healthy = () => ({
  todo: todoWrite(KNOWN, goodList),
  suggest: suggestTask(KNOWN, goodOffer),
  todos: replayTodos(KNOWN),
  suggestions: replaySuggestions(KNOWN),
  settle: settleSuggestion(KNOWN, "s1", "dismiss"),
  state: (() => {
    const s = ChatState.fromJsonl(jsonl(...KNOWN));
    try {
      return { length: s.length, todos: s.replayTodos(), suggest: s.suggestTask(goodOffer) };
    } finally {
      s.free();
    }
  })(),
});
const EXPECTED = healthy();

/** A ChatState of the JSONL `text`: its length and its endJsonl() report. */
function endOfJsonl(text) {
  const s = ChatState.fromJsonl(Buffer.from(text));
  try {
    return [s.length, s.endJsonl()];
  } finally {
    s.free();
  }
}

test("the normal answers the catalogue checks against are right", () => {
  assert.equal(EXPECTED.todo.output, "Updated todo list: 1 pending, 1 in progress, 0 completed");
  assert.equal(EXPECTED.suggest.entry.id, "s2");
  assert.deepEqual(EXPECTED.todos.todos, KNOWN[2].todos);
  assert.equal(EXPECTED.todos.plan.state, "none");
  assert.deepEqual(
    EXPECTED.suggestions.open.map((s) => s.id),
    ["s1"],
  );
  assert.deepEqual(EXPECTED.settle, { ok: true, entry: { type: "suggestion_settled", v: 1, id: "s1", outcome: "dismissed" } });
  assert.deepEqual(EXPECTED.state, { length: KNOWN.length, todos: EXPECTED.todos, suggest: EXPECTED.suggest });
});

// ---------------------------------------------------------------------------
// The catalogue. Each case: `run` (may be async), what it must give, and the
// logs it touches (checked unchanged afterwards).
//   refused: { ok: false, error } with this exact text (or matching a RegExp)
//   throws:  an Error starting "oda-tasks:" with this exact message (or RegExp); `code` for store/service errors
//   skipped: the replay's `skipped` holds exactly these
//   gives:   this exact value (input that looks odd but is data)

const cases = [];
const refused = (name, run, error, logs = []) => cases.push({ name, run, want: { refused: error }, logs });
const throws = (name, run, message, logs = [], code) => cases.push({ name, run, want: { throws: message, code }, logs });
const skipped = (name, run, list, logs = []) => cases.push({ name, run, want: { skipped: list }, logs });
const gives = (name, run, value, logs = []) => cases.push({ name, run, want: { gives: value }, logs });

// Deep nesting (10,000) and cycles, from the model and in logs, requests and permission lists.
{
  const log = openChat();
  refused(
    "todo_write content nested 10,000 deep",
    () => todoWrite(log, { todos: [{ content: deepArray(10_000), status: "pending" }] }),
    TODO_UNREADABLE + STACK,
    [log],
  );
  refused(
    "todo_write input parsed from 10,000-deep JSON text",
    () => todoWrite(log, JSON.parse(`{"todos":${deepText(10_000)}}`)),
    TODO_UNREADABLE + STACK,
    [log],
  );
  refused(
    "todo_write content nested 200 deep (past the 128 limit)",
    () => todoWrite(log, { todos: [{ content: deepArray(200), status: "pending" }] }),
    TODO_UNREADABLE + "it is nested deeper than 128 levels",
    [log],
  );
  refused(
    "suggest_task title nested 10,000 deep",
    () => suggestTask(log, { ...goodOffer, title: deepArray(10_000) }),
    SUGGEST_UNREADABLE + STACK,
    [log],
  );
  refused(
    "suggest_task brief nested 300 deep",
    () => suggestTask(log, { ...goodOffer, brief: deepArray(300) }),
    SUGGEST_UNREADABLE + "it is nested deeper than 128 levels",
    [log],
  );
  const deepForeign = [...openChat(), JSON.parse(`{"type":"app","x":${deepText(10_000)}}`)];
  // An app's entry too deep for JSON.stringify is still the app's own: ignored, the chat keeps working.
  gives("a parsed log holding a 10,000-deep foreign entry: ignored", () => replayTodos(deepForeign).skipped, [], [deepForeign]);
  gives("suggest_task on a log holding a 10,000-deep foreign entry is accepted", () => suggestTask(deepForeign, goodOffer).ok, true, [
    deepForeign,
  ]);
  const deep200 = [...openChat(), { type: "app", x: deepArray(200) }];
  gives("a foreign entry 200 deep is the app's own: ignored", () => replayTodos(deep200).skipped, [], [deep200]);
  skipped("JSONL: a 10,000-deep foreign line is ignored, a deep todo_update skipped", () => {
    const s = ChatState.fromJsonl(
      jsonl(`{"type":"app","x":${deepText(10_000)}}`, `{"type":"todo_update","v":1,"todos":${deepText(10_000)}}`),
    );
    try {
      assert.equal(s.length, 2);
      return s.replayTodos();
    } finally {
      s.free();
    }
  }, [{ index: 1, type: "todo_update", reason: "`todos` must be an array of { content, status } (got an array)" }]);
  gives("JSONL: a session with 10,000-deep settings fails closed", () => {
    const s = ChatState.fromJsonl(jsonl(`{"type":"session","workspace":"/w","settings":{"sandbox":${deepText(10_000)}}}`, turn));
    try {
      return [s.replayTodos().skipped, s.suggestTask(goodOffer)];
    } finally {
      s.free();
    }
  }, [
    [{ index: 0, type: "session", reason: "`settings` cannot be read; the session fails closed" }],
    { ok: false, error: "suggest_task is only for the top-level agent; report the follow-up in your result instead" },
  ]);
  gives("JSONL: an offer with a 10,000-deep brief is skipped and still counts for the turn", () => {
    const s = ChatState.fromJsonl(
      jsonl(session, turn, `{"type":"suggestion_offered","v":1,"id":"s1","title":"t","tldr":"w","brief":${deepText(10_000)}}`),
    );
    try {
      return [s.replaySuggestions(), s.suggestTask(goodOffer)];
    } finally {
      s.free();
    }
  }, [
    { open: [], settled: [], skipped: [{ index: 2, type: "suggestion_offered", reason: "`brief` must be a string (got an array)" }] },
    { ok: false, error: "suggest_task: one suggestion per turn; this turn already offered one" },
  ]);
  throws(
    "planStart request nested 10,000 deep",
    () => planStart(offered(), "c", "s1", { model: deepArray(10_000) }),
    `oda-tasks: invalid arguments of planStart: ${STACK}`.replace("reading it", "reading them"),
  );
  throws(
    "clampPermission with a 10,000-deep permission list",
    () => clampPermission("ask", "auto", [deepArray(10_000)]),
    `oda-tasks: invalid arguments of clampPermission: ${STACK}`.replace("reading it", "reading them"),
  );
  const cyc = { todos: [{ content: "a", status: "pending" }] };
  cyc.todos[0].self = cyc;
  refused(
    "todo_write cyclic input",
    () => todoWrite(log, cyc),
    /^Error: invalid todos: the input cannot be read as JSON data: reading it threw TypeError: Converting circular structure to JSON/,
    [log],
  );
  const cycO = { ...goodOffer };
  cycO.again = cycO;
  refused(
    "suggest_task cyclic input",
    () => suggestTask(log, cycO),
    /^suggest_task: the input cannot be read as JSON data: reading it threw TypeError: Converting circular structure to JSON/,
    [log],
  );
  const cycLog = [...openChat(), cyclic()];
  throws(
    "a log holding a cyclic entry",
    () => replaySuggestions(cycLog),
    /^oda-tasks: log entry 2 cannot be read as JSON data: reading it threw TypeError: Converting circular structure to JSON/,
    [cycLog],
  );
  const cycReq = { model: "m" };
  cycReq.me = cycReq;
  throws(
    "planStart cyclic request",
    () => planStart(offered(), "c", "s1", cycReq),
    /^oda-tasks: invalid arguments of planStart: reading them threw TypeError: Converting circular structure to JSON/,
  );
}

// Values whose reads throw: getters, Proxy traps, revoked Proxies, an array index getter.
{
  const log = openChat();
  refused(
    "todo_write input with a throwing getter",
    () =>
      todoWrite(log, {
        get todos() {
          throw new Error("getter says no");
        },
      }),
    TODO_UNREADABLE + "reading it threw Error: getter says no",
    [log],
  );
  refused(
    "todo_write item with a throwing getter",
    () => todoWrite(log, { todos: [throwingGetter({ content: "a", status: "pending" })] }),
    TODO_UNREADABLE + "reading it threw Error: getter says no",
    [log],
  );
  refused(
    "todo_write array index getter",
    () => todoWrite(log, { todos: arrayWithThrowingIndex() }),
    TODO_UNREADABLE + "reading it threw Error: index getter says no",
    [log],
  );
  refused(
    "suggest_task Proxy with a throwing get trap",
    () => suggestTask(log, trap("get")),
    SUGGEST_UNREADABLE + "reading it threw Error: get trap says no",
    [log],
  );
  refused(
    "suggest_task Proxy with a throwing ownKeys trap",
    () => suggestTask(log, trap("ownKeys")),
    SUGGEST_UNREADABLE + "reading it threw Error: ownKeys trap says no",
    [log],
  );
  refused(
    "suggest_task Proxy with a throwing getPrototypeOf trap",
    () => suggestTask(log, trap("getPrototypeOf")),
    SUGGEST_UNREADABLE + "reading it threw Error: getPrototypeOf trap says no",
    [log],
  );
  refused(
    "todo_write revoked Proxy input",
    () => todoWrite(log, revoked()),
    TODO_UNREADABLE + "reading it threw TypeError: Cannot perform 'get' on a proxy that has been revoked",
    [log],
  );
  refused(
    "suggest_task revoked Proxy input",
    () => suggestTask(log, revoked()),
    SUGGEST_UNREADABLE + "reading it threw TypeError: Cannot perform 'get' on a proxy that has been revoked",
    [log],
  );
  const getterLog = [...openChat(), throwingGetter({ type: "app" })];
  throws(
    "a log entry with a throwing getter",
    () => replayTodos(getterLog),
    "oda-tasks: log entry 2 cannot be read as JSON data: reading it threw Error: getter says no",
    [getterLog],
  );
  const revokedLog = [...openChat(), revoked()];
  throws(
    "a revoked Proxy as a log entry",
    () => suggestTask(revokedLog, goodOffer),
    "oda-tasks: log entry 2 cannot be read as JSON data: reading it threw TypeError: Cannot perform 'getPrototypeOf' on a proxy that has been revoked",
    [revokedLog],
  );
  const proxyLog = new Proxy([session], {
    get(_t, k) {
      if (k === "length") return 1;
      throw new Error("log trap says no");
    },
  });
  throws(
    "a log Proxy whose get trap throws",
    () => replayTodos(proxyLog),
    "oda-tasks: log entry 0 cannot be read as JSON data: reading it threw Error: log trap says no",
  );
  throws(
    "planStart request with a throwing getter",
    () =>
      planStart(offered(), "c", "s1", {
        get model() {
          throw new Error("getter says no");
        },
      }),
    "oda-tasks: invalid arguments of planStart: reading them threw Error: getter says no",
  );
  throws(
    "clampPermission permissions Proxy with a throwing trap",
    () =>
      clampPermission(
        "ask",
        "auto",
        new Proxy(["ask"], {
          get() {
            throw new Error("trap says no");
          },
        }),
      ),
    /^oda-tasks: invalid arguments of clampPermission: reading them threw Error: trap says no$/,
  );
  throws(
    "settleSuggestion id with a throwing toJSON",
    () =>
      settleSuggestion(
        offered(),
        {
          toJSON() {
            throw new Error("toJSON says no");
          },
        },
        "dismiss",
      ),
    "oda-tasks: invalid arguments of settleSuggestion: reading them threw Error: toJSON says no",
  );
  const s = ChatState.fromLog(openChat());
  throws(
    "ChatState.ingest of an entry whose getter throws leaves the state as it was",
    () => {
      try {
        s.ingest(2, [{ type: "turn_ended" }, throwingGetter({ type: "app" })]);
      } finally {
        assert.equal(s.length, 2);
      }
    },
    "oda-tasks: log entry 3 cannot be read as JSON data: reading it threw Error: getter says no",
  );
}

// A typed array's prototype.
{
  const log = openChat();
  refused(
    "todo_write item with Uint8Array.prototype",
    () => todoWrite(log, { todos: [typedProto({ content: "a", status: "pending" })] }),
    TODO_UNREADABLE + "it holds a class instance where JSON data belongs",
    [log],
  );
  refused(
    "suggest_task input with Uint8Array.prototype",
    () => suggestTask(log, typedProto({ ...goodOffer })),
    SUGGEST_UNREADABLE + "it holds a class instance where JSON data belongs",
    [log],
  );
  const typedLog = [...openChat(), typedProto({ type: "todo_update", v: 1, todos: [] })];
  throws(
    "a log entry with Uint8Array.prototype",
    () => replayTodos(typedLog),
    "oda-tasks: log entry 2 cannot be read as JSON data: it holds a class instance where JSON data belongs",
    [typedLog],
  );
  const typedArrayLog = Object.setPrototypeOf(openChat(), Uint8Array.prototype);
  gives("a log array whose prototype is Uint8Array.prototype is read by index", () => replaySuggestions(typedArrayLog), {
    open: [],
    settled: [],
    skipped: [],
  });
  refused(
    "todo_write input that is a real Uint8Array",
    () => todoWrite(log, { todos: new Uint8Array(3) }),
    TODO_UNREADABLE + "it holds a Uint8Array where JSON data belongs",
    [log],
  );
  // JSON.stringify turns a Date into its toJSON() string before the check sees it.
  refused(
    "a Date where an item belongs",
    () => todoWrite(log, { todos: [new Date(0)] }),
    "Error: invalid todo at index 0: an item must be an object (got a string)",
    [log],
  );
}

// Sizes past the limit are refused before they are copied; refusals quote at most 200 characters.
{
  const log = openChat();
  const big = "x".repeat(TEN_MB);
  refused(
    "todo_write 10 MB content",
    () => todoWrite(log, { todos: [{ content: big, status: "pending" }] }),
    TODO_UNREADABLE + "it is larger than 1048576 characters as JSON",
    [log],
  );
  refused(
    "suggest_task 10 MB brief",
    () => suggestTask(log, { ...goodOffer, brief: big }),
    SUGGEST_UNREADABLE + "it is larger than 1048576 characters as JSON",
    [log],
  );
  refused(
    "todo_write of 100,000 small items (over 1 MiB as JSON)",
    () => todoWrite(log, { todos: Array.from({ length: 100_000 }, (_, i) => ({ content: `item ${i}`, status: "pending" })) }),
    TODO_UNREADABLE + "it is larger than 1048576 characters as JSON",
    [log],
  );
  refused(
    "maxInputLength lowers the limit",
    () => todoWrite(log, goodList, { maxInputLength: 16 }),
    TODO_UNREADABLE + "it is larger than 16 characters as JSON",
    [log],
  );
  const raised = { maxInputLength: 64 * MiB };
  refused(
    "a duplicated 10 MB content is quoted cut to 200 characters",
    () =>
      todoWrite(
        log,
        {
          todos: [
            { content: big, status: "pending" },
            { content: big, status: "completed" },
          ],
        },
        raised,
      ),
    `Error: invalid todos: duplicate content "${"x".repeat(200)}…"`,
    [log],
  );
  refused(
    "a 10 MB unknown field name is quoted cut",
    () => todoWrite(log, { todos: [], ["k".repeat(TEN_MB)]: 1 }, raised),
    `Error: invalid todos: unknown field \`${"k".repeat(200)}…\` (the input is only \`todos\`)`,
    [log],
  );
  refused(
    "a 10 MB unknown item field is quoted cut",
    () => todoWrite(log, { todos: [{ content: "a", status: "pending", ["f".repeat(TEN_MB)]: 1 }] }, raised),
    `Error: invalid todo at index 0: unknown field \`${"f".repeat(200)}…\` (an item is only \`content\` and \`status\`)`,
    [log],
  );
  refused(
    "a 10 MB status is described, not quoted",
    () => todoWrite(log, { todos: [{ content: "a", status: big }] }, raised),
    'Error: invalid todo at index 0: `status` must be "pending", "in_progress" or "completed" (got a long string)',
    [log],
  );
  refused(
    "a 10 MB suggest_task field name is quoted cut",
    () => suggestTask(log, { ...goodOffer, ["n".repeat(TEN_MB)]: 1 }, raised),
    `suggest_task: unknown field \`${"n".repeat(200)}…\` (the input is only \`title\`, \`tldr\` and \`brief\`)`,
    [log],
  );
  refused(
    "a 10 MB title is counted, not echoed",
    () => suggestTask(log, { ...goodOffer, title: big }, raised),
    `suggest_task: title must be at most 60 characters (got ${TEN_MB})`,
    [log],
  );
  const withOffer = offered();
  gives(
    "a 10 MB settle id: the message quotes 200 characters",
    () => {
      const d = settleSuggestion(withOffer, "y".repeat(TEN_MB), "dismiss");
      return [d.ok, d.code, d.message, d.payload.length];
    },
    [false, "task-suggestion/not-found", `no suggestion "${"y".repeat(200)}…"`, TEN_MB],
    [withOffer],
  );
  const bigForeign = [...openChat(), { type: "app", text: big }];
  gives("a 10 MB foreign entry in a log replays", () => replaySuggestions(bigForeign), { open: [], settled: [], skipped: [] }, [
    bigForeign,
  ]);
  gives("a 10 MB JSONL line (a message) replays", () => {
    const s = ChatState.fromJsonl(jsonl(session, turn, { type: "message", v: 1, role: "user", text: big }));
    try {
      return [s.length, s.checkGoal("create")];
    } finally {
      s.free();
    }
  }, [3, { ok: true }]);
}

// Offers count by entry, not by id.
{
  const tenS1 = [
    session,
    ...Array.from({ length: 10 }, () => [{ type: "turn_started" }, offerEntry("s1"), { type: "turn_ended" }]).flat(),
    { type: "turn_started" },
  ];
  refused(
    "ten recorded offers sharing id s1 reach the chat's limit",
    () => suggestTask(tenS1, goodOffer),
    "suggest_task: this chat already offered 10 suggestions; offer no more",
    [tenS1],
  );
  const reused = [session, turn, offerEntry("s1"), { type: "turn_ended" }, { type: "turn_started" }, offerEntry("s1")];
  refused(
    "an offer this turn under a reused id blocks a second",
    () => suggestTask(reused, goodOffer),
    "suggest_task: one suggestion per turn; this turn already offered one",
    [reused],
  );
  const unreadable = [session, turn, { type: "suggestion_offered", v: 1, id: "s1", title: 5 }];
  refused(
    "an unreadable offer this turn blocks a second",
    () => suggestTask(unreadable, goodOffer),
    "suggest_task: one suggestion per turn; this turn already offered one",
    [unreadable],
  );
  const newer = [
    session,
    ...Array.from({ length: 10 }, (_, i) => [{ type: "turn_started" }, { ...offerEntry(`s${i + 1}`), v: 2 }]).flat(),
    { type: "turn_started" },
  ];
  refused(
    "ten offers from a newer version still count",
    () => suggestTask(newer, goodOffer),
    "suggest_task: this chat already offered 10 suggestions; offer no more",
    [newer],
  );
}

// A session that cannot be read fails closed.
{
  const helper = "suggest_task is only for the top-level agent; report the follow-up in your result instead";
  for (const v of [2, 4294967296, 1.5, "1", 0, -1, 1e308]) {
    const log = [{ ...session, v }, { type: "turn_started" }];
    refused(`a session with v ${JSON.stringify(v)} fails closed`, () => suggestTask(log, goodOffer), helper, [log]);
  }
  const odd = [{ ...session, agent: 5 }, { type: "turn_started" }];
  refused("a session with an odd agent fails closed", () => suggestTask(odd, goodOffer), helper, [odd]);
  const notSettings = [{ ...session, settings: [] }, { type: "turn_started" }];
  refused("a session whose settings are an array fails closed", () => suggestTask(notSettings, goodOffer), helper, [notSettings]);
  gives("a failed session is reported in skipped", () => replayTodos([{ ...session, v: 2 }]).skipped, [
    { index: 0, type: "session", reason: "written in format v2; this version reads up to v1" },
  ]);
  gives("a failed session cannot be started from (workspace missing)", () => {
    const d = planStart([{ ...session, v: 2 }, turn, offerEntry()], "c", "s1");
    return [d.code, d.message];
  }, ["task-suggestion/workspace-missing", 'session "c" belongs to no workspace']);
  const turn99 = [session, { type: "turn_started", v: 99 }];
  gives("a turn_started of v 99 is used as it is (decided)", () => suggestTask(turn99, goodOffer).ok, true, [turn99]);
}

// Maps, lone surrogates, runTool and SuggestionService options.
{
  const log = openChat();
  refused(
    "a Map as todo_write input",
    () => todoWrite(log, new Map([["todos", []]])),
    TODO_UNREADABLE + "it holds a Map where JSON data belongs",
    [log],
  );
  refused(
    "a Set as todos",
    () => todoWrite(log, { todos: new Set([{ content: "a", status: "pending" }]) }),
    TODO_UNREADABLE + "it holds a Set where JSON data belongs",
    [log],
  );
  refused(
    "a Map as suggest_task input",
    () => suggestTask(log, new Map(Object.entries(goodOffer))),
    SUGGEST_UNREADABLE + "it holds a Map where JSON data belongs",
    [log],
  );
  const mapLog = [...openChat(), new Map([["type", "turn_ended"]])];
  throws(
    "a Map as a log entry",
    () => replayTodos(mapLog),
    "oda-tasks: log entry 2 cannot be read as JSON data: it holds a Map where JSON data belongs",
    [mapLog],
  );
  throws(
    "a Set as permissions",
    () => clampPermission("ask", "auto", new Set(["ask", "auto"])),
    "oda-tasks: invalid arguments of clampPermission: it holds a Set where JSON data belongs",
  );
  throws(
    "a Map as a start request",
    () => planStart(offered(), "c", "s1", new Map([["model", "m"]])),
    "oda-tasks: invalid arguments of planStart: it holds a Map where JSON data belongs",
  );
  refused(
    "lone surrogates \\uD800 and \\uDC00 are refused, not made duplicates",
    () =>
      todoWrite(log, {
        todos: [
          { content: "\uD800", status: "pending" },
          { content: "\uDC00", status: "pending" },
        ],
      }),
    TODO_UNREADABLE + "todos[0].content holds a lone surrogate; text must be well-formed Unicode",
    [log],
  );
  refused(
    "a lone surrogate in a title",
    () => suggestTask(log, { ...goodOffer, title: "a\uDC00" }),
    SUGGEST_UNREADABLE + "title holds a lone surrogate; text must be well-formed Unicode",
    [log],
  );
  refused(
    "a lone surrogate in a field name",
    () => suggestTask(log, { ...goodOffer, "\uD800": 1 }),
    SUGGEST_UNREADABLE + "(a field name) holds a lone surrogate; text must be well-formed Unicode",
    [log],
  );
  const fffd = [session, offerEntry("\uFFFD")];
  throws(
    "settle id \\uD800 does not match offer \\uFFFD",
    () => settleSuggestion(fffd, "\uD800", "dismiss"),
    "oda-tasks: invalid arguments of settleSuggestion: text must be well-formed Unicode (it holds a lone surrogate)",
    [fffd],
  );
  const loneEntry = [session, { type: "todo_update", v: 1, todos: [{ content: "\uD800", status: "pending" }] }];
  skipped(
    "a stored item with a lone surrogate is skipped",
    () => replayTodos(loneEntry),
    [{ index: 1, type: "todo_update", reason: "`todos`: text must be well-formed Unicode (it holds a lone surrogate)" }],
    [loneEntry],
  );
  skipped("JSONL: a lone surrogate escape is skipped", () => {
    const s = ChatState.fromJsonl(Buffer.from('{"type":"todo_update","todos":[{"content":"\\ud800","status":"pending"}]}\n'));
    try {
      return s.replayTodos();
    } finally {
      s.free();
    }
  }, [{ index: 0, type: "todo_update", reason: "`todos`: text must be well-formed Unicode (it holds a lone surrogate)" }]);
  throws(
    "a lone surrogate in a permission",
    () => clampPermission("\uD800", "ask"),
    "oda-tasks: invalid arguments of clampPermission: text must be well-formed Unicode (it holds a lone surrogate)",
  );
  throws(
    "a lone surrogate in startedChat's suggestion id",
    () => startedChat([session], "c", "\uDC00"),
    "oda-tasks: invalid arguments of startedChat: text must be well-formed Unicode (it holds a lone surrogate)",
  );
}

// Replay is linear in offers (64k offers and 64k settlements replay; no timing asserted).
{
  const many = [session];
  for (let i = 1; i <= 64_000; i++) many.push(offerEntry(`s${i}`));
  for (let i = 1; i <= 64_000; i += 2) many.push({ type: "suggestion_settled", v: 1, id: `s${i}`, outcome: "dismissed" });
  gives(
    "64,000 offers and 32,000 settlements replay",
    () => {
      const r = replaySuggestions(many);
      return [r.open.length, r.open[0].id, r.settled.length, r.settled[0].outcome, r.skipped.length];
    },
    [32_000, "s64000", 32_000, "dismissed", 0],
    [many],
  );
  gives(
    "settling in a chat of 64,000 offers",
    () => settleSuggestion(many, "s64000", "draft"),
    { ok: true, entry: { type: "suggestion_settled", v: 1, id: "s64000", outcome: "drafted" } },
    [many],
  );
}

// Wrong types, nulls and arrays for objects, through every export.
{
  const log = openChat();
  for (const [what, bad, got] of [
    ["a string", "log", "string"],
    ["an object", {}, "object"],
    ["a number", 5, "number"],
    ["a Map", new Map(), "object"],
  ]) {
    throws(
      `types: todoWrite with ${what} as the log`,
      () => todoWrite(bad, goodList),
      `oda-tasks: the log must be an array of entries (got ${got})`,
    );
  }
  throws(
    "types: suggestTask with an object as the log",
    () => suggestTask({ length: 2 }, goodOffer),
    "oda-tasks: the log must be an array of entries (got object)",
  );
  throws("types: replayTodos(null)", () => replayTodos(null), "oda-tasks: the log must be an array of entries (got null)");
  throws(
    "types: replaySuggestions(undefined)",
    () => replaySuggestions(undefined),
    "oda-tasks: the log must be an array of entries (got undefined)",
  );
  throws("types: checkGoal(null)", () => checkGoal(null, "create"), "oda-tasks: the log must be an array of entries (got null)");
  throws(
    "types: settleSuggestion on a string log",
    () => settleSuggestion("log", "s1", "dismiss"),
    "oda-tasks: the log must be an array of entries (got string)",
  );
  gives("types: todoWrite(null) is no owning session", () => todoWrite(null, goodList), {
    ok: false,
    error: "Error: todo_write requires an owning agent session",
  });
  gives("types: suggestTask(undefined) is no owning session", () => suggestTask(undefined, goodOffer), {
    ok: false,
    error: "suggest_task requires an owning agent session",
  });
  refused("types: todo_write input null", () => todoWrite(log, null), TODO_UNREADABLE + "there is no input", [log]);
  refused(
    "types: todo_write input an array",
    () => todoWrite(log, [goodList]),
    "Error: invalid todos: input must be an object with a `todos` array",
    [log],
  );
  refused("types: todo_write input undefined", () => todoWrite(log, undefined), TODO_UNREADABLE + "it has no JSON form (undefined)", [log]);
  refused("types: todo_write input a function", () => todoWrite(log, () => goodList), TODO_UNREADABLE + "it has no JSON form (function)", [
    log,
  ]);
  refused(
    "types: todos an object",
    () => todoWrite(log, { todos: { 0: { content: "a", status: "pending" } } }),
    "Error: invalid todos: `todos` must be an array (got an object)",
    [log],
  );
  refused(
    "types: an item null",
    () => todoWrite(log, { todos: [null] }),
    "Error: invalid todo at index 0: an item must be an object (got null)",
    [log],
  );
  refused(
    "types: an item an array",
    () => todoWrite(log, { todos: [["a", "pending"]] }),
    "Error: invalid todo at index 0: an item must be an object (got an array)",
    [log],
  );
  refused(
    "types: content a number",
    () => todoWrite(log, { todos: [{ content: 5, status: "pending" }] }),
    "Error: invalid todo: `content` must be a non-empty string",
    [log],
  );
  refused(
    "types: status null",
    () => todoWrite(log, { todos: [{ content: "a", status: null }] }),
    'Error: invalid todo at index 0: `status` must be "pending", "in_progress" or "completed" (got null)',
    [log],
  );
  refused(
    "types: a BigInt content",
    () => todoWrite(log, { todos: [{ content: 1n, status: "pending" }] }),
    TODO_UNREADABLE + "reading it threw TypeError: Do not know how to serialize a BigInt",
    [log],
  );
  refused("types: suggest_task input null", () => suggestTask(log, null), SUGGEST_UNREADABLE + "there is no input", [log]);
  refused(
    "types: suggest_task input an array",
    () => suggestTask(log, ["t", "w", "b"]),
    "suggest_task: input must be an object with `title`, `tldr` and `brief`",
    [log],
  );
  refused(
    "types: suggest_task title a number",
    () => suggestTask(log, { ...goodOffer, title: 5 }),
    "suggest_task: title must be a string",
    [log],
  );
  refused("types: suggest_task brief null", () => suggestTask(log, { ...goodOffer, brief: null }), "suggest_task: brief must be a string", [
    log,
  ]);
  throws(
    "types: todoWrite oneActive a string",
    () => todoWrite(log, goodList, { oneActive: "no" }),
    "oda-tasks: invalid arguments of todoWrite: `oneActive` must be a boolean",
  );
  throws(
    "types: todoWrite unknown option",
    () => todoWrite(log, goodList, { oneactive: false }),
    "oda-tasks: invalid arguments of todoWrite: unknown field `oneactive`, expected `oneActive`",
  );
  throws(
    "types: todoWrite options an array",
    () => todoWrite(log, goodList, []),
    "oda-tasks: invalid arguments of todoWrite: options must be an object (got an array)",
  );
  throws(
    "types: suggestTask unknown option",
    () => suggestTask(log, goodOffer, { oneActive: true }),
    "oda-tasks: invalid arguments of suggestTask: unknown option `oneActive`",
  );
  for (const limit of [1, 1.5, -1, Infinity, NaN, "10", 2 ** 60]) {
    throws(
      `types: maxInputLength ${String(limit)}`,
      () => todoWrite(log, goodList, { maxInputLength: limit }),
      "oda-tasks: invalid arguments of todoWrite: `maxInputLength` must be a whole number >= 2",
    );
  }
  const withOffer = offered();
  throws(
    "types: settle action unknown",
    () => settleSuggestion(withOffer, "s1", "archive"),
    "oda-tasks: invalid arguments of settleSuggestion: unknown variant `archive`, expected one of `draft`, `dismiss`, `restore`",
    [withOffer],
  );
  throws(
    "types: settle id a number",
    () => settleSuggestion(withOffer, 1, "dismiss"),
    "oda-tasks: invalid arguments of settleSuggestion: invalid type: integer `1`, expected a string",
    [withOffer],
  );
  throws(
    "types: settle id null",
    () => settleSuggestion(withOffer, null, "dismiss"),
    "oda-tasks: invalid arguments of settleSuggestion: invalid type: null, expected a string",
    [withOffer],
  );
  throws(
    "types: planStart chatId a number",
    () => planStart(withOffer, 5, "s1"),
    "oda-tasks: invalid arguments of planStart: invalid type: integer `5`, expected a string",
    [withOffer],
  );
  throws(
    "types: planStart request a string",
    () => planStart(withOffer, "c", "s1", "auto"),
    "oda-tasks: invalid arguments of planStart: `request` must be an object (got string)",
    [withOffer],
  );
  throws(
    "types: planStart request with an unknown field",
    () => planStart(withOffer, "c", "s1", { sandbox: {} }),
    "oda-tasks: invalid arguments of planStart: unknown field `sandbox`, expected `model` or `permission`",
    [withOffer],
  );
  throws(
    "types: planStart permissions an object",
    () => planStart(withOffer, "c", "s1", {}, { 0: "ask" }),
    "oda-tasks: invalid arguments of planStart: invalid type: map, expected a sequence",
    [withOffer],
  );
  throws(
    "types: planStart permissions empty",
    () => planStart(withOffer, "c", "s1", {}, []),
    "oda-tasks: invalid arguments of permissions: `permissions` must be a non-empty array of strings, lowest first",
    [withOffer],
  );
  throws(
    "types: startedChat chat id a number",
    () => startedChat([session], 1, "s1"),
    "oda-tasks: invalid arguments of startedChat: invalid type: integer `1`, expected a string",
  );
  throws(
    "types: startedChat on a string log",
    () => startedChat("log", "c", "s1"),
    "oda-tasks: the log must be an array of entries (got string)",
  );
  throws(
    "types: clampPermission wanted a number",
    () => clampPermission(1, "ask"),
    "oda-tasks: invalid arguments of clampPermission: invalid type: integer `1`, expected a string",
  );
  throws(
    "types: clampPermission permissions a string",
    () => clampPermission("auto", "ask", "auto"),
    'oda-tasks: invalid arguments of clampPermission: invalid type: string "auto", expected a sequence',
  );
  throws(
    "types: clampPermission a nested permission",
    () => clampPermission("a", "b", ["a", ["b"]]),
    "oda-tasks: invalid arguments of clampPermission: invalid type: sequence, expected a string",
  );
  gives("types: clampPermission of an unknown permission fails closed", () => clampPermission("root", "full-access"), "read-only");
  throws(
    "types: checkGoal action unknown",
    () => checkGoal(log, "delete"),
    "oda-tasks: invalid arguments of checkGoal: unknown variant `delete`, expected `create` or `complete`",
    [log],
  );
  throws("types: checkGoal action a number", () => checkGoal(log, 5), /^oda-tasks: invalid arguments of checkGoal: /, [log]);
}

// NUL, __proto__/constructor keys, numbers, entries that are not objects.
{
  const log = openChat();
  gives(
    "NUL: a content holding NUL is data, kept as sent",
    () => todoWrite(log, { todos: [{ content: "a\u0000b", status: "pending" }] }).entry.todos[0].content,
    "a\u0000b",
    [log],
  );
  gives(
    "NUL: JSONL: a line of raw NUL bytes is unreadable, not an entry",
    () => endOfJsonl('{"type":"turn_started"}\n\u0000\u0000\u0000\n{"type":"turn_ended"}\n'),
    [2, { unreadable: [{ line: 2, reason: "expected value at line 1 column 1" }], tornBytes: 0 }],
  );
  gives(
    "UTF-8: JSONL: a line that is not UTF-8 is unreadable",
    () => endOfJsonl([0x7b, 0xff, 0x7d, 0x0a, ...Buffer.from('{"type":"turn_started"}\n')]),
    [1, { unreadable: [{ line: 1, reason: "not UTF-8 text" }], tornBytes: 0 }],
  );
  const protoBefore = Object.getOwnPropertyNames(Object.prototype).join();
  refused(
    "keys: a __proto__ key in todo_write input",
    () => todoWrite(log, JSON.parse('{"__proto__":{"polluted":1},"todos":[]}')),
    "Error: invalid todos: unknown field `__proto__` (the input is only `todos`)",
    [log],
  );
  refused(
    "keys: a constructor key in an item",
    () => todoWrite(log, { todos: [{ content: "a", status: "pending", constructor: 1 }] }),
    "Error: invalid todo at index 0: unknown field `constructor` (an item is only `content` and `status`)",
    [log],
  );
  refused(
    "keys: a __proto__ key in suggest_task input",
    () => suggestTask(log, JSON.parse('{"__proto__":{"x":1},"title":"t","tldr":"w","brief":"b"}')),
    "suggest_task: unknown field `__proto__` (the input is only `title`, `tldr` and `brief`)",
    [log],
  );
  gives("keys: a __proto__ key in a stored entry is ignored, nothing is polluted", () => {
    const r = replayTodos([
      session,
      JSON.parse('{"type":"todo_update","v":1,"__proto__":{"todos":[]},"todos":[{"content":"a","status":"pending"}]}'),
    ]);
    return [r.todos, {}.polluted, Object.getOwnPropertyNames(Object.prototype).join() === protoBefore];
  }, [[{ content: "a", status: "pending" }], undefined, true]);
  gives(
    "keys: an input without a prototype is plain data",
    () => todoWrite(log, Object.assign(Object.create(null), { todos: [] })).ok,
    true,
    [log],
  );
  refused(
    "numbers: status 1e308",
    () => todoWrite(log, { todos: [{ content: "a", status: 1e308 }] }),
    'Error: invalid todo at index 0: `status` must be "pending", "in_progress" or "completed" (got a number)',
    [log],
  );
  refused(
    "numbers: content 5e-324",
    () => todoWrite(log, { todos: [{ content: 5e-324, status: "pending" }] }),
    "Error: invalid todo: `content` must be a non-empty string",
    [log],
  );
  refused(
    "numbers: content NaN (JSON null)",
    () => todoWrite(log, { todos: [{ content: NaN, status: "pending" }] }),
    "Error: invalid todo: `content` must be a non-empty string",
    [log],
  );
  skipped("numbers: an entry with v 1e308", () => replayTodos([session, { type: "todo_update", v: 1e308, todos: [] }]), [
    { index: 1, type: "todo_update", reason: "`v` must be a whole number from 1 (got 1e+308)" },
  ]);
  skipped("numbers: an entry with v 5e-324", () => replayTodos([session, { type: "todo_update", v: 5e-324, todos: [] }]), [
    { index: 1, type: "todo_update", reason: "`v` must be a whole number from 1 (got 5e-324)" },
  ]);
  gives("numbers: JSONL: a session with v 1e400 fails closed", () => {
    const s = ChatState.fromJsonl(jsonl('{"type":"session","v":1e400,"workspace":"/w"}', turn));
    try {
      return [s.replayTodos().skipped, s.suggestTask(goodOffer).error];
    } finally {
      s.free();
    }
  }, [
    [{ index: 0, type: "session", reason: "`v` must be a whole number from 1 (got 1e400)" }],
    "suggest_task is only for the top-level agent; report the follow-up in your result instead",
  ]);
  const notObjects = [session, null, 1, "x", [], true];
  skipped(
    "entries: null, a number, a string, an array and a boolean are skipped",
    () => replayTodos(notObjects),
    [
      { index: 1, type: null, reason: "an entry must be an object (got null)" },
      { index: 2, type: null, reason: "an entry must be an object (got a number)" },
      { index: 3, type: null, reason: "an entry must be an object (got a string)" },
      { index: 4, type: null, reason: "an entry must be an object (got an array)" },
      { index: 5, type: null, reason: "an entry must be an object (got a boolean)" },
    ],
    [notObjects],
  );
  const noForm = [session, undefined, () => 1, Symbol("s")];
  skipped(
    "entries: undefined, a function and a symbol (no JSON form) are skipped as null",
    () => replaySuggestions(noForm),
    [1, 2, 3].map((index) => ({ index, type: null, reason: "an entry must be an object (got null)" })),
    [noForm],
  );
  throws(
    "entries: a BigInt entry",
    () => replayTodos([session, 1n]),
    "oda-tasks: log entry 1 cannot be read as JSON data: reading it threw TypeError: Do not know how to serialize a BigInt",
  );
  skipped(
    "entries: no type, a number type, a null type",
    () => replayTodos([session, { v: 1 }, { type: 5 }, { type: null }]),
    [1, 2, 3].map((index) => ({ index, type: null, reason: "an entry must have a string `type`" })),
  );
  skipped("entries: a message whose role is a number", () => replayTodos([session, { type: "message", role: 5 }]), [
    { index: 1, type: "message", reason: "`role` must be a string (got a number)" },
  ]);
  skipped(
    "entries: a settlement with an unknown outcome",
    () => replaySuggestions([session, offerEntry(), { type: "suggestion_settled", v: 1, id: "s1", outcome: "archived" }]),
    [{ index: 2, type: "suggestion_settled", reason: "unknown outcome archived" }],
  );
  skipped(
    "entries: a started settlement without chatId",
    () => replaySuggestions([session, offerEntry(), { type: "suggestion_settled", v: 1, id: "s1", outcome: "started" }]),
    [{ index: 2, type: "suggestion_settled", reason: "a `started` settlement must carry `chatId`" }],
  );
  skipped("entries: a second session", () => replayTodos([session, session]), [
    { index: 1, type: "session", reason: "a second `session` entry; the first one counts" },
  ]);
}

// ChatState methods.
{
  const live = ChatState.fromLog(openChat());
  for (const [what, from] of [
    ["-1", -1],
    ["1.5", 1.5],
    ["NaN", NaN],
    ["3 (a gap)", 3],
    ["2**53", 2 ** 53],
  ]) {
    throws(
      `ChatState: ingest(from = ${what})`,
      () => live.ingest(from, []),
      `oda-tasks: ingest(from = ${from}) does not continue this state of 2 entries; feed entries from index 2`,
    );
  }
  throws(
    "ChatState: ingest(from = 1) (a double feed)",
    () => live.ingest(1, [{ type: "turn_ended" }]),
    "oda-tasks: ingest(from = 1) does not continue this state of 2 entries; feed entries from index 2",
  );
  throws(
    "ChatState: ingest of an object, not an array",
    () => live.ingest(2, { 0: turn, length: 1 }),
    "oda-tasks: entries must be an array of entries (got object)",
  );
  throws(
    "ChatState: ingestJsonl of a string",
    () => live.ingestJsonl('{"type":"turn_ended"}\n'),
    "oda-tasks: ingestJsonl needs a Uint8Array chunk",
  );
  throws(
    "ChatState: ingestJsonl of an ArrayBuffer",
    () => live.ingestJsonl(new ArrayBuffer(4)),
    "oda-tasks: ingestJsonl needs a Uint8Array chunk",
  );
  throws(
    "ChatState: fromJsonl of strings",
    () => ChatState.fromJsonl(['{"type":"turn_started"}\n']),
    "oda-tasks: ingestJsonl needs a Uint8Array chunk",
  );
  throws(
    "ChatState: options cards a string",
    () => ChatState.fromLog([], { cards: "yes" }),
    'oda-tasks: invalid arguments of ChatState: `cards` must be a boolean (got "yes")',
  );
  throws(
    "ChatState: unknown option",
    () => ChatState.fromLog([], { bogus: 1 }),
    "oda-tasks: invalid arguments of ChatState: unknown option `bogus`",
  );
  throws("ChatState: fromLog of a string", () => ChatState.fromLog("log"), "oda-tasks: the log must be an array of entries (got string)");
  throws(
    "ChatState: replayTodos without cards",
    () => {
      const s = ChatState.fromLog([], { cards: false });
      try {
        s.replayTodos();
      } finally {
        s.free();
      }
    },
    "oda-tasks: this ChatState keeps no todo cards; create it with { cards: true } to replay todos",
  );
  const freed = ChatState.fromLog(openChat());
  freed.free();
  for (const [what, call] of [
    ["length", (s) => s.length],
    ["todoWrite", (s) => s.todoWrite(goodList)],
    ["ingest", (s) => s.ingest(2, [])],
    ["ingestJsonl", (s) => s.ingestJsonl(new Uint8Array(1))],
    ["replaySuggestions", (s) => s.replaySuggestions()],
  ]) {
    throws(`ChatState: ${what} after free()`, () => call(freed), "oda-tasks: this ChatState was freed; build a new one");
  }
  gives("ChatState: free() twice is harmless", () => freed.free(), undefined);
  throws(
    "ChatState: ingest while a JSONL line is half fed",
    () => {
      const s = ChatState.empty();
      try {
        s.ingestJsonl(Buffer.from('{"type":"session"}\n{"type":"turn_'));
        s.ingest(1, [turn]);
      } finally {
        s.free();
      }
    },
    "oda-tasks: ingest() while a JSONL line is half fed (the bytes given to ingestJsonl() end inside a line); feed the rest of that line, or call endJsonl(), before ingesting entries",
  );
  throws(
    "ChatState: a method called unbound",
    () => ChatState.prototype.replayTodos.call(undefined),
    "oda-tasks: ChatState#replayTodos was called on undefined, not on a ChatState; call it as state.replayTodos(…), or pass it on bound (state.replayTodos.bind(state))",
  );
  throws(
    "ChatState: a getter of the input frees the state",
    () => {
      const s = ChatState.fromLog(openChat());
      s.todoWrite({
        get todos() {
          s.free();
          return [];
        },
      });
    },
    "oda-tasks: this ChatState was freed; build a new one",
  );
  throws(
    "ChatState: ingestJsonl of a chunk over a detached buffer",
    () => {
      const chunk = new Uint8Array(4);
      structuredClone(chunk.buffer, { transfer: [chunk.buffer] });
      live.ingestJsonl(chunk);
    },
    "oda-tasks: ingestJsonl was given a chunk whose ArrayBuffer is detached (transferred away); pass the bytes before transferring them, or a copy",
  );
  gives("ChatState: a torn last line is left out and reported", () => endOfJsonl('{"type":"turn_started"}\n{"type":"tu'), [
    1,
    { unreadable: [], tornBytes: 11 },
  ]);
  refused("ChatState: todoWrite 10,000 deep", () => live.todoWrite({ todos: deepArray(10_000) }), TODO_UNREADABLE + STACK);
  refused(
    "ChatState: suggestTask with a throwing getter",
    () => live.suggestTask(throwingGetter(goodOffer)),
    SUGGEST_UNREADABLE + "reading it threw Error: getter says no",
  );
  throws(
    "ChatState: settleSuggestion with a lone surrogate",
    () => live.settleSuggestion("\uD800", "dismiss"),
    "oda-tasks: invalid arguments of settleSuggestion: text must be well-formed Unicode (it holds a lone surrogate)",
  );
  throws(
    "ChatState: planStart with a cyclic request",
    () => {
      const r = {};
      r.r = r;
      return live.planStart("c", "s1", r);
    },
    /^oda-tasks: invalid arguments of planStart: reading them threw TypeError: Converting circular structure to JSON/,
  );
  throws(
    "ChatState: startedChat with numbers",
    () => live.startedChat(1, 2),
    "oda-tasks: invalid arguments of startedChat: invalid type: integer `1`, expected a string",
  );
  throws(
    "ChatState: checkGoal(undefined)",
    () => live.checkGoal(undefined),
    "oda-tasks: invalid arguments of checkGoal: missing field `action`",
  );
  gives("ChatState: after all that, the live state answers", () => [live.length, live.suggestTask(goodOffer).ok], [2, true]);
}

// runTool and SuggestionService options and arguments, over a real MemoryStore (the log is the store's).
{
  const store = new MemoryStore();
  const chat = "chat-1"; // holds an offer this turn
  const fresh = "chat-2"; // an open turn, no offer yet
  const ready = Promise.all([store.create(chat, offered()), store.create(fresh, openChat())]);
  const storeLog = async () => {
    await ready;
    return [await store.read(chat), await store.read(fresh)];
  };
  const storeCase = (kind, name, run, want) =>
    cases.push({
      name,
      run: async () => {
        await ready;
        return run();
      },
      want: { [kind]: want },
      logs: [],
      storeLog,
    });
  const call = { name: "todo_write", input: goodList };
  storeCase(
    "throws",
    "runTool: unknown option oneactive",
    () => runTool(store, chat, call, { oneactive: false }),
    "oda-tasks: invalid arguments of runTool: unknown option `oneactive`",
  );
  storeCase(
    "throws",
    "runTool: options an array",
    () => runTool(store, chat, call, []),
    "oda-tasks: invalid arguments of runTool: options must be an object (got an array)",
  );
  storeCase(
    "throws",
    "runTool: options a string",
    () => runTool(store, chat, call, "fast"),
    "oda-tasks: invalid arguments of runTool: options must be an object (got string)",
  );
  storeCase(
    "throws",
    "runTool: oneActive a string",
    () => runTool(store, chat, call, { oneActive: "no" }),
    'oda-tasks: invalid arguments of runTool: `oneActive` must be a boolean (got "no")',
  );
  storeCase(
    "throws",
    "runTool: maxInputLength 0",
    () => runTool(store, chat, call, { maxInputLength: 0 }),
    "oda-tasks: invalid arguments of runTool: `maxInputLength` must be a whole number >= 2 (got 0)",
  );
  storeCase(
    "throws",
    "runTool: a cache of another store",
    () => runTool(store, chat, call, { cache: new ChatStateCache(new MemoryStore()) }),
    "oda-tasks: invalid arguments of runTool: the cache belongs to another store",
  );
  storeCase(
    "throws",
    "runTool: an unknown tool",
    () => runTool(store, chat, { name: "rm_rf", input: {} }),
    'oda-tasks: runTool knows the tools "todo_write" and "suggest_task" (got "rm_rf")',
  );
  storeCase(
    "throws",
    "runTool: call null",
    () => runTool(store, chat, null),
    'oda-tasks: runTool knows the tools "todo_write" and "suggest_task" (got "undefined")',
  );
  storeCase("throws", "runTool: store null", () => runTool(null, chat, call), "oda-tasks: a ChatStateCache needs a store");
  storeCase("throws", "runTool: a chat id with NUL", () => runTool(store, "a\u0000b", call), {
    code: "store/bad-chat-id",
    message: 'invalid chat id "a\\u0000b": it holds a path separator or a control character',
  });
  storeCase("throws", "runTool: a chat id with a lone surrogate", () => runTool(store, "chat\uD800", call), {
    code: "store/bad-chat-id",
    message: 'invalid chat id "chat\\ud800": it is not well-formed Unicode (a lone surrogate)',
  });
  storeCase(
    "throws",
    "SuggestionService: list of a chat id with a lone surrogate",
    () => new SuggestionService({ store }).list("chat\uDC00"),
    { code: "store/bad-chat-id", message: 'invalid chat id "chat\\udc00": it is not well-formed Unicode (a lone surrogate)' },
  );
  storeCase("gives", "runTool: options null are no options", () => runTool(store, "missing-chat", call, null), {
    ok: false,
    error: "Error: todo_write requires an owning agent session",
  });
  storeCase(
    "refused",
    "runTool: a 10,000-deep input",
    () => runTool(store, chat, { name: "todo_write", input: { todos: deepArray(10_000) } }),
    TODO_UNREADABLE + STACK,
  );
  storeCase(
    "refused",
    "runTool: a cyclic suggest_task input",
    () => {
      const i = { ...goodOffer };
      i.i = i;
      return runTool(store, fresh, { name: "suggest_task", input: i });
    },
    /^suggest_task: the input cannot be read as JSON data: reading it threw TypeError: Converting circular structure to JSON/,
  );
  storeCase(
    "refused",
    "runTool: a revoked Proxy input",
    () => runTool(store, fresh, { name: "suggest_task", input: revoked() }),
    SUGGEST_UNREADABLE + "reading it threw TypeError: Cannot perform 'get' on a proxy that has been revoked",
  );
  storeCase(
    "refused",
    "runTool: a Map input",
    () => runTool(store, chat, { name: "todo_write", input: new Map() }),
    TODO_UNREADABLE + "it holds a Map where JSON data belongs",
  );
  storeCase(
    "refused",
    "runTool: a 10 MB input",
    () => runTool(store, fresh, { name: "suggest_task", input: { ...goodOffer, brief: "b".repeat(TEN_MB) } }),
    SUGGEST_UNREADABLE + "it is larger than 1048576 characters as JSON",
  );
  storeCase(
    "refused",
    "runTool: a second offer this turn",
    () => runTool(store, chat, { name: "suggest_task", input: goodOffer }),
    "suggest_task: one suggestion per turn; this turn already offered one",
  );
  for (const [what, options, message] of [
    [
      'permissions: "auto"',
      { permissions: "auto" },
      "oda-tasks: new SuggestionService: `permissions` must be an array of strings, lowest first",
    ],
    [
      "permissions: a Set",
      { permissions: new Set(["ask"]) },
      "oda-tasks: new SuggestionService: `permissions` must be an array of strings, lowest first",
    ],
    [
      "permissions: []",
      { permissions: [] },
      "oda-tasks: invalid arguments of permissions: `permissions` must be a non-empty array of strings, lowest first",
    ],
    [
      "permissions: [1]",
      { permissions: [1] },
      "oda-tasks: invalid arguments of clampPermission: invalid type: integer `1`, expected a string",
    ],
    ["an unknown option", { bogus: 1 }, "oda-tasks: invalid arguments of SuggestionService: unknown option `bogus`"],
    [
      "a cache of another store",
      { cache: new ChatStateCache(new MemoryStore()) },
      "oda-tasks: new SuggestionService: the cache belongs to another store",
    ],
  ]) {
    storeCase("throws", `SuggestionService: ${what}`, () => new SuggestionService({ store, ...options }), message);
  }
  storeCase(
    "throws",
    "SuggestionService: no store",
    () => new SuggestionService({ store: null }),
    "oda-tasks: new SuggestionService({ store }) needs a store",
  );
  storeCase(
    "throws",
    "SuggestionService: options a string",
    () => new SuggestionService("store"),
    "oda-tasks: new SuggestionService({ store }) needs a store",
  );
  const service = new SuggestionService({ store });
  storeCase(
    "throws",
    "SuggestionService: dismiss id a number",
    () => service.dismiss(chat, 1),
    "oda-tasks: invalid arguments of settleSuggestion: invalid type: integer `1`, expected a string",
  );
  storeCase(
    "throws",
    "SuggestionService: dismiss id with a lone surrogate",
    () => service.dismiss(chat, "\uD800"),
    "oda-tasks: invalid arguments of settleSuggestion: text must be well-formed Unicode (it holds a lone surrogate)",
  );
  storeCase(
    "throws",
    "SuggestionService: restore id an object",
    () => service.restore(chat, {}),
    "oda-tasks: invalid arguments of settleSuggestion: invalid type: map, expected a string",
  );
  storeCase(
    "throws",
    "SuggestionService: start with a 10,000-deep request",
    () => service.start(chat, "s1", { model: deepArray(10_000) }),
    `oda-tasks: invalid arguments of planStart: ${STACK}`.replace("reading it", "reading them"),
  );
  storeCase(
    "throws",
    "SuggestionService: start with a throwing request getter",
    () =>
      service.start(chat, "s1", {
        get permission() {
          throw new Error("getter says no");
        },
      }),
    "oda-tasks: invalid arguments of planStart: reading them threw Error: getter says no",
  );
  storeCase("throws", "SuggestionService: start of an unknown offer", () => service.start(chat, "s9"), {
    code: "task-suggestion/not-found",
    message: 'no suggestion "s9"',
  });
  storeCase("throws", "SuggestionService: list of a chat id with a slash", () => service.list("a/b"), {
    code: "store/bad-chat-id",
    message: 'invalid chat id "a/b": it holds a path separator or a control character',
  });
}

// ---------------------------------------------------------------------------
// Running a case and checking what it gave.

/** What a log holds now: its members by reference and, where they have one, their JSON. */
function snapshot(log) {
  return {
    members: [...log],
    json: log.map((e) => {
      try {
        return JSON.stringify(e);
      } catch {
        return "(not serialisable)";
      }
    }),
  };
}

async function runCase(c) {
  const before = c.logs.map(snapshot);
  const stored = c.storeLog ? await c.storeLog() : null;
  let result;
  let error;
  try {
    result = await c.run();
  } catch (e) {
    error = e;
  }
  check(c, result, error);
  c.logs.forEach((log, i) => assert.deepEqual(snapshot(log), before[i], `${c.name}: the log changed`));
  if (c.storeLog) assert.deepEqual(await c.storeLog(), stored, `${c.name}: the stored log changed`);
}

const matches = (text, want) => (want instanceof RegExp ? want.test(text) : text === want);

function check(c, result, error) {
  const { want } = c;
  const show = () =>
    error ? `threw ${error?.constructor?.name}: ${String(error?.message).slice(0, 300)}` : `gave ${JSON.stringify(result)?.slice(0, 300)}`;
  if (error instanceof WebAssembly.RuntimeError) assert.fail(`${c.name}: the core trapped: ${error.message}`);
  if (want.throws !== undefined) {
    assert.ok(error instanceof Error, `${c.name}: expected a throw, ${show()}`);
    if (typeof want.throws === "object" && !(want.throws instanceof RegExp)) {
      // A store's or the service's failure: its code and exact message.
      assert.ok(error instanceof StoreError || error instanceof SuggestionError, `${c.name}: ${show()}`);
      assert.equal(error.code, want.throws.code, c.name);
      assert.equal(error.message, want.throws.message, c.name);
      return;
    }
    assert.ok(error.message.startsWith("oda-tasks: "), `${c.name}: not an oda-tasks: error: ${show()}`);
    assert.ok(matches(error.message, want.throws), `${c.name}: ${show()}`);
    return;
  }
  assert.equal(error, undefined, `${c.name}: ${show()}`);
  if (want.refused !== undefined) {
    assert.deepEqual(Object.keys(result).sort(), ["error", "ok"], `${c.name}: ${show()}`);
    assert.equal(result.ok, false, c.name);
    assert.ok(matches(result.error, want.refused), `${c.name}: ${show()}`);
  } else if (want.skipped !== undefined) {
    assert.deepEqual(result.skipped, want.skipped, c.name);
  } else {
    assert.deepEqual(result, want.gives, c.name);
  }
}

/** After a case: normal calls still give the answers they gave before any bad input. */
function assertHealthy(name) {
  assert.deepEqual(healthy(), EXPECTED, `after "${name}" a normal call gave another answer`);
}

test(`the catalogue has at least 80 cases (${cases.length})`, () => {
  assert.ok(cases.length >= 80, `${cases.length} cases`);
  assert.equal(new Set(cases.map((c) => c.name)).size, cases.length, "case names are unique");
});

for (const c of cases) {
  test(c.name, { timeout: 120_000 }, async () => {
    await runCase(c);
    assertHealthy(c.name);
  });
}

test("the whole catalogue again, twice: WASM memory and the externref table do not grow", { timeout: 600_000 }, async () => {
  const runAll = async () => {
    for (const c of cases) await runCase(c);
    assertHealthy("the whole catalogue");
  };
  await runAll(); // the first pass above sized the heap; this one settles it
  const after1 = footprint();
  await runAll();
  const after2 = footprint();
  assert.deepEqual(after2, after1, "a second run of the whole catalogue grew WASM memory or the externref table");
});

// ---------------------------------------------------------------------------
// Found while writing this catalogue; marked `todo` until the fix lands in
// src/ or pkg/src/ (each states the right answer; remove `todo` when it passes).

const fails = (fn) => {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
};

test("a revoked Proxy as the log is an oda-tasks: error, not a raw TypeError", () => {
  const e = fails(() => replayTodos(revoked()));
  assert.ok(e instanceof Error && e.message.startsWith("oda-tasks: the log must be an array of entries"), String(e));
});

test("a revoked Proxy as options is an oda-tasks: error", () => {
  const e = fails(() => todoWrite(openChat(), goodList, revoked()));
  assert.ok(e instanceof Error && e.message.startsWith("oda-tasks: invalid arguments of todoWrite"), String(e));
});

test("options whose getter throws give an oda-tasks: error", () => {
  const e = fails(() =>
    todoWrite(openChat(), goodList, {
      get oneActive() {
        throw new Error("getter says no");
      },
    }),
  );
  assert.ok(e instanceof Error && e.message.startsWith("oda-tasks: invalid arguments of todoWrite"), String(e));
});

test("ChatState.fromJsonl(null) is an oda-tasks: error", () => {
  const e = fails(() => ChatState.fromJsonl(null));
  assert.ok(e instanceof Error && e.message.startsWith("oda-tasks: "), String(e));
});

test("an array is not a start request", () => {
  const e = fails(() => planStart(offered(), "c", "s1", ["gpt-x", "full-access"]));
  assert.ok(e instanceof Error && e.message.startsWith("oda-tasks: invalid arguments of planStart"), String(e));
});

test("a ChatState.fromLog that throws frees its WASM state at once", () => {
  const bad = [session, throwingGetter({ type: "app" })];
  const before = footprint().memory;
  // Synchronous on purpose: finalizers cannot run in between, as in a busy server's tick.
  for (let i = 0; i < 200_000; i++) fails(() => ChatState.fromLog(bad));
  const grown = footprint().memory - before;
  assert.ok(grown < MiB, `WASM memory grew by ${grown} bytes over 200,000 failed fromLog calls`);
});

test("JSONL: a first line shorter than 3 bytes does not swallow the next line (a helper session stays a helper)", () => {
  const helper = { ...session, agent: "helper", scheduledTaskFolder: true };
  const s = ChatState.fromJsonl(Buffer.from(`{}\n${JSON.stringify(helper)}\n{"type":"turn_started"}\n`));
  try {
    assert.equal(s.length, 3);
    assert.deepEqual(s.suggestTask(goodOffer), {
      ok: false,
      error: "suggest_task is only for the top-level agent; report the follow-up in your result instead",
    });
  } finally {
    s.free();
  }
});

test("JSONL: a repeated key reads as JSON.parse reads it (the last wins), so nothing fails open", () => {
  const lines = [
    '{"type":"session","v":1,"agent":"helper","agent":"helper","workspace":"/w","scheduledTaskFolder":true,"settings":{}}',
    '{"type":"turn_started"}',
    '{"type":"suggestion_offered","type":"suggestion_offered","v":1,"id":"s1","title":"t","tldr":"w","brief":"b"}',
  ];
  const s = ChatState.fromJsonl(Buffer.from(lines.join("\n") + "\n"));
  const parsed = ChatState.fromLog(lines.map((l) => JSON.parse(l)));
  try {
    assert.deepEqual(s.replaySuggestions(), parsed.replaySuggestions());
    assert.deepEqual(s.suggestTask(goodOffer), parsed.suggestTask(goodOffer));
  } finally {
    s.free();
    parsed.free();
  }
});

// ---------------------------------------------------------------------------
// A polluted Object.prototype (a bug elsewhere in the app)
// changes no decision: every option and step is read as an own property.

/** Runs `fn` with `Object.prototype[key] = value`, removed afterwards whatever happens. */
async function polluted(pollution, fn) {
  for (const [key, value] of Object.entries(pollution)) {
    Object.defineProperty(Object.prototype, key, { value, configurable: true, writable: true, enumerable: false });
  }
  try {
    return await fn();
  } finally {
    for (const key of Object.keys(pollution)) delete Object.prototype[key];
  }
}

test("Object.prototype.permissions reversed does not reorder SuggestionService's permissions: a Start from a read-only chat stays read-only", async () => {
  const readOnly = { ...session, settings: { preset: "coder", model: "m", permission: "read-only" } };
  const store = new MemoryStore();
  await store.create("c", [readOnly, turn, offerEntry()]);
  const started = await polluted({ permissions: ["full-access", "auto", "ask", "read-only"] }, async () => {
    const service = new SuggestionService({ store, cache: new ChatStateCache(store) });
    return service.start("c", "s1", { permission: "full-access" });
  });
  const [first] = await store.read(started.chatId);
  assert.equal(first.settings.permission, "read-only");
});

test("Object.prototype.oneActive = false and maxInputLength do not lift the one-active rule or the 1 MiB limit", async () => {
  const store = new MemoryStore();
  await store.create("c", openChat());
  const twoActive = {
    todos: [
      { content: "a", status: "in_progress" },
      { content: "b", status: "in_progress" },
    ],
  };
  const huge = { todos: [{ content: "x".repeat(2 * MiB), status: "pending" }] };
  const expected = [
    await runTool(store, "c", { name: "todo_write", input: twoActive }),
    await runTool(store, "c", { name: "todo_write", input: huge }),
  ];
  assert.equal(expected[0].ok, false);
  assert.equal(expected[1].ok, false);
  const got = await polluted({ oneActive: false, maxInputLength: 100 * MiB }, async () => [
    await runTool(store, "c", { name: "todo_write", input: twoActive }, {}),
    await runTool(store, "c", { name: "todo_write", input: huge }, {}),
    ChatState.fromLog(openChat()).todoWrite(twoActive, {}),
  ]);
  assert.deepEqual(got.slice(0, 2), expected);
  assert.equal(got[2].ok, false, "ChatState#todoWrite reads its options as own properties too");
  assert.equal((await store.read("c")).length, 2, "nothing recorded");
});

test("Object.prototype.done = true does not end the write loop: runTool and dismiss record their entries", async () => {
  const store = new MemoryStore();
  await store.create("c", offered());
  const [result] = await polluted({ done: true }, async () => {
    const r = await runTool(store, "c", { name: "todo_write", input: goodList });
    await new SuggestionService({ store }).dismiss("c", "s1");
    return [r];
  });
  assert.equal(result.ok, true);
  assert.equal(typeof result.output, "string");
  assert.deepEqual(
    (await store.read("c")).slice(3).map((e) => e.type),
    ["todo_update", "suggestion_settled"],
  );
});

test("polluted store and cache options (size, readChunkBytes, lockWait, attempts, locks) are not read", async () => {
  const { JsonlStore } = await import("oda-tasks/node");
  const { IndexedDbStore } = await import("oda-tasks/browser");
  const { PostgresStore } = await import("oda-tasks/postgres");
  const { IDBFactory, IDBKeyRange } = await import("fake-indexeddb");
  await inTempDir("oda-polluted-", (dir) =>
    polluted(
      { size: 0, readChunkBytes: 0.5, lockWait: "soon", attempts: 0, locks: { request: () => Promise.reject(new Error("polluted lock")) } },
      async () => {
        const cache = new ChatStateCache(new MemoryStore());
        assert.equal(cache.size, 64);
        const jsonl = new JsonlStore(dir);
        assert.equal(await jsonl.create("c", [session]), true);
        assert.equal(await jsonl.append("c", [turn], 1), 2);
        const idb = new IndexedDbStore("polluted", { indexedDB: new IDBFactory(), IDBKeyRange });
        assert.equal(await idb.create("c", [session]), true, "no lock from Object.prototype");
        idb.close();
        assert.ok(new PostgresStore({ connect: () => Promise.reject(new Error("unused")), end: async () => {} }));
      },
    ),
  );
});

test("a SuggestionError carries only its own payload names, never Object.prototype's", async () => {
  const store = new MemoryStore();
  await store.create("c", offered());
  const error = await polluted({ limit: 99, outcome: "started" }, () =>
    new SuggestionService({ store }).dismiss("c", "nope").then(
      () => null,
      (e) => e,
    ),
  );
  assert.ok(error instanceof SuggestionError);
  assert.equal(error.code, "task-suggestion/not-found");
  assert.equal(Object.hasOwn(error, "limit"), false);
  assert.equal(Object.hasOwn(error, "outcome"), false);
});

// ---------------------------------------------------------------------------
// An app that wraps JSON.stringify (to pretty-print) cannot make
// an acknowledged write land across lines; every store writes one line of
// JSON that it checked, by the functions it loaded with.

test("with JSON.stringify wrapped to pretty-print, every store writes and reads back single-line entries", async () => {
  const { JsonlStore } = await import("oda-tasks/node");
  const { IndexedDbStore } = await import("oda-tasks/browser");
  const { IDBFactory, IDBKeyRange } = await import("fake-indexeddb");
  const fs = await import("node:fs");
  const stringify = JSON.stringify;
  const entry = { type: "message", role: "user", text: "hi", nested: { a: [1, 2] } };
  await inTempDir("oda-pretty-", async (dir) => {
    try {
      JSON.stringify = (value, replacer, space) => stringify(value, replacer, space ?? 2);
      const jsonl = new JsonlStore(dir);
      const stores = [new MemoryStore(), jsonl, new IndexedDbStore("pretty", { indexedDB: new IDBFactory(), IDBKeyRange, locks: null })];
      for (const store of stores) {
        assert.equal(await store.create("c", [session]), true);
        assert.equal(await store.append("c", [entry, turn], 1), 3, store.constructor.name);
        assert.deepEqual(await store.read("c"), [session, entry, turn], store.constructor.name);
      }
      const lines = fs.readFileSync(jsonl.file("c"), "utf8").split("\n");
      assert.deepEqual(lines, [stringify(session), stringify(entry), stringify(turn), ""], "one line each, as JSON");
    } finally {
      JSON.stringify = stringify;
    }
  });
});

test("entryLine: a RAW_TEXT is stored exactly; one that is not one line of a typed JSON object is a TypeError and nothing is written", async () => {
  const { RAW_TEXT, entryLine } = await import("../../pkg/dist/core/entry-text.js");
  assert.equal(RAW_TEXT, Symbol.for("oda-tasks.rawText"));
  const exact = '{"type":"start","sandbox":1e400,"approval":18446744073709551615,"ratio":1.50}';
  const carried = Object.defineProperty({ type: "start" }, RAW_TEXT, { value: exact });
  assert.equal(entryLine(carried), exact);
  const store = new MemoryStore();
  await store.create("c", [session]);
  for (const [bad, message] of [
    [
      Object.defineProperty({ type: "x" }, RAW_TEXT, { value: '{"type":\n"x"}' }),
      "oda-tasks: entry 0's JSON text is not one line (is JSON.stringify wrapped?); nothing was written",
    ],
    [Object.defineProperty({ type: "x" }, RAW_TEXT, { value: "[1]" }), "oda-tasks: entry 0 is not a JSON object (it is an array)"],
    [Object.defineProperty({ type: "x" }, RAW_TEXT, { value: '{"type":1}' }), "oda-tasks: entry 0 has no string `type`"],
    [Object.defineProperty({ type: "x" }, RAW_TEXT, { value: "{" }), "oda-tasks: entry 0 has a text that is not JSON"],
    [Object.defineProperty({ type: "x" }, RAW_TEXT, { value: 42 }), "oda-tasks: entry 0 has a RAW_TEXT that is not a string"],
    [{ type: 7 }, "oda-tasks: entry 0 has no string `type`"],
  ]) {
    await assert.rejects(store.append("c", [bad]), (e) => e instanceof TypeError && e.message === message, message);
  }
  assert.deepEqual(await store.read("c"), [session], "nothing written");
  // An entry the core made is taken as the core wrote it; given another text, it is checked again.
  const made = ChatState.fromLog([session]).todoWrite({ todos: [{ content: "Ship", status: "pending" }] }).entry;
  Object.defineProperty(made, RAW_TEXT, { value: '{"type":\n"todo_update"}' });
  await assert.rejects(store.append("c", [made]), {
    name: "TypeError",
    message: "oda-tasks: entry 0's JSON text is not one line (is JSON.stringify wrapped?); nothing was written",
  });
  assert.deepEqual(await store.read("c"), [session], "nothing written");
  // A copy of the package's code loaded after the app wrapped JSON.stringify takes the
  // wrapper: its check refuses what the wrapper makes, rather than write it. (The module
  // is bundled: a fresh copy of the shared chunk it re-exports is a fresh copy of its code.)
  const { readFileSync } = await import("node:fs");
  const stub = readFileSync(new URL("../../pkg/dist/core/entry-text.js", import.meta.url), "utf8");
  const chunk = /\bentryLine\b[^}]*\} from "\.\.\/(chunks\/[\w-]+\.js)"/.exec(stub)[1];
  const stringify = JSON.stringify;
  JSON.stringify = (value, replacer, space) => stringify(value, replacer, space ?? 2);
  try {
    const late = await import(`../../pkg/dist/${chunk}?wrapped=${Date.now()}`);
    assert.throws(() => late.entryLine({ type: "x", a: 1 }), {
      name: "TypeError",
      message: "oda-tasks: the entry's JSON text is not one line (is JSON.stringify wrapped?); nothing was written",
    });
  } finally {
    JSON.stringify = stringify;
  }
});
