// The public types of the core's answers and of the stored log format.
// Hand-written to match the Rust structs' serialised form (src/entry.rs,
// src/todo.rs, src/suggest.rs, src/settle.rs); tests/types checks their use
// and the Node tests check the values against them.
/** A JSON value, as stored in a log. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export type TodoStatus = "pending" | "in_progress" | "completed";
/** An item is its text and its state; nothing else travels with it. */
export interface TodoItem { content: string; status: TodoStatus }
/** What the model sends to `todo_write`: the whole list. */
export interface TodoWriteInput { todos: TodoItem[] }
/** Host options of a model's tool call. */
export interface ToolCallOptions {
  /**
   * Longest input accepted, in UTF-16 code units of its JSON text; longer
   * input is refused before it reaches the core. Default 1,048,576 (1 MiB).
   */
  maxInputLength?: number;
}
export interface TodoWriteOptions extends ToolCallOptions {
  /** At most one item `in_progress` per update. Default `true`. */
  oneActive?: boolean;
}

/** What a chat runs as. `sandbox` and `approval` are copied as they are. */
export interface SessionSettings {
  preset?: string; model?: string; permission?: string;
  sandbox?: JsonValue; approval?: JsonValue;
}
/** The offering chat and suggestion a started chat comes from. */
export interface Origin { chatId: string; suggestionId: string }

/** The chat itself; the first entry of a log. */
export interface SessionEntry {
  type: "session"; v?: number; chatId?: string | null; title?: string;
  workspace?: string | null; scheduledTaskFolder?: boolean;
  agent?: "top-level" | "helper"; settings?: SessionSettings; origin?: Origin;
}
export interface TurnStartedEntry { type: "turn_started" }
export interface TurnEndedEntry { type: "turn_ended" }
/** One recorded `todo_write` update: the whole list. */
export interface TodoUpdateEntry { type: "todo_update"; v: number; todos: TodoItem[] }
/** One recorded `suggest_task` offer. */
export interface SuggestionOfferedEntry {
  type: "suggestion_offered"; v: number; id: string; title: string; tldr: string; brief: string;
}
export type SuggestionOutcome = "started" | "drafted" | "dismissed" | "restored";
/** A settlement of an offer; `chatId` only with `started`. */
export interface SuggestionSettledEntry {
  type: "suggestion_settled"; v: number; id: string; outcome: SuggestionOutcome; chatId?: string;
}
/** Who a message is attributed to when it is not the person. */
export interface MessageSource { kind: "suggestion"; chatId: string; suggestionId: string }
/** A chat message. A `user` message without `source` is the person's own. */
export interface MessageEntry { type: "message"; v?: number; role: string; text?: string; source?: MessageSource }
/** An entry the app writes for itself; replay ignores it. */
export interface ForeignEntry { type: string; [field: string]: unknown }
export type CoreEntry =
  | SessionEntry | TurnStartedEntry | TurnEndedEntry | TodoUpdateEntry
  | SuggestionOfferedEntry | SuggestionSettledEntry | MessageEntry;
export type LogEntry = CoreEntry | ForeignEntry;
/** A chat's log, oldest entry first. */
export type Log = readonly LogEntry[];

/** A call the core accepted: append `entry`, show the model `output`. */
export interface Accepted<E> { ok: true; entry: E; output: string }
/** A call the core refused: show the model `error`; nothing is recorded. */
export interface Refused { ok: false; error: string }
export type TodoWriteResult = Accepted<TodoUpdateEntry> | Refused;
export type SuggestTaskResult = Accepted<SuggestionOfferedEntry> | Refused;

