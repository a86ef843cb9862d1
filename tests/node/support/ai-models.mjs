// Scripted models of the AI SDK's own mocks (`ai/test`), shared by the suites
// that run `ai` 7 under Node 22 (also copied into consumer projects).
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";

export const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
export const stop = (unified) => ({ unified, raw: unified });
export const call = (toolCallId, toolName, input) => ({ type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) });

/** A model that makes `calls` in its first step and says "done" in its second. */
export function scriptedModel(calls) {
  return new MockLanguageModelV4({
    doGenerate: [
      { content: calls, finishReason: stop("tool-calls"), usage, warnings: [] },
      { content: [{ type: "text", text: "done" }], finishReason: stop("stop"), usage, warnings: [] },
    ],
  });
}
/** The same script as a stream. */
export function streamedModel(calls) {
  const parts = [
    [{ type: "stream-start", warnings: [] }, ...calls, { type: "finish", finishReason: stop("tool-calls"), usage }],
    [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "done" },
      { type: "text-end", id: "t" },
      { type: "finish", finishReason: stop("stop"), usage },
    ],
  ];
  let step = 0;
  return new MockLanguageModelV4({ doStream: async () => ({ stream: convertArrayToReadableStream(parts[step++]) }) });
}
