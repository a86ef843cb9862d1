// The golden corpus: calls and logs whose every answer is recorded from the
// BUILT package (tests/golden/generate.mjs) and checked byte for byte
// (tests/node/golden.test.mjs), so a change of the core cannot change what a
// user sees without a fixture change that says why.
import * as glue from "../../pkg/wasm/oda_tasks.js";
import {
  ChatState,
  checkGoal,
  clampPermission,
  planStart,
  replaySuggestions,
  replayTodos,
  settleSuggestion,
  startedChat,
  suggestTask,
  suggestTaskTool,
  todoWrite,
  todoWriteTool,
} from "oda-tasks";
import { randomLog } from "../node/support/random-log.mjs";

const S =
  '{"type":"session","v":1,"chatId":"p","workspace":"/w","scheduledTaskFolder":false,"agent":"top-level","settings":{"permission":"auto","sandbox":{"b":[1,2.50,-0e0],"a":"x"},"approval":18446744073709551615}}';
const T = '{"type":"turn_started"}';
const E = '{"type":"turn_ended"}';
const O = (id, extra = "") => `{"type":"suggestion_offered","v":1,"id":"${id}","title":"t ${id}","tldr":"w","brief":"b"${extra}}`;
const U = (items) => JSON.stringify({ type: "todo_update", v: 1, todos: items.map(([content, status]) => ({ content, status })) });

/** Lines an app, an older writer or damage may leave in a log, one per case. */
const ODD_LINES = [
  "",
  " ",
  "\t",
  "1",
  "null",
  "true",
  '"text"',
  "[]",
  "[1,2]",
  "{}",
  '{"type":1}',
  '{"type":null}',
  '{"type":"app"}',
  '{"type":"app","deep":' + "[".repeat(10000) + "]".repeat(10000) + "}",
  '{"type":"app","deep":' + "[".repeat(200) + "]".repeat(200) + "}",
  '{"type":"todo_update","deep":' + "[".repeat(200) + "]".repeat(200) + ',"todos":[]}',
  "{oops",
  '{"type":"a"',
  '{"type":"a"}}',
  '{"type":"a"} x',
  '{"type":"a",}',
  '{"a" 1}',
  '{"type":"\\x"}',
  '{"type":"\\ud800"}',
  '{"type":"\\udc00x"}',
  '{"type":"a","k":"\\ud800"}',
  '{"type":"todo_update","todos":[{"content":"\\ud800","status":"pending"}]}',
  '{"type":"a\u0001"}',
  '{"type":"x","n":1e400}',
  '{"type":"x","n":-}',
  '{"type":"x","n":01}',
  '{"type":"x","n":1.}',
  '{"type":"session"}',
  '{"type":"session","v":2}',
  '{"type":"session","v":0}',
  '{"type":"session","v":1.5}',
  '{"type":"session","v":"1"}',
  '{"type":"session","v":1.0,"workspace":"/w"}',
  '{"type":"session","v":1e0,"workspace":"/w"}',
  '{"type":"session","v":1e400}',
  '{"type":"session","v":-1}',
  '{"type":"session","v":99999999999999999999999}',
  '{"type":"session","agent":5}',
  '{"type":"session","agent":"helper"}',
  '{"type":"session","workspace":7,"title":[],"chatId":{}}',
  '{"type":"session","scheduledTaskFolder":"no"}',
  '{"type":"session","settings":5}',
  '{"type":"session","settings":{"sandbox":' + "[".repeat(300) + "]".repeat(300) + "}}",
  '{"type":"session","origin":{"chatId":"c"}}',
  '{"type":"session","origin":["c","s1"]}',
  '{"type":"session","settings":{"permission":5}}',
  '{"type":"session","settings":null,"agent":null}',
  '{"type":"session","type":"app"}',
  '{"type":"app","type":"session","workspace":"/w"}',
  '{"type":"session","agent":"helper","agent":"top-level"}',
  '{"type":"session","agent":"top-level","agent":"helper"}',
  '{"type":"turn_started","v":9}',
  '{"type":"turn_ended","v":"x"}',
  '{"type":"todo_update"}',
  '{"type":"todo_update","v":2,"todos":[]}',
  '{"type":"todo_update","todos":5}',
  '{"type":"todo_update","todos":[1]}',
  '{"type":"todo_update","todos":[{"content":"a"}]}',
  '{"type":"todo_update","todos":[{"content":"a","status":"done"}]}',
  '{"type":"todo_update","todos":[["a","pending"]]}',
  '{"type":"todo_update","todos":[{"status":"pending","content":"a","x":1}]}',
  '{"type":"todo_update","todos":[{"content":"a","status":"pending"},{"content":"a","status":"completed"}]}',
  '{"todos":[{"content":"b","status":"pending"}],"type":"todo_update"}',
  '{"type":"todo_update","todos":[],"todos":[{"content":"c","status":"pending"}]}',
  '{"type":"todo_update","todos":null}',
  O("s1"),
  O("s1"),
  '{"type":"suggestion_offered","id":"s7"}',
  '{"type":"suggestion_offered","id":5,"title":"t"}',
  '{"type":"suggestion_offered","v":3,"id":"s8"}',
  '{"type":"suggestion_offered","id":"s2","id":"s3","title":"t","tldr":"w","brief":"b"}',
  O("s4", ',"title":"again"'),
  '{"type":"suggestion_settled","id":"s1","outcome":"dismissed"}',
  '{"type":"suggestion_settled","id":"s1","outcome":"started"}',
  '{"type":"suggestion_settled","id":"s1","outcome":"started","chatId":"n"}',
  '{"type":"suggestion_settled","id":"s9","outcome":"drafted"}',
  '{"type":"suggestion_settled","id":"s1","outcome":"lost"}',
  '{"type":"suggestion_settled","outcome":"drafted"}',
  '{"type":"suggestion_settled","id":"s1","outcome":"restored","chatId":5}',
  '{"type":"message","role":"user"}',
  '{"type":"message","role":"assistant","text":"hi"}',
  '{"type":"message"}',
  '{"type":"message","role":5}',
  '{"type":"message","role":"user","source":{"kind":"suggestion","chatId":"p","suggestionId":"s1"}}',
  '{"type":"message","role":"user","source":{"kind":"other"}}',
  '{"type":"message","role":"user","source":5}',
  '{"type":"message","role":"user","source":["suggestion","p","s1"]}',
  '\u00ef\u00bb\u00bf{"type":"app"}',
  '{"type":"app","t":"\u2028 é 😀"}',
];

