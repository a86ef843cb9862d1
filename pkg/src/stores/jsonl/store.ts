// Node's file store: one append-only JSONL log per chat in a directory that
// several processes may share. Exported as `oda-tasks/node` so that browser
// bundles never see `node:fs`. Beside it: the cross-process lock (lock.ts),
// the line rules (scanner.ts), file names, opening, checkpoints, marks, the
// read queue and durable writes, a file each.
import { constants, mkdirSync, type BigIntStats } from "node:fs";
import { link, open, readdir, stat, unlink, type FileHandle } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { LogEntry } from "../../core/functions.js";
import { entryTexts } from "../../core/entry-text.js";
import { oneOf, readOptions, wholeNumber } from "../../core/options.js";
import { JsonlScanner } from "./scanner.js";
import { LockStuckError, acquireLock, claimName, errorCode, keepFresh, sweep } from "./lock.js";
import {
  ConflictError,
  StoreError,
  missingChat,
  checkChatId,
  checkFrom,
  checkMark,
  jsonCopy,
  replaced,
  truncated,
  type LogRead,
  type Store,
  type StoreListOptions,
  type StoredChat,
  type StoredChatPage,
} from "../store.js";
import { queued } from "../queue.js";
import { badCursor, cursorPosition, listOptions, makeCursor } from "../list.js";
import { sleep } from "../backoff.js";
import { LOCK_SUFFIX, chatOfStem, fileStem, isChatId } from "./file-names.js";
import { O_NONBLOCK, exists, mustBeFile, openChat, type Opened } from "./open.js";
import { fsFailure, listFailure, missingDirectory, present, readOnly, type FsScene } from "./fs-failures.js";
import { PROBE_BYTES, checkpoints, latestBefore, probeBefore, remember, sameBytes } from "./checkpoints.js";
import { markAfter, markOf, markedStart } from "./marks.js";
import { waitingReads, type ReadGroup, type Scan } from "./read-queue.js";
import { NEWLINE, READ_ONLY, syncDir, syncDirSync, writeAll } from "./durable.js";
import { announce, fileSignature, folderFeed, statSignature, type CountedLength } from "./watch.js";
import { APPENDED_BYTES, committedAt, forgetCommit, hasCommit, recordCommit, stillAt, type CommitPoint } from "./commits.js";
import { STORE_KIND } from "../../telemetry/store-ops.js";
/**
 * Options of a {@link JsonlStore}.
 *
 * @example
 * new JsonlStore("/var/lib/chats", { lockWait: 30_000 });
 */
export interface JsonlStoreOptions {
  /**
   * How long (ms) to wait on a chat's lock that shows no sign of life (no
   * new owner, no heartbeat) before failing with `store/locked`; default
   * 10 000. A live holder refreshes its lock every 250 ms, however long it works.
   */
  lockWait?: number;
  /** Bytes read from a file at a time; default 1 MiB. No line is ever held whole as more than one line. */
  readChunkBytes?: number;
  /**
   * How other processes' writes reach `watch`: `"fs-watch"` (the default),
   * one `fs.watch` on the folder, falling back to polling where it fails
   * (out of watches, EMFILE, a file system it does not serve); `"poll"`:
   * always poll (a folder on a network file system shared between machines).
   */
  watchMode?: "fs-watch" | "poll";
  /** How often (ms) polling stats the watched chats' files; default 1 000. */
  watchPollMs?: number;
}

const DEFAULT_LOCK_WAIT = 10_000;
const DEFAULT_READ_CHUNK = 1 << 20;
const DEFAULT_WATCH_POLL = 1_000;

/** A scan of a file opened at commit point `point` that wants no entries: what it would find. */
function atCommit(point: CommitPoint): Scan {
  const at = { offset: Number(point.size), count: point.count };
  return { entries: [], texts: [], count: point.count, openLine: false, end: at.offset, checkpoint: at };
}

/** A chat of a listing: its id, its file's name, its place in the order (birth time), and its first entry when already read. */
interface Listed {
  id: string;
  name: string;
  order: bigint;
  first?: LogEntry | null;
}

/** Where a listing's cursor stands: the order and the file name of the last chat of the page before. */
interface ListPosition {
  order: bigint;
  name: string;
}

