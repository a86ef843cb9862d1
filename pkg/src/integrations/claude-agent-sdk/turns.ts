// The chat's turns as the SDK's hooks tell them: a prompt of the main agent
// begins one, its Stop (or failure, interrupt, the query's end) ends it once,
// after every tool call of it settled (chat/turn.ts, shared with aiTurn and
// the LangChain middleware).
import { openTurn, type OpenTurn, type TurnReminderOptions } from "../../chat/turn.js";
import type { ChatStateCache } from "../../chat/state-cache.js";
import type { Store } from "../../stores/store.js";

/** One turn: begun (or beginning), and once ending, how it ends. */
interface Turn {
  open: Promise<OpenTurn>;
  ended?: Promise<void>;
}

/** Internal: the turns of one chat within one `withOda` options object. */
export class ChatTurns {
  readonly #store: Store;
  readonly #chatId: string;
  readonly #cache: ChatStateCache | undefined;
  readonly #reminder: TurnReminderOptions;
  #current: Turn | undefined;

  constructor(store: Store, chatId: string, cache: ChatStateCache | undefined, reminder: TurnReminderOptions) {
    this.#store = store;
    this.#chatId = chatId;
    this.#cache = cache;
    this.#reminder = reminder;
  }

  /** Ends the open turn, begins the next; resolves to the list's text for the model's context, or `null`. */
  async begin(): Promise<string | null> {
    // A turn whose end failed is still open in the log: beginTurn ends it in the same append.
    await this.end().catch(() => undefined);
    return (await this.#start(this.#reminder).open).reminder;
  }

  /** What the model must be told of a person's edit at its next request (recorded as told), or `null`; none outside a turn. */
  async notice(): Promise<string | null> {
    const turn = this.#current;
    if (turn === undefined || turn.ended !== undefined) return null;
    return (await (await turn.open).notice())?.text ?? null;
  }

  /** Ends the open turn once, after its tool calls settled; nothing when none is open. */
  end(): Promise<void> {
    const turn = this.#current;
    if (turn === undefined) return Promise.resolve();
    turn.ended ??= turn.open.then(
      (open) => open.end(),
      () => undefined, // a turn that never began has nothing to end
    );
    return turn.ended;
  }

  /**
   * Runs a tool call of the main agent in the open turn; with none open (the
   * model went on after its Stop, as another Stop hook may ask), in the next.
   */
  async run<T>(name: string, call: () => Promise<T>): Promise<T> {
    const current = this.#current;
    const turn = current === undefined || current.ended !== undefined ? this.#start({ remind: "never" }) : current;
    const open = await turn.open;
    // A Stop that came while the turn was beginning ended it: the call goes to the next.
    if (turn.ended !== undefined) return this.run(name, call);
    return open.calls.run(name, call);
  }

  #start(reminder: TurnReminderOptions): Turn {
    const refusal = (name: string) =>
      `oda-tasks: ${name} was called after its turn ended; it was refused and recorded nothing (withOda's tools work during a turn of the main agent)`;
    const turn: Turn = { open: openTurn(this.#store, this.#chatId, this.#cache, reminder, refusal) };
    this.#current = turn;
    return turn;
  }
}
