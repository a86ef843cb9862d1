// The package's entry for browsers and bundlers: `await init()` once, then
// use the core. Node gets `index.node.ts`, which initialises on import.
export * from "../core/functions.js";
export { NOT_INITIALISED, init, initSync, type WasmBytes, type WasmSource } from "./load.js";
export { todoWriteTool, suggestTaskTool } from "../gen/tools.js";
export {
  ConflictError,
  MAX_CHAT_ID_LENGTH,
  StoreError,
  checkChatId,
  checkFrom,
  checkMark,
  epochRead,
  jsonCopy,
  readFrom,
  replaced,
  truncated,
  type LogRead,
  type Store,
  type StoreErrorCode,
  type StoreListOptions,
  type StoredChat,
  type StoredChatPage,
} from "../stores/store.js";
export { MemoryStore } from "../stores/memory.js";
export { ChatStateCache, DEFAULT_CACHE_SIZE, sharedCache } from "../chat/state-cache.js";
export type { ChatStateCacheOptions, ChatStateLease } from "../chat/state-cache.js";
export { MAX_ATTEMPTS } from "../chat/append-loop.js";
export {
  MAX_TOOL_ATTEMPTS,
  isConflict,
  runTool,
  type RunToolOptions,
  type ToolCall,
  type ToolResult,
  type UiToolResult,
} from "../chat/run.js";
export type { TelemetryOptions } from "../telemetry/tool-call.js";
export * from "../chat/service.js";
export * from "../integrations/sdk-tools.js";
export {
  beginTurn,
  createChat,
  deleteChat,
  endTurn,
  type BeginTurnOptions,
  type ChatSession,
  type TurnOptions,
} from "../chat/lifecycle.js";
export * from "../chat/reminder.js";
export {
  ChatChangedError,
  editNotice,
  editTodos,
  type EditNoticeOptions,
  type EditTodosCallOptions,
  type EditTodosResult,
} from "../chat/edit.js";
export {
  toolHandlers,
  type ChatToolsOptions,
  type ToolHandlers,
  type ToolHandlersOptions,
  type UiToolHandlers,
} from "../integrations/tool-handlers.js";
