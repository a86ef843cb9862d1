// The core's pure functions, as the package exports them. Each takes a whole
// log, so each builds a ChatState, asks it and frees it; a host that answers
// many calls on one chat keeps a ChatState instead (see state-cache.ts).
import * as glue from "../../wasm/oda_tasks.js";
import { ChatState, suggestParams, todoParams, toolEntries, withEntryTexts } from "./chat-state.js";
import { hostParams, inSlices } from "./convert.js";
import { parseJson } from "./entry-text.js";
import { assertReady } from "./ready.js";
import type {
  GoalAction,
  GoalCheck,
  JsonlReport,
  Log,
  LogEntry,
  SettleAction,
  SettleDecision,
  StartDecision,
  StartedChatState,
  StartRequest,
  SuggestionReplay,
  SuggestTaskResult,
  TodoReplay,
  TodoWriteOptions,
  TodoWriteResult,
  ToolCallOptions,
} from "./types.js";

export type * from "./types.js";
export { ChatState, RAW_TEXT, type ChatStateOptions, type EditDecision, type EditNotice, type EditTodosOptions } from "./chat-state.js";
export { DEFAULT_MAX_INPUT_LENGTH } from "./convert.js";

/** Runs `ask` on the state of `log`, then frees it. */
function withState<T>(log: Log, cards: boolean, ask: (state: ChatState) => T): T {
  const state = ChatState.fromLog(log, { cards });
  try {
    return ask(state);
  } finally {
    state.free();
  }
}

/**
 * Checks a `todo_write` call. `log` is the chat's entries, or `null` when the
 * call has no owning session. Each update carries the whole list; the log is
 * read for a person's edit the model was not told of, which refuses the call
 * once with the list as edited and an `entry` (a `todo_told`) to append. The
 * log is never changed.
 *
 * @example
 * const r = todoWrite(log, { todos: [{ content: "Write tests", status: "in_progress" }] });
 * reply(r.ok ? r.output : r.error); // "Updated todo list: 0 pending, 1 in progress, 0 completed"
 */
export function todoWrite(log: Log | null, input: unknown, options?: TodoWriteOptions): TodoWriteResult {
  assertReady();
  if (log === null || log === undefined) {
    return withEntryTexts<TodoWriteResult>(glue.todoWriteCall(false, todoParams(input, options)), toolEntries);
  }
  return withState(log, false, (state) => state.todoWrite(input, options));
}

/**
 * Checks a `suggest_task` call against a chat (`null`: no owning session).
 *
 * @example
 * const r = suggestTask(log, { title: "Add retries", tldr: "Flaky uploads", brief: "In upload.ts ..." });
 * if (r.ok) log.push(r.entry); // r.entry.id === "s1"
 */
export function suggestTask(log: Log | null, input: unknown, options?: ToolCallOptions): SuggestTaskResult {
  assertReady();
  if (log === null || log === undefined) {
    return withEntryTexts<SuggestTaskResult>(glue.suggestTaskWithoutSession(suggestParams(input, options)), toolEntries);
  }
  return withState(log, false, (state) => state.suggestTask(input, options));
}

/**
 * Replays a chat's task list: the latest list, one card per recorded update
 * (with what it changed), and the plan across turns.
 *
 * @example
 * const { todos, cards, plan } = replayTodos(log);
 */
export function replayTodos(log: Log): TodoReplay {
  return withState(log, true, (state) => state.replayTodos());
}

/**
 * Rebuilds a chat's suggestions: open ones newest first, settled ones in offer order.
 *
 * @example
 * const { open, settled } = replaySuggestions(log);
 */
export function replaySuggestions(log: Log): SuggestionReplay {
  return withState(log, false, (state) => state.replaySuggestions());
}

/**
 * Decides a draft, dismiss or restore of offer `id`: the entry to append
 * (at the length read), `null` for nothing to write, or a service failure.
 *
 * @example
 * const d = settleSuggestion(log, "s1", "dismiss");
 * if (d.ok && d.entry) await store.append(chatId, [d.entry], log.length);
 */
