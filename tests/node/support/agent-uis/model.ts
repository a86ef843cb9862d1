// The agent UIs' model (tests/node/consumers/consumer-agent-uis.test.mjs):
// the AI SDK's mock, scripted by what the person said, that waits at a named
// gate until the test releases it (POST /test/release/:name on the server),
// so the test sees the UI mid-run.
import type { Agent } from "@mastra/core/agent";
import type { LanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const finish = (unified: "stop" | "tool-calls") => ({ type: "finish", finishReason: { unified, raw: unified }, usage });
const call = (toolCallId: string, toolName: string, input: unknown) => ({
  type: "tool-call",
  toolCallId,
  toolName,
  input: JSON.stringify(input),
});
const text = (words: string) => [
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: words },
  { type: "text-end", id: "t" },
];
const retries = { title: "Add retries", tldr: "Uploads fail on flaky networks.", brief: "In upload.ts, retry failed uploads." };
const first = {
  todos: [
    { content: "Write tests", status: "in_progress" },
    { content: "Ship", status: "pending" },
  ],
};
const second = {
  todos: [
    { content: "Write tests", status: "completed" },
    { content: "Ship", status: "in_progress" },
  ],
};

const gates = new Map<string, { opened: Promise<void>; open: () => void }>();
function gate(name: string) {
  let g = gates.get(name);
  if (g === undefined) {
    let open = () => {};
    const opened = new Promise<void>((resolve) => (open = resolve));
    g = { opened, open };
    gates.set(name, g);
  }
  return g;
}
/** Opens gate `name`: the model goes on. */
export const release = (name: string) => gate(name).open();

// biome-ignore lint/suspicious/noExplicitAny: the prompt's messages and the stream parts are the SDK's; the script reads a few fields
type Any = any;
/** What the person said last, and how many tool results the model has read. */
function said(prompt: Any[]): { words: string; results: number } {
  const user = prompt.filter((m) => m.role === "user").at(-1);
  const words = (user?.content ?? []).map((p: Any) => p.text ?? "").join("");
  const results = prompt.flatMap((m) => (m.role === "tool" ? m.content : [])).filter((p: Any) => p.type === "tool-result").length;
  return { words, results };
}

/** A stream of `parts`, where a string is a gate to wait at. */
function scripted(parts: (Any | string)[]): ReadableStream<Any> {
  return new ReadableStream({
    async start(controller) {
      controller.enqueue({ type: "stream-start", warnings: [] });
      for (const part of parts) {
        if (typeof part === "string") await gate(part).opened;
        else controller.enqueue(part);
      }
      controller.close();
    },
  });
}

/** The todo_write call written in pieces, with gate `at` halfway, as a provider streams a tool's input. */
function written(id: string, input: unknown, at: string): (Any | string)[] {
  const json = JSON.stringify(input);
  const pieces = Array.from({ length: Math.ceil(json.length / 8) }, (_, i) => ({
    type: "tool-input-delta",
    id,
    delta: json.slice(i * 8, i * 8 + 8),
  }));
  // Halfway: the first item is written whole ("Write tests", in_progress), the second not yet begun.
  const half = Math.floor(json.indexOf("Ship") / 8);
  return [
    { type: "tool-input-start", id, toolName: "todo_write" },
    ...pieces.slice(0, half),
    at,
    ...pieces.slice(half),
    { type: "tool-input-end", id },
    call(id, "todo_write", input),
  ];
}

/**
 * "Plan the release" (the CopilotKit page, through Mastra): the plan, then at
 * gate `plan` the next list and a suggestion, then text. "Write the plan" (the
 * assistant-ui page, through streamText): the plan written slowly, waiting at
 * gate `input` halfway, and a suggestion, then text.
 */
export const model: LanguageModel = new MockLanguageModelV4({
  doStream: async ({ prompt }) => {
    const { words, results } = said(prompt as Any[]);
    const script =
      words === "Plan the release"
        ? results === 0
          ? [call("c1", "todo_write", first), finish("tool-calls")]
          : results === 1
            ? ["plan", call("c2", "todo_write", second), call("c3", "suggest_task", retries), finish("tool-calls")]
            : [...text("Planned."), finish("stop")]
        : results === 0
          ? [...written("w1", first, "input"), call("w2", "suggest_task", retries), finish("tool-calls")]
          : [...text("Planned."), finish("stop")];
    return { stream: scripted(script) };
  },
});

/** The same model as Mastra's Agent takes it (Mastra's types name their own copy of the provider's types). */
export const agentModel = model as unknown as ConstructorParameters<typeof Agent>[0]["model"];
