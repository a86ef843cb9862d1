// The suggestion service: start, draft, dismiss, restore and list a chat's
// suggested tasks over any Store. The core decides every outcome on the
// chat's warm state; this layer orders the writes so that a crash or a race
// leaves a state the next call can finish, through the one append loop.
import { ChatState } from "../core/chat-state.js";
import { clampPermission } from "../core/functions.js";
import { ANY, BOOLEAN, readOptions } from "../core/options.js";
import { decideAndAppend, MAX_ATTEMPTS } from "./append-loop.js";
import { sharedCache, type ChatStateCache } from "./state-cache.js";
import type { Store } from "../stores/store.js";
import { storeOperation } from "../telemetry/store-ops.js";
import { inSpan, NO_SPAN, outOfScope, type SpanHandle } from "../telemetry/otel.js";
import type {
  MessageEntry,
  ServiceFailure,
  SettleAction,
  SettledSuggestion,
  StartRequest,
  Suggestion,
  SuggestionErrorCode,
} from "../core/types.js";

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
      if (Object.hasOwn(failure, key)) named[key] = (failure as Record<string, unknown>)[key];
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
  /** The warm chat states to use; by default one cache per store, shared with `runTool`. */
  cache?: ChatStateCache;
  /** The operations' OpenTelemetry spans (`oda_tasks.suggestion.start`, …, where `@opentelemetry/api` is installed): `false` makes none. */
  telemetry?: boolean;
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
  settled: ListedSuggestion[];
}

/**
 * A settled offer as `list()` answers it: with `progress` when asked for
 * (`{ progress: true }`) and the offer was started.
 *
 * @example
 * const started = (await service.list("chat-1", { progress: true })).settled.filter((s) => s.progress);
 */
export interface ListedSuggestion extends SettledSuggestion {
  progress?: StartedProgress;
}

/**
 * How far a started chat got: its current to-do list's completed items and
 * all its items ("3 of 5 completed").
 *
 * @example
 * const { settled } = await service.list("chat-1", { progress: true });
 * const progress: StartedProgress | undefined = settled.find((s) => s.outcome === "started")?.progress;
 * if (progress) show(`${progress.completed} of ${progress.total} completed`);
 */
export interface StartedProgress {
  completed: number;
  total: number;
}

/**
 * Options of {@link SuggestionService.list}.
 *
 * @example
 * await service.list("chat-1", { progress: true });
 */
export interface ListOptions {
  /** Give each started offer its chat's `progress` (default `false`). */
  progress?: boolean;
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
 * How many times an operation decides again after losing a race to another
 * writer of the same chat (the same for every write of the host layer).
 *
 * @example
 * console.log(MAX_SERVICE_ATTEMPTS); // 20
 */
export const MAX_SERVICE_ATTEMPTS = MAX_ATTEMPTS;

/** The service an owner's view is made of, handed to the constructor by `owned()` alone. */
let owning: { of: SuggestionService; prefix: string } | undefined;

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
  readonly #cache: ChatStateCache;
  readonly #permissions: readonly string[] | undefined;
  readonly #starting: Map<string, Promise<StartResult>>;
  /** The store key prefix of this service's owner (`""`: the chat ids are the keys). */
  readonly #prefix: string;
  readonly #telemetry: boolean;

