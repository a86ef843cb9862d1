// JsonlStore's change feed, one per folder in this process: writes through
// any JsonlStore of the folder are told at once; other processes' writes are
// seen by one fs.watch on the folder, or, where that fails, by one timer that
// stats the watched chats' files.
import { statSync, watch as fsWatch, type FSWatcher } from "node:fs";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { ChangeListeners, type ChangeListener } from "../watchers.js";
import { fileStem } from "./file-names.js";
import { keyed } from "../keyed.js";

/** A chat's length and the file it was counted in: `<inode>:<bytes>`, what a stat shows. */
export interface CountedLength {
  length: number;
  file: string;
}

/** What the feed asks of the store whose watch started it. */
export interface FeedSource {
  /** The chat's length now (counted on from the store's checkpoints), or null with no file. */
  lengthOf(chatId: string): Promise<CountedLength | null>;
  /** Stat the watched files this often where fs.watch fails (or always, with `poll`). */
  pollMs: number;
  poll: boolean;
}

/** Per watched chat: what was last told, and the file it was counted in. */
interface Known {
  length: number | undefined;
  /** `<inode>:<size>` when the length was counted (or the file looked at first); undefined: look again. */
  file: string | undefined;
  /** Bumped by every write this process tells: a count taken meanwhile may be older. */
  version: number;
  checking: boolean;
  again: boolean;
}

/** The folders' feeds, by resolved path. */
const feeds = new Map<string, FolderFeed>();

/**
 * The feed of folder `dir` (a resolved path), made when first asked for.
 *
 * @example
 * declare const counted: FeedSource; // the watching store: how to count a chat, how often to poll
 * const stop = folderFeed("/srv/chats").watch("chat-1", (length) => console.log(length), counted);
 */
export function folderFeed(dir: string): FolderFeed {
  return keyed(feeds, dir, () => new FolderFeed(dir));
}

/**
 * The feed of folder `dir` while anything in this process watches it (tests ask whether it still holds a watch).
 *
 * @example
 * feedOf("/srv/chats")?.watching; // true while fs.watch serves it
 */
export function feedOf(dir: string): FolderFeed | undefined {
  return feeds.get(dir);
}

/**
 * Tells the folder's listeners a write this process committed (a no-op when
 * nobody in this process watches the folder).
 *
 * @example
 * announce("/srv/chats", "chat-1", 3, "1234:512");
 */
export function announce(dir: string, chatId: string, length: number, file: string | undefined): void {
  feeds.get(dir)?.announce(chatId, length, file);
}

/** `<inode>:<size>` of a stat, the way a feed compares files. */
export function fileSignature(st: { ino: number | bigint; size: number | bigint }): string {
  return `${st.ino}:${st.size}`;
}

/**
 * One folder's listeners and the one watch (or timer) over its files.
 *
 * @example
 * const feed = folderFeed("/srv/chats");
 */
export class FolderFeed {
  readonly #dir: string;
  readonly #listeners = new ChangeListeners();
  readonly #known = new Map<string, Known>();
  /** A watched chat's file name → its id. */
  readonly #byName = new Map<string, string>();
  #source: FeedSource | undefined;
  #watcher: FSWatcher | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** Adds a listener of chat `chatId`; the first starts the folder's watch with `source`. */
  watch(chatId: string, onChange: ChangeListener, source: FeedSource): () => void {
    const first = !this.#listeners.has(chatId);
    const stop = this.#listeners.watch(chatId, onChange); // checks the id and the listener
    if (first) {
      const name = `${fileStem(chatId)}.jsonl`;
      this.#byName.set(name, chatId);
      // What the file is now, so that only a change from here on is looked into.
      let file: string | undefined;
      try {
        const st = statSync(join(this.#dir, name), { bigint: true, throwIfNoEntry: false });
        file = st === undefined ? "none" : fileSignature(st);
      } catch {
        file = undefined; // not readable now: the first look counts it
      }
      this.#known.set(chatId, { length: undefined, file, version: 0, checking: false, again: false });
    }
    if (this.#source === undefined) this.#start(source);
    return () => {
      stop();
      if (this.#listeners.has(chatId)) return;
      this.#known.delete(chatId);
      this.#byName.delete(`${fileStem(chatId)}.jsonl`);
      if (this.#known.size === 0) this.#end();
    };
  }

  /** A write this process committed: told at once, and remembered so the watch does not tell it again. */
  announce(chatId: string, length: number, file: string | undefined): void {
    const known = this.#known.get(chatId);
    if (known === undefined) return;
    known.version++;
    known.file = file;
    if (known.length === length) return;
    known.length = length;
    this.#listeners.notify(chatId, length);
  }

  /** Whether the folder is watched through fs.watch (false: by the timer, or not at all). */
  get watching(): boolean {
    return this.#watcher !== undefined;
  }

  #start(source: FeedSource): void {
    this.#source = source;
    if (!source.poll) {
      try {
        const watcher = fsWatch(this.#dir, { persistent: false }, (_event, name) => this.#changed(name));
        watcher.on("error", () => {
          // The folder went away, or the watch broke: the timer takes over.
          if (this.#watcher === watcher) this.#watcher = undefined;
          watcher.close();
          if (this.#source !== undefined) this.#poll(this.#source.pollMs);
        });
        this.#watcher = watcher;
        return;
      } catch {
        // EMFILE, ENOSPC (out of watches), a file system fs.watch does not serve: poll instead.
      }
    }
    this.#poll(source.pollMs);
  }

  #poll(ms: number): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      for (const chatId of this.#known.keys()) void this.#check(chatId);
    }, ms);
    this.#timer.unref?.();
  }

  #end(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#source = undefined;
    if (feeds.get(this.#dir) === this) feeds.delete(this.#dir);
  }

  /** An fs.watch event: the named file's chat, or every watched chat when no name is given. */
  #changed(name: string | Buffer | null): void {
    if (name === null) {
      for (const chatId of this.#known.keys()) void this.#check(chatId);
      return;
    }
    const chatId = this.#byName.get(String(name));
    if (chatId !== undefined) void this.#check(chatId);
  }

  /**
   * Looks at a watched chat's file: when it is not the one last counted, counts
   * its length (on from the store's checkpoint, under the chat's lock) and
   * tells it when it changed. One look per chat at a time; events meanwhile ask for one more.
   */
  async #check(chatId: string): Promise<void> {
    const known = this.#known.get(chatId);
    const source = this.#source;
    if (known === undefined || source === undefined) return;
    if (known.checking) {
      known.again = true;
      return;
    }
    known.checking = true;
    try {
      do {
        known.again = false;
        const st = await stat(join(this.#dir, `${fileStem(chatId)}.jsonl`), { bigint: true }).catch(() => null);
        if (st === null || (known.file !== undefined && fileSignature(st) === known.file)) continue;
        const version = known.version;
        const counted = await source.lengthOf(chatId).catch(() => null);
        if (counted === null || this.#known.get(chatId) !== known) continue;
        if (known.version !== version) {
          known.again = true; // this process wrote meanwhile: what was counted may be older than what it told
          continue;
        }
        known.file = counted.file;
        if (counted.length === known.length) continue;
        known.length = counted.length;
        this.#listeners.notify(chatId, counted.length);
      } while (known.again && this.#known.get(chatId) === known);
    } finally {
      known.checking = false;
    }
  }
}
