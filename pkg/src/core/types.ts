// The public types of the core's answers and of the stored log format.
// Hand-written to match the Rust structs' serialised form (src/entry/mod.rs,
// src/todo.rs, src/suggest.rs, src/settle.rs); tests/types checks their use
// and the Node tests check the values against them.
/**
 * A JSON value, as stored in a log.
 *
 * @example
 * const sandbox: JsonValue = { network: false, paths: ["/work"] };
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * An item's state: not started, being worked on now, or finished.
 *
 * @example
 * const status: TodoStatus = "in_progress";
 */
export type TodoStatus = "pending" | "in_progress" | "completed";
/**
 * An item is its text and its state; nothing else travels with it.
 *
 * @example
 * const item: TodoItem = { content: "Write tests", status: "pending" };
 */
export interface TodoItem {
  content: string;
  status: TodoStatus;
}
/**
 * What the model sends to `todo_write`: the whole list.
 *
 * @example
 * todoWrite(log, { todos: [{ content: "Write tests", status: "in_progress" }] } satisfies TodoWriteInput);
 */
export interface TodoWriteInput {
  todos: TodoItem[];
}
/**
 * Host options of a model's tool call.
 *
 * @example
 * suggestTask(log, input, { maxInputLength: 64 * 1024 });
 */
export interface ToolCallOptions {
  /**
   * Longest input accepted, in UTF-16 code units of its JSON text; longer
   * input is refused before it reaches the core. Default 1,048,576 (1 MiB).
   */
  maxInputLength?: number;
}
/**
 * Host options of a `todo_write` call.
 *
 * @example
 * todoWrite(log, input, { oneActive: false }); // several items may be in_progress
 */
export interface TodoWriteOptions extends ToolCallOptions {
  /** At most one item `in_progress` per update. Default `true`. */
  oneActive?: boolean;
}

/**
 * What a chat runs as. `sandbox` and `approval` are copied as they are.
 *
 * @example
 * const settings: SessionSettings = { model: "gpt-5", permission: "ask" };
 */
export interface SessionSettings {
  preset?: string;
  model?: string;
  permission?: string;
  sandbox?: JsonValue;
  approval?: JsonValue;
}
/**
 * The offering chat and suggestion a started chat comes from.
 *
 * @example
 * const origin: Origin = { chatId: "chat-1", suggestionId: "s1" };
 */
export interface Origin {
  chatId: string;
  suggestionId: string;
}

/**
 * The chat itself; the first entry of a log.
 *
 * @example
 * await store.create("chat-1", [{ type: "session", chatId: "chat-1", title: "Upload retries" }]);
 */
export interface SessionEntry {
  type: "session";
  v?: number;
  chatId?: string | null;
  title?: string;
  workspace?: string | null;
  scheduledTaskFolder?: boolean;
  agent?: "top-level" | "helper";
  settings?: SessionSettings;
  origin?: Origin;
}
/**
 * The host's mark that a turn of the agent began: the plan and the reminder count turns by it.
 *
 * @example
 * await store.append("chat-1", [{ type: "turn_started" }]);
 */
export interface TurnStartedEntry {
  type: "turn_started";
}
/**
 * The host's mark that the running turn ended: its plan stays shown as finished.
 *
 * @example
 * await store.append("chat-1", [{ type: "turn_ended" }]);
 */
export interface TurnEndedEntry {
  type: "turn_ended";
}
/**
 * One recorded update of the list: the whole list. `by` is there when a
 * person made it (`editTodos`), absent for the model's `todo_write`.
 *
 * @example
 * const r = todoWrite(log, input);
 * if (r.ok) log.push(r.entry); // r.entry.type === "todo_update"
 */
export interface TodoUpdateEntry {
  type: "todo_update";
  v: number;
  todos: TodoItem[];
  by?: TodoEditor;
}
/**
 * The person who edited the list, with the display name the app gave (none: "you").
 *
 * @example
 * const by: TodoEditor = { name: "Ada" };
 */
export interface TodoEditor {
  name?: string;
}
/**
 * The record that the model was told of a person's edit: the exact text it
 * read, the refusal of its `todo_write` (which begins `Error:`) or the
 * integration's context text. After it, the model's writes record as usual.
 *
 * @example
 * const told = (await store.read("chat-1"))?.filter((e): e is TodoToldEntry => e.type === "todo_told");
 */
export interface TodoToldEntry {
  type: "todo_told";
  v: number;
  text: string;
}
/**
 * One recorded `suggest_task` offer.
 *
 * @example
 * const r = suggestTask(log, input);
 * if (r.ok) log.push(r.entry); // r.entry.type === "suggestion_offered"
 */
