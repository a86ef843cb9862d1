// withOda's options without the CLI: the app's SDK options kept and
// extended, misuse refused with an `oda-tasks:` TypeError before anything is
// written, and the hooks it adds run on their own (the Interrupt hook, and the
// main agent's events told from a subagent's). The CLI runs in claude-agent-sdk.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createChat, editNotice, editTodos, MemoryStore, todoListText } from "oda-tasks";
import { ODA_SERVER, ODA_TOOL_NAMES, SDK_TASK_TOOLS, withOda } from "oda-tasks/claude-agent-sdk";

const ours = Object.values(ODA_TOOL_NAMES);
const types = async (store, chatId) => (await store.read(chatId)).map((e) => e.type);
/** The hook withOda added last for `event`, as the SDK calls it. */
const hookOf = (options, event) => (input) =>
  options.hooks[event].at(-1).hooks[0]({ session_id: "s", transcript_path: "", cwd: "", hook_event_name: event, ...input }, undefined, {
    signal: new AbortController().signal,
  });

test("the app's options are kept and extended, never dropped, and the app's object is left as it was", () => {
  const store = new MemoryStore();
  const mine = async () => ({});
  const github = { type: "http", url: "https://example.test/mcp" };
  const app = {
    cwd: "/repos/app",
    model: "claude-sonnet-4-5",
    allowedTools: ["Read", ODA_TOOL_NAMES.todo_write],
    disallowedTools: ["Bash", "TodoWrite"],
    mcpServers: { github },
    hooks: { Stop: [{ hooks: [mine] }], SessionStart: [{ hooks: [mine] }], PreCompact: undefined },
  };
  const before = structuredClone({ ...app, hooks: undefined, mcpServers: undefined });
  const options = withOda(app, { store, chatId: "c" });

  assert.equal(options.cwd, "/repos/app");
  assert.equal(options.model, "claude-sonnet-4-5");
  assert.deepEqual(options.allowedTools, ["Read", ODA_TOOL_NAMES.todo_write, ODA_TOOL_NAMES.suggest_task]);
  assert.deepEqual(options.disallowedTools, ["Bash", "TodoWrite", ...SDK_TASK_TOOLS.filter((t) => t !== "TodoWrite")]);
  assert.deepEqual(Object.keys(options.mcpServers), ["github", ODA_SERVER]);
  assert.equal(options.mcpServers.github, github);
  assert.equal(options.mcpServers[ODA_SERVER].type, "sdk");
  assert.equal(options.mcpServers[ODA_SERVER].name, ODA_SERVER);
  // The app's hooks first, ours after; events only the app has stay.
  assert.equal(options.hooks.Stop.length, 2);
  assert.equal(options.hooks.Stop[0].hooks[0], mine);
  assert.equal(options.hooks.SessionStart[0].hooks[0], mine);
  for (const event of ["UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "StopFailure", "Interrupt"])
    assert.ok(options.hooks[event].length >= 1, event);
  assert.equal(options.hooks.PreToolUse[0].matcher, ours.join("|"));
  // Nothing of the app's was changed in place.
  assert.deepEqual({ ...app, hooks: undefined, mcpServers: undefined }, before);
  assert.equal(app.hooks.Stop.length, 1);
  assert.deepEqual(Object.keys(app.mcpServers), ["github"]);
  // No options at all: the tools, the disallowed task tools and the hooks alone.
  const bare = withOda(undefined, { store, chatId: "c" });
  assert.deepEqual(bare.allowedTools, ours);
  assert.deepEqual(bare.disallowedTools, SDK_TASK_TOOLS);
});

test("misuse is an oda-tasks: TypeError naming the option, thrown before anything is written", async () => {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  const oda = { store, chatId: "c" };
  const prefix = "oda-tasks: invalid arguments of withOda: ";
  const cases = [
    ["x", oda, "options must be an object (got string)"],
    [{}, { chatId: "c" }, "`store` must be a store (MemoryStore, JsonlStore, ...)"],
    [{}, { store, chatId: 5 }, "`chatId` must be a string"],
    [{}, { ...oda, chatID: "c" }, "unknown option `chatID`"],
    [{}, { ...oda, remind: "sometimes" }, '`remind` must be "due", "always" or "never" (got "sometimes")'],
    [{}, { ...oda, everyTurns: 0 }, "`everyTurns` must be a whole number >= 1 (got 0)"],
    [{}, { ...oda, oneActive: "no" }, '`oneActive` must be a boolean (got "no")'],
    [
      { allowedTools: ["Read", "TodoWrite"] },
      oda,
      "`options.allowedTools` names the SDK's own task tools (TodoWrite); withOda replaces them with todo_write (one list per chat): remove them",
    ],
    [
      { tools: ["Read", "TaskCreate", "TaskList"] },
      oda,
      "`options.tools` names the SDK's own task tools (TaskCreate, TaskList); withOda replaces them with todo_write (one list per chat): remove them",
    ],
    [
      { disallowedTools: [ODA_TOOL_NAMES.suggest_task] },
      oda,
      "`options.disallowedTools` names mcp__oda__suggest_task, a tool withOda adds; to go without its tools, leave withOda out",
    ],
    [
      { mcpServers: { oda: { type: "stdio", command: "x" } } },
      oda,
      '`options.mcpServers` already has a server named "oda", the name withOda adds its tools under',
    ],
    [{ hooks: { Stop: {} } }, oda, "`options.hooks.Stop` must be an array of hook matchers"],
    [{ hooks: [] }, oda, "`options.hooks` must be an object"],
    [{ allowedTools: "Read" }, oda, "`options.allowedTools` must be an array of tool names"],
  ];
  for (const [options, odaOptions, message] of cases) {
    assert.throws(() => withOda(options, odaOptions), { name: "TypeError", message: prefix + message });
  }
  // withOda's own result given again: its server's name is taken.
  assert.throws(() => withOda(withOda({}, oda), oda), { name: "TypeError", message: /already has a server named "oda"/ });
  assert.deepEqual(await types(store, "c"), ["session"]);
});

test("the hooks alone: a prompt begins a turn with the reminder due; an Interrupt ends it once; a subagent's events make no turn", async () => {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  await store.append("c", [
    { type: "turn_started" },
    { type: "todo_update", v: 1, todos: [{ content: "Ship", status: "pending" }] },
    { type: "turn_ended" },
  ]);
  const options = withOda({}, { store, chatId: "c", remind: "always" });
  const prompt = hookOf(options, "UserPromptSubmit");
  const stop = hookOf(options, "Stop");
  const interrupt = hookOf(options, "Interrupt");
  const base = ["session", "turn_started", "todo_update", "turn_ended"];

  // A subagent's events carry its agent_id: they begin and end nothing.
  assert.deepEqual(await prompt({ prompt: "x", agent_id: "a1" }), {});
  assert.deepEqual(await types(store, "c"), base);

  assert.deepEqual(await prompt({ prompt: "Go on" }), {
    hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: todoListText([{ content: "Ship", status: "pending" }]) },
  });
  assert.deepEqual(await types(store, "c"), [...base, "turn_started"]);
  assert.deepEqual(await stop({ stop_hook_active: false, agent_id: "a1" }), {});
  assert.deepEqual(await types(store, "c"), [...base, "turn_started"]);
  assert.deepEqual(await interrupt({ source: "user", reason: "stop" }), {});
  assert.deepEqual(await stop({ stop_hook_active: false }), {});
  assert.deepEqual(await types(store, "c"), [...base, "turn_started", "turn_ended"]);
  // The next prompt is the next turn.
  await prompt({ prompt: "Again" });
  assert.deepEqual(await types(store, "c"), [...base, "turn_started", "turn_ended", "turn_started"]);
});

test("the hooks alone: a person's edit is the prompt's context at its turn's start, and after a main agent's tool call; a subagent's call is told nothing", async () => {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  const options = withOda({}, { store, chatId: "c" });
  const prompt = hookOf(options, "UserPromptSubmit");
  const after = hookOf(options, "PostToolUse");
  const edit = async (content) => editTodos(store, "c", [{ content, status: "pending" }], { basedOn: (await store.read("c")).length });
  const tool = { tool_name: "Bash", tool_input: {}, tool_response: "", tool_use_id: "t" };
  // No turn open: nothing is told (the next prompt's context will be).
  await edit("Ship");
  assert.deepEqual(await after(tool), {});
  // The edit before the prompt is its context, told once.
  const begun = await prompt({ prompt: "Go" });
  const first = begun.hookSpecificOutput.additionalContext;
  assert.match(first, /^The user edited the todo list while you worked\. What they changed:\n- added "Ship" \(pending\)/);
  assert.equal(await editNotice(store, "c"), null, "told");
  // An edit during the turn: a subagent's tool call is told nothing, the main agent's next one is.
  await edit("Deploy");
  assert.deepEqual(await after({ ...tool, agent_id: "a1" }), {});
  const told = await after(tool);
  assert.equal(told.hookSpecificOutput.hookEventName, "PostToolUse");
  assert.match(told.hookSpecificOutput.additionalContext, /- added "Deploy" \(pending\)\n- removed "Ship"/);
  assert.deepEqual(await after(tool), {}, "told once");
  assert.deepEqual(
    (await store.read("c")).map((e) => e.type),
    ["session", "todo_update", "turn_started", "todo_told", "todo_update", "todo_told"],
  );
});
