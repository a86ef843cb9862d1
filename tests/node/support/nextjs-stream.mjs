// The Next.js app's scripted model and the stream half of its tests
// (tests/node/consumers/consumer-nextjs.test.mjs): aiTurnResponse's stream in
// useChat, in Chromium: the preview card while the model writes the todo_write
// call, replaced by the recorded card; the plan part updating in the assistant
// message before the turn ends; stop() and a closed tab, after which the model
// runs on and the turn ends; stop() with streamText's abortSignal, which stops
// the model and ends the turn, after which a tool call of the turn is refused;
// and an app's own createUIMessageStream (aiTurnStream) keeping its own data parts.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { launch } from "./browser.mjs";

/** The app's files beyond the recipes: the model (scripted, no network), and the pages and route of the stream tests. */
export const streamFiles = {
  "lib/model.ts": `import { MockLanguageModelV4, simulateReadableStream } from "ai/test";

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const finish = (unified: "stop" | "tool-calls") => ({ type: "finish" as const, finishReason: { unified, raw: unified }, usage });
const call = (toolCallId: string, toolName: string, input: unknown) => ({ type: "tool-call" as const, toolCallId, toolName, input: JSON.stringify(input) });
const text = (words: string[]) => [{ type: "text-start", id: "t" }, ...words.map((delta) => ({ type: "text-delta", id: "t", delta })), { type: "text-end", id: "t" }];
const plan = { todos: [{ content: "Write tests", status: "in_progress" }, { content: "Ship", status: "pending" }] };
/** The todo_write call written in pieces, as a provider streams a tool's input. */
const written = (id: string, input: unknown) => {
  const json = JSON.stringify(input);
  const pieces = Array.from({ length: Math.ceil(json.length / 6) }, (_, i) => json.slice(i * 6, i * 6 + 6));
  return [{ type: "tool-input-start", id, toolName: "todo_write" }, ...pieces.map((delta) => ({ type: "tool-input-delta", id, delta })), { type: "tool-input-end", id }, call(id, "todo_write", input)];
};
/** What the person said last, and whether the tools' results are in. */
function said(prompt: any[]): { words: string; answered: boolean } {
  const user = prompt.filter((m) => m.role === "user").at(-1);
  return { words: (user?.content ?? []).map((p: any) => p.text ?? "").join(""), answered: prompt.at(-1)?.role === "tool" };
}
/**
 * A scripted model: "Plan the release" writes the plan slowly, in pieces, and answers late; any
 * other words call todo_write at once; "Keep going" talks for a while, then calls todo_write.
 */
export const model = new MockLanguageModelV4({
  doStream: async ({ prompt }) => {
    const { words, answered } = said(prompt);
    // \`any\`: the scripts are lists of different stream parts.
    const script: any[] = words === "Keep going"
      ? answered ? [...text(["Done."]), finish("stop")]
        : [...text(Array.from({ length: 16 }, (_, i) => \`w\${i + 1} \`)), call("k", "todo_write", { todos: [{ content: "Keep going", status: "in_progress" }] }), finish("tool-calls")]
      : answered ? [...text(["Planned."]), finish("stop")]
        : [...(words === "Plan the release" ? written("1", plan) : [call("1", "todo_write", plan)]), call("2", "suggest_task", { title: "Add retries", tldr: "Uploads fail on flaky networks.", brief: "In upload.ts, retry failed uploads." }), finish("tool-calls")];
    const slowly = words === "Plan the release";
    const chunkDelayInMs = words === "Keep going" ? 250 : slowly ? 120 : 0;
    return { stream: simulateReadableStream({ chunks: [{ type: "stream-start", warnings: [] }, ...script], chunkDelayInMs, initialDelayInMs: answered && slowly ? 4000 : 0 }) };
  },
});
`,
  // The test's page for the app's own stream (app/api/own): its own part and the plan part.
  "app/own/page.tsx": `"use client";
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, type InferUITools, type UIMessage } from "ai";
import "oda-tasks/elements/react";
import type { AiTools, OdaDataTypes } from "oda-tasks/ai";

type OwnMessage = UIMessage<never, OdaDataTypes & { title: string }, InferUITools<AiTools>>;
const transport = new DefaultChatTransport<OwnMessage>({ api: "/api/own" });

export default function Own() {
  const { messages, sendMessage } = useChat<OwnMessage>({ id: "chat-3", transport });
  return (
    <main>
      {messages.map((m) => (
        <section key={m.id}>
          {m.parts.map((part, i) =>
            part.type === "data-title" ? <h2 key={i}>{part.data}</h2>
            : part.type === "data-oda-plan" ? <oda-plan key={i} plan={part.data} />
            : part.type === "text" ? <p key={i}>{part.text}</p>
            : null)}
        </section>
      ))}
      <button type="button" onClick={() => void sendMessage({ text: "Plan the release" })}>Plan</button>
    </main>
  );
}
`,
  // The test's route for stop() with the model stopped too: the recipe's, with streamText's
  // abortSignal, keeping the turn's tools so that GET can call one after the turn.
  "app/api/late/route.ts": `import { convertToModelMessages, isStepCount, streamText } from "ai";
import { createChat } from "oda-tasks";
import { aiTurnResponse, type AiTools } from "oda-tasks/ai";
import { model } from "../../../lib/model";
import { store, type ChatMessage } from "../../../lib/oda";

const kept = globalThis as { lateTools?: AiTools };
export async function POST(request: Request) {
  const { id, messages }: { id: string; messages: ChatMessage[] } = await request.json();
  await createChat(store, id, { workspace: "/repos/app" });
  return aiTurnResponse({ store, chatId: id }, async ({ tools, reminder }) => {
    kept.lateTools = tools;
    return streamText({
      model, tools, system: reminder ?? undefined, stopWhen: isStepCount(10), abortSignal: request.signal,
      messages: await convertToModelMessages(messages, { tools }),
    });
  });
}
/** A call of the last turn's todo_write that starts now: what it answers. */
export async function GET() {
  try {
    await kept.lateTools?.todo_write.execute?.({ todos: [] }, { toolCallId: "late", messages: [] } as never);
    return Response.json({ refused: null });
  } catch (e) {
    return Response.json({ refused: (e as Error).message });
  }
}
`,
  "app/late/page.tsx": `"use client";
import { useState } from "react";
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";
import type { ChatMessage } from "../../lib/oda";

const transport = new DefaultChatTransport<ChatMessage>({ api: "/api/late" });

export default function Late() {
  const { messages, sendMessage, status, stop } = useChat<ChatMessage>({ id: "chat-4", transport });
  const [input, setInput] = useState("");
  return (
    <main>
      <ol>{messages.map((m) => <li key={m.id}>{m.parts.map((p, i) => p.type === "text" ? <p key={i}>{p.text}</p> : null)}</li>)}</ol>
      <form onSubmit={(e) => { e.preventDefault(); void sendMessage({ text: input }); setInput(""); }}>
        <label>Message <input value={input} onChange={(e) => setInput(e.target.value)} /></label>
        {status === "submitted" || status === "streaming"
          ? <button key="stop" type="button" onClick={() => void stop()}>Stop</button>
          : <button key="send" type="submit">Send</button>}
      </form>
    </main>
  );
}
`,
};

