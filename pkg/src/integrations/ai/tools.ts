// `oda-tasks/ai`: the two tools for the Vercel AI SDK (`ai` >= 7), and one
// model call run as one turn of the chat. The SDK checks no input against the
// schema: every call reaches the core, whose exact text the model gets back;
// the UI's tool part gets `{ text, card?, offer? }`.
import { jsonSchema, tool, type ModelMessage, type Tool } from "ai";
import { suggestTaskTool, todoWriteTool } from "../../gen/tools.js";
import { ANY, ownOptions, readOptions } from "../../core/options.js";
import { RUN_OPTION_RULES } from "../../chat/run.js";
import { openTurn, TURN_REMINDER_RULES, type TurnReminderOptions } from "../../chat/turn.js";
import { chatToolsOptions, uiToolHandlers, type ChatToolsOptions, type UiToolHandlers } from "../tool-handlers.js";
import type { UiToolResult } from "../../chat/run.js";
import { ChatParts, partWriter, type OdaPartWriter } from "./parts.js";
import type { JsonSchema } from "../../core/types.js";

/**
 * The tools `aiTools` returns: pass them as `tools` to `generateText` or
 * `streamText`. Input is `unknown`: the core checks it, not the SDK. Each
 * resolves to `{ text, card?, offer? }`; the model reads only `text`.
 *
 * @example
 * import type { InferUITools, UIDataTypes, UIMessage } from "ai";
 * const tools: AiTools = aiTools({ store, chatId: "chat-1" });
 * type ChatMessage = UIMessage<never, UIDataTypes, InferUITools<AiTools>>; // part.output.card type-checks
 */
export type AiTools = {
  todo_write: Tool<unknown, UiToolResult>;
  suggest_task: Tool<unknown, UiToolResult>;
};

/**
 * Options of {@link aiTools}: the chat, `runTool`'s options, and the
 * `writer` of the app's own `createUIMessageStream`, into which each
 * recorded call writes the part it changed (`data-oda-plan`, `data-oda-suggestions`).
 *
 * @example
 * import { createUIMessageStream, type UIMessage } from "ai";
 * createUIMessageStream<UIMessage<never, OdaDataTypes>>({ execute: ({ writer }) => void aiTools({ store, chatId, writer } satisfies AiToolsOptions) });
 */
export interface AiToolsOptions extends ChatToolsOptions {
  writer?: OdaPartWriter;
}

/**
 * Options of {@link aiTurn}: the chat, {@link aiTools}' options, and when to
 * put the list back into the model's context.
 *
 * @example
 * const options: AiTurnOptions = { store, chatId: "chat-1", remind: "always" }; // after compaction
 */
export interface AiTurnOptions extends AiToolsOptions, TurnReminderOptions {}

/**
 * `generateText`'s and `streamText`'s `prepareStep` as {@link aiTurn} hands it
 * over: before each step, when a person edited the list since the model last
 * read it, the step's messages end with the notice (a user message whose text
 * is exactly the core's), carried forward to later steps and recorded as told.
 *
 * @example
 * import { generateText } from "ai";
 * // beside a prepareStep of your own: prepareStep: async (o) => (await prepareStep(o)) ?? mine(o)
 * const call = ({ tools, prepareStep }: AiTurn) => generateText({ model, tools, prepareStep: prepareStep satisfies OdaPrepareStep, messages });
 */
export type OdaPrepareStep = <O extends { messages: ModelMessage[] }>(options: O) => Promise<{ messages: ModelMessage[] } | undefined>;

/**
 * What {@link aiTurn} hands the model call: the tools, the turn's number,
 * the text for the context (`null`: none due) and the `prepareStep` that
 * tells the model of a person's edit at its next step.
 *
 * @example
 * import { generateText } from "ai";
 * const call = async ({ tools, reminder, prepareStep }: AiTurn) => generateText({ model, tools, system: reminder ?? undefined, prepareStep, messages });
 */
export interface AiTurn {
  tools: AiTools;
  turn: number;
  /** The list's text when a reminder is due, or the notice of a person's edit the model was not told of (told once). */
  reminder: string | null;
  /** Pass it to `generateText` or `streamText`: a person's edit made during the call reaches the model's next step. */
  prepareStep: OdaPrepareStep;
}

/**
 * `todo_write` and `suggest_task` as AI SDK tools bound to chat `chatId`.
 * Each resolves to `{ text, card?, offer? }` for the UI's tool part: `text`
 * is the core's exact output or refusal (a refusal is a result the model
 * reads, not a tool error) and, through `toModelOutput`, all the model sees;
 * `card` is a recorded update's `TodoCard`, `offer` a recorded suggestion.
 *
 * @example
 * import { generateText } from "ai";
 * import { aiTools } from "oda-tasks/ai";
 * const { text } = await generateText({ model, tools: aiTools({ store, chatId: "chat-1" }), messages });
 */
