// The package's entry for browsers and bundlers: `await init()` once, then
// use the core. Node gets `index.node.ts`, which initialises on import.
export * from "./core.js";
export { todoWriteTool, suggestTaskTool } from "./gen/tools.js";
export * from "./store.js";
export { MemoryStore } from "./memory.js";
export { ChatStateCache, DEFAULT_CACHE_SIZE, sharedCache } from "./state-cache.js";
export type { ChatStateCacheOptions, ChatStateLease } from "./state-cache.js";
export { MAX_ATTEMPTS } from "./append-loop.js";
export { isConflict, MAX_TOOL_ATTEMPTS, runTool } from "./run.js";
export type { RunToolOptions, ToolCall, ToolResult, UiToolResult } from "./run.js";
export * from "./service.js";
export * from "./sdk-tools.js";
export * from "./lifecycle.js";
export * from "./reminder.js";
export { toolHandlers, type ChatToolsOptions, type ToolHandlers, type ToolHandlersOptions, type UiToolHandlers } from "./tool-handlers.js";
