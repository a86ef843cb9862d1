// The list for the model's context: its text (the core's), to put back after
// compaction or on resume, and the rule for when a turn should be reminded of
// it. Read from the chat's state like every answer; nothing is written.
import { ChatState } from "../core/chat-state.js";
import { ANY, BOOLEAN, readOptions, wholeNumber } from "../core/options.js";
import { cacheFor, type ChatStateCache } from "./state-cache.js";
import type { Store } from "../stores/store.js";
import type { ListState, TodoItem } from "../core/types.js";

/**
 * Default of {@link ReminderOptions.everyTurns}.
 *
 * @example
 * reminderDue(state.listState(), DEFAULT_REMINDER_TURNS + 2);
 */
export const DEFAULT_REMINDER_TURNS = 3;

/**
 * Options of {@link todoReminder}.
 *
 * @example
 * await todoReminder(store, "chat-1", { always: true }); // after compaction
 */
export interface ReminderOptions {
  /**
   * The text whenever the list has items (after compaction, on resume),
   * not only when {@link reminderDue}. Default `false`.
   */
  always?: boolean;
  /** Remind after this many whole turns without a `todo_write`, and every as many after (default 3). */
  everyTurns?: number;
  /** The warm chat states to use; by default the store's shared cache. */
  cache?: ChatStateCache;
}

/**
 * The list as a short text for the model's context, or `null` for an empty
 * list (nothing to put back). Items keep their order; texts are quoted as
 * JSON strings, so a text with a line break stays one item. The core writes
 * it, as it writes the list in what the model is told of a person's edit; a
 * list the log could not hold (an item without a string `content` or a known
 * `status`) has no text.
 *
 * @example
 * todoListText([{ content: "Write tests", status: "in_progress" }]);
 * // 'Your todo list, as last recorded with todo_write (0 pending, 1 in progress, 0 completed):\n1. [in_progress] "Write tests"\n...'
 */
export function todoListText(todos: readonly TodoItem[]): string | null {
  if (!Array.isArray(todos))
    throw new TypeError("oda-tasks: invalid arguments of todoListText: `todos` must be an array of { content, status }");
  const state = ChatState.fromLog([{ type: "todo_update", v: 1, todos: [...todos] }], { cards: false });
  try {
    return state.listText();
  } finally {
    state.free();
  }
}

/**
 * Whether a turn should be reminded of the list: items remain open (pending
 * or in progress) and `everyTurns` whole turns (then every `everyTurns`
 * more) have passed since the latest `todo_write`; the open turn itself does
 * not count, so the rule holds whether asked before or after `beginTurn`.
 *
 * @example
 * reminderDue(state.listState()); // true three turns after the last update
 */
export function reminderDue(list: ListState, everyTurns: number = DEFAULT_REMINDER_TURNS): boolean {
  checkEvery(everyTurns);
  if (list.turnsSinceUpdate === null) return false;
  if (!list.todos.some((t) => t.status !== "completed")) return false;
  const quiet = list.turnsSinceUpdate - (list.turnOpen ? 1 : 0);
  return quiet > 0 && quiet % everyTurns === 0;
}

/** The options of {@link todoReminder}. */
const REMINDER_OPTION_RULES = { always: BOOLEAN, everyTurns: wholeNumber(1), cache: ANY } as const;

/**
 * The list's text for chat `chatId` when the model should see it now
 * ({@link reminderDue}, or any list with `always`), else `null`. Reads only
 * what is new since the chat's state was last read; writes nothing.
 *
 * @example
 * import { todoReminder } from "oda-tasks";
 * const reminder = await todoReminder(store, "chat-1");
 * const system = reminder === null ? prompt : `${prompt}\n\n${reminder}`;
 */
export async function todoReminder(store: Store, chatId: string, options?: ReminderOptions | null): Promise<string | null> {
  const {
    always = false,
    everyTurns = DEFAULT_REMINDER_TURNS,
    cache,
  } = readOptions<ReminderOptions>("todoReminder", options, REMINDER_OPTION_RULES);
  const states = cacheFor("todoReminder", store, cache);
  const lease = await states.lease(chatId);
  try {
    if (lease.state === null) return null;
    return always || reminderDue(lease.state.listState(), everyTurns) ? lease.state.listText() : null;
  } finally {
    lease.release();
  }
}

function checkEvery(everyTurns: unknown): void {
  if (typeof everyTurns !== "number" || !Number.isSafeInteger(everyTurns) || everyTurns < 1) {
    throw new TypeError(`oda-tasks: \`everyTurns\` must be a whole number >= 1 (got ${String(everyTurns)})`);
  }
}