export function aiTools(options: AiToolsOptions): AiTools {
  const { writer, ...rest } = ownOptions("aiTools", options);
  const chat = chatToolsOptions("aiTools", rest);
  const parts = writer === undefined ? null : new ChatParts(chat.store, chat.chatId, chat.cache, partWriter("aiTools", writer));
  return boundTools(uiToolHandlers(chat), (_name, run) => run(), parts);
}

/** How a tool's execute runs: directly ({@link aiTools}) or counted by a turn ({@link aiTurn}). */
type Runner = (name: keyof AiTools, run: () => Promise<UiToolResult>) => Promise<UiToolResult>;

function boundTools(handlers: UiToolHandlers, runner: Runner, parts: ChatParts | null): AiTools {
  // With a writer, the part a call changed is written before the call resolves (and counts in the turn).
  const run = (name: keyof AiTools, input: unknown, callId: string) => async () => {
    const result = await handlers[name](input, callId);
    if (parts !== null) await parts.after(result);
    return result;
  };
  const aiTool = (name: keyof AiTools, definition: { description: string; inputSchema: JsonSchema }) =>
    tool<unknown, UiToolResult, Record<string, never>>({
      description: definition.description,
      // No `validate`: the SDK hands every input over as it came.
      inputSchema: jsonSchema<unknown>(JSON.parse(JSON.stringify(definition.inputSchema)) as JsonSchema),
      execute: (input: unknown, { toolCallId }) => runner(name, run(name, input, toolCallId)),
      // The model reads the core's text and nothing else: the card and the offer are for the UI.
      toModelOutput: ({ output }) => ({ type: "text", value: output.text }),
    });
  return {
    todo_write: aiTool("todo_write", todoWriteTool),
    suggest_task: aiTool("suggest_task", suggestTaskTool),
  };
}

/**
 * Runs one model call as one turn of chat `chatId`: begins the turn, hands
 * `call` the tools, the list's reminder (or the notice of a person's edit) and
 * the `prepareStep` that tells the model of an edit made meanwhile at its
 * next step, and ends the turn when `call`
 * settles, also when it throws or is aborted. A tool call still running
 * then (the SDK stops waiting for it on an abort) is waited for first, so
 * every call that began in the turn lands in it; a tool call that begins
 * after `call` settled is refused. Resolves to what `call` does. With a
 * `writer`, the plan's part is written when the turn begins and ends, and
 * each recorded call writes the part it changed.
 *
 * @example
 * import { generateText } from "ai";
 * import { aiTurn } from "oda-tasks/ai";
 * const { text } = await aiTurn({ store, chatId: "chat-1" }, ({ tools, reminder, prepareStep }) =>
 *   generateText({ model, tools, prepareStep, system: ["You plan with todo_write.", reminder].filter(Boolean).join("\n\n"), messages }));
 */
export async function aiTurn<T>(options: AiTurnOptions, call: (turn: AiTurn) => T | PromiseLike<T>): Promise<T> {
  if (typeof call !== "function") throw new TypeError("oda-tasks: invalid arguments of aiTurn: `call` must be a function");
  // Every option is checked here, before the turn's first entry is written.
  const {
    remind = "due",
    everyTurns,
    writer,
    ...rest
  } = readOptions<AiTurnOptions>("aiTurn", options, {
    ...RUN_OPTION_RULES,
    store: ANY,
    chatId: ANY,
    writer: ANY,
    ...TURN_REMINDER_RULES,
  });
  const chat = chatToolsOptions("aiTurn", rest);
  const parts = writer === undefined ? null : new ChatParts(chat.store, chat.chatId, chat.cache, partWriter("aiTurn", writer));
  const open = await openTurn(
    chat.store,
    chat.chatId,
    chat.cache,
    { remind, ...(everyTurns === undefined ? {} : { everyTurns }) },
    (name) =>
      `oda-tasks: ${name} was called after its aiTurn's model call settled; it was refused and recorded nothing ` +
      "(a turn's tools work while its call runs: await every model call inside the call given to aiTurn)",
  );
  const tools = boundTools(uiToolHandlers(chat), open.calls.run, parts);
  // The parts are a view: a failed read leaves them as they were, the turn runs on.
  const showPlan = () => parts?.plan().catch(() => undefined);
  await showPlan();
  // A failed read leaves the step as it was: the edit is then told when the model's next todo_write is refused.
  const prepareStep: OdaPrepareStep = async ({ messages }) => {
    const told = await open.notice().catch(() => null);
    return told === null ? undefined : { messages: [...messages, { role: "user", content: told.text }] };
  };
  let result: T;
  try {
    result = await call({ tools, turn: open.turn, reminder: open.reminder, prepareStep });
  } catch (e) {
    // The call's failure is the one to report; the turn still ends, after its tool calls.
    await open.end().catch(() => undefined);
    await showPlan();
    throw e;
  }
  await open.end();
  await showPlan();
  return result;
}
