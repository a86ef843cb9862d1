// The suggestion service: start, draft, dismiss, restore and list a chat's
// suggested tasks over any Store. The core decides every outcome (planStart,
// settleSuggestion, startedChat); this layer only reads, orders the writes so
// that a crash or a race leaves a state the next call can finish, and retries
// when another writer got there first.
import { planStart, replaySuggestions, settleSuggestion, startedChat } from "./core.js";
import type {
  LogEntry,
  Log,
  MessageEntry,
  ServiceFailure,
  SettleAction,
  SettledSuggestion,
  StartRequest,
  Suggestion,
  SuggestionErrorCode,
} from "./core.js";
import { isConflict } from "./run.js";
import type { Store } from "./store.js";

/**
 * A refused service operation, thrown with the core's exact `message`, its
 * `code` and `payload`, and the payload under its own name: `id`
 * (not-found), `outcome` (not-open, which also carries `id`), `limit`
 * (open-limit) or `chatId` (workspace-missing). Apps match on `code`.
 *
 * @example
 * try {
 *   await service.start("chat-1", "s1");
 * } catch (e) {
 *   if (e instanceof SuggestionError && e.code === "task-suggestion/not-open") show(e.outcome); // "dismissed"
 *   else throw e;
 * }
 */
export class SuggestionError extends Error {
  readonly code: SuggestionErrorCode;
  /** What the caller needs: the id, the outcome, the limit or the chat id. */
  readonly payload: string | number;
  // `declare`: present only on the codes that carry them, so `"limit" in e`
  // says what the failure is about.
  declare readonly id?: string;
  declare readonly outcome?: "started" | "drafted" | "dismissed";
  declare readonly limit?: number;
  declare readonly chatId?: string;

  constructor(failure: ServiceFailure) {
    super(failure.message);
    this.name = "SuggestionError";
    this.code = failure.code;
    this.payload = failure.payload;
    const named: Record<string, unknown> = {};
    for (const key of ["id", "outcome", "limit", "chatId"] as const) {
      if (key in failure) named[key] = (failure as Record<string, unknown>)[key];
    }
    Object.assign(this, named);
  }
}

/**
 * Options of a {@link SuggestionService}.
 *
 * @example
 * new SuggestionService({ store, permissions: ["read-only", "ask", "auto", "full-access"] });
 */
export interface SuggestionServiceOptions {
  /** Where the chats live; shared by every service, tab or process that should see one another's writes. */
  store: Store;
  /** Permissions lowest first; the core's default order when omitted. */
  permissions?: readonly string[];
}

/**
 * A chat's suggestions as the person sees them: open ones newest first,
 * settled ones in the order they were offered.
 *
 * @example
 * const { open, settled } = await service.list("chat-1");
 */
export interface SuggestionList {
  open: Suggestion[];
  settled: SettledSuggestion[];
}

/**
 * What Start resolves to: the started chat.
 *
 * @example
 * const { chatId } = await service.start("chat-1", "s1"); // "chat-1.s1"
 */
export interface StartResult {
  chatId: string;
}

/**
 * How many times an operation re-reads and decides again after losing a
 * race to another writer of the same chat before it gives up with an Error.
 *
 * @example
 * console.log(MAX_SERVICE_ATTEMPTS); // 20
 */
export const MAX_SERVICE_ATTEMPTS = 20;

/**
 * The suggestion service over a store. Every rule is the core's; the service
 * orders the writes of a Start (create the chat, record `started`, then the
 * brief) so that it is single-flight in one process (shared promise) and
 * across tabs and processes (a deterministic chat id, create-if-absent and
 * conditional appends), and so that a Start repeated after a crash finishes
 * the brief once.
 *
 * @example
 * import { SuggestionService, MemoryStore } from "oda-tasks";
 * const service = new SuggestionService({ store: new MemoryStore() });
 * const { chatId } = await service.start("chat-1", "s1", { permission: "ask" });
 * await service.dismiss("chat-1", "s2");
 * const { open, settled } = await service.list("chat-1");
 */
export class SuggestionService {
  readonly #store: Store;
  readonly #permissions: readonly string[] | undefined;
  readonly #starting = new Map<string, Promise<StartResult>>();

  constructor(options: SuggestionServiceOptions) {
    if (options === null || typeof options !== "object" || options.store === undefined || options.store === null) {
      throw new TypeError("oda-tasks: new SuggestionService({ store }) needs a store");
    }
    this.#store = options.store;
    this.#permissions = options.permissions === undefined ? undefined : [...options.permissions];
  }

  /**
   * Starts offer `id` of chat `chatId` in a new chat and resolves to it. A
   * repeated or concurrent Start resolves to the same chat; concurrent calls
   * in this process share one attempt (the first caller's `request` counts).
   * `request` picks the new chat's model or permission; the core clamps the
   * permission to the offering chat's.
   *
   * @example
   * const { chatId } = await service.start("chat-1", "s1", { model: "small", permission: "full-access" });
   */
  start(chatId: string, id: string, request?: StartRequest): Promise<StartResult> {
    const key = JSON.stringify([chatId, id]);
    let flight = this.#starting.get(key);
    if (flight === undefined) {
      flight = this.#start(chatId, id, request).finally(() => this.#starting.delete(key));
      this.#starting.set(key, flight);
    }
    return flight.then((r) => ({ chatId: r.chatId }));
  }

