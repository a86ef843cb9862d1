// oda-tasks/claude-agent-sdk (withOda) with the real Claude Agent SDK and the
// real Claude Code CLI it spawns (its npm platform package), pointed at a
// local fake Messages API (support/anthropic-fake.mjs): what reaches the
// model is read from the requests the CLI sends. Against the BUILT package.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { createChat, editTodos, MemoryStore, replayTodos, suggestTaskTool, todoListText, todoWrite, todoWriteTool } from "oda-tasks";
import { CARD_META, CHAT_META, helperChatId, ODA_TOOL_NAMES, OFFER_META, SDK_TASK_TOOLS, withOda } from "oda-tasks/claude-agent-sdk";
import { until } from "./support/until.mjs";
import { offlineEnv, startFakeAnthropic, textsOf, toolResults, toolUse } from "./support/anthropic-fake.mjs";
import { card, edited, good, offer, suggestion } from "./support/tool-fixtures.mjs";

const api = await startFakeAnthropic();
const home = mkdtempSync(join(tmpdir(), "oda-claude-"));
after(async () => {
  await api.close();
  rmSync(home, { recursive: true, force: true });
});

/** The app's SDK options for a run: the CLI offline, its config in a temp home, the model at the fake API. */
const cli = (more = {}) => ({
  cwd: home,
  settingSources: [],
  env: offlineEnv(home, api.url),
  ...more,
});
const run = async (prompt, options) => {
  const messages = [];
  for await (const m of query({ prompt, options })) messages.push(m);
  return messages;
};
const types = async (store, chatId) => (await store.read(chatId)).map((e) => e.type);
const oneTurn = ["session", "turn_started", "todo_update", "suggestion_offered", "turn_ended"];
const helperRefusal = "suggest_task is only for the top-level agent; report the follow-up in your result instead";
const badStatus = { todos: [{ content: "a", status: "done" }] };
const subList = { todos: [{ content: "Read the logs", status: "in_progress" }] };
/** The tool result the SDK handed the app for tool-use `id` (its `tool_use_result`). */
const resultFor = (messages, id) =>
  messages.find((m) => m.type === "user" && Array.isArray(m.message.content) && m.message.content.some((c) => c.tool_use_id === id))
    ?.tool_use_result;

const store = new MemoryStore();
await createChat(store, "c", { workspace: "/w" });

test("a prompt is one turn: the core's exact texts reach the model, the list is stored, the SDK's task tools are not offered, a subagent's calls go to its own chat", async () => {
  api.script("RUN-A", [
    [toolUse("t1", ODA_TOOL_NAMES.todo_write, good), toolUse("t2", ODA_TOOL_NAMES.suggest_task, { ...suggestion, title: "  " })],
    [
      toolUse("t3", ODA_TOOL_NAMES.todo_write, badStatus),
      toolUse("t4", ODA_TOOL_NAMES.suggest_task, suggestion),
      toolUse("t5", "Agent", {
        description: "Read logs",
        prompt: "SUB-A: read the logs",
        subagent_type: "general-purpose",
        run_in_background: false,
      }),
    ],
    [{ type: "text", text: "done" }],
  ]);
  api.script("SUB-A", [
    [toolUse("s1", ODA_TOOL_NAMES.suggest_task, suggestion), toolUse("s2", ODA_TOOL_NAMES.todo_write, subList)],
    [{ type: "text", text: "read" }],
  ]);
  // The app's own options: kept, and extended.
  const seen = [];
  const subagents = new Set();
  const options = withOda(
    cli({
      disallowedTools: ["Bash"],
      hooks: {
        UserPromptSubmit: [{ hooks: [async () => (seen.push("UserPromptSubmit"), {})] }],
        PreToolUse: [
          {
            hooks: [
              async (input) => {
                seen.push(`PreToolUse ${input.tool_name}`);
                if (input.agent_id !== undefined) subagents.add(input.agent_id);
                return {};
              },
            ],
          },
        ],
      },
    }),
    { store, chatId: "c" },
  );
  const messages = await run("RUN-A: plan the release", options);
  assert.equal(messages.at(-1).subtype, "success");

  // What the model read back, byte for byte (and refusals marked as errors).
  const results = toolResults(api.requests);
  assert.deepEqual(results.get("t1"), { text: "Updated todo list: 1 pending, 1 in progress, 0 completed", isError: false });
  assert.deepEqual(results.get("t2"), { text: "suggest_task: title must not be empty", isError: true });
  assert.deepEqual(results.get("t3"), { text: todoWrite([], badStatus).error, isError: true });
  assert.deepEqual(results.get("t4"), {
    text: 'Suggested "Add retries". The user decides whether to start it; do not start it yourself.',
    isError: false,
  });
  assert.deepEqual(results.get("s1"), { text: helperRefusal, isError: true });
  assert.deepEqual(results.get("s2"), { text: "Updated todo list: 0 pending, 1 in progress, 0 completed", isError: false });

  // The chat: one turn around the run, the list as sent.
  assert.deepEqual(await types(store, "c"), oneTurn);
  assert.deepEqual(replayTodos(await store.read("c")).todos, good.todos);
  // The subagent's list is its own chat's, a helper's.
  assert.equal(subagents.size, 1);
  const helper = helperChatId("c", [...subagents][0]);
  const helperLog = await store.read(helper);
  assert.deepEqual(
    helperLog.map((e) => e.type),
    ["session", "todo_update"],
  );
  assert.equal(helperLog[0].agent, "helper");
  assert.deepEqual(replayTodos(helperLog).todos, subList.todos);

  // The app gets the card and the offer in each result's _meta.
  assert.deepEqual(resultFor(messages, "t1")._meta, { [CHAT_META]: "c", [CARD_META]: card });
  assert.deepEqual(resultFor(messages, "t2")._meta, { [CHAT_META]: "c" });
  assert.deepEqual(resultFor(messages, "t4")._meta, { [CHAT_META]: "c", [OFFER_META]: offer });

  // The tools the model was offered: both of ours, with the core's texts and schemas; none of the SDK's task tools.
  const main = api.of("RUN-A");
  const sub = api.of("SUB-A");
  assert.equal(main.length, 3);
  assert.equal(sub.length, 2);
  for (const { body } of [...main, ...sub]) {
    const names = body.tools.map((t) => t.name);
    for (const own of SDK_TASK_TOOLS) assert.ok(!names.includes(own), `${own} is not offered`);
    for (const [name, tool] of [
      [ODA_TOOL_NAMES.todo_write, todoWriteTool],
      [ODA_TOOL_NAMES.suggest_task, suggestTaskTool],
    ]) {
      const offered = body.tools.find((t) => t.name === name);
      assert.equal(offered.description, tool.description);
      const { $schema: _, ...schema } = offered.input_schema;
      assert.deepEqual(schema, tool.inputSchema);
    }
  }
  // The app's hooks ran, its disallowed tool stayed disallowed; the first turn had no list to remind of.
  assert.ok(!main[0].body.tools.some((t) => t.name === "Bash"));
  assert.deepEqual(seen.slice(0, 2), ["UserPromptSubmit", `PreToolUse ${ODA_TOOL_NAMES.todo_write}`]);
  assert.ok(!textsOf(main[0].body).some((t) => t.includes("Your todo list")));
});

