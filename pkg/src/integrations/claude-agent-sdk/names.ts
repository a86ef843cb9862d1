// The names the Claude Agent SDK and this integration agree on: the
// in-process MCP server and its tools as the SDK spells them, the SDK's own
// task-list tools that one list per chat replaces, the `_meta` keys of a
// result, and the chat a subagent's calls are recorded on.

/**
 * The name of the in-process MCP server `withOda` adds to `mcpServers`; its tools are `mcp__oda__<tool>`.
 *
 * @example
 * const options = withOda({ mcpServers: {} }, { store, chatId });
 * Object.keys(options.mcpServers ?? {}); // ["oda"]
 */
export const ODA_SERVER = "oda";

/**
 * The tools' names as the SDK and the model see them (`mcp__<server>__<tool>`).
 *
 * @example
 * if (block.type === "tool_use" && block.name === ODA_TOOL_NAMES.todo_write) show(block.id);
 */
export const ODA_TOOL_NAMES = {
  todo_write: `mcp__${ODA_SERVER}__todo_write`,
  suggest_task: `mcp__${ODA_SERVER}__suggest_task`,
} as const;

/**
 * The SDK's own task-list tools, which `withOda` disallows: one list per chat, kept in the app's store.
 *
 * @example
 * SDK_TASK_TOOLS.includes("TodoWrite"); // true
 */
export const SDK_TASK_TOOLS: readonly string[] = ["TodoWrite", "TaskCreate", "TaskUpdate", "TaskGet", "TaskList"];

/**
 * `_meta` key of a `todo_write` result holding the recorded update's card (what `<oda-todo-card>` takes).
 *
 * @example
 * import type { SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
 * declare const message: SDKUserMessage; // a tool result the SDK hands the app
 * const card = (message.tool_use_result as { _meta?: Record<string, unknown> } | undefined)?._meta?.[CARD_META];
 */
export const CARD_META = "oda-tasks/card";

/**
 * `_meta` key of a `suggest_task` result holding the recorded offer `{ id, title, tldr, brief }`.
 *
 * @example
 * import type { SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
 * declare const message: SDKUserMessage;
 * const offer = (message.tool_use_result as { _meta?: Record<string, unknown> } | undefined)?._meta?.[OFFER_META];
 */
export const OFFER_META = "oda-tasks/offer";

/**
 * `_meta` key of every result naming the chat the call was recorded on (the
 * app's chat, or a subagent's {@link helperChatId}).
 *
 * @example
 * import type { SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
 * declare const message: SDKUserMessage;
 * const recordedOn = (message.tool_use_result as { _meta?: Record<string, unknown> } | undefined)?._meta?.[CHAT_META];
 */
export const CHAT_META = "oda-tasks/chat";

/**
 * The chat a subagent's tool calls are recorded on: its own list, apart from
 * the chat it works for (SPEC: a helper has its own log and its own list).
 *
 * @example
 * const { todos } = replayTodos((await store.read(helperChatId("chat-1", "a1b2c3"))) ?? []); // the list of subagent a1b2c3
 */
export function helperChatId(chatId: string, agentId: string): string {
  return `${chatId}~${agentId}`;
}

/** Internal: the SDK's `_meta` key on an in-process tool call carrying the call's tool-use id. */
export const TOOL_USE_ID_META = "claudecode/toolUseId";