export interface SuggestionOfferedEntry {
  type: "suggestion_offered";
  v: number;
  id: string;
  title: string;
  tldr: string;
  brief: string;
}
/**
 * How an offer was settled; `restored` puts a dismissed offer back among the open ones.
 *
 * @example
 * const outcome: SuggestionOutcome = "dismissed";
 */
export type SuggestionOutcome = "started" | "drafted" | "dismissed" | "restored";
/**
 * A settlement of an offer; `chatId` only with `started`.
 *
 * @example
 * const d = settleSuggestion(log, "s1", "dismiss");
 * if (d.ok && d.entry) log.push(d.entry); // d.entry.outcome === "dismissed"
 */
export interface SuggestionSettledEntry {
  type: "suggestion_settled";
  v: number;
  id: string;
  outcome: SuggestionOutcome;
  chatId?: string;
}
/**
 * Who a message is attributed to when it is not the person.
 *
 * @example
 * const p = planStart(log, "chat-1", "s1");
 * if (p.ok) p.brief.source; // { kind: "suggestion", chatId: "chat-1", suggestionId: "s1" }
 */
export interface MessageSource {
  kind: "suggestion";
  chatId: string;
  suggestionId: string;
}
/**
 * A chat message. A `user` message without `source` is the person's own.
 *
 * @example
 * await store.append("chat-1", [{ type: "message", role: "user", text: "Fix the upload bug" }]);
 */
export interface MessageEntry {
  type: "message";
  v?: number;
  role: string;
  text?: string;
  source?: MessageSource;
}
/**
 * An entry the app writes for itself; replay ignores it.
 *
 * @example
 * await store.append("chat-1", [{ type: "app_note", text: "exported" }]);
 */
export interface ForeignEntry {
  type: string;
  [field: string]: unknown;
}
/**
 * The entries the core reads and writes (the stored log format).
 *
 * @example
 * const entry: CoreEntry = { type: "turn_started" };
 */
export type CoreEntry =
  | SessionEntry
  | TurnStartedEntry
  | TurnEndedEntry
  | TodoUpdateEntry
  | SuggestionOfferedEntry
  | SuggestionSettledEntry
  | MessageEntry
  | TodoToldEntry;
/**
 * Any entry of a log: one the core reads, or the app's own.
 *
 * @example
 * const entries: LogEntry[] = (await store.read("chat-1")) ?? [];
 */
export type LogEntry = CoreEntry | ForeignEntry;
/**
 * A chat's log, oldest entry first.
 *
 * @example
 * const log: Log = (await store.read("chat-1")) ?? [];
 */
export type Log = readonly LogEntry[];

/**
 * A call the core accepted: append `entry`, show the model `output`.
 *
 * @example
 * const r = todoWrite(log, input);
 * if (r.ok) { log.push(r.entry); reply(r.output); }
 */
export interface Accepted<E> {
  ok: true;
  entry: E;
  output: string;
}
/**
 * A call the core refused: show the model `error`; nothing is recorded.
 *
 * @example
 * const r = todoWrite(log, { todos: "none" });
 * if (!r.ok) reply(r.error);
 */
export interface Refused {
  ok: false;
  error: string;
}
/**
 * A `todo_write` refused because a person edited the list and the model was
 * not told yet: show the model `error` (it begins `Error: the user edited the
 * todo list`) and record `entry`, which says it was told; its next call records as usual.
 *
 * @example
 * const r = todoWrite(log, input);
 * if (!r.ok && "entry" in r) log.push(r.entry); // r.entry.type === "todo_told"
 */
export interface RefusedTold {
  ok: false;
  error: string;
  entry: TodoToldEntry;
}
/**
 * What {@link todoWrite} answers: the update to record, or the refusal (with
 * the record that the model was told of a person's edit, when it was refused for that).
 *
 * @example
 * const r: TodoWriteResult = todoWrite(log, input);
 */
export type TodoWriteResult = Accepted<TodoUpdateEntry> | Refused | RefusedTold;
/**
 * What {@link suggestTask} answers: the offer to record, or the refusal.
 *
 * @example
 * const r: SuggestTaskResult = suggestTask(log, input);
 */
export type SuggestTaskResult = Accepted<SuggestionOfferedEntry> | Refused;

/**
 * An entry replay could not use, and why.
 *
 * @example
 * for (const s of replayTodos(log).skipped) console.warn(`entry ${s.index}: ${s.reason}`);
 */
export interface Skipped {
  index: number;
  type: string | null;
  reason: string;
}
/**
 * How many items of a list are in each state.
 *
 * @example
 * const { pending, inProgress, completed } = card.counts;
 */
