// Node's file store: one append-only JSONL log per chat in a directory that
// several processes may share. Exported as `oda-tasks/node` so that browser
// bundles never see `node:fs`.
import { createHash, randomBytes } from "node:crypto";
import { constants, fsyncSync, mkdirSync, openSync, closeSync } from "node:fs";
import {
  link,
  mkdir,
  open,
  readFile,
  readdir,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
  type FileHandle,
} from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { LogEntry } from "./core.js";
import { parseJsonl } from "./jsonl.js";
import { copyEntries, missingChat } from "./memory.js";
import { ConflictError, StoreError, checkChatId, type Store } from "./store.js";
import { queued } from "./queue.js";

/** Longest file name most file systems take, in bytes. */
const MAX_NAME_BYTES = 255;
/** The longest suffix a chat's files get (the lock directory's). */
const LOCK_SUFFIX = ".jsonl.lock";

/**
 * A {@link Store} that keeps each chat in `${dir}/${chatId}.jsonl`, one JSON
 * entry per line, only ever appended to.
 *
 * - Durable: `append` and `create` resolve only after the data is fsynced.
 * - Safe across processes sharing `dir`: a conditional append checks the
 *   length and writes under a per-chat lock; `create` publishes a complete
 *   file with an atomic hard link, so exactly one creator wins.
 * - Crash tolerant: a last line cut off by a crash is never returned, and it
 *   is cut away before anything is appended after it. A middle line that is
 *   not JSON stays in the file but is left out of `read`.
 *
 * @example
 * import { JsonlStore } from "oda-tasks/node";
 * const store = new JsonlStore("./chats");
 * await store.create("chat-1", [{ type: "session", workspace: null }]);
 * const log = await store.read("chat-1");
 * await store.append("chat-1", [{ type: "turn_started" }], log.length);
 */
export class JsonlStore implements Store {
  /** The directory, as an absolute path. */
  readonly dir: string;

