// The core, as the package exports it: the wasm-bindgen glue's functions,
// guarded so that a call before the module is initialised says what to do
// instead of failing inside the glue.
import * as glue from "../wasm/oda_tasks.js";

import type {
  GoalAction, GoalCheck, Log, SettleAction, SettleDecision, StartDecision, StartedChatState, StartRequest,
  SuggestionReplay, SuggestTaskInput, SuggestTaskResult, TodoReplay, TodoWriteInput, TodoWriteOptions, TodoWriteResult,
} from "../wasm/oda_tasks.js";

// The public types, written next to the Rust (src/wasm.rs) and bound by name.
// Listed one by one: the glue's own InitOutput is internal and not re-exported.
export type {
  Accepted, CoreEntry, ForeignEntry, GoalAction, GoalCheck, JsonSchema, JsonValue, Log, LogEntry, MessageEntry,
  MessageSource, Origin, PlanState, Refused, ServiceFailure, SessionEntry, SessionSettings, SettleAction,
  SettleDecision, SettledSuggestion, Skipped, StartDecision, StartedChatState, StartRequest, Suggestion,
  SuggestionErrorCode, SuggestionOfferedEntry, SuggestionOutcome, SuggestionReplay, SuggestionSettledEntry,
  SuggestTaskInput, SuggestTaskResult, TodoCard, TodoChanges, TodoCounts, TodoItem, TodoMove, TodoPlaced, TodoPlan,
  TodoReplay, TodoStatus, TodoStatusChange, TodoUpdateEntry, TodoWriteInput, TodoWriteOptions, TodoWriteResult,
  ToolDefinition, ToolDefinitions, TurnEndedEntry, TurnStartedEntry,
} from "../wasm/oda_tasks.js";

export { NOT_INITIALISED, init, initSync } from "./load.js";
import { assertReady } from "./load.js";

function guarded<F extends (...args: never[]) => unknown>(f: F): F {
  return ((...args: Parameters<F>) => {
    assertReady();
    return f(...args);
  }) as F;
}

// Signatures restated where a trailing parameter is optional: wasm-bindgen
// marks a parameter with an explicit type as required. The JSDoc and the
// examples are on the Rust exports (src/wasm.rs).
export const todoWrite = guarded(glue.todoWrite) as (
  log: Log | null, input: TodoWriteInput, options?: TodoWriteOptions) => TodoWriteResult;
export const replayTodos: (log: Log) => TodoReplay = guarded(glue.replayTodos);
export const suggestTask: (log: Log | null, input: SuggestTaskInput) => SuggestTaskResult = guarded(glue.suggestTask);
export const replaySuggestions: (log: Log) => SuggestionReplay = guarded(glue.replaySuggestions);
export const settleSuggestion: (log: Log, id: string, action: SettleAction) => SettleDecision =
  guarded(glue.settleSuggestion);
export const planStart = guarded(glue.planStart) as (
  log: Log, chatId: string, id: string, request?: StartRequest, permissions?: readonly string[]) => StartDecision;
export const startedChat: (log: Log | null, chatId: string, suggestionId: string) => StartedChatState =
  guarded(glue.startedChat);
export const clampPermission = guarded(glue.clampPermission) as (
  wanted: string | null, ceiling: string | null, permissions?: readonly string[]) => string;
export const checkGoal: (log: Log, action: GoalAction) => GoalCheck = guarded(glue.checkGoal);