export function settleSuggestion(log: Log, id: string, action: SettleAction): SettleDecision {
  return withState(log, false, (state) => state.settleSuggestion(id, action));
}

/**
 * Plans a Start of offer `id` of chat `chatId`. `permissions` orders
 * permissions lowest first (default `["read-only", "ask", "auto", "full-access"]`).
 *
 * @example
 * const p = planStart(log, "chat-1", "s1", { permission: "auto" });
 * if (p.ok && p.kind === "create") await store.create(p.chatId, [p.session]);
 */
export function planStart(log: Log, chatId: string, id: string, request?: StartRequest, permissions?: readonly string[]): StartDecision {
  return withState(log, false, (state) => state.planStart(chatId, id, request, permissions));
}

/**
 * Reads a started chat's log (`null`: it does not exist) against the offer it
 * should come from: `"needs_brief"` means write the plan's brief now.
 *
 * @example
 * startedChat(await store.read("chat-1.s1"), "chat-1", "s1"); // "complete"
 */
export function startedChat(log: Log | null, chatId: string, suggestionId: string): StartedChatState {
  assertReady();
  if (log === null || log === undefined) {
    hostParams("startedChat", { chatId, suggestionId });
    return "missing";
  }
  return withState(log, false, (state) => state.startedChat(chatId, suggestionId));
}

/**
 * The lower of two permissions in `permissions` (lowest first; default order
 * when omitted). An unknown permission counts as the lowest.
 *
 * @example
 * clampPermission("full-access", "ask"); // "ask"
 */
export function clampPermission(wanted: string | null, ceiling: string | null, permissions?: readonly string[]): string {
  assertReady();
  const params = hostParams("clampPermission", { wanted, ceiling, permissions: permissions ?? null });
  return parseJson(glue.clampPermission(params)) as string; // a string answer
}

/**
 * A JSONL log read by the core's one JSONL reader: its entries, their stored texts, and what was not an entry.
 *
 * @example
 * const { entries, texts }: JsonlRead = readJsonl(bytes);
 */
export interface JsonlRead extends JsonlReport {
  entries: LogEntry[];
  /** Each entry's JSON text exactly as stored, parallel to `entries`. */
  texts: string[];
}

/**
 * Reads JSONL bytes (one chunk or several) by the core's line rules, the same
 * as `ChatState.fromJsonl` and the JSONL store: for an importer or a viewer.
 *
 * @example
 * const { entries, unreadable, tornBytes } = readJsonl(new Uint8Array(await file.arrayBuffer()));
 */
export function readJsonl(bytes: Uint8Array | Iterable<Uint8Array>): JsonlRead {
  assertReady();
  const iterable = typeof (bytes as { [Symbol.iterator]?: unknown } | null)?.[Symbol.iterator] === "function";
  if (!(bytes instanceof Uint8Array) && !iterable) {
    throw new TypeError("oda-tasks: readJsonl needs a Uint8Array or an iterable of Uint8Array chunks");
  }
  const lines = new glue.JsonlLines(0, 0, 0x1fffffe8);
  try {
    const texts: string[] = [];
    const chunks = bytes instanceof Uint8Array ? [bytes] : bytes;
    for (const chunk of chunks) {
      if (!(chunk instanceof Uint8Array)) throw new TypeError("oda-tasks: readJsonl needs Uint8Array chunks");
      inSlices(chunk, (slice) => lines.push(slice));
      for (const text of lines.texts()) texts.push(text);
    }
    lines.end();
    for (const text of lines.texts()) texts.push(text);
    // JSON.parse as it was at load: an app's later wrapper never changes what the log holds.
    const report = parseJson(lines.report()) as JsonlReport;
    return { entries: texts.map((t) => parseJson(t) as LogEntry), texts, ...report };
  } finally {
    lines.free();
  }
}

/**
 * Refuses creating or completing a goal until the person has spoken in the
 * chat: a brief from a suggestion is not the person's instruction.
 *
 * @example
 * const g = checkGoal(log, "create");
 * if (!g.ok) reply(g.error);
 */
export function checkGoal(log: Log, action: GoalAction): GoalCheck {
  return withState(log, false, (state) => state.checkGoal(action));
}
