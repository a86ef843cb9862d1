// aiTurnResponse and aiTurnStream with the real Vercel AI SDK (`ai` 7) and its
// scripted mock model (`ai/test`), against the built package: run under
// Node 22 (which `ai` 7 needs) by tests/node/ai-turn-response.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { createUIMessageStream, createUIMessageStreamResponse, readUIMessageStream, streamText, isStepCount } from "ai";
import { MockLanguageModelV4, simulateReadableStream } from "ai/test";
import { beginTurn, createChat, editTodos, MemoryStore, replayTodos } from "oda-tasks";
import { aiTools, aiTurnResponse, aiTurnStream } from "oda-tasks/ai";
import { edited } from "./tool-fixtures.mjs";

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const finish = (unified) => ({ type: "finish", finishReason: { unified, raw: unified }, usage });
const call = (toolCallId, toolName, input) => ({ type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) });
const text = (words) => [
  { type: "text-start", id: "t" },
  ...words.map((delta) => ({ type: "text-delta", id: "t", delta })),
  { type: "text-end", id: "t" },
];
const plan1 = {
  todos: [
    { content: "Write tests", status: "in_progress" },
    { content: "Ship", status: "pending" },
  ],
};
const plan2 = {
  todos: [
    { content: "Write tests", status: "completed" },
    { content: "Ship", status: "in_progress" },
  ],
};
const offer = { title: "Add retries", tldr: "Uploads fail on flaky networks.", brief: "In upload.ts, retry failed uploads." };

/** A model that streams `steps[n]` on its n-th call, one part every `delay` ms. */
function model(steps, delay = 0) {
  let step = 0;
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: [{ type: "stream-start", warnings: [] }, ...steps[Math.min(step++, steps.length - 1)]],
        chunkDelayInMs: delay,
      }),
    }),
  });
}
const planning = [
  [call("1", "todo_write", plan1), call("2", "suggest_task", offer), finish("tool-calls")],
  [call("3", "todo_write", plan2), finish("tool-calls")],
  [...text(["Plan", "ned."]), finish("stop")],
];

async function chat() {
  const store = new MemoryStore();
  await createChat(store, "chat-1", { workspace: "/w" });
  return store;
}
const types = async (store) => (await store.read("chat-1")).map((e) => e.type);

/** The text parts of UI message `message`, joined. */
const textOf = (message) =>
  message.parts
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");
/** The UI message chunks of a UI message stream response's body. */
async function chunksOf(response) {
  const body = await response.text();
  return body
    .split("\n\n")
    .map((event) => event.replace(/^data: /, ""))
    .filter((data) => data !== "" && data !== "[DONE]")
    .map((data) => JSON.parse(data));
}
/** Every state of the assistant message as useChat builds it from `chunks`. */
async function messagesOf(chunks) {
  const stream = new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
  const seen = [];
  for await (const message of readUIMessageStream({ stream })) seen.push(structuredClone(message));
  return seen;
}
const dataParts = (message, type) => message.parts.filter((p) => p.type === type);