export interface TodoCounts {
  pending: number;
  inProgress: number;
  completed: number;
}
/**
 * An item added (its position in the new list) or removed (its position in the previous list).
 *
 * @example
 * for (const { content, position } of card.changes.added) show(position, content);
 */
export interface TodoPlaced {
  content: string;
  status: TodoStatus;
  position: number;
}
/**
 * An item kept whose state changed.
 *
 * @example
 * for (const { content, from, to } of card.changes.statusChanged) show(`${content}: ${from} → ${to}`);
 */
export interface TodoStatusChange {
  content: string;
  from: TodoStatus;
  to: TodoStatus;
}
/**
 * An item kept whose place changed, from its position in the previous list to its position in the new one.
 *
 * @example
 * for (const { content, from, to } of card.changes.moved) show(content, from, to);
 */
export interface TodoMove {
  content: string;
  from: number;
  to: number;
}
/**
 * What an update changed against the previous list (items match by text).
 *
 * @example
 * const { added, removed, statusChanged, moved } = card.changes;
 */
export interface TodoChanges {
  added: TodoPlaced[];
  removed: TodoPlaced[];
  statusChanged: TodoStatusChange[];
  moved: TodoMove[];
}
/**
 * One "Update to-do list" card. `index`: the entry's position in the log.
 *
 * @example
 * const { cards } = replayTodos(log);
 */
export interface TodoCard {
  index: number;
  turn: number | null;
  todos: TodoItem[];
  counts: TodoCounts;
  changes: TodoChanges;
  /** A person's edit: who made it (absent: the model's `todo_write`). */
  by?: TodoEditor;
}
/**
 * `running` while the recording turn runs, `finished` after it ends, `none` once the next turn starts.
 *
 * @example
 * const { plan } = replayTodos(log);
 * if (plan.state === "running") show(plan.todos);
 */
export type PlanState = "none" | "running" | "finished";
/**
 * The plan the chat shows: its state, its items (none with `none`) and the turn that recorded it.
 *
 * @example
 * const { state, todos, turn } = replayTodos(log).plan;
 */
export interface TodoPlan {
  state: PlanState;
  todos: TodoItem[];
  turn: number | null;
}
/**
 * What a chat's `session` entry names of it (`ChatState#session`).
 *
 * @example
 * const { title } = state.session() ?? { title: null };
 */
export interface ChatSessionInfo {
  /** The chat's title (a started chat's is its suggestion's), `null` when it has none. */
  title: string | null;
  /** The folder or project the chat works in, `null` for none. */
  workspace: string | null;
}

/**
 * Where a chat's list and turns stand (`ChatState#listState`).
 *
 * @example
 * const { todos, turnsSinceUpdate } = state.listState();
 */
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
/**
 * What {@link replayTodos} answers: the latest list, every card, the plan and the entries skipped.
 *
 * @example
 * const { todos, cards, plan, skipped } = replayTodos(log);
 */
export interface TodoReplay {
  todos: TodoItem[];
  cards: TodoCard[];
  plan: TodoPlan;
  skipped: Skipped[];
}

/**
 * A chat's first screen: the list, the plan, the suggestions, the last cards ({@link ChatState.view}).
 *
 * @example
 * const { todos, plan, open, cards, cardCount } = state.view({ cards: 50 });
 */
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

/**
 * What the model sends to `suggest_task`.
 *
 * @example
 * suggestTask(log, { title: "Add retries", tldr: "Flaky uploads", brief: "In upload.ts ..." } satisfies SuggestTaskInput);
 */
export interface SuggestTaskInput {
  title: string;
  tldr: string;
  brief: string;
}
/**
 * An open offer, as the person sees it.
 *
 * @example
 * const [newest] = replaySuggestions(log).open;
 */
export interface Suggestion {
  id: string;
  title: string;
  tldr: string;
  brief: string;
}
/**
 * An offer that was started, drafted or dismissed.
 *
 * @example
 * const started = replaySuggestions(log).settled.filter((s) => s.outcome === "started");
 */
export interface SettledSuggestion extends Suggestion {
  outcome: "started" | "drafted" | "dismissed";
  /** The started chat, with `started`. */
  chatId?: string;
}
/**
 * What {@link replaySuggestions} answers: open offers newest first, settled ones in offer order.
 *
 * @example
 * const { open, settled, skipped } = replaySuggestions(log);
 */
export interface SuggestionReplay {
  open: Suggestion[];
  settled: SettledSuggestion[];
  skipped: Skipped[];
}

/**
 * A JSONL line that is not an entry (not JSON, not UTF-8), with why.
 *
 * @example
 * for (const { line, reason } of readJsonl(bytes).unreadable) console.warn(`line ${line}: ${reason}`);
 */