/** Folder entries stat'ed at once while listing (more at once measured slower: the thread pool has 4 threads). */
const STAT_BATCH = 64;
/** Bytes first read of a chat's file for its first entry (a session is far shorter); more only when its line is longer. */
const FIRST_CHUNK = 4096;
/** Errors that leave a folder entry out of a listing: gone since the look at the folder, or not a file. */
const NOT_LISTED = new Set(["ENOENT", "ENOTDIR", "ELOOP", "EISDIR", "ENXIO", "ENODEV", "EOPNOTSUPP"]);
/** First entries of hashed names read, by file (device, inode, birth time, name); at most MAX_HASHED, least recently read first out. */
const hashedFirsts = new Map<string, LogEntry | null>();
const MAX_HASHED = 4096;

/** The cursor's position, when it is one a listing made (an order in digits, a chat file's name). */
function listPosition([order, name]: (string | number)[]): ListPosition {
  if (typeof order !== "string" || !/^\d{1,30}$/.test(order) || typeof name !== "string" || !name.endsWith(".jsonl")) throw badCursor();
  return { order: BigInt(order), name };
}

/** Newest first: the later order, then the later name. */
function newestFirst(a: Listed, b: Listed): number {
  if (a.order !== b.order) return a.order > b.order ? -1 : 1;
  return a.name < b.name ? 1 : a.name > b.name ? -1 : 0;
}

/**
 * The id of a chat whose file name is hashed (`stem`), from its first entry:
 * the `chatId` its session names, or that id after a start of `prefix` (an
 * owner's chat names the id its owner uses), whichever the name is made of.
 */
function idFromFirst(first: LogEntry | null, prefix: string, stem: string): string | undefined {
  const named = (first as { chatId?: unknown } | null)?.chatId;
  if (typeof named !== "string") return undefined;
  for (let cut = 0; cut <= prefix.length; cut++) {
    const id = prefix.slice(0, cut) + named;
    if (id.startsWith(prefix) && isChatId(id) && fileStem(id) === stem) return id;
  }
  return undefined;
}

/** Forgets what this process knew of `file` (its checkpoints and commit point): its chat was deleted. */
function forgetFile(file: string): void {
  checkpoints.delete(file);
  forgetCommit(file);
}

/** Per folder: the latest birth time of a file this process made to publish a chat. */
const lastBirths = new Map<string, bigint>();

/**
 * Opens a create's temp file (`wx`), born after every file this process
 * made in `dir` before, where the file system keeps birth times: a listing
 * orders chats by birth time, so creates made one after another keep their
 * order where the clock is coarse (a kernel tick of 1 to 10 ms). While it is
 * not later, the temp file is made again a millisecond on.
 */
async function openBorn(dir: string, temp: string): Promise<FileHandle> {
  for (let tries = 0; ; tries++) {
    const fh = await open(temp, "wx");
    let born: bigint;
    try {
      born = (await fh.stat({ bigint: true })).birthtimeNs;
    } catch (e) {
      await fh.close();
      await unlink(temp).catch(() => undefined);
      throw e;
    }
    const last = lastBirths.get(dir) ?? -1n;
    if (born === 0n || born > last || tries >= BORN_TRIES) {
      // Past the tries the clock went back (a time step): go on from where it is now.
      if (born !== 0n) lastBirths.set(dir, born);
      return fh;
    }
    await fh.close();
    await unlink(temp);
    await sleep(1);
  }
}

/** How often a create makes its temp file again for a later birth time (a clock stepped back: it goes ahead, from there on). */
const BORN_TRIES = 50;

/** What `readSince` answers for a chat with no file: null, or `store/replaced` for a mark taken of it (it was deleted). */
function gone(chatId: string, mark: string | null): null {
  if (mark !== null) throw replaced(chatId);
  return null;
}

/** Where a scan starts (a reader's mark), whether it holds the chat's lock, and the offset it must not read past. */
interface ScanFrom {
  marked?: { offset: number; count: number };
  held: boolean;
  upTo?: bigint;
}

/**
 * A {@link Store} that keeps each chat in one file of `dir`, one JSON entry
 * per line, only ever appended to.
 *
 * - Durable: `append` and `create` resolve only after the data is fsynced.
 * - Safe across processes sharing `dir`: a conditional append checks the
 *   length and writes under a per-chat lock; `create` publishes a complete
 *   file with an atomic hard link, so exactly one creator wins.
 * - Never shortens a file: a last line cut off by a crash is left out of
 *   `read` and ended with "\n" before the next append, so it stays behind as
 *   an unreadable line. Only a failed append takes back its own bytes.
 * - Incremental: it remembers, per file, where the lines it has counted end,
 *   so `readFrom` and `append` read only what was added since.
 *
 * @example
 * import { JsonlStore } from "oda-tasks/node";
 * const store = new JsonlStore("./chats", { lockWait: 10_000 });
 * await store.create("chat-1", [{ type: "session", workspace: null }]);
 * const log = (await store.read("chat-1")) ?? [];
 * await store.append("chat-1", [{ type: "turn_started" }], log.length);
 */