test("each prompt of a streamed conversation is one turn, ended by its Stop or StopFailure before its result; the list is put back when due", async () => {
  api.script("RUN-B", [[{ type: "text", text: "noted" }], { status: 400, message: "the fake API refuses this request" }]);
  const answered = [];
  const result = (n) => new Promise((resolve) => (answered[n] = resolve));
  async function* prompts() {
    yield { type: "user", message: { role: "user", content: "RUN-B: what is left?" }, parent_tool_use_id: null };
    await result(0);
    yield { type: "user", message: { role: "user", content: "And now?" }, parent_tool_use_id: null };
    await result(1);
  }
  const failed = [];
  const options = withOda(cli({ hooks: { StopFailure: [{ hooks: [async (i) => (failed.push(i.error), {})] }] } }), {
    store,
    chatId: "c",
    everyTurns: 1,
  });
  // The log when each result arrives: the query (and its CLI) still runs, so only the turn's own hooks ended it.
  const atResult = [];
  try {
    for await (const m of query({ prompt: prompts(), options })) {
      if (m.type !== "result") continue;
      atResult.push(await types(store, "c"));
      answered[atResult.length - 1]?.();
    }
  } catch (e) {
    assert.match(e.message, /the fake API refuses this request/); // the CLI exits with the failed turn's error
  }
  assert.deepEqual(atResult, [
    [...oneTurn, "turn_started", "turn_ended"],
    [...oneTurn, "turn_started", "turn_ended", "turn_started", "turn_ended"],
  ]);
  assert.equal(failed.length, 1, "the CLI ran the StopFailure hooks");
  assert.deepEqual(await types(store, "c"), atResult[1]);
  // Turn 2 follows the update's turn: not due. Turn 3 is one whole turn later: due with everyTurns 1.
  const [turn2, turn3] = api.of("RUN-B");
  assert.ok(!textsOf(turn2.body).some((t) => t.includes("Your todo list")));
  assert.ok(
    textsOf(turn3.body).some((t) => t.includes(todoListText(good.todos))),
    "the reminder is in the model's context",
  );
});

