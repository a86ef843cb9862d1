// The chats a handler's event streams watch: one feed per chat, told of new
// lengths by the store's change feed (`store.watch`, one per chat) or, for a
// store without one, by one batched pass over every watched chat per
// `pollMs` that reads only what is new from each chat's offset. A feed builds
// a version (a screen and its mark) only when a length moved, one build at a
// time, from what changed (the parts and the cards it lacks), and keeps the
// marks of its last versions for resuming by id. A chat that goes away after
// it was read (deleted, or replaced by another chat under its id) ends its
// feed with one `deleted` event.
import { readFrom, type Store } from "../../stores/store.js";
import { storeOperation } from "../../telemetry/store-ops.js";
import { type Mark, type Version, versionOf, eventBytes } from "./changes.js";
import type { ChatRead, ReadPlace, ScreenParts } from "./screen.js";

/** Marks kept per chat for a resume by `Last-Event-ID`. */
export const RESUME_MARKS = 16;

/** How long a chat stays watched after its last stream closed, so a client that reconnects resumes by id (ms). */
export const LINGER_MS = 10_000;

/**
 * Screen reads under way at once per handler: ten thousand viewers
 * reconnecting at once read their chats a few at a time, so the process's
 * peak (reads in flight, the heap they grow) stays that of a few reads.
 */
export const MAX_READS = 8;

/** What a chat's read answers: its parts and the cards after `since`, `null` for no such chat; a thrown failure is an `error` event. */
export type ChatReader = (feed: ChatFeed, since: ReadPlace) => Promise<ChatRead | null>;

/** A started suggestion's chat, followed for its progress: by its own watch, or polled from its length. */
interface Child {
  stop: (() => void) | null;
  polled: { length: number; mark: string | null } | null;
}

/** One watched chat. */
export class ChatFeed {
  /** The newest version; `null` before the first read or while the chat is missing. */
  version: Version | null = null;
  /** The `error` event of the last read when it failed (the chat missing, the store down), else `null`. */
  failure: Uint8Array | null = null;
  /** Streams of this chat (the stream layer's). */
  readonly streams = new Set<unknown>();
  /** Marks of the last versions, oldest first. */
  readonly marks: Mark[] = [];
  epoch = 0;
  stop: (() => void) | null = null;
  /** The poll's place in the log: the length and store mark read up to (stores without `watch`). */
  polled: { length: number; mark: string | null } | null = null;
  building = false;
  again = false;
  closed = false;
  /** When its last stream closed (0: it has streams); it is let go `LINGER_MS` later. */
  idleSince = 0;
  /** The chats its started suggestions run in, by their ids: their progress is on this chat's screen (`null`: none, the most chats). */
  children: Map<string, Child> | null = null;

  constructor(
    /** The chat's store key: its owner's prefix and its id (stores/owners.ts). */
    readonly chatId: string,
    /** Its owner's key prefix (`""`: none), which its started chats' keys share. */
    readonly prefix: string,
  ) {}

  /** The mark a client at `length` holds, the oldest of that length (it changed least since); `undefined` when not kept. */
  markAt(length: number): Mark | undefined {
    return this.marks.find((m) => m.length === length);
  }
}

/**
 * The feeds of one handler. `changed(feed)` is told when a feed has a new
 * version or failure, to hand it to the streams.
 */