export class JsonlStore implements Store {
  /** Internal: the kind its operations' spans and metrics name. */
  get [STORE_KIND](): string {
    return "jsonl";
  }

  /** The directory, as an absolute path. */
  readonly dir: string;
  readonly #lockWait: number;
  readonly #readChunk: number;
  readonly #watchPoll: boolean;
  readonly #watchPollMs: number;

  /** Creates `dir` (and its parents) when missing. */
  constructor(dir: string, options: JsonlStoreOptions = {}) {
    const {
      lockWait = DEFAULT_LOCK_WAIT,
      readChunkBytes = DEFAULT_READ_CHUNK,
      watchMode = "fs-watch",
      watchPollMs = DEFAULT_WATCH_POLL,
    } = readOptions<JsonlStoreOptions>("JsonlStore", options, {
      lockWait: wholeNumber(1),
      readChunkBytes: wholeNumber(1),
      watchMode: oneOf("fs-watch", "poll"),
      watchPollMs: wholeNumber(1),
    });
    this.#lockWait = lockWait;
    this.#readChunk = readChunkBytes;
    this.#watchPoll = watchMode === "poll";
    this.#watchPollMs = watchPollMs;
    this.dir = resolve(dir);
    const first = mkdirSync(this.dir, { recursive: true });
    // Make the new directories themselves durable, not only what goes in them.
    if (first !== undefined) {
      for (let d = this.dir; d !== dirname(d); d = dirname(d)) {
        syncDirSync(dirname(d));
        if (d === first) break;
      }
    }
    // Leftovers of processes that died here (temp files, half-taken locks).
    void sweep(this.dir).catch(() => undefined);
  }

  /**
   * The file that holds chat `chatId`: `<name>.jsonl`, where the name keeps
   * `a-z 0-9 . _ -` and writes every other character as `%XX` per UTF-8
   * byte, so that no two ids share a file even where file names ignore case
   * or Unicode normalization (macOS, Windows). A name too long for a file
   * system keeps its first 211 bytes and adds `~` and a SHA-256 of the id.
   *
   * @example
   * new JsonlStore("/chats").file("Chat-1"); // "/chats/%43hat-1.jsonl"
   */
  file(chatId: string): string {
    checkChatId(chatId);
    return join(this.dir, `${fileStem(chatId)}.jsonl`);
  }

  /**
   * The change feed: `onChange(length)` after each write to chat `chatId`.
   * Writes through any JsonlStore of this folder in this process are heard
   * at once; other processes' through one `fs.watch` on the folder (or, where
   * it fails or with `watchMode: "poll"`, a check of the watched files' sizes
   * every `watchPollMs`). Returns the function that stops it.
   *
   * @example
   * const stop = new JsonlStore("./chats").watch("chat-1", (length) => console.log("now", length));
   * stop();
   */
  watch(chatId: string, onChange: (length: number) => void): () => void {
    return folderFeed(this.dir).watch(chatId, onChange, {
      lengthOf: (id) => this.#lengthNow(id),
      pollMs: this.#watchPollMs,
      poll: this.#watchPoll,
    });
  }

