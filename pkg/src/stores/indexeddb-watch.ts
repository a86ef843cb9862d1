// IndexedDbStore's change feed: in this tab, one feed per database (every
// IndexedDbStore of it hears a write at once); other tabs of the origin hear
// it through one BroadcastChannel per database name, posted once the
// write's transaction has completed.
import { ChangeListeners, type ChangeListener } from "./watchers.js";
import { keyed } from "./keyed.js";

/** What a tab posts: the chat and its new length, and which tab posted it (a tab skips its own). */
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
 * Tells a committed write: this tab's listeners of the database at once, other tabs through the channel.
 *
 * @example
 * announce(indexedDB, "my-chat-app", "chat-1", 3); // from the write's oncomplete
 */
export function announce(factory: IDBFactory, name: string, chatId: string, length: number): void {
  feeds.get(factory)?.get(name)?.notify(chatId, length);
  if (!crossesTabs(factory)) return;
  const channel = keyed(posting, name, () => openChannel(name));
  try {
    channel.postMessage({ odaTasks: 1, from: TAB, chatId, length } satisfies Notice);
  } catch {
    // A closing page: the write stands; other tabs read it when they next look.
  }
}

/**
 * Adds a listener of chat `chatId` of database `name`; the first of the
 * database opens its channel, the last stop closes it.
 *
 * @example
 * const stop = watchDatabase(indexedDB, "my-chat-app", "chat-1", (length) => console.log(length));
 */
export function watchDatabase(factory: IDBFactory, name: string, chatId: string, onChange: ChangeListener): () => void {
  let byName = feeds.get(factory);
  const feed = byName?.get(name);
  if (feed === undefined) {
    const made = new TabFeed(name, crossesTabs(factory), () => {
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

class TabFeed {
  readonly #listeners = new ChangeListeners();
  readonly #name: string;
  readonly #crossesTabs: boolean;
  readonly #ended: () => void;
  #channel: BroadcastChannel | undefined;
  #count = 0;

  constructor(name: string, crossesTabs: boolean, ended: () => void) {
    this.#name = name;
    this.#crossesTabs = crossesTabs;
    this.#ended = ended;
  }

  watch(chatId: string, onChange: ChangeListener): () => void {
    const stop = this.#listeners.watch(chatId, onChange);
    this.#count++;
    if (this.#crossesTabs && this.#channel === undefined) {
      const channel = openChannel(this.#name);
      channel.onmessage = (event: MessageEvent) => {
        const notice = event.data as Partial<Notice> | null;
        // Any script of the origin may post on the name: only a well-formed notice of another tab counts.
        if (typeof notice !== "object" || notice === null || notice.odaTasks !== 1 || notice.from === TAB) return;
        const { chatId: id, length } = notice;
        if (typeof id !== "string" || typeof length !== "number" || !Number.isSafeInteger(length) || length < 0) return;
        this.#listeners.notify(id, length);
      };
      this.#channel = channel;
    }
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      stop();
      if (--this.#count > 0) return;
      this.#channel?.close();
      this.#channel = undefined;
      this.#ended();
    };
  }

  notify(chatId: string, length: number): void {
    this.#listeners.notify(chatId, length);
  }
}