test("a person's edit while the model works reaches its next request as the exact notice (PostToolUse), once; a stale todo_write is refused once and the person's items survive", async () => {
  const chat = new MemoryStore();
  await createChat(chat, "e", { workspace: "/w" });
  const plan = good;
  const { withC, withCD, notice, refusal } = edited;
  const edit = async (todos) => editTodos(chat, "e", todos, { basedOn: (await chat.read("e")).length, by: "Ada" });
  api.script("RUN-E", [
    [toolUse("e1", ODA_TOOL_NAMES.todo_write, plan)],
    // The person adds an item while the model writes its second step (a suggestion): its next request is told.
    async () => {
      await edit(withC.todos);
      return [toolUse("e2", ODA_TOOL_NAMES.suggest_task, suggestion)];
    },
    // And another while it writes the third, which it writes without knowing of it: stale.
    async () => {
      await edit(withCD.todos);
      return [toolUse("e3", ODA_TOOL_NAMES.todo_write, withC)];
    },
    [toolUse("e4", ODA_TOOL_NAMES.todo_write, withCD)],
    [{ type: "text", text: "done" }],
  ]);
  const messages = await run("RUN-E: plan the release", withOda(cli(), { store: chat, chatId: "e" }));
  assert.equal(messages.at(-1).subtype, "success");
  const log = await chat.read("e");
  assert.deepEqual(
    log.map((e) => e.type + (e.by ? " by" : "")),
    [
      "session",
      "turn_started",
      "todo_update",
      "todo_update by",
      "suggestion_offered",
      "todo_told",
      "todo_update by",
      "todo_told",
      "todo_update",
      "turn_ended",
    ],
  );
  assert.equal(log[5].text, notice);
  assert.equal(log[7].text, refusal);
  const requests = api.of("RUN-E");
  const told = (n) => textsOf(requests[n].body).filter((t) => t.includes(notice)).length;
  // The first two requests came before the edit was told; the third carries the notice, and it is told once.
  assert.deepEqual([told(0), told(1), told(2)], [0, 0, 1]);
  assert.equal(told(3), 1, "carried in the conversation, not told again");
  // The stale call's result is the refusal, marked as an error; the next records, the person's items in it.
  const results = toolResults(api.requests);
  assert.deepEqual(results.get("e3"), { text: refusal, isError: true });
  assert.deepEqual(results.get("e4"), { text: "Updated todo list: 3 pending, 1 in progress, 0 completed", isError: false });
  assert.deepEqual(replayTodos(log).todos, withCD.todos);
});

test("an interrupt ends the turn by its Interrupt hook", async () => {
  const chat = new MemoryStore();
  await createChat(chat, "i", { workspace: "/w" });
  api.script("RUN-I", [{ hold: true }]);
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  async function* prompts() {
    yield { type: "user", message: { role: "user", content: "RUN-I: take your time" }, parent_tool_use_id: null };
    await finished;
  }
  const interrupted = [];
  const q = query({
    prompt: prompts(),
    options: withOda(cli({ hooks: { Interrupt: [{ hooks: [async (i) => (interrupted.push(i.reason), {})] }] } }), {
      store: chat,
      chatId: "i",
    }),
  });
  const asked = until("the model's request", () => api.of("RUN-I").length === 1).then(() => q.interrupt());
  // The log as the interrupted turn's result arrives, the query (and its CLI) still running: the hooks alone wrote it.
  let atResult;
  try {
    for await (const m of q) {
      if (m.type !== "result" || atResult !== undefined) continue;
      atResult = await types(chat, "i");
      done();
    }
  } catch (e) {
    assert.match(e.message, /error result/); // the CLI exits with the interrupted turn's error
  }
  await asked;
  assert.deepEqual(interrupted, ["stop"], "the CLI ran the Interrupt hooks");
  assert.deepEqual(atResult, ["session", "turn_started", "turn_ended"]);
  assert.deepEqual(await types(chat, "i"), atResult);
});

test("a query that ends without a Stop (its turn limit) still ends its turn, once, after its tool calls", async () => {
  const chat = new MemoryStore();
  await createChat(chat, "d", { workspace: "/w" });
  api.script("RUN-D", [[toolUse("d1", ODA_TOOL_NAMES.todo_write, good)]]);
  await assert.rejects(run("RUN-D: go", withOda(cli({ maxTurns: 1 }), { store: chat, chatId: "d" })), /maximum number of turns/);
  // Ended as the query closes (its in-process server's transport), just after the app's loop saw the error.
  const ended = ["session", "turn_started", "todo_update", "turn_ended"];
  await until("the turn's end", async () => (await types(chat, "d")).length === ended.length);
  assert.deepEqual(await types(chat, "d"), ended);
});

test("a chat that does not exist: the prompt is stopped with the reason, the model is not called, nothing is written", async () => {
  const empty = new MemoryStore();
  api.script("RUN-F", []);
  const messages = await run("RUN-F: hello", withOda(cli(), { store: empty, chatId: "nope" }));
  const reason =
    'oda-tasks: the turn could not begin, so the prompt was not sent: chat "nope" does not exist; create it with createChat() before beginTurn() (store/missing-chat)';
  assert.ok(
    messages.some((m) => m.type === "system" && m.prompt_submit_outcome?.reason === reason),
    "the app reads the reason",
  );
  assert.equal(api.of("RUN-F").length, 0);
  assert.equal(await empty.read("nope"), null);
});