  /** The chat's length, counted on from this process's checkpoint under the chat's lock; null with no file. */
  async #lengthNow(chatId: string): Promise<CountedLength | null> {
    const file = this.file(chatId);
    // A file at a commit point exists: only a chat that is not needs the look for its file.
    const point = await this.#unchanged(chatId, file);
    if (point !== undefined) return { length: point.count, file: fileSignature(point) };
    if (!(await exists(file))) return null;
    return this.#locked(chatId, "read", async (held) => {
      const opened = await openChat(chatId, file, "read");
      if (opened === null) return null;
      try {
        const scan = await this.#scan(chatId, opened, file, Infinity, { held });
        return { length: scan.count, file: statSignature(opened.st, scan.end) };
      } finally {
        await opened.fh.close();
      }
    });
  }

  read(chatId: string): Promise<LogEntry[] | null> {
    return this.#guarded(chatId, "read", () => this.#read(chatId, 0)).then((scan) => (scan === null ? null : scan.entries));
  }

  async readFrom(chatId: string, from: number): Promise<LogEntry[] | null> {
    checkChatId(chatId); // the id first, as every store checks it
    checkFrom(from);
    return this.#guarded(chatId, "read", () => this.#read(chatId, from)).then((scan) => (scan === null ? null : scan.entries));
  }

  /**
   * The entries from index `from` on as their JSON texts exactly as the
   * file holds them (numbers and all), or `null` for a missing chat.
   *
   * @example
   * const texts = await new JsonlStore("./chats").readTextFrom("chat-1", 0);
   */
  async readTextFrom(chatId: string, from: number): Promise<string[] | null> {
    checkChatId(chatId);
    checkFrom(from);
    return this.#guarded(chatId, "read", () => this.#read(chatId, from)).then((scan) => (scan === null ? null : scan.texts));
  }

  /**
   * What a warm reader needs: the texts from `from` on and the mark of the
   * log read (the file's identity, its first bytes and the bytes before the
   * last line end). Given the mark of an earlier read, it reads on from
   * there, and rejects `store/replaced` when the file is not that one any
   * more (renamed over, rewritten in place).
   *
   * @example
   * const store = new JsonlStore("./chats");
   * const first = await store.readSince("chat-1", 0, null);
   * const later = first && (await store.readSince("chat-1", first.texts.length, first.mark)); // only what is new
   */
  async readSince(chatId: string, from: number, mark: string | null): Promise<LogRead | null> {
    checkChatId(chatId);
    checkFrom(from);
    checkMark(mark);
    const file = this.file(chatId);
    return this.#guarded(chatId, "read", async () => {
      // The log as this process last committed or read it, while the file is still exactly that: no lock.
      const point = await this.#unchanged(chatId, file);
      if (point !== undefined) {
        if (mark !== null && mark === point.mark && from === point.count) return { texts: [], mark };
        const last = point.appended;
        if (last !== undefined && mark === last.since && point.mark !== undefined && from === point.count - last.texts.length) {
          return { texts: [...last.texts], mark: point.mark };
        }
        const read = await this.#readSinceOpened(chatId, file, from, mark, point);
        if (read !== undefined) return read;
      }
      if (!(await exists(file))) return this.#absent(chatId, gone(chatId, mark));
      return this.#locked(chatId, "read", async (held) => (await this.#readSinceOpened(chatId, file, from, mark, held)) ?? null);
    });
  }

  /**
   * `readSince` on the opened file: under the lock (`held`), or up to the
   * commit point `at` without it (undefined when the file moved on since).
   */
  async #readSinceOpened(
    chatId: string,
    file: string,
    from: number,
    mark: string | null,
    at: boolean | CommitPoint,
  ): Promise<LogRead | null | undefined> {
    const opened = await openChat(chatId, file, "read");
    if (opened === null) return typeof at === "boolean" ? this.#absent(chatId, gone(chatId, mark)) : undefined;
    try {
      const point = typeof at === "boolean" ? undefined : at;
      if (point !== undefined && !stillAt(point, opened.st)) return undefined;
      const start = mark === null ? undefined : await markedStart(opened, mark, chatId);
      if (start !== undefined && start.count > from) throw replaced(chatId); // a mark past `from` is not this reader's
      const scan = await this.#scan(chatId, opened, file, from, { marked: start, held: at === true, upTo: point?.size });
      if (scan.count < from) throw truncated(chatId, from, scan.count);
      const read = { texts: scan.texts, mark: await markOf(opened, scan.checkpoint) };
      if (point !== undefined && scan.count === point.count) point.mark = read.mark;
      return read;
    } finally {
      await opened.fh.close();
    }
  }

  /**
   * The commit point the chat's file still is, by one stat; when it is not,
   * once more after this process's own operations on the chat (an append
   * under way commits one). Undefined: it moved on, or cannot be told.
   */
  async #unchanged(chatId: string, file: string): Promise<CommitPoint | undefined> {
    const look = async () => {
      const st = await stat(file, { bigint: true }).catch(() => null);
      return st === null ? undefined : committedAt(file, st);
    };
    return (await look()) ?? (await queued(this.#lockPath(chatId), look));
  }

  /** The chat's lock: a directory beside its file, and this process's queue of the chat's operations. */
  #lockPath(chatId: string): string {
    return join(this.dir, `${fileStem(chatId)}${LOCK_SUFFIX}`);
  }

  async #read(chatId: string, from: number): Promise<{ entries: LogEntry[]; texts: string[] } | null> {
    const file = this.file(chatId);
    // Reads of a chat that arrive while another read of it still waits for
    // the lock join that read: it looks at the file after they all began.
    let group = waitingReads.get(file);
    if (group === undefined) {
      // A chat missing now needs no lock to say so (a delete holds it only to remove a file that is there).
      if (!(await exists(file))) return this.#absent(chatId, null);
      group = waitingReads.get(file);
    }
    if (group === undefined) {
      const mine: ReadGroup = { froms: [], scan: Promise.resolve(null) };
      const forget = () => {
        if (waitingReads.get(file) === mine) waitingReads.delete(file);
      };
      mine.scan = this.#locked(chatId, "read", async (held) => {
        forget(); // from here on, a new read needs a new look at the file
        const keepFrom = Math.min(...mine.froms);
        const opened = await openChat(chatId, file, "read");
        if (opened === null) return this.#absent(chatId, null);
        try {
          const scan = await this.#scan(chatId, opened, file, keepFrom, { held });
          return { entries: scan.entries as LogEntry[], texts: scan.texts, count: scan.count, keepFrom, readers: mine.froms.length };
        } finally {
          await opened.fh.close();
        }
      });
      mine.scan.then(forget, forget);
      waitingReads.set(file, mine);
      group = mine;
    }
    group.froms.push(from);
    const scan = await group.scan;
    if (scan === null) return null;
    if (scan.count < from) throw truncated(chatId, from, scan.count);
    const entries = scan.entries.slice(from - scan.keepFrom);
    const texts = scan.texts.slice(from - scan.keepFrom);
    // Every caller gets its own objects.
    return { entries: scan.readers > 1 ? jsonCopy(entries) : entries, texts };
  }

  async append(chatId: string, entries: readonly LogEntry[], expectedLength?: number): Promise<number> {
    const file = this.file(chatId);
    const texts = entryTexts(entries);
    const data = Buffer.from(texts.map((text) => `${text}\n`).join(""), "utf8");
    return this.#guarded(chatId, "write", () => this.#append(chatId, file, texts, data, expectedLength));
  }

  async #append(chatId: string, file: string, texts: string[], data: Buffer, expectedLength: number | undefined): Promise<number> {
    // A chat missing now needs no lock to say so (one with a commit point existed: the locked open below tells).
    if (!hasCommit(file) && !(await exists(file))) throw await this.#absent(chatId, missingChat(chatId));
    return this.#locked(chatId, "write", async () => {
      const opened = await openChat(chatId, file, "append");
      if (opened === null) {
        forgetFile(file); // deleted by another process since this one saw it
        throw await this.#absent(chatId, missingChat(chatId));
      }
      const { fh } = opened;
      try {
        // Opened (under the lock) at its commit point: its length is known, nothing to read.
        const known = committedAt(file, opened.st);
        const scan = known === undefined ? await this.#scan(chatId, opened, file, Infinity, { held: true }) : atCommit(known);
        const length = scan.count;
        const before = known ?? committedAt(file, opened.st); // the state this append starts from, when whole (the scan may have recorded it)
        if (expectedLength !== undefined && expectedLength !== length) {
          throw new ConflictError(chatId, expectedLength, length);
        }
        if (texts.length === 0) return length;
        // A last line without its "\n" (hand-written, or cut off) is ended first.
        const bytes = scan.openLine ? Buffer.concat([NEWLINE, data]) : data;
        try {
          // One write to a file opened for append, then fsync.
          await writeAll(fh, bytes);
          await fh.sync();
        } catch (e) {
          // Take back whatever part of this append reached the file (and only that).
          await fh.truncate(scan.end).catch(() => undefined);
          throw e;
        }
        // Where did the bytes land? Just after what the scan read, unless a
        // program that takes no lock appended meanwhile: then count again
        // from the scan's end, and the length says so (the caller reads again).
        const end = scan.end + bytes.length;
        const after = await fh.stat({ bigint: true });
        const probe = await probeBefore(fh, end);
        const tail = Math.min(probe.length, bytes.length); // a short append: the probe also holds bytes before it
        if (Number(after.size) === end && probe.subarray(probe.length - tail).equals(bytes.subarray(bytes.length - tail))) {
          const at = { offset: end, count: length + texts.length };
          remember(file, opened.st, at, probe);
          // A reader at the state before this append reads next what it wrote: kept, so none reads it back.
          const since = before?.count === length && bytes === data && data.length <= APPENDED_BYTES ? before.mark : undefined;
          const mark = since === undefined ? undefined : markAfter(since, at, probe);
          recordCommit(file, after, at.count, since === undefined || mark === undefined ? {} : { mark, appended: { since, texts } });
          announce(this.dir, chatId, length + texts.length, statSignature(opened.st, end));
          return length + texts.length;
        }
        const recount = await this.#scan(chatId, opened, file, Infinity, { held: true });
        announce(this.dir, chatId, recount.count, statSignature(opened.st, recount.end));
        return recount.count;
      } finally {
        await fh.close();
      }
    });
  }

  async create(chatId: string, entries: readonly LogEntry[]): Promise<boolean> {
    const file = this.file(chatId);
    const texts = entryTexts(entries);
    const data = Buffer.from(texts.map((text) => `${text}\n`).join(""), "utf8");
    return this.#guarded(chatId, "write", () => this.#create(chatId, file, texts, data));
  }

  async #create(chatId: string, file: string, texts: string[], data: Buffer): Promise<boolean> {
    // Write the whole log aside, then publish it under its name in one step:
    // link() fails when the name exists, so exactly one creator wins and no
    // reader ever sees a half-written chat. The temp name starts with "." and
    // ends with ".tmp", so it can never be a chat's file; it names its owner,
    // so a temp left by a crash can be swept (never one kept fresh, as here).
    const claim = claimName();
    const temp = join(this.dir, `.create-${claim.name}.tmp`);
    let fh: FileHandle;
    try {
      fh = await openBorn(this.dir, temp);
    } catch (e) {
      claim.release();
      if (READ_ONLY.has(errorCode(e))) throw readOnly(chatId, this.dir, "directory", e);
      throw e;
    }
    const stopBeating = keepFresh(temp);
    let st: BigIntStats;
    try {
      try {
        await writeAll(fh, data);
        await fh.sync();
        st = await fh.stat({ bigint: true });
      } finally {
        await fh.close();
      }
      await link(temp, file);
      // Readers see the whole log from here on: its watchers hear it now, in order with later appends.
      announce(this.dir, chatId, texts.length, statSignature(st), true);
    } catch (e) {
      if (errorCode(e) !== "EEXIST") throw e;
      await mustBeFile(chatId, file); // a directory or a dangling link is not a chat that exists
      return false;
    } finally {
      stopBeating();
      await unlink(temp).catch(() => undefined);
      claim.release();
    }
    await syncDir(this.dir);
    remember(
      file,
      st,
      { offset: data.length, count: texts.length },
      Buffer.from(data.subarray(data.length - Math.min(PROBE_BYTES, data.length))),
    );
    return true;
  }

  /**
   * Removes the chat's file under the chat's lock, so no append of any
   * process is half-way through it, fsyncs the directory, and resolves to
   * whether the chat existed. An append that waited for the lock then finds
   * no file and is refused with `store/missing-chat`: an append opens the
   * file and never creates it, so no late write brings back part of the
   * chat. Watchers hear 0 (other processes' through their feed); the lock's
   * directory goes with its release, and this process forgets what it knew
   * of the file. A chat created later under the id is a new file: a mark
   * taken of the old one answers `store/replaced`. A symbolic link at the
   * chat's path is removed, not the file it points to.
   *
   * @example
   * const store = new JsonlStore("./chats");
   * await store.delete("chat-1"); // true, and ./chats/chat-1.jsonl is gone
   */
  async delete(chatId: string): Promise<boolean> {
    const file = this.file(chatId);
    return this.#guarded(chatId, "write", () => this.#delete(chatId, file));
  }

  async #delete(chatId: string, file: string): Promise<boolean> {
    // A chat missing now needs no lock to say so, and its delete leaves no lock behind.
    if (!hasCommit(file) && !(await exists(file))) return this.#absent(chatId, false);
    return this.#locked(chatId, "write", async () => {
      if (await exists(file)) {
        await mustBeFile(chatId, file); // a directory or a dangling link at its path is not a chat to remove
        try {
          await unlink(file);
          forgetFile(file);
          // Gone for every reader from here on: its watchers hear its end now, as a create is heard once linked.
          announce(this.dir, chatId, 0, "none");
          await syncDir(this.dir);
          return true;
        } catch (e) {
          if (errorCode(e) !== "ENOENT") throw e;
        }
      }
      forgetFile(file);
      return this.#absent(chatId, false);
    });
  }

  /**
   * The chats of the folder whose ids start with `prefix`, newest first by
   * when each file was born (its birth time, `statx`; where the file system
   * keeps none, its change time, which every append moves), ties by file
   * name; `limit` (default 50, at most 1000) a page, and `next`, the cursor
   * of the next page (`null` after the last). Ids come from the file names
   * ({@link JsonlStore.file} is reversible); a name shortened with a hash is
   * read back from the chat's first entry (its session names the id, or the
   * id after `prefix`), and left out when it does not. A page costs one look
   * at the folder, one `stat` per chat of the prefix, and the first entry of
   * each chat on it.
   *
   * @example
   * const store = new JsonlStore("./chats");
   * const page = await store.list({ prefix: "team-", limit: 20 });
   * for (const { chatId, first } of page.chats) console.log(chatId, first?.type); // "chat-1" "session"
   */
  async list(options?: StoreListOptions): Promise<StoredChatPage> {
    const { prefix, limit, cursor } = listOptions(options);
    const after = cursor === null ? undefined : listPosition(cursorPosition("j1", prefix, cursor, ["string", "string"]));
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      throw listFailure(e, this.dir);
    }
    const wanted = Buffer.from(prefix, "utf8");
    const listed: Listed[] = [];
    for (let i = 0; i < names.length; i += STAT_BATCH) {
      const batch = await Promise.all(names.slice(i, i + STAT_BATCH).map((name) => this.#listed(name, prefix, wanted, after)));
      for (const one of batch) if (one !== undefined) listed.push(one);
    }
    listed.sort(newestFirst);
    const chats: StoredChat[] = [];
    let last: Listed | undefined;
    let next = 0;
    // A chat deleted since its stat drops out of the page: the next ones fill it.
    while (chats.length < limit && next < listed.length) {
      const batch = listed.slice(next, next + limit - chats.length);
      next += batch.length;
      const firsts = await Promise.all(batch.map((one) => one.first ?? this.#firstEntry(one.id, one.name)));
      batch.forEach((one, k) => {
        const first = firsts[k];
        if (first === undefined) return;
        chats.push({ chatId: one.id, first: first === null ? null : jsonCopy(first) });
        last = one;
      });
    }
    const end = last as Listed | undefined;
    return { chats, next: next < listed.length && end !== undefined ? makeCursor("j1", prefix, [String(end.order), end.name]) : null };
  }

  /**
   * Folder entry `name` as a chat of the listing: a chat's file whose id
   * starts with `prefix` (its UTF-8 bytes `wanted`) and that comes after the
   * cursor's position; undefined for anything else.
   */
  async #listed(name: string, prefix: string, wanted: Buffer, after: ListPosition | undefined): Promise<Listed | undefined> {
    if (!name.endsWith(".jsonl")) return undefined;
    const stem = name.slice(0, -".jsonl".length);
    const named = chatOfStem(stem);
    if (named === undefined) return undefined;
    if ("id" in named) {
      if (!named.id.startsWith(prefix)) return undefined;
    } else {
      // A hashed name keeps the id's first bytes: a chat of the prefix only where they agree with it.
      const common = Math.min(named.start.length, wanted.length);
      if (!named.start.subarray(0, common).equals(wanted.subarray(0, common))) return undefined;
    }
    const path = join(this.dir, name);
    const st = await stat(path, { bigint: true }).catch((e: unknown) => {
      if (NOT_LISTED.has(errorCode(e))) return null;
      throw listFailure(e, this.dir);
    });
    if (st === null || !st.isFile()) return undefined;
    const order = st.birthtimeNs !== 0n ? st.birthtimeNs : st.ctimeNs;
    if (after !== undefined && !(order < after.order || (order === after.order && name < after.name))) return undefined;
    if ("id" in named) return { id: named.id, name, order };
    // The id of a hashed name is in the file: its session names it (or, for an owner's chat, the id after the prefix).
    const identity = `${st.dev}:${st.ino}:${st.birthtimeNs}:${name}`;
    let first = hashedFirsts.get(identity);
    if (first === undefined) {
      const read = await this.#firstEntry("", name);
      if (read === undefined) return undefined;
      first = read;
      hashedFirsts.set(identity, read);
      if (hashedFirsts.size > MAX_HASHED) hashedFirsts.delete(hashedFirsts.keys().next().value as string);
    }
    const id = idFromFirst(first, prefix, stem);
    return id === undefined ? undefined : { id, name, order, first };
  }

  /**
   * The first entry of the chat in folder entry `name` (`null` for a chat of
   * none), read as `read` reads it, without the lock: a create publishes a
   * whole file and appends only add lines after it. Undefined: the file is gone.
   */
  async #firstEntry(chatId: string, name: string): Promise<LogEntry | null | undefined> {
    let fh: FileHandle;
    try {
      fh = await open(join(this.dir, name), constants.O_RDONLY | O_NONBLOCK);
    } catch (e) {
      if (NOT_LISTED.has(errorCode(e))) return undefined;
      throw listFailure(e, this.dir);
    }
    try {
      const scanner = new JsonlScanner({ offset: 0, count: 0 }, 0, undefined, chatId);
      for (let at = 0, size = FIRST_CHUNK; ; size = Math.min(size * 4, this.#readChunk)) {
        const chunk = Buffer.allocUnsafe(size);
        const { bytesRead } = await fh.read(chunk, 0, size, at);
        if (bytesRead > 0) scanner.push(chunk.subarray(0, bytesRead));
        at += bytesRead;
        if (scanner.entries.length > 0 || bytesRead < size) break;
      }
      scanner.end();
      return (scanner.entries[0] as LogEntry | undefined) ?? null;
    } finally {
      await fh.close();
    }
  }

  /**
   * Runs one operation on a chat; a refusal of the file system (the directory
   * gone, read-only, unreadable) becomes the store error that names it.
   */
  async #guarded<T>(chatId: string, kind: FsScene["kind"], op: () => Promise<T>): Promise<T> {
    const file = this.file(chatId);
    try {
      return await op();
    } catch (e) {
      throw await fsFailure(e, { chatId, dir: this.dir, file, kind });
    }
  }

  /** What a chat with no file answers (`answer`), unless the whole directory is gone. */
  async #absent<T>(chatId: string, answer: T): Promise<T> {
    if (!(await present(this.dir))) throw missingDirectory(chatId, this.dir);
    return answer;
  }

  /**
   * Reads the log from the last checkpoint this process remembers for the
   * file (when it is still the same file and at least as long), else from
   * the start; keeps the entries from `keepFrom` on.
   */
  async #scan(chatId: string, opened: Opened, file: string, keepFrom: number, how: ScanFrom): Promise<Scan> {
    const { fh, st } = opened;
    const { marked, held, upTo } = how;
    let start = marked ?? { offset: 0, count: 0 };
    const known = marked === undefined ? latestBefore(file, keepFrom) : undefined;
    if (
      known !== undefined &&
      known.dev === st.dev &&
      known.ino === st.ino &&
      known.birth === st.birthtimeNs &&
      known.offset <= Number(st.size) &&
      (await sameBytes(fh, known.offset - known.probe.length, known.probe))
    ) {
      start = known;
    } else if (known !== undefined) {
      checkpoints.delete(file); // replaced, cut, or rewritten: none of its checkpoints holds
      forgetCommit(file);
    }
    const scanner = new JsonlScanner(start, keepFrom, undefined, chatId);
    const limit = upTo === undefined ? Infinity : Number(upTo);
    let end = start.offset;
    while (end < limit) {
      // A fresh buffer each time (the scanner keeps slices of a line that
      // spans chunks), sized to what the file holds past `end` and one byte
      // more: a small chat costs a small buffer and one read, as a short read
      // is the end of a regular file. Up to a commit point: never past it.
      const want = Math.min(this.#readChunk, Math.max(Number(st.size) - end, 0) + 1, limit - end);
      const chunk = Buffer.allocUnsafe(want);
      const { bytesRead } = await fh.read(chunk, 0, want, end);
      if (bytesRead > 0) scanner.push(chunk.subarray(0, bytesRead));
      end += bytesRead;
      if (bytesRead < want) break;
    }
    scanner.end();
    const at = scanner.checkpoint;
    remember(file, st, at, await probeBefore(fh, at.offset), start.offset);
    // Read whole under the lock and ending on a line end: a state later reads may take unlocked.
    if (held && !scanner.openLine && end === Number(st.size)) recordCommit(file, st, scanner.count);
    return { entries: scanner.entries, texts: scanner.texts, count: scanner.count, openLine: scanner.openLine, end, checkpoint: at };
  }

  /**
   * Runs `fn` holding the chat's lock: first in this process, then across
   * processes. A read in a directory this process may not write (so not lock)
   * goes ahead unlocked; a write there is `store/read-only`.
   */
  #locked<T>(chatId: string, kind: "read" | "write", fn: (held: boolean) => Promise<T>): Promise<T> {
    const lockPath = this.#lockPath(chatId);
    return queued(lockPath, async () => {
      let release: () => Promise<void>;
      try {
        release = await acquireLock(this.dir, lockPath, this.#lockWait);
      } catch (e) {
        if (e instanceof LockStuckError) {
          throw new StoreError(
            "store/locked",
            `chat "${chatId}" stays locked: ${e.why}; remove ${e.path} if no process is using it`,
            chatId,
          );
        }
        if (!READ_ONLY.has(errorCode(e))) throw e;
        if (kind === "write") throw readOnly(chatId, this.dir, "directory", e);
        return fn(false);
      }
      try {
        return await fn(true);
      } finally {
        await release();
      }
    });
  }
}