function each(q, push) {
  const twoActive = {
    todos: [
      { content: "a", status: "in_progress" },
      { content: "b", status: "in_progress" },
    ],
  };
  push("replayTodos", () => q.replayTodos());
  push("replaySuggestions", () => q.replaySuggestions());
  push("todoWrite", () =>
    q.todoWrite({
      todos: [
        { content: "Write tests", status: "in_progress" },
        { content: "Ship", status: "pending" },
      ],
    }),
  );
  push("todoWrite oneActive off", () => q.todoWrite(twoActive, { oneActive: false }));
  push("suggestTask", () => q.suggestTask({ title: "Add retries", tldr: "Flaky uploads", brief: "Retry the PUT." }));
  for (const id of ["s1", "s2", "s3", "s4", "s9"]) {
    for (const action of ["draft", "dismiss", "restore"]) push(`settle ${id} ${action}`, () => q.settleSuggestion(id, action));
    push(`planStart ${id}`, () => q.planStart("p", id));
    push(`planStart ${id} request`, () => q.planStart("p", id, { model: "small", permission: "full-access" }));
    push(`planStart ${id} order`, () => q.planStart("p", id, { permission: "auto" }, ["ask", "auto"]));
    push(`startedChat p ${id}`, () => q.startedChat("p", id));
  }
  push("checkGoal create", () => q.checkGoal("create"));
  push("checkGoal complete", () => q.checkGoal("complete"));
}

const TODO_INPUTS = [
  null,
  1,
  "x",
  [],
  {},
  { todos: 1 },
  { todos: null },
  { todos: "x" },
  { todos: [] },
  { todos: [], extra: 1 },
  { b: 1, a: 2 },
  { todos: [1] },
  { todos: [null] },
  { todos: [{}] },
  { todos: [{ content: "a", status: "pending", id: 1 }] },
  { todos: [{ content: "a", status: "done" }] },
  { todos: [{ content: "a", status: 5 }] },
  { todos: [{ content: "a" }] },
  { todos: [{ content: "a", status: "x".repeat(41) }] },
  { todos: [{ content: "a", status: "\u001b[2J" }] },
  { todos: [{ content: " ", status: "pending" }] },
  { todos: [{ content: 5, status: "pending" }] },
  {
    todos: [
      { content: " a ", status: "pending" },
      { content: "a", status: "completed" },
    ],
  },
  {
    todos: [
      { content: "a\u0000\u001b]0;t\u0007\r\n", status: "in_progress" },
      { content: "b", status: "in_progress" },
      { content: "c", status: "in_progress" },
    ],
  },
  { todos: [{ content: "\ud800", status: "pending" }] },
  { todos: [{ content: "ok", status: "pending", "\udc00": 1 }] },
  {
    todos: [
      { content: "x".repeat(300), status: "pending" },
      { content: "x".repeat(300), status: "pending" },
    ],
  },
  {
    todos: Array.from({ length: 30 }, (_, i) => ({
      content: `item ${i} é 😀 "q" \\`,
      status: ["pending", "in_progress", "completed"][i % 3],
    })),
  },
  { ["k".repeat(250)]: 1 },
  { todos: [{ content: "a", status: "pending", ["é".repeat(220)]: 1 }] },
];
const SUGGEST_INPUTS = [
  null,
  1,
  [],
  {},
  { title: 1, tldr: "w", brief: "b" },
  { title: "t", tldr: "w" },
  { title: "t", tldr: "w", brief: "b", x: 1 },
  { title: " ", tldr: "w", brief: "b" },
  { title: "t".repeat(61), tldr: "w", brief: "b" },
  { title: "😀".repeat(60), tldr: "w", brief: "b" },
  { title: "😀".repeat(61), tldr: "w", brief: "b" },
  { title: "t", tldr: "w".repeat(241), brief: "b" },
  { title: "t", tldr: "w", brief: "b".repeat(4001) },
  { title: " Fix \u001b]52;c;x\u0007 it ", tldr: " w ", brief: " b " },
  { title: "\ud800", tldr: "w", brief: "b" },
  { title: "t", tldr: "w", brief: "b", "\ud800": 1 },
  { a: { b: [{ c: "\udc00" }] } },
];

