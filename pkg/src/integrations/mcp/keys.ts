// The names an MCP host and this server agree on: the `_meta` keys of a tool
// call and of its result, and the MCP Apps resource the tools link to.

/**
 * `_meta` key of a `tools/call` naming the chat the call acts on (a string).
 *
 * @example
 * const meta = { [CHAT_META]: "chat-1" }; // a tools/call's params._meta
 */
export const CHAT_META = "oda-tasks/chat";

/**
 * `_meta` key of a `tools/call` naming the model turn it belongs to: an
 * opaque string; a new one ends the open turn and begins the next.
 *
 * @example
 * const meta = { [CHAT_META]: "chat-1", [TURN_META]: "msg_01" }; // msg_01's calls: one turn
 */
export const TURN_META = "oda-tasks/turn";

/**
 * `_meta` key VS Code (Copilot Chat) sends on each tool call, naming its
 * conversation: with `sessionChat`, a call that names no chat acts on chat
 * `vscode-<id>`, created on its first call.
 *
 * @example
 * const meta = { [VSCODE_CONVERSATION_META]: "b7e1…", [VSCODE_REQUEST_META]: "r-1" }; // what VS Code sends
 */
export const VSCODE_CONVERSATION_META = "vscode.conversationId";

/**
 * `_meta` key VS Code sends on each tool call, naming the request (one per
 * message of the person): the call's turn when it names no `oda-tasks/turn`.
 *
 * @example
 * const turn = (meta: Record<string, unknown>) => meta[TURN_META] ?? meta[VSCODE_REQUEST_META];
 */
export const VSCODE_REQUEST_META = "vscode.requestId";

/**
 * `_meta` key of a `todo_write` result holding the recorded update's card.
 *
 * @example
 * const shown = (result: { _meta?: Record<string, unknown> }) => result._meta?.[CARD_META]; // what <oda-todo-card> takes
 */
export const CARD_META = "oda-tasks/card";

/**
 * `_meta` key of a `suggest_task` result holding the recorded offer `{ id, title, tldr, brief }`.
 *
 * @example
 * const offered = (result: { _meta?: Record<string, unknown> }) => result._meta?.[OFFER_META];
 */
export const OFFER_META = "oda-tasks/offer";

/**
 * The MCP Apps resource each tool's definition links to (`_meta.ui.resourceUri`).
 *
 * @example
 * const linked = (tool: { _meta?: { ui?: { resourceUri?: string } } }) => tool._meta?.ui?.resourceUri === APP_RESOURCE_URI;
 */
export const APP_RESOURCE_URI = "ui://oda-tasks/chat.html";