async function until(check, what, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

test("aiTurnResponse: the UI message stream carries the plan (replaced in place) and the suggestions; the turn lasts as long as the model's stream", async () => {
  const store = await chat();
  let reminderSeen;
  const response = await aiTurnResponse({ store, chatId: "chat-1", headers: { "x-app": "1" } }, ({ tools, reminder }) => {
    reminderSeen = reminder;
    return streamText({ model: model(planning, 5), tools, prompt: "Plan the release", stopWhen: isStepCount(5) });
  });
  assert.equal(reminderSeen, null);
  assert.equal(response.headers.get("x-app"), "1");
  assert.match(response.headers.get("content-type"), /^text\/event-stream/);
  // Resolved as soon as the stream exists: the turn has begun and not ended.
  assert.deepEqual(await types(store), ["session", "turn_started"]);
  const chunks = await chunksOf(response);
  const log = await types(store);
  assert.deepEqual(log, ["session", "turn_started", "todo_update", "suggestion_offered", "todo_update", "turn_ended"]);
  // The message begins first: useChat takes a part sent before `start` as a message of its own.
  assert.equal(chunks[0].type, "start");
  const planChunks = chunks.filter((c) => c.type === "data-oda-plan");
  assert.deepEqual(
    planChunks.map((c) => [c.id, c.data.state, c.data.todos.map((t) => t.status).join(",")]),
    [
      ["plan", "none", ""],
      ["plan", "running", "in_progress,pending"],
      ["plan", "running", "completed,in_progress"],
      ["plan", "finished", "completed,in_progress"],
    ],
  );
  assert.deepEqual(planChunks.at(-1).data, { state: "finished", todos: plan2.todos, turn: 1 });
  const suggestions = chunks.filter((c) => c.type === "data-oda-suggestions");
  assert.equal(suggestions.length, 1);
  assert.deepEqual(suggestions[0], {
    type: "data-oda-suggestions",
    id: "suggestions",
    data: { open: [{ id: "s1", ...offer }], settled: [] },
  });
  // The plan chunk of a recorded todo_write comes before that call's result.
  const firstRunning = chunks.findIndex((c) => c.type === "data-oda-plan" && c.data.state === "running");
  const firstOutput = chunks.findIndex((c) => c.type === "tool-output-available" && c.toolCallId === "1");
  assert.ok(firstRunning >= 0 && firstRunning < firstOutput, "the plan part precedes the tool's output");
  // In the message: one plan part, replaced in place, and it read "running" before the turn ended.
  const states = await messagesOf(chunks);
  const last = states.at(-1);
  assert.equal(dataParts(last, "data-oda-plan").length, 1);
  assert.deepEqual(dataParts(last, "data-oda-plan")[0].data, { state: "finished", todos: plan2.todos, turn: 1 });
  assert.equal(dataParts(last, "data-oda-suggestions").length, 1);
  assert.ok(states.some((m) => dataParts(m, "data-oda-plan")[0]?.data.state === "running"));
  const card = last.parts.find((p) => p.type === "tool-todo_write" && p.toolCallId === "3").output.card;
  assert.deepEqual(card.changes.statusChanged, [
    { content: "Write tests", from: "in_progress", to: "completed" },
    { content: "Ship", from: "pending", to: "in_progress" },
  ]);
  assert.equal(textOf(last), "Planned.");
});

test("aiTurnResponse: a person's edit between two model steps reaches the next request as the exact notice; a stale todo_write is refused once and the person's items survive", async () => {
  const store = await chat();
  const prompts = [];
  const { withC, withCD, notice, refusal } = edited;
  const steps = [
    [call("1", "todo_write", plan1), finish("tool-calls")],
    // Written after the model read the first edit, before it could see the second: stale.
    [call("2", "todo_write", withC), finish("tool-calls")],
    [call("3", "todo_write", withCD), finish("tool-calls")],
    [...text(["Done."]), finish("stop")],
  ];
  let step = 0;
  const edit = async (todos) => editTodos(store, "chat-1", todos, { basedOn: (await store.read("chat-1")).length, by: "Ada" });
  const scripted = new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      prompts.push(structuredClone(prompt));
      // The person edits again while the model writes its second step.
      if (step === 1) assert.deepEqual(await edit(withCD.todos), { ok: true, length: 6 });
      return { stream: simulateReadableStream({ chunks: [{ type: "stream-start", warnings: [] }, ...steps[step++]] }) };
    },
  });
  const response = await aiTurnResponse({ store, chatId: "chat-1" }, ({ tools, prepareStep }) =>
    streamText({
      model: scripted,
      tools,
      prompt: "Plan the release",
      stopWhen: isStepCount(6),
      // The person adds an item between the model's first two steps.
      prepareStep: async (options) => {
        if (options.stepNumber === 1) await edit(withC.todos);
        return prepareStep(options);
      },
    }),
  );
  const chunks = await chunksOf(response);
  const log = await store.read("chat-1");
  assert.deepEqual(
    log.map((e) => e.type + (e.by ? " by" : "")),
    ["session", "turn_started", "todo_update", "todo_update by", "todo_told", "todo_update by", "todo_told", "todo_update", "turn_ended"],
  );
  // What was told is in the log, byte for byte.
  assert.equal(log[4].text, notice);
  assert.equal(log[6].text, refusal);
  const userTexts = (prompt) =>
    prompt.filter((m) => m.role === "user").flatMap((m) => m.content.filter((c) => c.type === "text").map((c) => c.text));
  // Step 2's request (after the edit) ends with the notice; the first had none.
  assert.deepEqual(userTexts(prompts[0]), ["Plan the release"]);
  assert.deepEqual(userTexts(prompts[1]), ["Plan the release", notice]);
  assert.equal(prompts[1].at(-1).role, "user", "the notice is the step's last message");
  // Step 3's request: the stale call's result is the refusal; the notice is not told again.
  const results = prompts[2].filter((m) => m.role === "tool").flatMap((m) => m.content);
  assert.deepEqual(results.find((r) => r.toolCallId === "2").output, { type: "text", value: refusal });
  assert.deepEqual(userTexts(prompts[2]), ["Plan the release", notice]);
  assert.deepEqual(userTexts(prompts[3]), ["Plan the release", notice]);
  // The call after the refusal records; both of the person's items survive.
  assert.deepEqual(replayTodos(log).todos, withCD.todos);
  assert.deepEqual(
    chunks.filter((c) => c.type === "tool-output-available").map((c) => c.output.text),
    ["Updated todo list: 1 pending, 1 in progress, 0 completed", refusal, "Updated todo list: 3 pending, 1 in progress, 0 completed"],
  );
});

