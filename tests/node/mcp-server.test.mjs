// oda-tasks/mcp's server through the SDK's own Client over its in-memory
// transport: the tools as listed, the exact texts as the only content, isError
// on refusals, the card and offer in _meta, where a call's chat comes from,
// and turns named by the host's ids.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  beginTurn,
  ChatState,
  ChatStateCache,
  createChat,
  editTodos,
  MemoryStore,
  replayTodos,
  suggestTaskTool,
  todoWriteTool,
} from "oda-tasks";
import { odaMcpServer } from "oda-tasks/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { secondOfferRefused } from "./support/tool-fixtures.mjs";

/** A client connected to `odaMcpServer(options)`; `sessionId` given to the server's transport. */
async function connect(options, sessionId) {
  const server = odaMcpServer(options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  if (sessionId !== undefined) serverSide.sessionId = sessionId;
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

const todo = (content, status = "in_progress") => ({ todos: [{ content, status }] });
const offer = (title) => ({ title, tldr: "Worth it.", brief: "Do it in a new chat." });
const SUGGESTED = (title) => `Suggested "${title}". The user decides whether to start it; do not start it yourself.`;
const meta = (chat, turn) => ({ "oda-tasks/chat": chat, ...(turn === undefined ? {} : { "oda-tasks/turn": turn }) });

async function chatStore(...chats) {
  const store = new MemoryStore();
  for (const [id, session] of chats) await createChat(store, id, session);
  return store;
}

test("the tools are listed with the core's descriptions and JSON Schemas, honest annotations and the MCP Apps link", async () => {
  const client = await connect({ store: new MemoryStore() });
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    ["todo_write", "suggest_task"],
  );
  for (const [tool, core] of [
    [tools[0], todoWriteTool],
    [tools[1], suggestTaskTool],
  ]) {
    assert.equal(tool.description, core.description);
    const { $schema, ...schema } = tool.inputSchema;
    assert.equal($schema, "http://json-schema.org/draft-07/schema#");
    assert.deepEqual(schema, core.inputSchema);
    assert.deepEqual(tool.annotations, { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    assert.deepEqual(tool._meta, { ui: { resourceUri: "ui://oda-tasks/chat.html" } });
  }
  assert.equal(tools[1].description, "Offer one out-of-scope follow-up the user can start in a new chat; never for work you can do now.");
});

test("the model reads only the exact text: content is one text part, no structuredContent; the card and offer ride in _meta", async () => {
  const store = await chatStore(["c1", { workspace: "/w" }]);
  await beginTurn(store, "c1");
  const client = await connect({ store });
  const wrote = await client.callTool({ name: "todo_write", arguments: todo("Ship it"), _meta: meta("c1") });
  assert.deepEqual(wrote.content, [{ type: "text", text: "Updated todo list: 0 pending, 1 in progress, 0 completed" }]);
  assert.equal(wrote.isError, undefined);
  assert.equal("structuredContent" in wrote, false);
  const card = wrote._meta["oda-tasks/card"];
  const state = ChatState.fromLog(await store.read("c1"));
  assert.deepEqual(card, state.replayTodos().cards.at(-1)); // the card replay makes
  state.free();
  // The chat rides along too: the MCP Apps widget reads that chat's plan and suggestions.
  assert.deepEqual(Object.keys(wrote._meta), ["oda-tasks/chat", "oda-tasks/card"]);
  assert.equal(wrote._meta["oda-tasks/chat"], "c1");

  const offered = await client.callTool({ name: "suggest_task", arguments: offer("  Add retries "), _meta: meta("c1") });
  assert.deepEqual(offered.content, [{ type: "text", text: SUGGESTED("Add retries") }]);
  assert.equal("structuredContent" in offered, false);
  assert.deepEqual(offered._meta, {
    "oda-tasks/chat": "c1",
    "oda-tasks/offer": { id: "s1", title: "Add retries", tldr: "Worth it.", brief: "Do it in a new chat." },
  });
});

test("the guard alone: a todo_write written before the model saw a person's edit is refused once with the exact text (isError); the next records, the person's item kept", async () => {
  const store = await chatStore(["c1", { workspace: "/w" }]);
  const client = await connect({ store });
  const plan = {
    todos: [
      { content: "Write tests", status: "in_progress" },
      { content: "Ship", status: "pending" },
    ],
  };
  const first = await client.callTool({ name: "todo_write", arguments: plan, _meta: meta("c1", "t1") });
  assert.equal(first.content[0].text, "Updated todo list: 1 pending, 1 in progress, 0 completed");
  // The person adds an item between the model's two calls; the host injects nothing into the model's context.
  const withC = [...plan.todos, { content: "Tell the team", status: "pending" }];
  assert.equal((await editTodos(store, "c1", withC, { basedOn: (await store.read("c1")).length, by: "Ada" })).ok, true);
  const stale = await client.callTool({
    name: "todo_write",
    arguments: {
      todos: [
        { content: "Write tests", status: "completed" },
        { content: "Ship", status: "in_progress" },
      ],
    },
    _meta: meta("c1", "t1"),
  });
  const refusal =
    'Error: the user edited the todo list, and this update was not recorded: it was written before you saw their edit. What they changed:\n- added "Tell the team" (pending)\nThe list as edited (2 pending, 1 in progress, 0 completed):\n1. [in_progress] "Write tests"\n2. [pending] "Ship"\n3. [pending] "Tell the team"\nCall todo_write again with the whole list, starting from this one and keeping the user\'s changes.';
  assert.deepEqual(stale, { content: [{ type: "text", text: refusal }], isError: true, _meta: meta("c1") });
  assert.deepEqual(replayTodos(await store.read("c1")).todos, withC, "the person's item survives");
  // Refused once: the model, told by the refusal, writes the list with the person's item; it records.
  const kept = { todos: [{ content: "Write tests", status: "completed" }, { content: "Ship", status: "in_progress" }, withC[2]] };
  const again = await client.callTool({ name: "todo_write", arguments: kept, _meta: meta("c1", "t1") });
  assert.equal(again.isError, undefined);
  assert.equal(again.content[0].text, "Updated todo list: 1 pending, 1 in progress, 1 completed");
  const log = await store.read("c1");
  assert.deepEqual(
    log.map((e) => e.type),
    ["session", "turn_started", "todo_update", "todo_update", "todo_told", "todo_update"],
  );
  assert.equal(log[4].text, refusal, "what the model was told is in the log");
  assert.deepEqual(replayTodos(log).todos, kept.todos);
});

test("a bad input reaches the core: its exact refusal with isError, nothing recorded, no SDK validation text", async () => {
  const store = await chatStore(["c1", {}]);
  await beginTurn(store, "c1");
  const client = await connect({ store });
  const cases = [
    ["todo_write", {}, "Error: invalid todos: `todos` must be an array (got nothing)"],
    ["todo_write", { todos: [{ content: "a", status: "pending", id: 1 }] }, null],
    ["todo_write", { todos: [{ content: " ", status: "pending" }] }, "Error: invalid todo: `content` must be a non-empty string"],
    ["suggest_task", { title: "", tldr: "x", brief: "y" }, "suggest_task: title must not be empty"],
    ["suggest_task", { title: "x".repeat(61), tldr: "x", brief: "y" }, "suggest_task: title must be at most 60 characters (got 61)"],
  ];
  const before = (await store.read("c1")).length;
  for (const [name, args, exact] of cases) {
    const r = await client.callTool({ name, arguments: args, _meta: meta("c1") });
    assert.equal(r.isError, true, JSON.stringify(args));
    assert.equal(r.content.length, 1);
    const { text } = r.content[0];
    assert.doesNotMatch(text, /Input validation error|MCP error/);
    // The core's own answer for the same input, byte for byte.
    const core = ChatState.fromLog(await store.read("c1"));
    const expected = name === "todo_write" ? core.todoWrite(args) : core.suggestTask(args);
    core.free();
    assert.equal(text, expected.error);
    if (exact !== null) assert.equal(text, exact);
    assert.deepEqual(r._meta, { "oda-tasks/chat": "c1" }, "a refusal names its chat, nothing more");
  }
  assert.equal((await store.read("c1")).length, before);
});

test("the chat: _meta first, then the chatId option; with none the core refuses with no owning session", async () => {
  const store = await chatStore(["named", {}], ["fixed", {}]);
  const fixed = await connect({ store, chatId: "fixed" });
  await fixed.callTool({ name: "todo_write", arguments: todo("In named"), _meta: meta("named") });
  await fixed.callTool({ name: "todo_write", arguments: todo("In fixed") });
  const last = async (chat) => (await store.read(chat)).at(-1).todos[0].content;
  assert.equal(await last("named"), "In named");
  assert.equal(await last("fixed"), "In fixed");

  const none = await connect({ store });
  const w = await none.callTool({ name: "todo_write", arguments: todo("x") });
  assert.deepEqual(w, { content: [{ type: "text", text: "Error: todo_write requires an owning agent session" }], isError: true });
  const s = await none.callTool({ name: "suggest_task", arguments: offer("x") });
  assert.deepEqual(s, { content: [{ type: "text", text: "suggest_task requires an owning agent session" }], isError: true });
  // A chat named but not in the store is no owning session either.
  const missing = await none.callTool({ name: "todo_write", arguments: todo("x"), _meta: meta("nowhere", "t1") });
  assert.equal(missing.content[0].text, "Error: todo_write requires an owning agent session");
  assert.equal(await store.read("nowhere"), null);
});

test("sessionChat: a chat per MCP session id, created on the first call with the session fields; no session id, no chat", async () => {
  const store = new MemoryStore();
  const a = await connect({ store, sessionChat: { workspace: "/repo" } }, "sess-a");
  await a.callTool({ name: "todo_write", arguments: todo("First") });
  await a.callTool({ name: "todo_write", arguments: todo("Second") });
  const log = await store.read("mcp-session-sess-a");
  assert.equal(log[0].type, "session");
  assert.equal(log[0].workspace, "/repo");
  assert.deepEqual(
    log.slice(1).map((e) => e.todos[0].content),
    ["First", "Second"],
  );
  const noId = await connect({ store, sessionChat: {} });
  const r = await noId.callTool({ name: "todo_write", arguments: todo("x") });
  assert.equal(r.content[0].text, "Error: todo_write requires an owning agent session");
  assert.throws(() => odaMcpServer({ store, sessionChat: { workspce: "/x" } }), /`workspce` is not a session field/);
});

test("VS Code's _meta: with sessionChat, a chat per vscode.conversationId and a turn per vscode.requestId; ours win; an ill-formed one is left aside", async () => {
  const store = new MemoryStore();
  const client = await connect({ store, sessionChat: { workspace: "/repo" } }, "sess-v");
  const vscode = (conversation, request) => ({ "vscode.conversationId": conversation, "vscode.requestId": request });
  const call = (name, args, _meta) => client.callTool({ name, arguments: args, _meta });

  assert.equal((await call("todo_write", todo("Plan A"), vscode("conv-1", "req-1"))).isError, undefined);
  assert.equal((await call("suggest_task", offer("One"), vscode("conv-1", "req-1"))).content[0].text, SUGGESTED("One"));
  // The next message of the person: a new request, so a new turn (the plan clears).
  assert.equal((await call("suggest_task", offer("Two"), vscode("conv-1", "req-2"))).content[0].text, SUGGESTED("Two"));
  const log = await store.read("vscode-conv-1");
  assert.equal(log[0].workspace, "/repo");
  assert.deepEqual(
    log.map((e) => e.type + (e.turn === undefined ? "" : ` ${e.turn}`)),
    ["session", "turn_started req-1", "todo_update", "suggestion_offered", "turn_ended", "turn_started req-2", "suggestion_offered"],
  );
  // Another conversation is another chat; ours win over VS Code's.
  await call("todo_write", todo("Other"), vscode("conv-2", "req-3"));
  assert.equal((await store.read("vscode-conv-2")).at(-1).todos[0].content, "Other");
  await createChat(store, "mine");
  await call("todo_write", todo("Mine"), { ...vscode("conv-1", "req-4"), "oda-tasks/chat": "mine", "oda-tasks/turn": "t-9" });
  assert.deepEqual(
    (await store.read("mine")).slice(1).map((e) => e.turn ?? e.todos[0].content),
    ["t-9", "Mine"],
  );
  assert.equal((await store.read("vscode-conv-1")).length, 7, "conv-1 untouched");
  // Ill-formed ids (not strings, too long, a chat id no store takes) are hints left aside: the session's chat, no turn.
  for (const bad of [vscode(42, 7), vscode("x".repeat(300), "y".repeat(300)), vscode("a/b", "")]) {
    const r = await call("todo_write", todo("Session"), bad);
    assert.equal(r.isError, undefined);
    assert.equal(r._meta["oda-tasks/chat"], "mcp-session-sess-v");
  }
  assert.equal((await store.read("mcp-session-sess-v")).filter((e) => e.type === "turn_started").length, 0);
  // Without sessionChat, VS Code's conversation makes no chat: the core's refusal.
  const plain = await connect({ store });
  assert.equal(
    (await plain.callTool({ name: "todo_write", arguments: todo("x"), _meta: vscode("conv-9", "r") })).content[0].text,
    "Error: todo_write requires an owning agent session",
  );
  assert.equal(await store.read("vscode-conv-9"), null);
});

test("turn ids: a new id ends the open turn (the plan clears); the same id continues it (one offer per turn)", async () => {
  const store = await chatStore(["c1", { workspace: "/w" }]);
  const client = await connect({ store });
  const call = (name, args, turn) => client.callTool({ name, arguments: args, _meta: meta("c1", turn) });

  // No turn known yet: the core's refusal.
  assert.equal((await call("suggest_task", offer("Early"))).content[0].text, "suggest_task: requires an open model turn");
  assert.equal((await call("todo_write", todo("Plan A"), "turn-1")).isError, undefined);
  assert.equal((await call("suggest_task", offer("One"), "turn-1")).content[0].text, SUGGESTED("One"));
  const again = await call("suggest_task", offer("Two"), "turn-1");
  assert.deepEqual(again, secondOfferRefused("c1"));
  // A call with no turn id goes on in the open turn.
  assert.equal(
    (await call("suggest_task", offer("Three"))).content[0].text,
    "suggest_task: one suggestion per turn; this turn already offered one",
  );
  let state = ChatState.fromLog(await store.read("c1"));
  assert.equal(state.replayTodos().plan.state, "running");
  state.free();

  assert.equal((await call("suggest_task", offer("Next"), "turn-2")).content[0].text, SUGGESTED("Next"));
  const log = await store.read("c1");
  assert.deepEqual(
    log.filter((e) => e.type.startsWith("turn_")),
    [{ type: "turn_started", v: 1, turn: "turn-1" }, { type: "turn_ended" }, { type: "turn_started", v: 1, turn: "turn-2" }],
  );
  state = ChatState.fromLog(log);
  const { plan } = state.replayTodos();
  state.free();
  assert.equal(plan.todos.length, 0, "the standing plan cleared when turn-2 began");

  // A turn begun by other means (the host's own beginTurn) counts, and a new id ends it too.
  await beginTurn(store, "c1");
  assert.equal((await call("suggest_task", offer("Host turn"))).content[0].text, SUGGESTED("Host turn"));
  await call("todo_write", todo("Plan C"), "turn-3");
  assert.deepEqual(
    (await store.read("c1")).slice(-5).map((e) => e.type + (e.turn === undefined ? "" : ` ${e.turn}`)),
    ["turn_started", "suggestion_offered", "turn_ended", "turn_started turn-3", "todo_update"],
  );
});

test("two calls with the same new turn id at once open one turn, not two", async () => {
  const store = await chatStore(["c1", { workspace: "/w" }]);
  const clients = await Promise.all([connect({ store }), connect({ store }), connect({ store })]);
  for (let round = 1; round <= 3; round++) {
    const answers = await Promise.all(
      clients.flatMap((client, i) => [
        client.callTool({ name: "suggest_task", arguments: offer(`R${round} C${i}`), _meta: meta("c1", `turn-${round}`) }),
        client.callTool({ name: "todo_write", arguments: todo(`R${round} C${i}`), _meta: meta("c1", `turn-${round}`) }),
      ]),
    );
    const offered = answers.filter((r) => r.content[0].text.startsWith("Suggested"));
    assert.equal(offered.length, 1, `round ${round}: one offer in the turn`);
  }
  const turns = (await store.read("c1")).filter((e) => e.type === "turn_started");
  assert.deepEqual(
    turns.map((e) => e.turn),
    ["turn-1", "turn-2", "turn-3"],
  );
});

test("a helper chat stays refused by the core's session rule; suggestTask: false leaves the tool out", async () => {
  const store = await chatStore(["helper", { agent: "helper", workspace: "/w" }]);
  const client = await connect({ store });
  const r = await client.callTool({ name: "suggest_task", arguments: offer("x"), _meta: meta("helper", "t1") });
  assert.deepEqual(r, {
    content: [{ type: "text", text: "suggest_task is only for the top-level agent; report the follow-up in your result instead" }],
    isError: true,
    _meta: { "oda-tasks/chat": "helper" },
  });
  assert.equal((await client.callTool({ name: "todo_write", arguments: todo("Own list"), _meta: meta("helper") })).isError, undefined);

  const todoOnly = await connect({ store, suggestTask: false });
  assert.deepEqual(
    (await todoOnly.listTools()).tools.map((t) => t.name),
    ["todo_write"],
  );
});

test("ill-formed _meta is the host's mistake: a fixed text with isError, nothing recorded", async () => {
  const store = await chatStore(["c1", {}]);
  const client = await connect({ store });
  const chat = await client.callTool({ name: "todo_write", arguments: todo("x"), _meta: { "oda-tasks/chat": 7 } });
  assert.deepEqual(chat, {
    content: [{ type: "text", text: 'oda-tasks: _meta["oda-tasks/chat"] must be a non-empty string' }],
    isError: true,
  });
  const path = await client.callTool({ name: "todo_write", arguments: todo("x"), _meta: meta("../c1") });
  assert.deepEqual(path, {
    content: [
      {
        type: "text",
        text: 'oda-tasks: _meta["oda-tasks/chat"]: invalid chat id "../c1": it holds a path separator or a control character',
      },
    ],
    isError: true,
  });
  const turn = await client.callTool({ name: "todo_write", arguments: todo("x"), _meta: meta("c1", "") });
  assert.equal(turn.content[0].text, 'oda-tasks: _meta["oda-tasks/turn"] must be a string of 1 to 200 characters');
  assert.equal((await store.read("c1")).length, 1);
});

test("a store failure is a fixed text naming its code, reported to onError, never the store's message", async () => {
  const store = await chatStore(["c1", {}]);
  const failing = {
    read: (chatId) => store.read(chatId),
    create: (chatId, entries) => store.create(chatId, entries),
    append: async () => {
      throw Object.assign(new Error("disk /secret/path is gone"), { code: "store/unavailable" });
    },
  };
  const reported = [];
  const client = await connect({ store: failing, onError: (e) => reported.push(e.message) });
  const r = await client.callTool({ name: "todo_write", arguments: todo("x"), _meta: meta("c1") });
  assert.deepEqual(r, { content: [{ type: "text", text: "oda-tasks: the store failed (store/unavailable); try again" }], isError: true });
  assert.deepEqual(reported, ["disk /secret/path is gone"]);
});

test("options are checked before anything exists: an unknown or ill-typed option throws", async () => {
  const store = new MemoryStore();
  assert.throws(() => odaMcpServer({ store, chatID: "c1" }), {
    name: "TypeError",
    message: "oda-tasks: invalid arguments of odaMcpServer: unknown option `chatID`",
  });
  assert.throws(() => odaMcpServer({ store, suggestTask: "no" }), /`suggestTask` must be a boolean/);
  assert.throws(() => odaMcpServer({ store: {} }), /`store` must be a store/);
  assert.throws(() => odaMcpServer({ store, chatId: "a/b" }), /`chatId`: invalid chat id "a\/b"/);
  await assert.rejects(beginTurn(store, "c1", { turn: "" }), /`turn` must be a string of 1 to 200 characters/);
});

test("beginTurn(store, chatId, { turn }): the open turn's id goes on (nothing written, its number); any other id, or a turn with none, ends it", async () => {
  const store = await chatStore(["c1", {}]);
  const turns = async () =>
    (await store.read("c1")).filter((e) => e.type.startsWith("turn_")).map((e) => `${e.type}${e.turn ? ` ${e.turn}` : ""}`);
  assert.equal(await beginTurn(store, "c1", { turn: "a" }), 1);
  const length = (await store.read("c1")).length;
  assert.equal(await beginTurn(store, "c1", { turn: "a" }), 1);
  assert.equal((await store.read("c1")).length, length, "the same id writes nothing");
  assert.equal(await beginTurn(store, "c1"), 2); // no id: always a new turn
  assert.equal(await beginTurn(store, "c1", { turn: "a" }), 3); // the open turn has no id
  assert.equal(await beginTurn(store, "c1", { turn: "b" }), 4);
  assert.deepEqual(await turns(), [
    "turn_started a",
    "turn_ended",
    "turn_started",
    "turn_ended",
    "turn_started a",
    "turn_ended",
    "turn_started b",
  ]);
  // A fresh cache reads the id back from the log.
  assert.equal(await beginTurn(store, "c1", { turn: "b", cache: new ChatStateCache(store) }), 4);
  assert.equal((await turns()).length, 7);
  // A turn_started of a newer format carries no id this version reads: any id ends it.
  await store.append("c1", [{ type: "turn_ended" }, { type: "turn_started", v: 2, turn: "c" }]);
  assert.equal(await beginTurn(store, "c1", { turn: "c" }), 6);
});

test("addTools: the app's own tools on the same server beside ours; a non-function is refused before anything exists", async () => {
  const store = await chatStore(["c1", {}]);
  const client = await connect({
    store,
    addTools: (server) =>
      server.registerTool("ping", { description: "Answers pong." }, async () => ({ content: [{ type: "text", text: "pong" }] })),
  });
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ["ping", "suggest_task", "todo_write"]);
  assert.deepEqual((await client.callTool({ name: "ping", arguments: {} })).content, [{ type: "text", text: "pong" }]);
  assert.throws(() => odaMcpServer({ store, addTools: "ping" }), /^TypeError: oda-tasks: invalid arguments of odaMcpServer: `addTools`/);
});
