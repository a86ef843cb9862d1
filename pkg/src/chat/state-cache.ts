// Warm chat states for a store: a bounded LRU of ChatState per chat id, each
// brought up to date by reading only the entries it has not seen.
import { ChatState } from "../core/chat-state.js";
import { BOOLEAN, readOptions, wholeNumber } from "../core/options.js";
import type { LogEntry } from "../core/types.js";
import { readFrom, type Store } from "../stores/store.js";
import { keyed } from "../stores/keyed.js";
import { storeOperation } from "../telemetry/store-ops.js";

/**
 * Default number of chats whose state a cache keeps.
 *
 * @example
 * new ChatStateCache(store, { size: 4 * DEFAULT_CACHE_SIZE });
 */
export const DEFAULT_CACHE_SIZE = 64;

/**
 * Options of a {@link ChatStateCache}.
 *
 * @example
 * new ChatStateCache(store, { size: 256, cards: true }); // states that can answer view()
 */
export interface ChatStateCacheOptions {
  /** How many chats' states to keep (least recently used go first). Default 64. */
  size?: number;
  /** Keep each chat's todo cards, for `view()` and `cards()` (default `false`: decisions do not need them). */
  cards?: boolean;
}

interface Slot {
  state: ChatState | null;
  /** The store's mark of the log `state` was read from (stores with `readSince`). */
  mark: string | null;
  /** Leases in use: a busy state is never freed. */
  busy: number;
  evicted: boolean;
  /** Catch-ups of this chat run one after another. */
  sync: Promise<unknown>;
}

/**
 * A chat's state lent by a {@link ChatStateCache}: up to date with the store
 * as of the lease. `null` when the chat does not exist.
 *
 * @example
 * const lease = await cache.lease("chat-1");
 * try { lease.state?.replaySuggestions(); } finally { lease.release(); }
 */
export interface ChatStateLease {
  readonly state: ChatState | null;
  /**
   * Tells the state that `entries` were appended at index `at` and the store
   * answered `length`: it folds them only when they landed right there (else
   * the next lease reads what is really in the log).
   */
  appended(at: number, entries: readonly LogEntry[], length: number): void;
  /** Gives the state back to the cache when done with `state`; a second call does nothing. */
  release(): void;
}

/**
 * Chat states kept warm for one store. Each lease reads only the entries
 * the state has not folded yet (`readFrom`), so a call on a long chat costs
 * what is new, not the chat's length.
 *
 * @example
 * import { ChatStateCache, runTool } from "oda-tasks";
 * const cache = new ChatStateCache(store, { size: 256 });
 * await runTool(store, "chat-1", call, { cache });
 */
export class ChatStateCache {
  readonly store: Store;
  readonly size: number;
  /** Whether the states keep their todo cards. */
  readonly cards: boolean;
  readonly #slots = new Map<string, Slot>();

  constructor(store: Store, options: ChatStateCacheOptions = {}) {
    if (store === null || typeof store !== "object") throw new TypeError("oda-tasks: a ChatStateCache needs a store");
    const { size = DEFAULT_CACHE_SIZE, cards = false } = readOptions<ChatStateCacheOptions>("ChatStateCache", options, {
      size: wholeNumber(1),
      cards: BOOLEAN,
    });
    this.store = store;
    this.size = size;
    this.cards = cards;
  }

  /** Chats whose state is kept now. */
  get count(): number {
    return this.#slots.size;
  }