  /** Creates `dir` (and its parents) when missing. */
  constructor(dir: string) {
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

  async read(chatId: string): Promise<LogEntry[] | null> {
    this.#check(chatId);
    const key = this.#lockPath(chatId);
    // Reads of a chat that arrive while another read of it still waits for
    // the lock share that read: it looks at the file after they all began.
    let text = waitingReads.get(key);
    if (text === undefined) {
      // Chats are never deleted: a chat missing now needs no lock to say so.
      if (!(await this.#exists(chatId))) return null;
      text = waitingReads.get(key);
    }
    if (text === undefined) {
      const mine = this.#readText(chatId, () => {
        if (waitingReads.get(key) === mine) waitingReads.delete(key);
      });
      const forget = () => {
        if (waitingReads.get(key) === mine) waitingReads.delete(key);
      };
      mine.then(forget, forget);
      waitingReads.set(key, mine);
      text = mine;
    }
    const clean = await text;
    // Parsed per caller: every caller gets its own objects.
    return clean === null ? null : parseJsonl<LogEntry>(clean).entries;
  }

  /**
   * The log's whole lines as text, read under the lock (`started` is called
   * as it looks at the file), or `null` when the chat is missing.
   *
   * Why under the lock: an append is one write(), but a reader outside the
   * lock could still see part of a large one (the kernel exposes a write
   * page by page). And under it no writer is at work, so a tail without a
   * newline is torn by a crash: it is cut away now, so nothing appended
   * later glues onto it.
   */
  async #readText(chatId: string, started: () => void): Promise<string | null> {
    try {
      return await this.#locked(chatId, async () => {
        started();
        let fh: FileHandle;
        try {
          fh = await this.#openLog(chatId);
        } catch (e) {
          if (e instanceof StoreError && e.code === "store/missing-chat") return null;
          if (!READ_ONLY.has(errorCode(e))) throw e;
          return cleanText(await readFile(this.#file(chatId))); // a log we may read but not repair
        }
        try {
          const bytes = await readAll(fh);
          const clean = bytes.lastIndexOf(0x0a) + 1;
          if (clean < bytes.length) {
            await fh.truncate(clean);
            await fh.sync();
          }
          return cleanText(bytes);
        } finally {
          await fh.close();
        }
      });
    } catch (e) {
      // A directory we may not lock in: read the log as it is.
      if (!READ_ONLY.has(errorCode(e))) throw e;
      started();
      return cleanText(await readFile(this.#file(chatId)));
    }
  }

  async append(chatId: string, entries: readonly LogEntry[], expectedLength?: number): Promise<number> {
    this.#check(chatId);
    const data = toJsonl(copyEntries(entries));
    // Chats are never deleted: a chat missing now needs no lock to say so.
    if (!(await this.#exists(chatId))) throw missingChat(chatId);
    return this.#locked(chatId, async () => {
      const fh = await this.#openLog(chatId);
      try {
        const log = await loadLog(fh);
        if (log.clean < log.size) await fh.truncate(log.clean); // the torn tail of a crashed write
        const length = log.entries.length;
        if (expectedLength !== undefined && expectedLength !== length) {
          if (log.clean < log.size) await fh.sync();
          throw new ConflictError(chatId, expectedLength, length);
        }
        try {
          // One write to a file opened for append, then fsync: all or nothing.
          await writeAll(fh, data);
          await fh.sync();
        } catch (e) {
          // Take back whatever part reached the file, so a failed append leaves no entry.
          await fh.truncate(log.clean).catch(() => undefined);
          throw e;
        }
        return length + entries.length;
      } finally {
        await fh.close();
      }
    });
  }

  async create(chatId: string, entries: readonly LogEntry[]): Promise<boolean> {
    this.#check(chatId);
    const data = toJsonl(copyEntries(entries));
    // Write the whole log aside, then publish it under its name in one step:
    // link() fails when the name exists, so exactly one creator wins and no
    // reader ever sees a half-written chat. The temp name starts with "." and
    // ends with ".tmp", so it can never be a chat's file; it names its owner,
    // so a temp left by a crash can be swept.
    const id = token();
    const temp = join(this.dir, `.create-${process.pid}-${HOST}-${id}.tmp`);
    live.add(id);
    let fh: FileHandle;
    try {
      fh = await open(temp, "wx");
    } catch (e) {
      live.delete(id);
      throw e;
    }
    try {
      try {
        await writeAll(fh, data);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await link(temp, this.#file(chatId));
    } catch (e) {
      if (errorCode(e) === "EEXIST") return false;
      throw e;
    } finally {
      await unlink(temp).catch(() => undefined);
      live.delete(id);
    }
    await syncDir(this.dir);
    return true;
  }

  #check(chatId: string): void {
    checkChatId(chatId);
    if (Buffer.byteLength(chatId) + LOCK_SUFFIX.length > MAX_NAME_BYTES) {
      throw new StoreError(
        "store/bad-chat-id",
        `invalid chat id ${JSON.stringify(chatId)}: it is too long for a file name (${MAX_NAME_BYTES - LOCK_SUFFIX.length} UTF-8 bytes at most)`,
        chatId,
      );
    }
  }

  #file(chatId: string): string {
    return join(this.dir, `${chatId}.jsonl`);
  }

  async #exists(chatId: string): Promise<boolean> {
    try {
      await stat(this.#file(chatId));
      return true;
    } catch (e) {
      if (errorCode(e) === "ENOENT") return false;
      throw e;
    }
  }

  async #openLog(chatId: string): Promise<FileHandle> {
    try {
      // Read and append, never create: a missing chat stays missing.
      return await open(this.#file(chatId), constants.O_RDWR | constants.O_APPEND);
    } catch (e) {
      if (errorCode(e) === "ENOENT") throw missingChat(chatId);
      throw e;
    }
  }

  #lockPath(chatId: string): string {
    return join(this.dir, chatId + LOCK_SUFFIX);
  }

  /** Runs `fn` holding the chat's lock: first in this process, then across processes. */
  #locked<T>(chatId: string, fn: () => Promise<T>): Promise<T> {
    const lockPath = this.#lockPath(chatId);
    return queued(lockPath, async () => {
      const release = await acquireLock(this.dir, lockPath);
      try {
        return await fn();
      } finally {
        await release();
      }
    });
  }
}

// ---------------------------------------------------------------------------
// Reading and writing a log file.