test("aiTurnResponse: nobody reads the response (a closed tab): the model runs to its end and the turn ends", async () => {
  const store = await chat();
  const response = await aiTurnResponse({ store, chatId: "chat-1" }, ({ tools }) =>
    streamText({ model: model(planning, 20), tools, prompt: "Plan", stopWhen: isStepCount(5) }),
  );
  assert.ok(response instanceof Response);
  await until(async () => (await types(store)).includes("turn_ended"), "turn_ended");
  assert.deepEqual(await types(store), ["session", "turn_started", "todo_update", "suggestion_offered", "todo_update", "turn_ended"]);
});

test("aiTurnResponse: the client goes away mid-stream (the body cancelled): the model runs on, its later calls are recorded, the turn ends", async () => {
  const store = await chat();
  const response = await aiTurnResponse({ store, chatId: "chat-1" }, ({ tools }) =>
    streamText({ model: model(planning, 30), tools, prompt: "Plan", stopWhen: isStepCount(5) }),
  );
  const reader = response.body.getReader();
  await reader.read();
  await reader.cancel();
  assert.ok(!(await types(store)).includes("todo_update"), "cancelled before the first call");
  await until(async () => (await types(store)).includes("turn_ended"), "turn_ended");
  assert.deepEqual(await types(store), ["session", "turn_started", "todo_update", "suggestion_offered", "todo_update", "turn_ended"]);
});

test("aiTurnResponse: an abort (streamText's abortSignal, as on useChat's stop()) ends the turn; a tool call that starts after it is refused", async () => {
  const store = await chat();
  const abort = new AbortController();
  let kept;
  const response = await aiTurnResponse({ store, chatId: "chat-1" }, ({ tools }) => {
    kept = tools;
    return streamText({ model: model(planning, 40), tools, prompt: "Plan", stopWhen: isStepCount(5), abortSignal: abort.signal });
  });
  const reading = chunksOf(response);
  await until(async () => (await types(store)).includes("suggestion_offered"), "the first step's calls");
  abort.abort();
  const chunks = await reading;
  assert.ok(chunks.some((c) => c.type === "abort"));
  assert.deepEqual(await types(store), ["session", "turn_started", "todo_update", "suggestion_offered", "turn_ended"]);
  await assert.rejects(kept.todo_write.execute(plan2, { toolCallId: "late", messages: [] }), {
    name: "TypeError",
    message: /^oda-tasks: todo_write was called after its aiTurn's model call settled; it was refused and recorded nothing/,
  });
  assert.deepEqual(await types(store), ["session", "turn_started", "todo_update", "suggestion_offered", "turn_ended"]);
});

test("aiTurnResponse: originalMessages and onFinish reach the SDK (the app saves the message with its data parts)", async () => {
  const store = await chat();
  const user = { id: "u1", role: "user", parts: [{ type: "text", text: "Plan" }] };
  let saved;
  const response = await aiTurnResponse(
    {
      store,
      chatId: "chat-1",
      originalMessages: [user],
      onFinish: ({ messages }) => (saved = messages),
      generateId: () => "a1",
      status: 201,
    },
    ({ tools }) => streamText({ model: model(planning), tools, prompt: "Plan", stopWhen: isStepCount(5) }),
  );
  assert.equal(response.status, 201);
  await response.text();
  await until(() => saved !== undefined, "onFinish");
  assert.deepEqual(
    saved.map((m) => [m.id, m.role]),
    [
      ["u1", "user"],
      ["a1", "assistant"],
    ],
  );
  assert.equal(dataParts(saved[1], "data-oda-plan")[0].data.state, "finished");
});

