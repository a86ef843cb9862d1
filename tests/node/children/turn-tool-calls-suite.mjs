// aiTurn's rule for tool calls, with the real Vercel AI SDK (`ai` 7) and its
// mock models (`ai/test`): a turn ends after every tool call that began in it
// has settled, when the model call is aborted or throws while a `todo_write`
// is still being recorded; a call that begins after the turn's model call
// settled is refused and records nothing. Run under Node 22 (which `ai` 7
// needs) by tests/node/turn-tool-calls.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText, isStepCount, streamText } from "ai";
import { createChat, MemoryStore, replayTodos } from "oda-tasks";
import { aiTurn } from "oda-tasks/ai";
import { call, scriptedModel, streamedModel } from "../support/ai-models.mjs";
import { good, SlowStore } from "../support/tool-fixtures.mjs";

const todoCall = call("1", "todo_write", good);
const streaming = () => streamedModel([todoCall]);
const scripted = () => scriptedModel([todoCall]);

/** Releases the held append a little after `settled` is known to lag (or at once once aiTurn has settled). */
async function settle(store, turn) {
  let finished = false;
  const outcome = turn
    .then(
      () => ({ ok: true }),
      (error) => ({ ok: false, error }),
    )
    .finally(() => (finished = true));
  await store.started;
  await new Promise((r) => setTimeout(r, 50));
  const endedBeforeTheCall = finished;
  store.release();
  const result = await outcome;
  // Let a call that outlived its turn land before the log is read.
  for (let i = 0; i < 50 && (await store.read("c")).length < 4; i++) await new Promise((r) => setTimeout(r, 10));
  return { ...result, endedBeforeTheCall };
}

async function expectOneClosedTurn(store) {
  const log = await store.read("c");
  assert.deepEqual(
    log.map((e) => e.type),
    ["session", "turn_started", "todo_update", "turn_ended"],
  );
  const { plan } = replayTodos(log);
  assert.equal(plan.state, "finished", "no plan left running with no turn open");
}

/** A two-step model call's options with `tools`, that `controller` can abort. */
const stoppable = (tools, controller) => ({ tools, prompt: "p", abortSignal: controller.signal, stopWhen: isStepCount(2) });

async function chat() {
  const store = new SlowStore();
  await createChat(store, "c");
  return store;
}

test("streamText aborted while todo_write is being recorded: the turn ends after the update lands", async () => {
  const store = await chat();
  const controller = new AbortController();
  const turn = aiTurn({ store, chatId: "c" }, async ({ tools }) => {
    const result = streamText({ model: streaming(), ...stoppable(tools, controller), onError: () => {} });
    for await (const chunk of result.fullStream) {
      if (chunk.type === "tool-call") {
        await store.started;
        controller.abort(new Error("the person pressed stop"));
      }
    }
    return "aborted";
  });
  const r = await settle(store, turn);
  assert.equal(r.endedBeforeTheCall, false, "aiTurn waits for the running tool call");
  assert.ok(r.ok || /stop|abort/i.test(String(r.error)), String(r.error));
  await expectOneClosedTurn(store);
});

test("streamText: the app's code throws while todo_write is being recorded: aiTurn rethrows after the update lands and the turn ends", async () => {
  const store = await chat();
  const turn = aiTurn({ store, chatId: "c" }, async ({ tools }) => {
    const result = streamText({ model: streaming(), tools, prompt: "p", stopWhen: isStepCount(2), onError: () => {} });
    for await (const chunk of result.fullStream) {
      if (chunk.type === "tool-call") {
        await store.started;
        throw new Error("the app's renderer failed");
      }
    }
  });
  const r = await settle(store, turn);
  assert.equal(r.ok, false);
  assert.match(String(r.error), /the app's renderer failed/);
  assert.equal(r.endedBeforeTheCall, false);
  await expectOneClosedTurn(store);
});

test("generateText aborted while todo_write is being recorded: the turn ends after the update lands", async () => {
  const store = await chat();
  const controller = new AbortController();
  const turn = aiTurn({ store, chatId: "c" }, async ({ tools }) => {
    const run = generateText({ model: scripted(), ...stoppable(tools, controller), maxRetries: 0 });
    run.catch(() => {});
    // An app that stops waiting at the abort, as a route handler answering the click does.
    const stopped = new Promise((_, reject) => controller.signal.addEventListener("abort", () => reject(controller.signal.reason)));
    await store.started;
    controller.abort(new Error("the person pressed stop"));
    return Promise.race([run, stopped]);
  });
  const r = await settle(store, turn);
  assert.equal(r.ok, false);
  assert.match(String(r.error), /the person pressed stop/);
  assert.equal(r.endedBeforeTheCall, false);
  await expectOneClosedTurn(store);
});

test("generateText: the call throws while todo_write is being recorded: aiTurn rethrows after the update lands and the turn ends", async () => {
  const store = await chat();
  const turn = aiTurn({ store, chatId: "c" }, async ({ tools }) => {
    generateText({ model: scripted(), tools, prompt: "p", stopWhen: isStepCount(1) }).catch(() => {});
    await store.started;
    throw new Error("the app's own step failed");
  });
  const r = await settle(store, turn);
  assert.equal(r.ok, false);
  assert.match(String(r.error), /the app's own step failed/);
  assert.equal(r.endedBeforeTheCall, false);
  await expectOneClosedTurn(store);
});

test("a turn's tool called after its turn ended is refused with a TypeError and records nothing, in generateText too", async () => {
  const store = new MemoryStore();
  await createChat(store, "c");
  let kept;
  await aiTurn({ store, chatId: "c" }, ({ tools }) => {
    kept = tools;
    return "no model call";
  });
  const before = await store.read("c");
  await assert.rejects(
    kept.todo_write.execute(good, { toolCallId: "late", messages: [] }),
    (e) =>
      e instanceof TypeError &&
      e.message ===
        "oda-tasks: todo_write was called after its aiTurn's model call settled; it was refused and " +
          "recorded nothing (a turn's tools work while its call runs: await every model call inside the call given to aiTurn)",
  );
  const result = await generateText({ model: scripted(), tools: kept, prompt: "p", stopWhen: isStepCount(2) });
  assert.equal(result.steps[0].toolResults.length, 0);
  assert.equal(result.steps[0].content.find((p) => p.type === "tool-error")?.error instanceof TypeError, true);
  assert.deepEqual(await store.read("c"), before);
});

test("a turn whose tool calls all settle inside the call: one turn, the update inside it, the call's result returned", async () => {
  const store = new MemoryStore();
  await createChat(store, "c");
  const result = await aiTurn({ store, chatId: "c" }, ({ tools }) =>
    generateText({ model: scripted(), tools, prompt: "p", stopWhen: isStepCount(2) }),
  );
  assert.equal(result.text, "done");
  assert.deepEqual(
    (await store.read("c")).map((e) => e.type),
    ["session", "turn_started", "todo_update", "turn_ended"],
  );
});