interface LoadedLog {
  entries: LogEntry[];
  /** Bytes up to and including the last newline: the part that holds whole lines. */
  clean: number;
  /** The file's size. */
  size: number;
}

/** The text of a log file's whole lines: what follows the last newline is a torn write. */
function cleanText(bytes: Buffer): string {
  // A newline byte never occurs inside a UTF-8 sequence, so cutting at it is safe.
  return bytes.toString("utf8", 0, bytes.lastIndexOf(0x0a) + 1);
}

async function readAll(fh: FileHandle): Promise<Buffer> {
  const { size } = await fh.stat();
  const bytes = Buffer.alloc(size);
  let read = 0;
  while (read < size) {
    const { bytesRead } = await fh.read(bytes, read, size - read, read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return bytes.subarray(0, read);
}

async function loadLog(fh: FileHandle): Promise<LoadedLog> {
  const bytes = await readAll(fh);
  return {
    entries: parseJsonl<LogEntry>(cleanText(bytes)).entries,
    clean: bytes.lastIndexOf(0x0a) + 1,
    size: bytes.length,
  };
}

/** One line per entry; JSON never holds a raw newline, so each entry is exactly one line. */
function toJsonl(entries: readonly LogEntry[]): Buffer {
  return Buffer.from(entries.map((entry) => JSON.stringify(entry) + "\n").join(""), "utf8");
}

async function writeAll(fh: FileHandle, data: Buffer): Promise<void> {
  for (let done = 0; done < data.length; ) {
    const { bytesWritten } = await fh.write(data, done, data.length - done);
    done += bytesWritten;
  }
}

/** fsync a directory so a name just added to it survives a crash (a no-op where impossible). */
async function syncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, "r");
    await fh.sync();
  } catch (e) {
    if (!DIR_SYNC_UNSUPPORTED.has(errorCode(e))) throw e;
  } finally {
    await fh?.close();
  }
}

