// JsonlStore's change feed, one per folder in this process: writes through
// any JsonlStore of the folder are told at once; other processes' writes are
// seen by one fs.watch on the folder, or, where that fails, by one timer that
// stats the watched chats' files. A chat's file gone is told as 0; a file
// replaced by one of another first line is a chat made again: 0, then its length.
import { createHash } from "node:crypto";
import { constants, statSync, watch as fsWatch, type BigIntStats, type FSWatcher } from "node:fs";
import { open, stat, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { ChangeListeners, type ChangeListener } from "../watchers.js";
import { fileStem } from "./file-names.js";
import { keyed } from "../keyed.js";
import { errorCode } from "./lock.js";
import { present } from "./fs-failures.js";
import { O_NONBLOCK } from "./open.js";

/** A chat's length and the file it was counted in: `<inode>.<birth>:<bytes>`, what a stat shows. */
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
  /** `<inode>.<birth>:<size>` when the length was counted (or the file looked at first), "none" for no file; undefined: look again. */
  file: string | undefined;
  /** Bumped by every write this process tells: a count taken meanwhile may be older. */
  version: number;
  checking: boolean;
  again: boolean;
  /** The hash of the first line of the file `identity` names: a file put in its place with the same first line is the chat restored, not made again. */
  head: { identity: string; hash: Promise<string | undefined> } | undefined;
}

/** Bytes of a file's start that its first line is looked for in. */
const HEAD_LINE_BYTES = 4096;
/** stat() codes of a file that is not there (its folder still is: that is looked at too). */
const GONE = new Set(["ENOENT", "ENOTDIR"]);

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
 * nobody in this process watches the folder): `file` is the signature of
 * the file written ("none" after a delete), `created` whether the write made the chat.
 *
 * @example
 * announce("/srv/chats", "chat-1", 3, "1234.1796632876618597212:512");
 */
export function announce(dir: string, chatId: string, length: number, file: string, created = false): void {
  feeds.get(dir)?.announce(chatId, length, file, created);
}

/**
 * `<inode>.<birth time>:<size>` of a file, the way a feed compares files; the
 * part before ":" is the file's identity (a chat made again on a reused
 * inode has another birth time).
 *
 * @example
 * fileSignature({ ino: 1234n, birth: 1796632876618597212n, size: 512n }); // "1234.1796632876618597212:512"
 */
export function fileSignature(file: { ino: number | bigint; birth: number | bigint; size: number | bigint }): string {
  return `${file.ino}.${file.birth}:${file.size}`;
}

/**
 * The {@link fileSignature} of a stat, at `size` (default: the size it shows).
 *
 * @example
 * import { stat } from "node:fs/promises";
 * statSignature(await stat("/srv/chats/chat-1.jsonl", { bigint: true })); // "1234.1796632876618597212:512"
 */
export function statSignature(st: BigIntStats, size: number | bigint = st.size): string {
  return fileSignature({ ino: st.ino, birth: st.birthtimeNs, size });
}

/** The identity part of a signature; undefined for "none" or no signature. */
function identityOf(signature: string | undefined): string | undefined {
  if (signature === undefined || signature === "none") return undefined;
  return signature.slice(0, signature.lastIndexOf(":"));
}

/**
 * A hash of the first line of the file at `path` (of its first 4 KiB when
 * the line is longer), read only while that file is `identity`; undefined
 * when it cannot be told.
 */
