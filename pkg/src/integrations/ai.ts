// `oda-tasks/ai`: the two tools for the Vercel AI SDK (`ai` >= 7), and one
// model call run as one turn of the chat. The SDK checks no input against the
// schema: every call reaches the core, whose exact text the model gets back.
import { jsonSchema, tool, type Tool } from "ai";
import { suggestTaskTool, todoWriteTool } from "../gen/tools.js";
import { ANY, oneOf, readOptions, wholeNumber } from "../core/options.js";
import { RUN_OPTION_RULES } from "../chat/run.js";
import { beginTurn, endTurn } from "../chat/lifecycle.js";
import { todoReminder } from "../chat/reminder.js";
import { chatToolsOptions, toolHandlers, type ChatToolsOptions } from "./tool-handlers.js";
import type { JsonSchema } from "../core/types.js";

/**
 * The tools `aiTools` returns: pass them as `tools` to `generateText` or
 * `streamText`. Input is `unknown`: the core checks it, not the SDK.
 *
 * @example
 * const tools: AiTools = aiTools({ store, chatId: "chat-1" });
 */
export type AiTools = {
  todo_write: Tool<unknown, string>;
  suggest_task: Tool<unknown, string>;
};

/**
 * Options of {@link aiTurn}: the chat, {@link aiTools}' options, and when to
 * put the list back into the model's context.
 *
 * @example
 * const options: AiTurnOptions = { store, chatId: "chat-1", remind: "always" }; // after compaction
 */
export interface AiTurnOptions extends ChatToolsOptions {
  /**
   * `"due"` (default): the list's text when `reminderDue` says so;
   * `"always"`: whenever the list has items (after compaction, on resume);
   * `"never"`: no reminder.
   */
  remind?: "due" | "always" | "never";
  /** `reminderDue`'s `everyTurns` (default 3). */
  everyTurns?: number;
}

/**
 * What {@link aiTurn} hands the model call: the tools, the turn's number and
 * the list's text for the context (`null`: none due).
 *
 * @example
 * async ({ tools, reminder }) => generateText({ model, tools, system: reminder ?? undefined, prompt })
 */
export interface AiTurn {
  tools: AiTools;
  turn: number;
  reminder: string | null;
}

/**
 * `todo_write` and `suggest_task` as AI SDK tools bound to chat `chatId`.
 * Each result is the core's exact text, its refusals included (a refusal is
 * a result the model reads, not a tool error).
 *
 * @example
 * import { generateText } from "ai";
 * import { aiTools } from "oda-tasks/ai";
 * const { text } = await generateText({ model, tools: aiTools({ store, chatId: "chat-1" }), prompt });
 */
export function aiTools(options: ChatToolsOptions): AiTools {
  const handlers = toolHandlers(chatToolsOptions("aiTools", options));
  const aiTool = (definition: { description: string; inputSchema: JsonSchema }, run: (input: unknown) => Promise<string>) =>
    tool<unknown, string, {}>({
      description: definition.description,
      // No `validate`: the SDK hands every input over as it came.
      inputSchema: jsonSchema<unknown>(JSON.parse(JSON.stringify(definition.inputSchema)) as JsonSchema),
      execute: (input: unknown) => run(input),
    });
  return {
    todo_write: aiTool(todoWriteTool, handlers.todo_write),
    suggest_task: aiTool(suggestTaskTool, handlers.suggest_task),
  };
}

/**
 * Runs one model call as one turn of chat `chatId`: begins the turn, hands
 * `call` the tools and the list's reminder, and ends the turn when `call`
 * settles, also when it throws or is aborted. Resolves to what `call` does.
 *
 * @example
 * import { generateText } from "ai";
 * import { aiTurn } from "oda-tasks/ai";
 * const { text } = await aiTurn({ store, chatId: "chat-1" }, ({ tools, reminder }) =>
 *   generateText({ model, tools, system: [prompt, reminder].filter(Boolean).join("\n\n"), messages }));
 */
export async function aiTurn<T>(options: AiTurnOptions, call: (turn: AiTurn) => T | PromiseLike<T>): Promise<T> {
  if (typeof call !== "function") throw new TypeError("oda-tasks: invalid arguments of aiTurn: `call` must be a function");
  // Every option is checked here, before the turn's first entry is written.
  const { remind = "due", everyTurns, ...rest } = readOptions<AiTurnOptions>("aiTurn", options, {
    ...RUN_OPTION_RULES,
    store: ANY,
    chatId: ANY,
    remind: oneOf("due", "always", "never"),
    everyTurns: wholeNumber(1),
  });
  const { store, chatId, cache } = chatToolsOptions("aiTurn", rest);
  const tools = aiTools(rest as ChatToolsOptions);
  const states = cache === undefined ? undefined : { cache };
  const turn = await beginTurn(store, chatId, states);
  let reminder: string | null = null;
  let result: T;
  try {
    if (remind !== "never") {
      reminder = await todoReminder(store, chatId, {
        always: remind === "always",
        ...(everyTurns === undefined ? {} : { everyTurns }),
        ...states,
      });
    }
    result = await call({ tools, turn, reminder });
  } catch (e) {
    // The call's failure is the one to report; ending the turn is still tried.
    await endTurn(store, chatId, states).catch(() => undefined);
    throw e;
  }
  await endTurn(store, chatId, states);
  return result;
}