/** The chat's log as the store holds it: entry types. */
function log({ dir, node22 }, chats, chatId) {
  const script = `import { JsonlStore } from "oda-tasks/node";
console.log(JSON.stringify(((await new JsonlStore(process.argv[1]).read(process.argv[2])) ?? []).map((e) => e.type)));`;
  return JSON.parse(execFileSync(node22, ["--input-type=module", "-e", script, chats, chatId], { cwd: dir, encoding: "utf8" }));
}
async function until(check, what, ms = 60_000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}
const count = (types, type) => types.filter((t) => t === type).length;

/** The stream tests on a served build: `server` is what `serve()` gave, `app` the project's `{ dir, node22 }`. */
export async function streamSuite(t, app, { url, chats, output }) {
  const browser = await launch();
  t.after(() => browser.close());
  await browser.context.addCookies([{ name: "session", value: "person-1", url }]);
  const errors = [];
  const open = async (path) => {
    const tab = await browser.context.newPage();
    tab.on("pageerror", (e) => errors.push(e.message));
    await tab.goto(`${url}${path}`, { timeout: 300_000 });
    return tab;
  };
  /** Opens `path`, sends a message and presses Stop once the answer is under way. */
  const stopMidway = async (path) => {
    const tab = await open(path);
    await send(tab, "Keep going");
    await tab.getByText(/w2 /).waitFor({ timeout: 60_000 });
    await tab.getByRole("button", { name: "Stop" }).click();
    return tab;
  };
  const send = async (tab, words) => {
    await tab.getByRole("textbox", { name: "Message" }).fill(words);
    await tab.getByRole("button", { name: "Send" }).click();
  };

  await t.test(
    "the preview card while the model writes todo_write, replaced by the recorded card; the plan part before the turn ends",
    async () => {
      const tab = await open("/");
      await send(tab, "Plan the release");
      const card = tab.locator("oda-todo-card");
      // input-streaming: the tentative card, marked, with the list as far as it is written.
      await card.locator("[part~=preview-mark]").waitFor({ timeout: 120_000 });
      assert.equal(await card.locator("[part~=preview-mark]").textContent(), "Not yet recorded");
      assert.equal(await card.locator("article").getAttribute("aria-busy"), "true");
      // The recorded card replaces it in the same element.
      await card.locator("article:not([data-preview])").waitFor({ timeout: 60_000 });
      assert.equal(await card.count(), 1);
      assert.equal(await card.locator("[part~=preview-mark]").count(), 0);
      assert.match(await card.locator("[part=list]").textContent(), /Write tests[\s\S]*Ship/);
      assert.equal(await card.locator("[part=changes]").textContent(), "2 added");
      // The plan part, in the assistant message, reads running while the turn has not ended.
      const plan = tab.locator("oda-plan");
      await plan.locator("[part=state]").filter({ hasText: "Running · turn 1" }).waitFor({ timeout: 60_000 });
      const during = log(app, chats, "chat-1");
      assert.ok(during.includes("todo_update") && !during.includes("turn_ended"), `the turn still runs: ${during}`);
      assert.equal(await tab.getByText("Planned.").count(), 0);
      await tab.getByText("Planned.").waitFor({ timeout: 60_000 });
      await plan.locator("[part=state]").filter({ hasText: "Finished · turn 1" }).waitFor({ timeout: 60_000 });
      assert.equal(await plan.count(), 1, "one plan part, replaced in place");
      assert.equal(await plan.locator("[part=counts]").textContent(), "0 of 2 completed");
      assert.deepEqual(log(app, chats, "chat-1"), ["session", "turn_started", "todo_update", "suggestion_offered", "turn_ended"]);
      // Outside the turn, the suggestions follow the chat through chatHandler.
      await tab.getByRole("button", { name: "Start: Add retries" }).waitFor({ timeout: 60_000 });
      await tab.close();
    },
  );

  await t.test(
    "stop() in the middle of the stream: the page stops, the model runs on, and the turn ends (turn_ended in the log)",
    async () => {
      const tab = await stopMidway("/");
      await tab.getByRole("button", { name: "Send" }).waitFor({ timeout: 30_000 });
      const shown = await tab.locator("ol").textContent();
      const atStop = log(app, chats, "chat-1");
      assert.equal(count(atStop, "todo_update"), 1, `stopped before the model's todo_write: ${atStop} / ${shown}`);
      // The model was not stopped: its later todo_write is recorded in turn 2, and then the turn ends.
      const after = await until(() => {
        const types = log(app, chats, "chat-1");
        return count(types, "turn_ended") === 2 && types;
      }, "turn 2's end");
      assert.deepEqual(after.slice(5), ["turn_started", "todo_update", "turn_ended"]);
      assert.equal(await tab.locator("ol").textContent(), shown, "the stopped page read no more");
      assert.equal(await tab.getByText("Done.").count(), 0);
      await tab.close();
    },
  );

  await t.test(
    "stop() with streamText's abortSignal: the model stops, the turn ends, and a tool call that starts afterwards is refused",
    async () => {
      const tab = await stopMidway("/late");
      const ended = await until(() => {
        const types = log(app, chats, "chat-4");
        return types.includes("turn_ended") && types;
      }, "the turn's end");
      // Ended at the abort: the model's todo_write (after its 16 words) never came.
      assert.deepEqual(ended, ["session", "turn_started", "turn_ended"]);
      const late = await (await fetch(`${url}/api/late`)).json();
      assert.match(
        late.refused,
        /^oda-tasks: todo_write was called after its aiTurn's model call settled; it was refused and recorded nothing/,
      );
      await sleep(5000); // longer than the rest of the model's script
      assert.deepEqual(log(app, chats, "chat-4"), ["session", "turn_started", "turn_ended"]);
      await tab.close();
    },
  );

  await t.test("a closed tab leaves the model running and the turn ended", async () => {
    const tab = await open("/");
    await send(tab, "Keep going");
    await tab.getByText(/w2 /).waitFor({ timeout: 60_000 });
    const running = log(app, chats, "chat-1");
    assert.equal(count(running, "turn_ended"), 2, `turn 3 runs: ${running}`);
    await tab.close();
    const after = await until(() => {
      const types = log(app, chats, "chat-1");
      return count(types, "turn_ended") === 3 && types;
    }, "turn 3's end");
    assert.deepEqual(after.slice(8), ["turn_started", "todo_update", "turn_ended"]);
  });

  await t.test("an app's own createUIMessageStream (aiTurnStream) keeps its own data part beside the plan part", async () => {
    const tab = await open("/own");
    await tab.getByRole("button", { name: "Plan" }).click();
    await tab.getByRole("heading", { name: "Release plan" }).waitFor({ timeout: 120_000 });
    await tab.getByText("Planned.").waitFor({ timeout: 120_000 });
    await tab.locator("oda-plan [part=state]").filter({ hasText: "Finished · turn 1" }).waitFor({ timeout: 60_000 });
    assert.equal(await tab.getByRole("heading", { name: "Release plan" }).count(), 1);
    assert.deepEqual(log(app, chats, "chat-3"), ["session", "turn_started", "todo_update", "suggestion_offered", "turn_ended"]);
    await tab.close();
  });

  assert.deepEqual(errors, [], output());
}