/**
 * The core's raw answer: its JSON text. Calls that write entries answer
 * `[answer JSON, entry texts…]`, each entry text exactly the bytes of that
 * entry inside the answer (checked here), so the answer text alone is recorded.
 */
function rawAnswer(parts) {
  if (!Array.isArray(parts)) return parts;
  for (const text of parts.slice(1)) {
    if (!parts[0].includes(text)) throw new Error(`entry text ${text} is not the bytes of the answer's entry`);
  }
  return parts[0];
}

/** Every answer of the corpus, in order: [name, JSON text of the answer or of what was thrown]. */
export function goldenAnswers() {
  const out = [];
  const push = (name, ask) => {
    let text;
    try {
      text = JSON.stringify({ answer: ask() });
    } catch (e) {
      text = JSON.stringify({ throws: `${e?.name}: ${e?.message}` });
    }
    out.push([name, text]);
  };
  const enc = (s) => new TextEncoder().encode(s);
  // Logs as JSONL bytes: one odd line within a chat that has offers and a list.
  const base = [
    S,
    T,
    U([
      ["a", "pending"],
      ["b", "in_progress"],
    ]),
    O("s1"),
    E,
    T,
    O("s2"),
    '{"type":"message","role":"user"}',
  ];
  ODD_LINES.forEach((line, i) => {
    const log =
      [
        ...base.slice(0, 3),
        line,
        ...base.slice(3),
        line,
        U([
          ["b", "completed"],
          ["c", "pending"],
          ["a", "pending"],
        ]),
      ].join("\n") + "\n";
    for (const [how, bytes] of [
      ["lf", log],
      ["crlf", log.replaceAll("\n", "\r\n")],
      ["torn", log + line],
    ]) {
      const state = ChatState.fromJsonl(enc(bytes));
      const report = state.endJsonl();
      push(`odd ${i} ${how} report`, () => ({ report, length: state.length }));
      if (how === "lf") each(state, (name, ask) => push(`odd ${i} ${name}`, ask));
      else push(`odd ${i} ${how} replayTodos`, () => state.replayTodos());
      state.free();
    }
    // The same line alone, as the one session line, and fed as an entry text.
    const alone = ChatState.fromJsonl(enc(line + "\n" + T + "\n"));
    push(`odd ${i} alone`, () => ({
      report: alone.endJsonl(),
      todos: alone.replayTodos(),
      suggest: alone.suggestTask({ title: "t", tldr: "w", brief: "b" }),
    }));
    alone.free();
    // The core's own texts of the calls that write entries: the bytes a store appends.
    const raw = new glue.ChatStateCore(true);
    raw.ingestJsonl(enc(log));
    raw.endJsonl();
    push(`odd ${i} raw todoWrite`, () => rawAnswer(raw.todoWrite('{"input":{"todos":[{"content":"x","status":"pending"}]}}')));
    push(`odd ${i} raw suggestTask`, () => rawAnswer(raw.suggestTask('{"input":{"title":"t","tldr":"w","brief":"b"}}')));
    for (const id of ["s1", "s2", "s4"]) {
      push(`odd ${i} raw planStart ${id}`, () => rawAnswer(raw.planStart(`{"chatId":"p","id":"${id}","request":null,"permissions":null}`)));
      push(`odd ${i} raw settle ${id}`, () => rawAnswer(raw.settleSuggestion(`{"id":"${id}","action":"dismiss"}`)));
    }
    raw.free();
  });
  // Random logs as objects, through the pure functions.
  for (let seed = 1; seed <= 40; seed++) {
    const log = randomLog(seed);
    const q = {
      replayTodos: () => replayTodos(log),
      replaySuggestions: () => replaySuggestions(log),
      todoWrite: (i, o) => todoWrite(log, i, o),
      suggestTask: (i) => suggestTask(log, i),
      settleSuggestion: (id, a) => settleSuggestion(log, id, a),
      planStart: (c, id, r, p) => planStart(log, c, id, r, p),
      startedChat: (c, id) => startedChat(log, c, id),
      checkGoal: (a) => checkGoal(log, a),
    };
    each(q, (name, ask) => push(`random ${seed} ${name}`, ask));
  }
  // Tool inputs.
  const open = [JSON.parse(S.replace(',"approval":18446744073709551615', "")), { type: "turn_started" }];
  TODO_INPUTS.forEach((input, i) => {
    push(`todoWrite input ${i}`, () => todoWrite(open, input));
    push(`todoWrite input ${i} no session`, () => todoWrite(null, input));
  });
  SUGGEST_INPUTS.forEach((input, i) => {
    push(`suggestTask input ${i}`, () => suggestTask(open, input));
    push(`suggestTask input ${i} no session`, () => suggestTask(null, input));
  });
  push("todoWrite deep input", () => todoWrite(open, { todos: JSON.parse("[".repeat(200) + "]".repeat(200)) }));
  push("todoWrite 127 deep", () => todoWrite(open, { todos: JSON.parse("[".repeat(126) + "]".repeat(126)) }));
  push("todoWrite 128 deep", () => todoWrite(open, { todos: JSON.parse("[".repeat(127) + "]".repeat(127)) }));
  push("suggestTask too long input", () => suggestTask(open, { title: "t", tldr: "w", brief: "b".repeat(1 << 20) }));
  for (const args of [
    ["ask", "auto"],
    ["full-access", null],
    [null, null],
    ["x", "y"],
    ["auto", "ask", ["ask", "auto"]],
    ["a", "b", []],
    ["a", "b", [1]],
  ]) {
    push(`clampPermission ${JSON.stringify(args)}`, () => clampPermission(...args));
  }
  // The binding's params, read by the core (host misuse: thrown errors).
  const core = new glue.ChatStateCore(true);
  core.ingest(0, 2, S + "\n" + T);
  const PARAMS = {
    todoWrite: [
      "{}",
      '{"input":null}',
      '{"input":{"todos":[]},"x":1}',
      '{"options":{"oneActive":1}}',
      '{"options":{"x":1}}',
      '{"options":5}',
      "[]",
      '[{"todos":[]}]',
      '{"unreadable":5}',
      '{"unreadable":"why"}',
      '{"input":{"todos":[]},"input":{"todos":[]}}',
      "x",
      '{"input":1} x',
      '{"unreadable":"\\ud800"}',
    ],
    suggestTask: ["{}", '{"input":1,"x":2}', "[]", '{"unreadable":"too big"}'],
    settleSuggestion: [
      "{}",
      '{"id":"s1"}',
      '{"id":"s1","action":"x"}',
      '{"id":"s1","action":"draft","x":1}',
      '{"id":1,"action":"draft"}',
      '["s1","draft"]',
      '{"id":"\\ud800","action":"draft"}',
      '{"id":"s1","action":5}',
    ],
    planStart: [
      "{}",
      '{"chatId":"p","id":"s1"}',
      '{"chatId":"p","id":"s1","request":5}',
      '{"chatId":"p","id":"s1","request":{"x":1}}',
      '{"chatId":"p","id":"s1","permissions":[]}',
      '{"chatId":"p","id":"s1","permissions":[1]}',
      '{"chatId":"p","id":"s1","permissions":5}',
      '{"chatId":"p","id":"s1","request":{"model":5}}',
    ],
    startedChat: ["{}", '{"chatId":"p"}', '{"chatId":"p","suggestionId":"s1","x":1}', '["p","s1"]'],
    checkGoal: ["{}", '{"action":"x"}', '{"action":5}', '{"action":"create","x":1}', '["create"]'],
  };
  for (const [method, list] of Object.entries(PARAMS)) {
    for (const text of list) push(`params ${method} ${text}`, () => rawAnswer(core[method](text)));
  }
  for (const text of ["{}", '{"wanted":"a"}', '{"wanted":"a","ceiling":"b","permissions":null}', '{"x":1}', '["a","b"]', '["a"]']) {
    push(`params clampPermission ${text}`, () => glue.clampPermission(text));
  }
  // The package's constants, written at build time from the core's definitions.
  push("toolDefinitions", () => JSON.stringify({ todoWrite: todoWriteTool, suggestTask: suggestTaskTool }));
  push("ingest not continuing", () => core.ingest(5, 1, T));
  push("ingest count", () => core.ingest(2, 3, T));
  core.free();
  return out;
}