/** An entry replay could not use, and why. */
export interface Skipped { index: number; type: string | null; reason: string }
export interface TodoCounts { pending: number; inProgress: number; completed: number }
export interface TodoPlaced { content: string; status: TodoStatus; position: number }
export interface TodoStatusChange { content: string; from: TodoStatus; to: TodoStatus }
export interface TodoMove { content: string; from: number; to: number }
/** What an update changed against the previous list (items match by text). */
export interface TodoChanges {
  added: TodoPlaced[]; removed: TodoPlaced[]; statusChanged: TodoStatusChange[]; moved: TodoMove[];
}
/** One "Update to-do list" card. `index`: the entry's position in the log. */
export interface TodoCard {
  index: number; turn: number | null; todos: TodoItem[]; counts: TodoCounts; changes: TodoChanges;
}
/** `running` while the recording turn runs, `finished` after it ends, `none` once the next turn starts. */
export type PlanState = "none" | "running" | "finished";
export interface TodoPlan { state: PlanState; todos: TodoItem[]; turn: number | null }
/** Where a chat's list and turns stand (`ChatState#listState`). */
export interface ListState {
  /** The current list. */
  todos: TodoItem[];
  /** Turns started so far (the current turn's number). */
  turns: number;
  /** A turn has started and not ended. */
  turnOpen: boolean;
  /** Turns started since the latest `todo_update` was recorded; `null` before any. */
  turnsSinceUpdate: number | null;
}
export interface TodoReplay { todos: TodoItem[]; cards: TodoCard[]; plan: TodoPlan; skipped: Skipped[] }

/** A chat's first screen: the list, the plan, the suggestions, the last cards ({@link ChatState.view}). */
export interface ChatView {
  todos: TodoItem[];
  plan: TodoPlan;
  open: Suggestion[];
  settled: SettledSuggestion[];
  /** How many cards the chat has; page through older ones with `cards(from, to)`. */
  cardCount: number;
  /** The last `n` cards asked for, in log order. */
  cards: TodoCard[];
  skipped: Skipped[];
}

/** What the model sends to `suggest_task`. */
export interface SuggestTaskInput { title: string; tldr: string; brief: string }
export interface Suggestion { id: string; title: string; tldr: string; brief: string }
export interface SettledSuggestion extends Suggestion {
  outcome: "started" | "drafted" | "dismissed";
  /** The started chat, with `started`. */
  chatId?: string;
}
export interface SuggestionReplay { open: Suggestion[]; settled: SettledSuggestion[]; skipped: Skipped[] }

/** A JSONL line that is not an entry (not JSON, not UTF-8), with why. */
export interface UnreadableLine { line: number; reason: string }
/** What reading JSONL bytes found besides entries. `tornBytes`: an incomplete last line, left out. */
export interface JsonlReport { unreadable: UnreadableLine[]; tornBytes: number }

export type SuggestionErrorCode =
  | "task-suggestion/not-found" | "task-suggestion/not-open"
  | "task-suggestion/open-limit" | "task-suggestion/workspace-missing";
/** A refused service operation: `code`, the exact `message`, and its payload. */
export type ServiceFailure =
  | { ok: false; code: "task-suggestion/not-found"; message: string; payload: string; id: string }
  | { ok: false; code: "task-suggestion/not-open"; message: string; payload: "started" | "drafted" | "dismissed"; id: string; outcome: "started" | "drafted" | "dismissed" }
  | { ok: false; code: "task-suggestion/open-limit"; message: string; payload: number; limit: number }
  | { ok: false; code: "task-suggestion/workspace-missing"; message: string; payload: string; chatId: string };
export type SettleAction = "draft" | "dismiss" | "restore";
/** `entry` is `null` when nothing needs writing (restoring an open offer). */
export type SettleDecision = { ok: true; entry: SuggestionSettledEntry | null } | ServiceFailure;
/** Settings the person picks for the started chat; the permission is clamped. */
export interface StartRequest { model?: string; permission?: string }
export type StartDecision =
  | { ok: true; kind: "create"; chatId: string; session: SessionEntry; settled: SuggestionSettledEntry; brief: MessageEntry }
  | { ok: true; kind: "started"; chatId: string; brief: MessageEntry }
  | ServiceFailure;
export type StartedChatState = "missing" | "needs_brief" | "complete" | "foreign";
export type GoalAction = "create" | "complete";
export type GoalCheck = { ok: true } | { ok: false; error: string };

/** A JSON Schema object. */
export type JsonSchema = { [keyword: string]: JsonValue };
/**
 * The top of a tool's input schema: an object schema that admits no other
 * property, typed (`type: "object"`, `additionalProperties: false`) so the
 * SDKs that want those literals take it as it is.
 */
export type ToolInputSchema = JsonSchema & {
  type: "object";
  properties: { [name: string]: JsonSchema };
  required: string[];
  additionalProperties: false;
};
/** A tool definition for model function-calling. */
export interface ToolDefinition<N extends string = string> { name: N; description: string; inputSchema: ToolInputSchema }