export interface UnreadableLine {
  line: number;
  reason: string;
}
/**
 * What reading JSONL bytes found besides entries. `tornBytes`: an incomplete last line, left out.
 *
 * @example
 * const { unreadable, tornBytes } = readJsonl(bytes);
 */
export interface JsonlReport {
  unreadable: UnreadableLine[];
  tornBytes: number;
}

/**
 * Why a service operation on an offer was refused: the `code` of a {@link SuggestionError}.
 *
 * @example
 * if (e instanceof SuggestionError && e.code === "task-suggestion/open-limit") show(e.limit);
 */
export type SuggestionErrorCode =
  | "task-suggestion/not-found"
  | "task-suggestion/not-open"
  | "task-suggestion/open-limit"
  | "task-suggestion/workspace-missing";
/**
 * A refused service operation: `code`, the exact `message`, and its payload.
 *
 * @example
 * const d = settleSuggestion(log, "s9", "draft");
 * if (!d.ok) throw new SuggestionError(d); // d.code === "task-suggestion/not-found"
 */
export type ServiceFailure =
  | { ok: false; code: "task-suggestion/not-found"; message: string; payload: string; id: string }
  | {
      ok: false;
      code: "task-suggestion/not-open";
      message: string;
      payload: "started" | "drafted" | "dismissed";
      id: string;
      outcome: "started" | "drafted" | "dismissed";
    }
  | { ok: false; code: "task-suggestion/open-limit"; message: string; payload: number; limit: number }
  | { ok: false; code: "task-suggestion/workspace-missing"; message: string; payload: string; chatId: string };
/**
 * What the person does to an offer short of starting it.
 *
 * @example
 * settleSuggestion(log, "s1", "restore" satisfies SettleAction);
 */
export type SettleAction = "draft" | "dismiss" | "restore";
/**
 * What {@link settleSuggestion} answers. `entry` is `null` when nothing needs writing (restoring an open offer).
 *
 * @example
 * const d: SettleDecision = settleSuggestion(log, "s1", "dismiss");
 */
export type SettleDecision = { ok: true; entry: SuggestionSettledEntry | null } | ServiceFailure;
/**
 * Settings the person picks for the started chat; the permission is clamped.
 *
 * @example
 * planStart(log, "chat-1", "s1", { model: "gpt-5", permission: "auto" });
 */
export interface StartRequest {
  model?: string;
  permission?: string;
}
/**
 * What {@link planStart} answers: `create` the chat (session, settlement, brief), or it is already
 * `started` (write the brief if {@link startedChat} says `needs_brief`), or a service failure.
 *
 * @example
 * const p: StartDecision = planStart(log, "chat-1", "s1");
 */
export type StartDecision =
  | { ok: true; kind: "create"; chatId: string; session: SessionEntry; settled: SuggestionSettledEntry; brief: MessageEntry }
  | { ok: true; kind: "started"; chatId: string; brief: MessageEntry }
  | ServiceFailure;
/**
 * Where a started chat stands: not created, created without its brief, complete, or a chat
 * with that id that was not started from this offer (`foreign`).
 *
 * @example
 * const s: StartedChatState = startedChat(await store.read("chat-1.s1"), "chat-1", "s1"); // "needs_brief": write it now
 */
export type StartedChatState = "missing" | "needs_brief" | "complete" | "foreign";
/**
 * The goal actions that need the person's own instruction.
 *
 * @example
 * checkGoal(log, "complete" satisfies GoalAction);
 */
export type GoalAction = "create" | "complete";
/**
 * What {@link checkGoal} answers: allowed, or the refusal to show the model.
 *
 * @example
 * const g: GoalCheck = checkGoal(log, "create");
 */
export type GoalCheck = { ok: true } | { ok: false; error: string };

/**
 * A JSON Schema object.
 *
 * @example
 * const items: JsonSchema = todoWriteTool.inputSchema.properties["todos"]!;
 */
export type JsonSchema = { [keyword: string]: JsonValue };
/**
 * The top of a tool's input schema: an object schema that admits no other
 * property, typed (`type: "object"`, `additionalProperties: false`) so the
 * SDKs that want those literals take it as it is.
 *
 * @example
 * const { properties, required } = todoWriteTool.inputSchema;
 */
export type ToolInputSchema = JsonSchema & {
  type: "object";
  properties: { [name: string]: JsonSchema };
  required: string[];
  additionalProperties: false;
};
/**
 * A tool definition for model function-calling.
 *
 * @example
 * const tools: ToolDefinition[] = [todoWriteTool, suggestTaskTool];
 */
export interface ToolDefinition<N extends string = string> {
  name: N;
  description: string;
  inputSchema: ToolInputSchema;
}