function syncDirSync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch (e) {
    if (!DIR_SYNC_UNSUPPORTED.has(errorCode(e))) throw e;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Codes for a file or directory this process may read but not change. */
const READ_ONLY = new Set(["EACCES", "EPERM", "EROFS"]);

/** Windows cannot open a directory; some file systems refuse to fsync one. */
const DIR_SYNC_UNSUPPORTED = new Set(["EISDIR", "EPERM", "EACCES", "EINVAL", "ENOTSUP"]);

// ---------------------------------------------------------------------------
// The per-chat lock across processes.
//
// The lock is a directory `<chat>.jsonl.lock` holding exactly one owner entry
// `<pid>-<host>-<token>` (an empty directory: its name says it all). A process
// takes the lock by preparing a private directory that already holds its
// owner entry and renaming it onto the lock's name. rename() is atomic and
// fails while the lock's directory exists with an owner in it, so the
// exclusive step is the rename, never a sleep; a waiter retries with a short
// backoff.
//
// Why a directory and not a file created with O_EXCL: a lock left by a dead
// process must be broken, and breaking must remove *that* lock, never one a
// live process took a moment later. A plain lock file can only be removed by
// its name, which the next holder reuses. Here a breaker removes the dead
// owner's entry by its unique token: that succeeds for exactly one breaker
// and can never touch a newer owner. An empty lock directory is free (rename
// replaces it), so a releaser or breaker that dies half-way leaves no lock.

const LIVE = Symbol.for("oda-tasks/node: live lock tokens");
/**
 * Tokens of this process's locks (held or being taken) and temp files: an
 * owner name with this process's pid and another token is left by an
 * earlier process that had the same pid. Kept on `globalThis` so that two
 * copies of this package in one process never take each other's locks for
 * stale.
 */
const live: Set<string> = ((globalThis as { [LIVE]?: Set<string> })[LIVE] ??= new Set<string>());
/** Codes rename() gives when the lock's directory exists and is not empty. */
const LOCK_HELD = new Set(["ENOTEMPTY", "EEXIST", "EPERM", "EACCES", "EISDIR", "EBUSY"]);
const OWNER_NAME = /^(\d+)-([0-9a-f]+)-([0-9a-f]+)$/;
/** This host, hashed short: pids of another host (a container sharing the directory) mean nothing here. */
const HOST = createHash("sha256").update(hostname()).digest("hex").slice(0, 12);

async function acquireLock(dir: string, lockPath: string): Promise<() => Promise<void>> {
  const id = token();
  const owner = `${process.pid}-${HOST}-${id}`;
  const prepared = join(dir, `.lock-${owner}.tmp`);
  live.add(id);
  try {
    await mkdir(join(prepared, owner), { recursive: true });
    for (let attempt = 0; ; attempt++) {
      try {
        await rename(prepared, lockPath);
        break;
      } catch (e) {
        if (!LOCK_HELD.has(errorCode(e))) throw e;
      }
      if (!(await freeIfStale(dir, lockPath))) await sleep(backoff(attempt));
    }
  } catch (e) {
    live.delete(id);
    await rm(prepared, { recursive: true, force: true }).catch(() => undefined);
    throw e;
  }
  return async () => {
    try {
      await rmdir(join(lockPath, owner));
      await rmdir(lockPath).catch(() => undefined); // someone may already hold it again
    } catch (e) {
      // ENOENT: already gone. Otherwise the lock stays until this process
      // exits (then it is stale); the operation itself is done, so say so only.
      if (errorCode(e) !== "ENOENT") console.warn(`oda-tasks: could not release ${lockPath}:`, e);
    } finally {
      live.delete(id);
    }
  };
}

/**
 * Looks at a held lock and breaks it when its owner is dead. Resolves to
 * whether the lock may be free now (retry at once rather than wait).
 */
async function freeIfStale(dir: string, lockPath: string): Promise<boolean> {
  let names: string[];
  try {
    names = await readdir(lockPath);
  } catch (e) {
    if (errorCode(e) === "ENOENT") return true; // released meanwhile
    throw e;
  }
  if (names.length === 0) {
    // Between a release's two steps, or left by a process that died there:
    // an empty lock is free (where rename cannot replace it, remove it).
    await rmdir(lockPath).catch(() => undefined);
    return true;
  }
  let broken = false;
  for (const name of names) {
    const match = OWNER_NAME.exec(name);
    if (match === null || !isDead(Number(match[1]), match[2] ?? "", match[3] ?? "")) continue;
    try {
      // The token makes this removal conditional: it removes this dead owner
      // or nothing, however many processes break the same lock at once.
      await rmdir(join(lockPath, name));
    } catch (e) {
      if (errorCode(e) !== "ENOENT") throw e;
    }
    broken = true;
  }
  if (broken) {
    await rmdir(lockPath).catch(() => undefined);
    await sweep(dir).catch(() => undefined); // a process died here: clear what else it left
  }
  return broken;
}

/** Names of temp files and lock preparations: `.<kind>-<pid>-<host>-<token>.tmp`. */
const TEMP_NAME = /^\.(?:lock|create)-(\d+)-([0-9a-f]+)-([0-9a-f]+)\.tmp$/;

/** Removes the temp files and half-taken locks that dead processes of this host left in `dir`. */
async function sweep(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    const match = TEMP_NAME.exec(name);
    if (match === null || !isDead(Number(match[1]), match[2] ?? "", match[3] ?? "")) continue;
    await rm(join(dir, name), { recursive: true, force: true });
  }
}

function isDead(pid: number, host: string, id: string): boolean {
  // Another host's pids mean nothing here: never break its locks.
  if (host !== HOST) return false;
  // Our own pid with a token we do not hold: left by an earlier process that had our pid.
  if (pid === process.pid) return !live.has(id);
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return errorCode(e) === "ESRCH"; // EPERM: alive, owned by another user
  }
}

function backoff(attempt: number): number {
  const base = Math.min(2 * 1.5 ** attempt, 50);
  return base / 2 + Math.random() * base;
}

// ---------------------------------------------------------------------------
// Reads waiting for a chat's lock in this process (the queue itself is
// queue.ts): a read arriving meanwhile shares the waiting one.

/** Per lock path: the read that waits for its turn, for later reads to share. */
const waitingReads = new Map<string, Promise<string | null>>();


// ---------------------------------------------------------------------------

function token(): string {
  return randomBytes(12).toString("hex");
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function errorCode(e: unknown): string {
  return typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : "";
}
