// A tool call as it is seen: one span `execute_tool <tool>` (kind INTERNAL, as
// the GenAI semantic conventions name it) under the caller's active span, the
// store's work its children; the call's outcome told to the observers. The
// model's arguments and the text it reads go on the span only with
// `recordContent`: they are the user's content.
import { inSpan, outOfScope } from "./otel.js";
import { tell, type ToolOutcome } from "./observe.js";

/**
 * Options of the tools' spans, taken by every integration (`telemetry`):
 * `false` makes none; `{ recordContent: true }` also records the call's
 * arguments (`gen_ai.tool.call.arguments`) and the text the model reads
 * (`gen_ai.tool.call.result`), which are the user's content.
 *
 * @example
 * toolHandlers({ store, chatId: "chat-1", telemetry: { recordContent: true } });
 */
export interface TelemetryOptions {
  recordContent?: boolean;
}

/** What a call's span says of it: the tool, the model's id of the call, the chat as its caller names it, the input. */
export interface ToolCallAbout {
  tool: string;
  callId?: string | undefined;
  /** `gen_ai.conversation.id`: the chat's id as the caller knows it (an owner's own id, never a store key). */
  conversationId: string;
  input: unknown;
}

/**
 * Runs the tool call `run` seen as {@link ToolCallAbout} says; `answer` reads
 * its result as accepted or refused and the text the model reads.
 *
 * @example
 * const about: ToolCallAbout = { tool: "todo_write", callId: block.id, conversationId: chatId, input: block.input };
 * const r = await toolCallSeen(about, { recordContent: false }, () => runTool(store, chatId, call), (r) => ({ ok: r.ok, text: r.ok ? r.output : r.error }));
 */
export async function toolCallSeen<R>(
  about: ToolCallAbout,
  telemetry: boolean | TelemetryOptions | undefined,
  run: () => Promise<R>,
  answer: (result: R) => { ok: boolean; text: string },
): Promise<R> {
  let outcome: ToolOutcome = "failed";
  try {
    const content = typeof telemetry === "object" && telemetry.recordContent === true;
    const result = await (telemetry === false ? outOfScope(run) : traced(about, content, run, answer));
    outcome = answer(result).ok ? "recorded" : "refused";
    return result;
  } finally {
    tell("toolCall", about.tool, outcome);
  }
}

function traced<R>(about: ToolCallAbout, content: boolean, run: () => Promise<R>, answer: (result: R) => { ok: boolean; text: string }) {
  const attributes: Record<string, string> = {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": about.tool,
    "gen_ai.tool.type": "function",
    "gen_ai.conversation.id": about.conversationId,
  };
  if (about.callId !== undefined) attributes["gen_ai.tool.call.id"] = about.callId;
  return inSpan(`execute_tool ${about.tool}`, { attributes }, async (span) => {
    if (content && span.live) span.set("gen_ai.tool.call.arguments", argumentsText(about.input));
    const result = await run();
    const { ok, text } = answer(result);
    if (!ok) span.fail("tool_error");
    if (content && span.live) span.set("gen_ai.tool.call.result", text);
    return result;
  });
}

/** The arguments as JSON text; a value JSON cannot write (a cycle, a BigInt) is left out, never thrown. */
function argumentsText(input: unknown): string | undefined {
  try {
    return JSON.stringify(input);
  } catch {
    return undefined;
  }
}