test("aiTurnResponse: bad options and a bad call throw before anything is written; a failing call ends the turn and rejects", async () => {
  const store = await chat();
  const never = () => assert.fail("not called");
  for (const [options, message] of [
    [{ store, chatId: "chat-1", onFinish: 1 }, "oda-tasks: invalid arguments of aiTurnResponse: `onFinish` must be a function (got 1)"],
    [
      { store, chatId: "chat-1", status: 99 },
      "oda-tasks: invalid arguments of aiTurnResponse: `status` must be an HTTP status (200 to 599) (got 99)",
    ],
    [{ store, chatId: "chat-1", remind: "sometimes" }, /^oda-tasks: invalid arguments of aiTurn: `remind` must be/],
    [{ store, chatId: "chat-1", colour: "red" }, "oda-tasks: invalid arguments of aiTurn: unknown option `colour`"],
    [{ store, chatId: "chat-1", writer: {} }, /^oda-tasks: invalid arguments of aiTurnResponse: it makes its own stream/],
  ]) {
    await assert.rejects(aiTurnResponse(options, never), { name: "TypeError", message });
  }
  await assert.rejects(aiTurnResponse({ store, chatId: "chat-1" }), /`call` must be a function/);
  assert.deepEqual(await types(store), ["session"]);
  await assert.rejects(
    aiTurnResponse({ store, chatId: "chat-1" }, () => ({ text: "a generateText result" })),
    /^TypeError: oda-tasks: aiTurnResponse's call must return streamText's result/,
  );
  await assert.rejects(
    aiTurnResponse({ store, chatId: "chat-1" }, () => {
      throw new Error("provider down");
    }),
    /provider down/,
  );
  assert.deepEqual(await types(store), ["session", "turn_started", "turn_ended", "turn_started", "turn_ended"]);
});

test("aiTurnStream: the app's own createUIMessageStream keeps its own data parts; the turn's parts and the model's stream merge into it", async () => {
  const store = await chat();
  const stream = createUIMessageStream({
    execute: async ({ writer }) => {
      writer.write({ type: "start" });
      writer.write({ type: "data-title", id: "title", data: "Release" });
      await aiTurnStream({ store, chatId: "chat-1", writer }, ({ tools, reminder }) =>
        streamText({
          model: model(planning, 2),
          tools: { ...tools },
          system: reminder ?? undefined,
          prompt: "Plan",
          stopWhen: isStepCount(5),
        }),
      );
      // The turn has ended when aiTurnStream resolves.
      assert.ok((await types(store)).includes("turn_ended"));
      writer.write({ type: "data-title", id: "title", data: "Release, planned" });
      writer.write({ type: "data-note", data: "saved" });
    },
  });
  const chunks = await chunksOf(createUIMessageStreamResponse({ stream }));
  // The turn's parts go after the model stream's own start chunk (the second here).
  const starts = chunks.flatMap((c, i) => (c.type === "start" ? [i] : []));
  assert.equal(starts.length, 2);
  assert.ok(chunks.findIndex((c) => c.type === "data-oda-plan") > starts[1]);
  const last = (await messagesOf(chunks)).at(-1);
  assert.deepEqual(
    dataParts(last, "data-title").map((p) => p.data),
    ["Release, planned"],
  );
  assert.deepEqual(
    dataParts(last, "data-note").map((p) => p.data),
    ["saved"],
  );
  assert.equal(dataParts(last, "data-oda-plan")[0].data.state, "finished");
  assert.equal(dataParts(last, "data-oda-suggestions")[0].data.open[0].title, "Add retries");
  assert.equal(textOf(last), "Planned.");
  assert.deepEqual(await types(store), ["session", "turn_started", "todo_update", "suggestion_offered", "todo_update", "turn_ended"]);
  await assert.rejects(
    aiTurnStream({ store, chatId: "chat-1", writer: { write() {} } }, () => undefined),
    /`writer` must be a UI message stream writer \(it has no merge\)/,
  );
});

test("aiTools({ writer }): each recorded call writes the part it changed; a refusal writes none", async () => {
  const store = await chat();
  await beginTurn(store, "chat-1"); // the app's own turn
  const written = [];
  const tools = aiTools({ store, chatId: "chat-1", writer: { write: (part) => written.push(part) } });
  await tools.todo_write.execute(plan1, { toolCallId: "1", messages: [] });
  await tools.todo_write.execute({ todos: [{ content: "x", status: "done" }] }, { toolCallId: "2", messages: [] });
  await tools.suggest_task.execute(offer, { toolCallId: "3", messages: [] });
  assert.deepEqual(
    written.map((p) => [p.type, p.id]),
    [
      ["data-oda-plan", "plan"],
      ["data-oda-suggestions", "suggestions"],
    ],
  );
  assert.deepEqual(written[0].data, { state: "running", todos: plan1.todos, turn: 1 });
  assert.deepEqual(written[1].data, { open: [{ id: "s1", ...offer }], settled: [] });
  assert.throws(() => aiTools({ store, chatId: "chat-1", writer: 5 }), /`writer` must be a UI message stream writer/);
});
