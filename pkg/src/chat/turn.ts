// One model turn as the framework integrations run it: the turn begun, the
// list's reminder asked for once (or, when a person edited the list, what the
// model must be told of it), every tool call counted while it runs, a
// person's later edit told at the model's next step, and the turn ended only
// after all have settled. `aiTurn` (oda-tasks/ai), `odaTasksMiddleware`
// (oda-tasks/langchain), `withOda` and `odaAcp` share it.
import { oneOf, wholeNumber } from "../core/options.js";
import { tellEdit } from "./edit.js";
import { beginTurn, endTurn } from "./lifecycle.js";
import { todoReminder } from "./reminder.js";
import type { ChatStateCache } from "./state-cache.js";
import type { Store } from "../stores/store.js";
import type { TodoItem } from "../core/types.js";

/**
 * When a turn puts the list back into the model's context.
 *
 * @example
 * const options: TurnReminderOptions = { remind: "always" }; // after compaction or on resume
 */
export interface TurnReminderOptions {
  /**
   * `"due"` (default): the list's text when `reminderDue` says so;
   * `"always"`: whenever the list has items (after compaction, on resume);
   * `"never"`: no reminder. With either of the first two, a person's edit the
   * model was not told of is the reminder instead (its notice, told once).
   */
  remind?: "due" | "always" | "never";
  /** `reminderDue`'s `everyTurns` (default 3). */
  everyTurns?: number;
}

/** Internal: the rules of {@link TurnReminderOptions} for `readOptions`. */
export const TURN_REMINDER_RULES = { remind: oneOf("due", "always", "never"), everyTurns: wholeNumber(1) } as const;

/**
 * Internal: the tool calls of one turn. Each is counted while it runs, so
 * the turn ends only after all have settled; once closed, a call that
 * begins is refused with `refusal(name)` and records nothing.
 */
export class TurnCalls {
  readonly #running = new Set<Promise<unknown>>();
  readonly #refusal: (name: string) => string;
  #closed = false;

  constructor(refusal: (name: string) => string) {
    this.#refusal = refusal;
  }

  /** Runs `run` as one of the turn's calls, or rejects with a `TypeError` once closed. */
  run = <T>(name: string, run: () => Promise<T>): Promise<T> => {
    if (this.#closed) return Promise.reject(new TypeError(this.#refusal(name)));
    const call = run();
    this.#running.add(call);
    const done = () => this.#running.delete(call);
    call.then(done, done);
    return call;
  };

  /** Refuses new calls and waits until every call that began has settled. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}

/** What the model is told of a person's edit: the text, and the list as edited. */
export interface ToldEdit {
  text: string;
  todos: TodoItem[];
}

/** Internal: a turn begun by {@link openTurn}. */
export interface OpenTurn {
  /** The turn's number (1 for the chat's first). */
  turn: number;
  /** The list's text for the model's context, the notice of a person's edit, or `null`: none due. */
  reminder: string | null;
  /** The person's edit told in `reminder`, or `null`. */
  edited: ToldEdit | null;
  calls: TurnCalls;
  /** A person's edit the model was not told of, for its next step (recorded as told), or `null`. */
  notice(): Promise<ToldEdit | null>;
  /** Closes `calls`, waits for the calls still running, then ends the turn. */
  end(): Promise<void>;
}

/**
 * Internal: begins a turn of chat `chatId` and asks for its reminder by the
 * rule of `remind` and `everyTurns` (options already read). A reminder that
 * fails ends the turn again before the failure is thrown.
 */
export async function openTurn(
  store: Store,
  chatId: string,
  cache: ChatStateCache | undefined,
  { remind = "due", everyTurns }: TurnReminderOptions,
  refusal: (name: string) => string,
): Promise<OpenTurn> {
  const states = cache === undefined ? undefined : { cache };
  const calls = new TurnCalls(refusal);
  const turn = await beginTurn(store, chatId, states);
  const end = async () => {
    await calls.close();
    await endTurn(store, chatId, states);
  };
  const notice = () => tellEdit(store, chatId, states);
  let reminder: string | null = null;
  let edited: ToldEdit | null = null;
  if (remind !== "never") {
    try {
      // A person's edit comes first: its notice holds the list as edited, so it is the reminder too.
      edited = await notice();
      reminder =
        edited?.text ??
        (await todoReminder(store, chatId, {
          always: remind === "always",
          ...(everyTurns === undefined ? {} : { everyTurns }),
          ...states,
        }));
    } catch (e) {
      await end().catch(() => undefined);
      throw e;
    }
  }
  return { turn, reminder, edited, calls, notice, end };
}
