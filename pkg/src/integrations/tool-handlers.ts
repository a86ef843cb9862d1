// The two tools as functions from the model's input to the text it sees,
// bound to one stored chat: what every framework's `execute` needs, so no
// adapter repeats `r.ok ? r.output : r.error`.
import { BOOLEAN, ownOptions, readOptions } from "../core/options.js";
import { RUN_OPTION_RULES, runTool, runToolForUi, type RunToolOptions, type ToolCall, type UiToolResult } from "../chat/run.js";
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
 * const handlers: ToolHandlers = toolHandlers({ store, chatId: "chat-1" });
 * const text: string = await handlers.todo_write(call.input);
 */
export interface ToolHandlers {
  /** Runs the model's `todo_write` input on the chat: the core's output, or its exact refusal. `callId`: the model's id of the call, for its span. */
  todo_write(input: unknown, callId?: string): Promise<string>;
  /** Runs the model's `suggest_task` input on the chat: the core's output, or its exact refusal. `callId`: the model's id of the call, for its span. */
  suggest_task(input: unknown, callId?: string): Promise<string>;
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
 * Each tool's handler with `ui: true`: the model's input (unchecked) to what
 * the chat's UI draws, `{ text, card?, offer? }`; give the model only `text`.
 *
 * @example
 * const handlers: UiToolHandlers = toolHandlers({ store, chatId: "chat-1", ui: true });
 * const { text, card } = await handlers.todo_write(call.input);
 */
export interface UiToolHandlers {
  /** Runs the model's `todo_write` input: `text` for the model, and the recorded update's `card`. `callId`: the model's id of the call, for its span. */
  todo_write(input: unknown, callId?: string): Promise<UiToolResult>;
  /** Runs the model's `suggest_task` input: `text` for the model, and the recorded `offer`. `callId`: the model's id of the call, for its span. */
  suggest_task(input: unknown, callId?: string): Promise<UiToolResult>;
}

/**
 * Options of {@link toolHandlers}: the chat, {@link runTool}'s options, and
 * `ui` (default `false`): resolve to `{ text, card?, offer? }` instead of the text.
 *
 * @example
 * const options: ToolHandlersOptions = { store, chatId: "chat-1", ui: true };
 */
export interface ToolHandlersOptions extends ChatToolsOptions {
  ui?: boolean;
}

/**
 * `todo_write` and `suggest_task` bound to chat `chatId`: each resolves to
 * the text to give the model back, or with `ui: true` to `{ text, card?,
 * offer? }` for a UI (the model still gets only `text`). Each takes the
 * model's id of the call as a second argument where the API gives one (its
 * span's `gen_ai.tool.call.id`). An unknown option throws here.
 *
 * @example
 * import { toolHandlers } from "oda-tasks";
 * const tools = toolHandlers({ store, chatId: "chat-1" });
 * await tools.todo_write({ todos: [{ content: "Ship it", status: "in_progress" }] });
 * // "Updated todo list: 0 pending, 1 in progress, 0 completed"
 * const ui = toolHandlers({ store, chatId: "chat-1", ui: true });
 * const { text, card } = await ui.todo_write({ todos: [{ content: "Ship it", status: "completed" }] });
 */
export function toolHandlers(options: ToolHandlersOptions & { ui: true }): UiToolHandlers;
export function toolHandlers(options: ToolHandlersOptions & { ui?: false }): ToolHandlers;
export function toolHandlers(options: ToolHandlersOptions): ToolHandlers | UiToolHandlers;
export function toolHandlers(options: ToolHandlersOptions): ToolHandlers | UiToolHandlers {
  const { ui, ...rest } = ownOptions("toolHandlers", options);
  const { ui: asUi = false } = readOptions<{ ui: boolean }>("toolHandlers", { ui }, { ui: BOOLEAN });
  const { store, chatId, ...run } = chatToolsOptions("toolHandlers", rest);
  if (asUi) return uiToolHandlers({ store, chatId, ...run });
  const handler =
    (name: "todo_write" | "suggest_task") =>
    async (input: unknown, callId?: string): Promise<string> => {
      const r = await runTool(store, chatId, toolCall(name, input, callId), run);
      return r.ok ? r.output : r.error;
    };
  return { todo_write: handler("todo_write"), suggest_task: handler("suggest_task") };
}

/** Internal: the UI handlers over options already read by {@link chatToolsOptions}. */
export function uiToolHandlers({ store, chatId, ...run }: ChatToolsOptions): UiToolHandlers {
  const handler =
    (name: "todo_write" | "suggest_task") =>
    (input: unknown, callId?: string): Promise<UiToolResult> =>
      runToolForUi(store, chatId, toolCall(name, input, callId), run);
  return { todo_write: handler("todo_write"), suggest_task: handler("suggest_task") };
}

/** The call, with the model's id of it when the framework gave one (a string). */
function toolCall(name: ToolCall["name"], input: unknown, callId: unknown): ToolCall {
  return typeof callId === "string" ? { name, input, id: callId } : { name, input };
}