export class ChatFeeds {
  readonly #feeds = new Map<string, ChatFeed>();
  /** Feeds with no stream, longest idle first: the sweep looks at these only. */
  readonly #idle = new Set<ChatFeed>();
  /** Feeds the pass must look at (polled, failed, or with a polled child): a watched, healthy chat costs the pass nothing. */
  readonly #polled = new Set<ChatFeed>();
  #passing = false;
  /** Reads under way, and the builds waiting for one to end (oldest first). */
  #reading = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(
    private readonly store: Store,
    private readonly read: ChatReader,
    /** Cards a screen holds (the handler's `cards`). */
    private readonly window: number,
    private readonly failureData: (e: unknown) => Promise<string>,
    private readonly changed: (feed: ChatFeed) => void,
  ) {}

  /** Chats watched now. */
  get size(): number {
    return this.#feeds.size;
  }

  /** The feed of `chatId`, if watched. */
  get(chatId: string): ChatFeed | undefined {
    return this.#feeds.get(chatId);
  }

  /** Watches the chat of store key `chatId` (once per chat; `prefix` its owner's): the store's change feed where it has one, then reads the first version. */
  open(chatId: string, prefix: string): ChatFeed {
    const found = this.#feeds.get(chatId);
    if (found !== undefined) {
      found.idleSince = 0;
      this.#idle.delete(found);
      return found;
    }
    const feed = new ChatFeed(chatId, prefix);
    this.#feeds.set(chatId, feed);
    if (typeof this.store.watch === "function") {
      try {
        const stop = this.store.watch(chatId, (length) => {
          if (feed.closed) return;
          // The store tells 0 when the chat is deleted: a chat read with entries is gone.
          if (length === 0 && (feed.version?.mark.length ?? 0) > 0) this.#deleted(feed);
          else if (feed.version === null || feed.failure !== null || length !== feed.version.mark.length) this.refresh(feed);
        });
        feed.stop = typeof stop === "function" ? stop : null;
      } catch {
        feed.stop = null; // a watch that cannot start: this chat is polled
      }
    }
    if (feed.stop === null) this.#polled.add(feed);
    this.refresh(feed);
    return feed;
  }

  /** `feed`'s last stream closed: it stays watched `LINGER_MS` for its client to resume by id. */
  idle(feed: ChatFeed): void {
    if (feed.closed) return;
    feed.idleSince = Date.now();
    this.#idle.delete(feed);
    this.#idle.add(feed);
  }

  /**
   * Lets go of the chats whose last stream closed `LINGER_MS` ago or more, and
   * of the longest idle ones beyond `most` chats watched.
   */
  sweep(now: number, most: number): void {
    for (const feed of this.#idle) {
      if (now - feed.idleSince < LINGER_MS && this.#feeds.size <= most) break;
      this.close(feed);
    }
  }

  /** Stops watching `feed`'s chat. */
  close(feed: ChatFeed): void {
    if (feed.closed) return;
    feed.closed = true;
    if (this.#feeds.get(feed.chatId) === feed) this.#feeds.delete(feed.chatId);
    this.#idle.delete(feed);
    this.#polled.delete(feed);
    try {
      feed.stop?.();
    } catch {
      // the store's own failure to stop: nothing more is read for this feed
    }
    feed.stop = null;
    for (const child of feed.children?.values() ?? []) {
      try {
        child.stop?.();
      } catch {
        // as above
      }
    }
    feed.children = null;
  }

  /**
   * `feed`'s chat is gone (deleted, or another chat now under its id): its
   * streams get the `deleted` event and end, and the chat is no longer
   * watched (a stream opened later starts a feed of its own).
   */
  #deleted(feed: ChatFeed): void {
    if (feed.closed) return;
    feed.failure = DELETED;
    feed.version = null;
    this.changed(feed);
    this.close(feed);
  }

  /** Reads `feed`'s chat again (after any read under way, once however often asked meanwhile). */
  refresh(feed: ChatFeed): void {
    if (feed.building) {
      feed.again = true;
      return;
    }
    feed.building = true;
    void (async () => {
      try {
        do {
          feed.again = false;
          await this.#build(feed);
        } while (feed.again && !feed.closed);
      } finally {
        feed.building = false;
      }
    })();
  }

  /**
   * One pass over the chats that need reading: those without a change feed
   * (only what is new since each one's offset: a version is built only when
   * its length moved) and those whose last read failed. One pass at a time.
   */
  async pass(): Promise<void> {
    if (this.#passing) return;
    this.#passing = true;
    try {
      for (const feed of [...this.#polled]) {
        if (feed.closed || feed.building) continue;
        if (feed.failure !== null) this.refresh(feed);
        else if (feed.stop === null && feed.version !== null && (await this.#moved(feed))) this.refresh(feed);
        else if (feed.children !== null && (await this.#childMoved(feed))) this.refresh(feed);
        if (!needsPass(feed)) this.#polled.delete(feed);
      }
    } finally {
      this.#passing = false;
    }
  }

  /** Whether `feed`'s log moved past where the poll last read it (reading only what is new); a chat gone ends the feed. */
  async #moved(feed: ChatFeed): Promise<boolean> {
    const length = feed.version?.mark.length ?? 0;
    const read = await this.#readOn(feed.chatId, feed.polled ?? { length, mark: null });
    if (read.gone && length > 0) {
      this.#deleted(feed);
      return false;
    }
    feed.polled = read.at;
    return read.moved || read.at?.length !== length;
  }

  /** Reads chat `chatId` on from `at`: whether anything was new, and where the next read starts (`null`: from the start). */
  async #readOn(
    chatId: string,
    at: { length: number; mark: string | null },
  ): Promise<{ moved: boolean; gone: boolean; at: { length: number; mark: string | null } | null }> {
    const store = this.store;
    try {
      // Seen as the store's read (its time told, a span under a span of this package's).
      if (typeof store.readSince === "function") {
        const readSince = store.readSince;
        const read = await storeOperation(store, "read", () => readSince.call(store, chatId, at.length, at.mark));
        if (read === null) return { moved: true, gone: true, at: null };
        return { moved: read.texts.length > 0, gone: false, at: { length: at.length + read.texts.length, mark: read.mark } };
      }
      const fresh = await storeOperation(
        store,
        "read",
        (): Promise<unknown[] | null> =>
          typeof store.readTextFrom === "function" ? store.readTextFrom(chatId, at.length) : readFrom(store, chatId, at.length),
      );
      if (fresh === null) return { moved: true, gone: true, at: null };
      return { moved: fresh.length > 0, gone: false, at: { length: at.length + fresh.length, mark: null } };
    } catch (e) {
      // Replaced: another chat is under the id now. Cut or failing: read it whole (the cache knows how), and say so if it fails.
      return { moved: true, gone: codeOf(e) === "store/replaced", at: null };
    }
  }

  /** Follows the chats of `parts`' started suggestions (and no others), so their progress moves this chat's screen. */
  #follow(feed: ChatFeed, parts: ScreenParts): void {
    // By their store keys: a started chat is its offering chat's owner's.
    const started = new Set(
      parts.settled.flatMap((s) => (s.outcome === "started" && typeof s.chatId === "string" ? [feed.prefix + s.chatId] : [])),
    );
    if (feed.children === null && started.size === 0) return;
    const children = feed.children ?? new Map<string, Child>();
    for (const [chatId, child] of children) {
      if (started.has(chatId)) continue;
      child.stop?.();
      children.delete(chatId);
    }
    for (const chatId of started) {
      if (children.has(chatId)) continue;
      const child: Child = { stop: null, polled: null };
      children.set(chatId, child);
      this.#polled.add(feed); // until its watch starts
      if (typeof this.store.watch !== "function") continue;
      try {
        const stop = this.store.watch(chatId, () => {
          if (!feed.closed) this.refresh(feed);
        });
        child.stop = typeof stop === "function" ? stop : null;
      } catch {
        child.stop = null; // polled instead
      }
    }
    feed.children = children.size === 0 ? null : children;
  }

  /** Whether a polled child of `feed` moved (each read from its length; the first read finds its length). */
  async #childMoved(feed: ChatFeed): Promise<boolean> {
    let moved = false;
    for (const [chatId, child] of feed.children ?? []) {
      if (child.stop !== null) continue;
      const first = child.polled === null;
      const read = await this.#readOn(chatId, child.polled ?? { length: 0, mark: null });
      child.polled = read.at;
      if (read.moved && !first) moved = true;
    }
    return moved;
  }

  /** `read(feed's chat)` when fewer than MAX_READS are under way, else after the ones before it. */
  async #readBounded(feed: ChatFeed): Promise<ChatRead | null> {
    if (this.#reading >= MAX_READS) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#reading++;
    try {
      const at = feed.version;
      return await this.read(feed, { state: at?.state ?? null, cardCount: at?.mark.cardCount ?? 0 });
    } finally {
      const next = this.#waiting.shift();
      if (next === undefined) this.#reading--;
      else next(); // the slot passes on
    }
  }

  /** Reads what is new of the chat and makes it the feed's version when it differs from the last one. */
  async #build(feed: ChatFeed): Promise<void> {
    let read: ChatRead | null;
    try {
      read = await this.#readBounded(feed);
    } catch (e) {
      const data = await this.failureData(e);
      if (feed.closed) return;
      feed.failure = eventBytes("error", data, null);
      this.#polled.add(feed);
      this.changed(feed);
      return;
    }
    if (feed.closed) return;
    if (read === null && feed.version !== null) {
      this.#deleted(feed);
      return;
    }
    if (read === null) {
      // Not made yet: the stream says so, and shows the chat once it is.
      feed.failure = MISSING;
      this.#polled.add(feed);
      feed.polled = null;
      this.changed(feed);
      return;
    }
    this.#follow(feed, read.parts);
    const before = feed.version;
    const failed = feed.failure !== null;
    feed.failure = null;
    const version = versionOf(read, this.window, before, feed.epoch);
    if (version === before) {
      if (failed) this.changed(feed);
      return;
    }
    if (version.mark.epoch !== feed.epoch) {
      feed.epoch = version.mark.epoch;
      feed.marks.length = 0;
    }
    feed.version = version;
    feed.marks.push(version.mark);
    if (feed.marks.length > RESUME_MARKS) feed.marks.shift();
    const length = read.parts.length;
    if (feed.polled === null || feed.polled.length < length) feed.polled = { length, mark: null };
    this.changed(feed);
  }
}

/** Whether the pass must look at `feed`: it is polled, its last read failed, or a child of it is polled. */
function needsPass(feed: ChatFeed): boolean {
  if (feed.stop === null || feed.failure !== null) return true;
  for (const child of feed.children?.values() ?? []) if (child.stop === null) return true;
  return false;
}

const MISSING = eventBytes("error", JSON.stringify({ code: "store/missing-chat", message: "no such chat" }), null);

/**
 * The last event of a stream whose chat was deleted (or replaced by another
 * chat under its id).
 *
 * @example
 * source.addEventListener("deleted", () => source.close()); // the stream's last event: no reconnect
 */
export const DELETED = eventBytes("deleted", JSON.stringify({ code: "chat/deleted", message: "the chat was deleted" }), null);

function codeOf(e: unknown): string {
  const code = typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : "";
}