  /**
   * Settles open offer `id` as drafted (the person takes it into the
   * composer instead of starting it).
   *
   * @example
   * await service.draft("chat-1", "s1");
   */
  draft(chatId: string, id: string): Promise<void> {
    return this.#settle(chatId, id, "draft");
  }

  /**
   * Settles open offer `id` as dismissed; it can be restored later.
   *
   * @example
   * await service.dismiss("chat-1", "s1");
   */
  dismiss(chatId: string, id: string): Promise<void> {
    return this.#settle(chatId, id, "dismiss");
  }

  /**
   * Reopens dismissed offer `id` while fewer than three are open. Restoring
   * an offer that is already open succeeds and writes nothing.
   *
   * @example
   * await service.restore("chat-1", "s1"); // throws task-suggestion/open-limit with 3 open
   */
  restore(chatId: string, id: string): Promise<void> {
    return this.#settle(chatId, id, "restore");
  }

  /**
   * The chat's suggestions, rebuilt from its log (a chat that does not
   * exist has none).
   *
   * @example
   * const { open } = await service.list("chat-1");
   * open.map((s) => s.title);
   */
  async list(chatId: string): Promise<SuggestionList> {
    const { open, settled } = replaySuggestions((await this.#store.read(chatId)) ?? []);
    return { open, settled };
  }

  async #settle(chatId: string, id: string, action: SettleAction): Promise<void> {
    for (let attempt = 0; attempt < MAX_SERVICE_ATTEMPTS; attempt++) {
      // A missing chat offers nothing: the core answers not-found for the id.
      const log = (await this.#store.read(chatId)) ?? [];
      const decision = settleSuggestion(log, id, action);
      if (!decision.ok) throw new SuggestionError(decision);
      if (decision.entry === null) return;
      if (await this.#appendAt(chatId, [decision.entry], log.length)) return;
    }
    throw lostRaces(`${action} of suggestion "${id}" in chat "${chatId}"`);
  }

  async #start(chatId: string, id: string, request: StartRequest | undefined): Promise<StartResult> {
    const store = this.#store;
    for (let attempt = 0; attempt < MAX_SERVICE_ATTEMPTS; attempt++) {
      const log = (await store.read(chatId)) ?? [];
      const decision = planStart(log, chatId, id, request, this.#permissions);
      if (!decision.ok) throw new SuggestionError(decision);
      if (decision.kind === "create") {
        // The new chat's id is the core's, derived from (chat, offer), so
        // every racing starter creates the same chat and at most one wins;
        // the losers find it and carry on with it.
        if (!(await store.create(decision.chatId, [decision.session]))) {
          const state = startedChat(await store.read(decision.chatId), chatId, id);
          if (state === "foreign" || state === "missing") throw startedChatBroken(decision.chatId, state, chatId, id);
        }
        // `started` is recorded only on the log we decided on: a dismissal
        // (or another Start) in between makes this a conflict, and the next
        // round decides again on what happened. The chat created above then
        // stays without a brief.
        if (!(await this.#appendAt(chatId, [decision.settled], log.length))) continue;
      }
      // Only now, with `started` recorded, may the brief be written.
      await this.#finishBrief(decision.chatId, chatId, id, decision.brief);
      return { chatId: decision.chatId };
    }
    throw lostRaces(`start of suggestion "${id}" in chat "${chatId}"`);
  }

  /** Writes the brief to the started chat unless it holds it already: once, even when Starts race. */
  async #finishBrief(newChatId: string, chatId: string, id: string, brief: MessageEntry): Promise<void> {
    for (let attempt = 0; attempt < MAX_SERVICE_ATTEMPTS; attempt++) {
      const log = await this.#store.read(newChatId);
      const state = startedChat(log, chatId, id);
      if (state === "complete") return;
      if (state !== "needs_brief" || log === null) throw startedChatBroken(newChatId, state, chatId, id);
      if (await this.#appendAt(newChatId, [brief], log.length)) return;
    }
    throw lostRaces(`the brief of chat "${newChatId}"`);
  }

  /** Appends at `expectedLength`; `false` when another writer came first (read again). */
  async #appendAt(chatId: string, entries: readonly LogEntry[], expectedLength: number): Promise<boolean> {
    try {
      await this.#store.append(chatId, entries, expectedLength);
      return true;
    } catch (e) {
      if (isConflict(e)) return false;
      throw e;
    }
  }
}

function lostRaces(what: string): Error {
  return new Error(`oda-tasks: the ${what} lost ${MAX_SERVICE_ATTEMPTS} races to other writers; try again`);
}

function startedChatBroken(newChatId: string, state: string, chatId: string, id: string): Error {
  return new Error(
    state === "missing"
      ? `oda-tasks: chat "${newChatId}", started from suggestion "${id}" of chat "${chatId}", does not exist in the store`
      : `oda-tasks: chat "${newChatId}" exists but was not started from suggestion "${id}" of chat "${chatId}"`,
  );
}