  /**
   * Lends the state of `chatId`, caught up with the store. Release it when done.
   *
   * @example
   * const lease = await cache.lease("chat-1");
   */
  async lease(chatId: string): Promise<ChatStateLease> {
    let slot = this.#slots.get(chatId);
    if (slot === undefined) {
      slot = { state: null, mark: null, busy: 0, evicted: false, sync: Promise.resolve() };
    } else {
      this.#slots.delete(chatId); // re-inserted below: most recently used last
    }
    this.#slots.set(chatId, slot);
    slot.busy++;
    this.#evict();
    const mine = slot;
    try {
      const caughtUp = mine.sync.then(() => this.#catchUp(chatId, mine));
      mine.sync = caughtUp.catch(() => undefined);
      await caughtUp;
    } catch (e) {
      this.#release(mine);
      throw e;
    }
    let released = false;
    return {
      state: mine.state,
      appended: (at, entries, length) => {
        if (mine.state !== null && mine.state.length === at && length === at + entries.length) mine.state.ingest(at, entries);
      },
      release: () => {
        if (!released) {
          released = true;
          this.#release(mine);
        }
      },
    };
  }

  /**
   * Drops every kept state (frees their memory once no lease uses them).
   *
   * @example
   * cache.clear();
   */
  clear(): void {
    for (const [chatId, slot] of this.#slots) this.#drop(chatId, slot);
  }

  async #catchUp(chatId: string, slot: Slot): Promise<void> {
    if (slot.state !== null) {
      const from = slot.state.length;
      let fresh: Fresh | null;
      try {
        fresh = await this.#read(chatId, from, slot.mark);
      } catch (e) {
        // By its code: the scanner's read-failed error need not be this module's StoreError class.
        if (!READ_AGAIN.has(codeOf(e))) throw e;
        fresh = null; // the log was cut, replaced or misread: read it whole again
      }
      if (fresh !== null && slot.state !== null) {
        const skip = slot.state.length - from; // folded meanwhile by this process's own appends
        feed(slot.state, fresh, skip);
        slot.mark = fresh.mark;
        return;
      }
      slot.state?.free();
      slot.state = null;
      slot.mark = null;
    }
    const log = await this.#read(chatId, 0, null);
    if (log === null) return;
    const state = ChatState.empty({ cards: this.cards });
    try {
      feed(state, log, 0);
    } catch (e) {
      state.free();
      throw e;
    }
    slot.state = state;
    slot.mark = log.mark;
  }

  /** What is new in the log from `from` on: as stored texts where the store has them, with its mark; seen as the store's read. */
  #read(chatId: string, from: number, mark: string | null): Promise<Fresh | null> {
    return storeOperation(this.store, "read", () => this.#readStore(chatId, from, mark));
  }

  async #readStore(chatId: string, from: number, mark: string | null): Promise<Fresh | null> {
    const store = this.store;
    if (typeof store.readSince === "function") {
      const read = await store.readSince(chatId, from, mark);
      return read === null ? null : { texts: read.texts, mark: read.mark };
    }
    if (typeof store.readTextFrom === "function") {
      const texts = await store.readTextFrom(chatId, from);
      return texts === null ? null : { texts, mark: null };
    }
    const entries = from === 0 ? await store.read(chatId) : await readFrom(store, chatId, from);
    return entries === null ? null : { entries, mark: null };
  }

  #release(slot: Slot): void {
    slot.busy--;
    if (slot.evicted && slot.busy === 0) {
      slot.state?.free();
      slot.state = null;
    }
    this.#evict();
  }

  #evict(): void {
    for (const [chatId, slot] of this.#slots) {
      if (this.#slots.size <= this.size) return;
      if (slot.busy === 0) this.#drop(chatId, slot);
    }
  }

  #drop(chatId: string, slot: Slot): void {
    this.#slots.delete(chatId);
    slot.evicted = true;
    if (slot.busy === 0) {
      slot.state?.free();
      slot.state = null;
    }
  }
}

/** Refusals after which a warm state is dropped and the log read whole again. */
const READ_AGAIN = new Set(["store/truncated", "store/replaced", "store/read-failed"]);

function codeOf(e: unknown): string {
  const code = typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : "";
}

/** New entries, as the store's texts or as objects; `mark` where the store keeps marks. */
type Fresh = ({ texts: string[] } | { entries: LogEntry[] }) & { mark: string | null };

/** Folds `fresh` (less its first `skip` entries) into `state`, by its texts when the core reads texts. */
function feed(state: ChatState, fresh: Fresh, skip: number): void {
  const at = state.length;
  if ("entries" in fresh) {
    if (skip < fresh.entries.length) state.ingest(at, fresh.entries.slice(skip));
    return;
  }
  if (skip >= fresh.texts.length) return;
  const texts = fresh.texts.slice(skip);
  state.ingestTexts(at, texts);
}

const shared = new WeakMap<Store, ChatStateCache>();

/**
 * The cache that `runTool` and `SuggestionService` share for `store` when
 * given none of their own.
 *
 * @example
 * sharedCache(store).count; // chats kept warm for this store
 */
export function sharedCache(store: Store): ChatStateCache {
  return keyed(shared, store, () => new ChatStateCache(store));
}

/**
 * Internal: the cache a call of `call` uses for `store`: the one it was
 * given (which must be of that store), else the store's shared one.
 */
export function cacheFor(call: string, store: Store, cache: ChatStateCache | undefined): ChatStateCache {
  const chosen = cache ?? sharedCache(store);
  if (chosen.store !== store) throw new TypeError(`oda-tasks: invalid arguments of ${call}: the cache belongs to another store`);
  return chosen;
}
