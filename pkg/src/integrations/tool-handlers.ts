// The two tools as functions from the model's input to the text it sees,
// bound to one stored chat: what every framework's `execute` needs, so no
// adapter repeats `r.ok ? r.output : r.error`.
import { ownOptions, readOptions } from "../core/options.js";
import { RUN_OPTION_RULES, runTool, type RunToolOptions } from "../chat/run.js";
import type { Store } from "../stores/store.js";

/**
 * The chat the tools act on, and {@link runTool}'s options.
 *
 * @example
 * const options: ChatToolsOptions = { store, chatId: "chat-1", oneActive: false };
 */
export interface ChatToolsOptions extends RunToolOptions {
  store: Store;
  chatId: string;
}

/**
 * Each tool's handler: the model's input (unchecked) to the text the model
 * sees, the core's output or its exact refusal.
 *
 * @example
 * const text: string = await handlers.todo_write(call.input);
 */
export interface ToolHandlers {
  /** Runs the model's `todo_write` input on the chat: the core's output, or its exact refusal. */
  todo_write(input: unknown): Promise<string>;
  /** Runs the model's `suggest_task` input on the chat: the core's output, or its exact refusal. */
  suggest_task(input: unknown): Promise<string>;
}

/**
 * Internal: the store, chat id and {@link runTool} options out of a tools
 * call's options, read as own properties; a missing store or chat id throws.
 */
export function chatToolsOptions(call: string, options: unknown): ChatToolsOptions {
  const { store, chatId, ...rest } = ownOptions(call, options);
  if (store === null || typeof store !== "object" || typeof (store as { append?: unknown }).append !== "function") {
    throw new TypeError(`oda-tasks: invalid arguments of ${call}: \`store\` must be a store (MemoryStore, JsonlStore, ...)`);
  }
  if (typeof chatId !== "string") throw new TypeError(`oda-tasks: invalid arguments of ${call}: \`chatId\` must be a string`);
  const run: RunToolOptions = readOptions(call, rest, RUN_OPTION_RULES);
  return { store: store as Store, chatId, ...run };
}

/**
 * `todo_write` and `suggest_task` bound to chat `chatId`: each resolves to
 * the text to give the model back. An unknown option throws here.
 *
 * @example
 * import { toolHandlers } from "oda-tasks";
 * const tools = toolHandlers({ store, chatId: "chat-1" });
 * await tools.todo_write({ todos: [{ content: "Ship it", status: "in_progress" }] });
 * // "Updated todo list: 0 pending, 1 in progress, 0 completed"
 */
export function toolHandlers(options: ChatToolsOptions): ToolHandlers {
  const { store, chatId, ...run } = chatToolsOptions("toolHandlers", options);
  const handler = (name: "todo_write" | "suggest_task") => async (input: unknown): Promise<string> => {
    const r = await runTool(store, chatId, { name, input }, run);
    return r.ok ? r.output : r.error;
  };
  return { todo_write: handler("todo_write"), suggest_task: handler("suggest_task") };
}
