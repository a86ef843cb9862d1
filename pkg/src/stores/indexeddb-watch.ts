// IndexedDbStore's change feed: in this tab, one feed per database (every
// IndexedDbStore of it hears a write at once); other tabs of the origin hear
// it through one BroadcastChannel per database name, posted once the
// write's transaction has completed. A message is a hint ("this chat may have
// changed"): the length told is the one read back from the database. A chat
// deleted is told as 0; one deleted and made again (another epoch) as 0, then its length.
import { ChangeListeners, type ChangeListener } from "./watchers.js";
import { keyed } from "./keyed.js";

/**
 * A chat as the database holds it: its length and its epoch (new each time the chat is made).
 *
 * @example
 * const now: ChatNow = { length: 3, epoch: "9f86d081884c7d659a2feaa0" };
 */
export interface ChatNow {
  length: number;
  epoch: string;
}

/** Reads a chat's length and epoch from the database (`null`: no such chat). */
export type LengthReader = (chatId: string) => Promise<ChatNow | null>;

/** What a tab posts: the chat and its new length, and which tab posted it (a tab skips its own). Receivers read the length back. */
interface Notice {
  odaTasks: 1;
  from: string;
  chatId: string;
  length: number;
}

/** This tab (this realm): messages it posted come back to its other channels of the name. */
const TAB = Math.random().toString(36).slice(2) + Date.now().toString(36);

/** The feeds being watched, per factory and database name. */
const feeds = new Map<IDBFactory, Map<string, TabFeed>>();
/** One posting channel per database name, made at the first write. */
const posting = new Map<string, BroadcastChannel>();

/** The channel name of database `name`. */
function channelName(name: string): string {
  return `oda-tasks:indexeddb:${name}`;
}

/** Whether writes to `factory` reach other tabs: the page's own IndexedDB, where BroadcastChannel exists. */
function crossesTabs(factory: IDBFactory): boolean {
  return typeof globalThis.BroadcastChannel === "function" && factory === (globalThis as { indexedDB?: IDBFactory }).indexedDB;
}

/** A channel that never keeps a process alive (Node, Deno and Bun have BroadcastChannel too). */
function openChannel(name: string): BroadcastChannel {
  const channel = new BroadcastChannel(channelName(name));
  (channel as { unref?: () => void }).unref?.();
  return channel;
}

/**
 * Tells a committed write (`now`: the chat after it; `null`: deleted): this
 * tab's listeners of the database at once, other tabs through the channel.
 *
 * @example
 * announce(indexedDB, "my-chat-app", "chat-1", { length: 3, epoch: "9f86d081884c7d659a2feaa0" }); // from the write's oncomplete
 */
export function announce(factory: IDBFactory, name: string, chatId: string, now: ChatNow | null): void {
  feeds.get(factory)?.get(name)?.notify(chatId, now);
  if (!crossesTabs(factory)) return;
  const channel = keyed(posting, name, () => openChannel(name));
  try {
    channel.postMessage({ odaTasks: 1, from: TAB, chatId, length: now?.length ?? 0 } satisfies Notice);
  } catch {
    // A closing page: the write stands; other tabs read it when they next look.
  }
}

/**
 * Adds a listener of chat `chatId` of database `name`; the first of the
 * database opens its channel, the last stop closes it. `lengthOf` reads a
 * chat's length back when another tab's message names it.
 *
 * @example
 * declare const lengthOf: LengthReader; // the store's read of a chat's length
 * const stop = watchDatabase(indexedDB, "my-chat-app", "chat-1", (length) => console.log(length), lengthOf);
 */
export function watchDatabase(
  factory: IDBFactory,
  name: string,
  chatId: string,
  onChange: ChangeListener,
  lengthOf: LengthReader,
): () => void {
  let byName = feeds.get(factory);
  const feed = byName?.get(name);
  if (feed === undefined) {
    const made = new TabFeed(name, crossesTabs(factory), lengthOf, () => {
      const now = feeds.get(factory);
      if (now?.get(name) !== made) return;
      now.delete(name);
      if (now.size === 0) feeds.delete(factory);
    });
    const stop = made.watch(chatId, onChange); // checks the id first: a refused watch leaves no feed
    byName ??= new Map();
    byName.set(name, made);
    feeds.set(factory, byName);
    return stop;
  }
  return feed.watch(chatId, onChange);
}

/**
 * Per watched chat: the last length told (undefined: none yet), the epoch of
 * the chat last seen (null: none there; undefined: not known yet), and a
 * count of this tab's tells, so a read taken meanwhile is read again.
 */
interface Known {
  length: number | undefined;
  epoch: string | null | undefined;
  version: number;
}