async function firstLineHash(path: string, identity: string): Promise<string | undefined> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(path, constants.O_RDONLY | O_NONBLOCK);
    const st = await fh.stat({ bigint: true });
    if (!st.isFile() || identityOf(statSignature(st)) !== identity) return undefined;
    const buffer = Buffer.alloc(HEAD_LINE_BYTES);
    const { bytesRead } = await fh.read(buffer, 0, buffer.length, 0);
    const bytes = buffer.subarray(0, bytesRead);
    const end = bytes.indexOf(10);
    return createHash("sha256")
      .update(end < 0 ? bytes : bytes.subarray(0, end))
      .digest("hex")
      .slice(0, 16);
  } catch {
    return undefined;
  } finally {
    await fh?.close().catch(() => undefined);
  }
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
        file = st === undefined ? "none" : statSignature(st);
      } catch {
        file = undefined; // not readable now: the first look counts it
      }
      const known: Known = { length: undefined, file, version: 0, checking: false, again: false, head: undefined };
      this.#known.set(chatId, known);
      this.#learnHead(chatId, known, identityOf(file));
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

  /**
   * A write this process committed: told at once, and remembered so the
   * watch does not tell it again. A chat made here while this feed still
   * knew an older file of it was deleted meanwhile (by another process):
   * its end, 0, is told first.
   */
  announce(chatId: string, length: number, file: string, created: boolean): void {
    const known = this.#known.get(chatId);
    if (known === undefined) return;
    known.version++;
    const before = identityOf(known.file);
    known.file = file;
    this.#learnHead(chatId, known, identityOf(file));
    if (created && before !== undefined) this.#tell(chatId, known, 0);
    this.#tell(chatId, known, length);
  }

  /** Tells `length` when it is not the length last told. */
  #tell(chatId: string, known: Known, length: number): void {
    if (known.length === length) return;
    known.length = length;
    this.#listeners.notify(chatId, length);
  }

  /** Starts reading the first line of the chat's file `identity` (once per identity), for a later look to compare. */
  #learnHead(chatId: string, known: Known, identity: string | undefined): void {
    if (identity === undefined || known.head?.identity === identity) return;
    known.head = { identity, hash: firstLineHash(join(this.#dir, `${fileStem(chatId)}.jsonl`), identity) };
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
   * tells it when it changed. A file gone (its folder still there) is the
   * chat deleted: 0. A file of another identity whose first line differs
   * from the one known is the chat deleted and made again: 0, then its
   * length (the same first line: a restore, its length only). One look per
   * chat at a time; events meanwhile ask for one more.
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
    const path = join(this.#dir, `${fileStem(chatId)}.jsonl`);
    /** Whether this look is still the chat's, and no write of this process came meanwhile (else look again). */
    const current = (version: number): boolean => {
      if (this.#known.get(chatId) !== known) return false;
      if (known.version === version) return true;
      known.again = true; // this process wrote meanwhile: what was seen may be older than what it told
      return false;
    };
    try {
      do {
        known.again = false;
        const version = known.version;
        let st: BigIntStats;
        try {
          st = await stat(path, { bigint: true });
        } catch (e) {
          if (!GONE.has(errorCode(e)) || !(await present(this.#dir)) || !current(version)) continue;
          // Deleted: its end is told once, for a chat this feed saw a file of.
          const had = identityOf(known.file) !== undefined;
          known.file = "none";
          if (had) this.#tell(chatId, known, 0);
          continue;
        }
        if (known.file !== undefined && statSignature(st) === known.file) continue;
        const counted = await source.lengthOf(chatId).catch(() => null);
        if (counted === null || !current(version)) continue;
        const before = identityOf(known.file);
        const now = identityOf(counted.file);
        let madeAgain = false;
        if (before !== undefined && now !== undefined && now !== before) {
          const old = known.head?.identity === before ? await known.head.hash : undefined;
          const fresh = await firstLineHash(path, now);
          if (!current(version)) continue;
          known.head = { identity: now, hash: Promise.resolve(fresh) };
          madeAgain = old === undefined || fresh === undefined || old !== fresh;
        } else this.#learnHead(chatId, known, now);
        known.file = counted.file;
        if (madeAgain) this.#tell(chatId, known, 0);
        this.#tell(chatId, known, counted.length);
      } while (known.again && this.#known.get(chatId) === known);
    } finally {
      known.checking = false;
    }
  }
}