  constructor(options: SuggestionServiceOptions) {
    const owned = owning;
    owning = undefined;
    if (owned !== undefined) {
      // An owner's view (see `owned`): the same store, cache and Starts in flight.
      const of = owned.of;
      this.#store = of.#store;
      this.#cache = of.#cache;
      this.#permissions = of.#permissions;
      this.#starting = of.#starting;
      this.#prefix = owned.prefix;
      this.#telemetry = of.#telemetry;
      return;
    }
    this.#starting = new Map();
    this.#prefix = "";
    if (options === null || typeof options !== "object") {
      throw new TypeError("oda-tasks: new SuggestionService({ store }) needs a store");
    }
    // Own properties only: a polluted Object.prototype (`permissions`) is never an option.
    const { store, cache, permissions, telemetry } = readOptions<SuggestionServiceOptions>("SuggestionService", options, {
      store: ANY,
      cache: ANY,
      permissions: ANY,
      telemetry: BOOLEAN,
    });
    this.#telemetry = telemetry ?? true;
    if (store === undefined || store === null) throw new TypeError("oda-tasks: new SuggestionService({ store }) needs a store");
    this.#store = store;
    this.#cache = cache ?? sharedCache(store);
    if (this.#cache.store !== this.#store) throw new TypeError("oda-tasks: new SuggestionService: the cache belongs to another store");
    if (permissions !== undefined) {
      if (!Array.isArray(permissions)) {
        throw new TypeError("oda-tasks: new SuggestionService: `permissions` must be an array of strings, lowest first");
      }
      this.#permissions = [...permissions];
      clampPermission(null, null, this.#permissions); // the core checks the order now, not at the first Start
    }
  }

  /**
   * Internal: this service for one owner's chats, whose store keys are
   * `prefix` and the chat id (stores/owners.ts): every id it takes and
   * answers is the owner's own, and a started chat is the same owner's.
   * Shares the store, the cache and the Starts in flight.
   *
   * @internal
   */
  owned(prefix: string): SuggestionService {
    if (prefix === this.#prefix) return this;
    owning = { of: this, prefix };
    return new SuggestionService(null as never);
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
    // The flight is registered before anything is awaited (the span's work begins at once).
    return this.#seen("start", id, (span) => {
      const key = JSON.stringify([this.#prefix + chatId, id]);
      let flight = this.#starting.get(key);
      if (flight === undefined) {
        flight = this.#start(chatId, id, request, span).finally(() => this.#starting.delete(key));
        this.#starting.set(key, flight);
      } else span.set("oda_tasks.suggestion.start.joined", "process");
      return flight.then((r) => {
        span.set("oda_tasks.started_chat.id", r.chatId);
        return { chatId: r.chatId };
      });
    });
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
   * exist has none). With `{ progress: true }`, each started offer also
   * carries its chat's `progress` (the current list's completed and total
   * items), read through the warm-state cache: a started chat it already
   * holds costs only the catch-up of what is new.
   *
   * @example
   * const { open, settled } = await service.list("chat-1", { progress: true });
   * for (const s of settled) if (s.progress) show(`${s.id}: ${s.progress.completed} of ${s.progress.total} completed`);
   */
  async list(chatId: string, options?: ListOptions): Promise<SuggestionList> {
    const progress = listProgressOption(options);
    const lease = await this.#cache.lease(this.#prefix + chatId);
    let answer: SuggestionList;
    try {
      if (lease.state === null) return { open: [], settled: [] };
      const { open, settled } = lease.state.replaySuggestions();
      answer = { open, settled };
    } finally {
      lease.release();
    }
    if (progress) {
      await Promise.all(
        answer.settled.map(async (offer) => {
          if (offer.outcome !== "started" || offer.chatId === undefined) return;
          const found = await this.#progress(offer.chatId);
          if (found !== null) offer.progress = found;
        }),
      );
    }
    return answer;
  }

  /** The started chat's current list as counts; `null` when it does not exist (yet). */
  async #progress(chatId: string): Promise<StartedProgress | null> {
    const lease = await this.#cache.lease(this.#prefix + chatId);
    try {
      if (lease.state === null) return null;
      const { todos } = lease.state.listState();
      return { completed: todos.filter((t) => t.status === "completed").length, total: todos.length };
    } finally {
      lease.release();
    }
  }

  #settle(chatId: string, id: string, action: SettleAction): Promise<void> {
    return this.#seen(action, id, () =>
      decideAndAppend(this.#cache, this.#prefix + chatId, `${action} of suggestion "${id}" in chat "${chatId}"`, (state) => {
        // A missing chat offers nothing: the core answers not-found for the id.
        const decision = (state ?? emptyState()).settleSuggestion(id, action);
        if (!decision.ok) throw new SuggestionError(decision);
        // biome-ignore lint/suspicious/noThenProperty: the append loop's step (append-loop.ts `Step`): `then` is what it answers after the append, never awaited
        return decision.entry === null ? { done: undefined } : { append: [decision.entry], then: undefined };
      }),
    );
  }

  /**
   * Runs operation `action` on offer `id` in its span
   * (`oda_tasks.suggestion.<action>`, a refusal its `error.type`), or with
   * `telemetry: false` in none.
   */
  #seen<T>(action: SettleAction | "start", id: string, work: (span: SpanHandle) => Promise<T>): Promise<T> {
    if (!this.#telemetry) return outOfScope(() => work(NO_SPAN));
    return inSpan(`oda_tasks.suggestion.${action}`, { attributes: { "oda_tasks.suggestion.id": id } }, work);
  }

  async #start(chatId: string, id: string, request: StartRequest | undefined, span: SpanHandle): Promise<StartResult> {
    const store = this.#store;
    type Started = { chatId: string; brief: MessageEntry };
    const what = `start of suggestion "${id}" in chat "${chatId}"`;
    let decisions = 0;
    const started = await decideAndAppend<Started>(this.#cache, this.#prefix + chatId, what, async (state) => {
      const again = decisions++ > 0;
      const decision = (state ?? emptyState()).planStart(chatId, id, request, this.#permissions);
      if (!decision.ok) throw new SuggestionError(decision);
      if (decision.kind === "started") {
        // Started after this Start lost a race: another Start (another instance, tab or process) came first.
        if (again) span.set("oda_tasks.suggestion.start.joined", "instance");
        return { done: { chatId: decision.chatId, brief: decision.brief } };
      }
      // The new chat's id is the core's, derived from (chat, offer), so every
      // racing starter creates the same chat and at most one wins; the
      // losers find it and carry on with it.
      if (!(await storeOperation(store, "create", () => store.create(this.#prefix + decision.chatId, [decision.session])))) {
        span.set("oda_tasks.suggestion.start.joined", "instance");
        const found = await this.#startedChatState(decision.chatId, chatId, id);
        if (found === "foreign" || found === "missing") throw startedChatBroken(decision.chatId, found, chatId, id);
      }
      // `started` is recorded at the length decided on: a dismissal (or another
      // Start) in between is a conflict, and the loop decides again on what
      // happened. The chat created above then stays without a brief.
      // biome-ignore lint/suspicious/noThenProperty: the append loop's step (append-loop.ts `Step`): `then` is what it answers after the append, never awaited
      return { append: [decision.settled], then: { chatId: decision.chatId, brief: decision.brief } };
    });
    // Only now, with `started` recorded, may the brief be written.
    await this.#finishBrief(started.chatId, chatId, id, started.brief);
    return { chatId: started.chatId };
  }

  /** Writes the brief to the started chat unless it holds it already: once, even when Starts race. */
  #finishBrief(newChatId: string, chatId: string, id: string, brief: MessageEntry): Promise<void> {
    return decideAndAppend(this.#cache, this.#prefix + newChatId, `the brief of chat "${newChatId}"`, (state) => {
      const found = state === null ? "missing" : state.startedChat(chatId, id);
      if (found === "complete") return { done: undefined };
      if (found !== "needs_brief") throw startedChatBroken(newChatId, found, chatId, id);
      // biome-ignore lint/suspicious/noThenProperty: the append loop's step (append-loop.ts `Step`): `then` is what it answers after the append, never awaited
      return { append: [brief], then: undefined };
    });
  }

  async #startedChatState(newChatId: string, chatId: string, id: string): Promise<string> {
    const lease = await this.#cache.lease(this.#prefix + newChatId);
    try {
      return lease.state === null ? "missing" : lease.state.startedChat(chatId, id);
    } finally {
      lease.release();
    }
  }
}

function listProgressOption(options: ListOptions | undefined): boolean {
  return readOptions<ListOptions>("service.list", options, { progress: BOOLEAN }).progress === true;
}

let empty: ChatState | undefined;
/** The state of a chat with no entries: what a missing chat offers (nothing). */
function emptyState(): ChatState {
  empty ??= ChatState.empty({ cards: false });
  return empty;
}

function startedChatBroken(newChatId: string, state: string, chatId: string, id: string): Error {
  return new Error(
    state === "missing"
      ? `oda-tasks: chat "${newChatId}", started from suggestion "${id}" of chat "${chatId}", does not exist in the store`
      : `oda-tasks: chat "${newChatId}" exists but was not started from suggestion "${id}" of chat "${chatId}"`,
  );
}