class TabFeed {
  readonly #listeners = new ChangeListeners();
  readonly #known = new Map<string, Known>();
  readonly #name: string;
  readonly #crossesTabs: boolean;
  readonly #lengthOf: LengthReader;
  readonly #ended: () => void;
  #channel: BroadcastChannel | undefined;
  #count = 0;
  /** Chats another tab's message named, read back one batch at a time. */
  readonly #hinted = new Set<string>();
  #reading = false;

  constructor(name: string, crossesTabs: boolean, lengthOf: LengthReader, ended: () => void) {
    this.#name = name;
    this.#crossesTabs = crossesTabs;
    this.#lengthOf = lengthOf;
    this.#ended = ended;
  }

  watch(chatId: string, onChange: ChangeListener): () => void {
    const stop = this.#listeners.watch(chatId, onChange);
    if (!this.#known.has(chatId)) {
      const known: Known = { length: undefined, epoch: undefined, version: 0 };
      this.#known.set(chatId, known);
      // Which chat is there now, so that another tab's delete of it is told (a read, where other tabs write).
      if (this.#crossesTabs) {
        this.#lengthOf(chatId).then(
          (now) => {
            if (this.#known.get(chatId) === known && known.version === 0 && known.epoch === undefined) known.epoch = now?.epoch ?? null;
          },
          () => undefined,
        );
      }
    }
    this.#count++;
    if (this.#crossesTabs && this.#channel === undefined) {
      const channel = openChannel(this.#name);
      channel.onmessage = (event: MessageEvent) => this.#heard(event.data);
      this.#channel = channel;
    }
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      stop();
      if (!this.#listeners.has(chatId)) {
        this.#known.delete(chatId);
        this.#hinted.delete(chatId);
      }
      if (--this.#count > 0) return;
      this.#channel?.close();
      this.#channel = undefined;
      this.#ended();
    };
  }

  /** A write of this tab committed (`now`: the chat after it; `null`: deleted): told at once. */
  notify(chatId: string, now: ChatNow | null): void {
    const known = this.#known.get(chatId);
    if (known === undefined) return;
    known.version++;
    this.#seen(chatId, known, now, true);
  }

  /**
   * Tells what the chat is now: 0 when it is gone (deleted in this tab, or
   * seen before and not there now); 0 first when it is another chat (another
   * epoch) than the one last seen; then its length.
   */
  #seen(chatId: string, known: Known, now: ChatNow | null, deleted: boolean): void {
    const before = known.epoch;
    known.epoch = now === null ? null : now.epoch;
    const ended = now === null ? deleted || typeof before === "string" : typeof before === "string" && before !== now.epoch;
    if (ended) this.#tell(chatId, known, 0);
    if (now !== null) this.#tell(chatId, known, now.length);
  }

  #tell(chatId: string, known: Known, length: number): void {
    if (known.length === length) return;
    known.length = length;
    this.#listeners.notify(chatId, length);
  }

  /**
   * Another tab's message (any script of the origin may post on the name):
   * a notice of this version names its chat, which is read back; this tab's
   * own is skipped; anything else (another version's format, garbled) may
   * be a write too, so every watched chat is read back.
   */
  #heard(data: unknown): void {
    const notice = data as Partial<Notice> | null;
    if (typeof notice === "object" && notice !== null && notice.odaTasks === 1 && typeof notice.chatId === "string") {
      if (notice.from === TAB) return;
      if (this.#known.has(notice.chatId)) this.#hint([notice.chatId]);
      return;
    }
    this.#hint([...this.#known.keys()]);
  }

  #hint(chats: string[]): void {
    for (const chatId of chats) this.#hinted.add(chatId);
    if (!this.#reading && this.#hinted.size > 0) void this.#readBack();
  }

  /** Reads back the hinted chats' lengths and tells each that differs from the last told; one batch at a time. */
  async #readBack(): Promise<void> {
    this.#reading = true;
    try {
      while (this.#hinted.size > 0) {
        const chats = [...this.#hinted];
        this.#hinted.clear();
        const versions = chats.map((chatId) => this.#known.get(chatId)?.version);
        const reads = await Promise.all(
          chats.map((chatId) =>
            this.#lengthOf(chatId).then(
              (now) => ({ now }),
              () => undefined,
            ),
          ),
        );
        chats.forEach((chatId, i) => {
          const known = this.#known.get(chatId);
          const read = reads[i];
          if (known === undefined || read === undefined) return;
          if (known.version !== versions[i])
            this.#hinted.add(chatId); // this tab wrote meanwhile: read again
          else this.#seen(chatId, known, read.now, false);
        });
      }
    } finally {
      this.#reading = false;
    }
  }
}
