// The per-chat lock that processes sharing a JsonlStore directory take, and
// the names (pid, host, token) by which a process owns its locks and temp
// files, so that what a dead process left can be swept.
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
//
// A holder touches its owner entry every HEARTBEAT_MS from a worker thread,
// so a holder whose event loop is busy (a long synchronous replay) still
// shows it is alive. An owner is dead only when both hold: its pid is gone
// in this host's *and this PID namespace's* view (the owner name's host key
// hashes both, so the containers of one pod never judge each other's pids),
// and its entry has not been touched for STALE_MS. A waiter gives up only on
// a lock that shows no change at all (no new owner, no touch) for its
// `wait`: a stalled or reused pid, another host's or namespace's process, a
// stray file in the lock, or a file where the lock's directory belongs. It
// never breaks such a lock (the owner might still write); it reports what to
// remove.
import { createHash, randomBytes } from "node:crypto";
import { readlinkSync } from "node:fs";
import { lstat, mkdir, readdir, rename, rm, rmdir, utimes } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { backoffDelay, sleep, type Backoff } from "../backoff.js";

/** How often a holder touches its owner entry: well below any sane lock wait. */
export const HEARTBEAT_MS = 250;
/**
 * How long an owner whose pid is gone must also have gone untouched before
 * its lock is broken: eight heartbeats, so that a live owner whose pid only
 * looks gone (a PID namespace we cannot tell apart) is never taken for dead.
 */
export const STALE_MS = 8 * HEARTBEAT_MS;

/** A lock that showed no sign of life for the whole wait; `why` says what is there. */
export class LockStuckError extends Error {
  constructor(
    readonly path: string,
    readonly why: string,
  ) {
    super(`${path}: ${why}`);
    this.name = "LockStuckError";
  }
}

const LIVE = Symbol.for("oda-tasks/node: live lock tokens");
/**
 * Tokens of this process's locks (held or being taken) and temp files: an
 * owner name with this process's pid and another token is left by an
 * earlier process that had the same pid. Kept on `globalThis` so that two
 * copies of this package in one process never take each other's locks for
 * stale.
 */
const shared = globalThis as { [LIVE]?: Set<string> };
shared[LIVE] ??= new Set<string>();
const live: Set<string> = shared[LIVE];
/** Codes rename() gives when the lock's directory exists and is not empty (EPERM, EACCES: Windows). */
const LOCK_HELD = new Set(["ENOTEMPTY", "EEXIST", "EPERM", "EACCES", "EISDIR", "EBUSY", "ENOTDIR"]);
const OWNER_NAME = /^(\d+)-([0-9a-f]+)-([0-9a-f]+)$/;
/**
 * This host and PID namespace, hashed short: pids of another host, or of
 * another PID namespace on this one (a container of the same pod sharing the
 * directory), mean nothing here. Where there are no PID namespaces (or they
 * cannot be read) the host name alone. Read on first use, not on import, so
 * importing the module needs no permission (Deno's --allow-sys=hostname).
 */
let hostHash: string | undefined;
function thisHost(): string {
  hostHash ??= createHash("sha256")
    .update(hostname() + pidNamespace())
    .digest("hex")
    .slice(0, 12);
  return hostHash;
}

function pidNamespace(): string {
  try {
    return `\0${readlinkSync("/proc/self/ns/pid")}`; // "pid:[4026531836]"
  } catch {
    return "";
  }
}

/**
 * A name this process owns until `release()`: `<pid>-<host>-<token>`. A temp
 * file named with it is swept once its owner is dead.
 *
 * @example
 * const claim = claimName();
 * import { writeFile } from "node:fs/promises";
 * try { await writeFile(`./chats/.create-${claim.name}.tmp`, "{}\n"); } finally { claim.release(); }
 */
export function claimName(): { name: string; release(): void } {
  const id = randomBytes(12).toString("hex");
  live.add(id);
  return { name: `${process.pid}-${thisHost()}-${id}`, release: () => live.delete(id) };
}

/**
 * Takes the lock at `lockPath` (a sibling of the locked file in `dir`),
 * waiting while it is held; resolves to its release. Rejects with a
 * {@link LockStuckError} when the lock shows no change for `wait` ms.
 *
 * @example
 * const release = await acquireLock("./chats", "./chats/c.jsonl.lock", 10_000);
 * try {
 *   // append to ./chats/c.jsonl
 * } finally {
 *   await release();
 * }
 */
export async function acquireLock(dir: string, lockPath: string, wait: number): Promise<() => Promise<void>> {
  const claim = claimName();
  const prepared = join(dir, `.lock-${claim.name}.tmp`);
  const ownerPath = join(lockPath, claim.name);
  // Once it has to wait, the waiter keeps its own names fresh, so no sweep takes them.
  const waiting: (() => void)[] = [];
  const stopWaiting = () => waiting.forEach((stop) => stop());
  try {
    // Not `recursive`: on a read-only mount that says ENOENT, not EROFS, and
    // a directory removed under the store must not be made again here.
    await mkdir(prepared);
    await mkdir(join(prepared, claim.name));
    let seen = "";
    let since = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        await rename(prepared, lockPath);
        break;
      } catch (e) {
        const code = errorCode(e);
        if (code === "ENOENT" && (await lstat(prepared).catch(() => null)) === null) {
          // Our preparation is gone (swept by a process that could not tell
          // we live): make it again; without `dir`, this fails and says so.
          await mkdir(prepared);
          await mkdir(join(prepared, claim.name));
          continue;
        }
        if (!LOCK_HELD.has(code)) throw e;
        if (waiting.length === 0) waiting.push(keepFresh(prepared), keepFresh(join(prepared, claim.name)));
        const found = await inspect(dir, lockPath);
        // Access refused with no lock there: a permission problem, not a lock.
        if (found.kind === "missing" && (code === "EACCES" || code === "EPERM")) throw e;
        if (found.kind === "broken") {
          seen = "";
          continue; // a dead owner's lock is gone: try again at once
        }
        const now = Date.now();
        if (found.signature !== seen || found.kind === "dying") {
          seen = found.signature;
          since = now;
        } else if (now - since >= wait) {
          throw new LockStuckError(lockPath, found.why);
        }
      }
      await sleep(backoffDelay(LOCK_BACKOFF, attempt));
    }
  } catch (e) {
    stopWaiting();
    claim.release();
    await rm(prepared, { recursive: true, force: true }).catch(() => undefined);
    throw e;
  }
  stopWaiting();
  const stopBeating = keepFresh(ownerPath);
  return async () => {
    stopBeating();
    try {
      await rmdir(ownerPath);
      await rmdir(lockPath).catch(() => undefined); // someone may already hold it again
    } catch (e) {
      // ENOENT: already gone. Otherwise the lock stays until this process
      // exits (then it is stale); the operation itself is done, so say so only.
      if (errorCode(e) !== "ENOENT") console.warn(`oda-tasks: could not release ${lockPath}:`, e);
    } finally {
      claim.release();
    }
  };
}

/** A waiter's retry spacing: 2 ms, growing by half, at most 50 ms, jittered. */
const LOCK_BACKOFF: Backoff = { first: 2, factor: 1.5, max: 50, jitter: true };

// ---------------------------------------------------------------------------
// Heartbeats: a worker thread touches every path this process keeps fresh,
// so a busy event loop never stops them; only a stopped or dead process does.

/** The source of the heartbeat thread (eval'd: no file for a bundler to find). */
const BEAT_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { utimesSync } = require("node:fs");
const paths = new Set();
const touch = (p) => { const now = new Date(); try { utimesSync(p, now, now); } catch {} };
parentPort.on("message", (m) => { if (m.add !== undefined) { paths.add(m.add); touch(m.add); } else paths.delete(m.remove); });
setInterval(() => { for (const p of paths) touch(p); }, ${HEARTBEAT_MS});
`;

/** Paths kept fresh, by how many holders ask for each. */
const fresh = new Map<string, number>();
let beater: Worker | null | undefined;
let fallback: ReturnType<typeof setInterval> | undefined;

/**
 * Touches `path` every HEARTBEAT_MS until the returned stop is called; a
 * path that does not exist (yet, or any more) is skipped.
 *
 * @example
 * const stop = keepFresh(`./chats/c.jsonl.lock/${claimName().name}`);
 * try {
 *   // work while the lock is held
 * } finally {
 *   stop();
 * }
 */
export function keepFresh(path: string): () => void {
  fresh.set(path, (fresh.get(path) ?? 0) + 1);
  const worker = heartbeatThread();
  if ((fresh.get(path) ?? 0) === 1) worker?.postMessage({ add: path });
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    const left = (fresh.get(path) ?? 1) - 1;
    if (left > 0) {
      fresh.set(path, left);
      return;
    }
    fresh.delete(path);
    beater?.postMessage({ remove: path });
  };
}

/** The heartbeat thread, started once; `null` where threads are not to be had (then a timer beats). */
function heartbeatThread(): Worker | null {
  if (beater !== undefined) return beater;
  try {
    const worker = new Worker(BEAT_SOURCE, { eval: true });
    worker.unref();
    const lost = () => {
      if (beater !== worker) return;
      beater = null;
      beatOnTimer();
    };
    worker.on("error", lost);
    worker.on("exit", lost);
    beater = worker;
  } catch {
    beater = null;
    beatOnTimer();
  }
  return beater;
}

/** Without a thread: the event loop beats (a busy loop then looks stalled). */
function beatOnTimer(): void {
  if (fallback !== undefined) return;
  fallback = setInterval(() => {
    const now = new Date();
    for (const path of fresh.keys()) utimes(path, now, now).catch(() => undefined);
  }, HEARTBEAT_MS);
  fallback.unref();
}

/** What a waiter finds at the lock's path. */
type Found = { kind: "missing" | "broken" | "held" | "dying"; signature: string; why: string };

/**
 * Looks at a lock that a rename could not replace, and breaks it when its
 * owner is dead. `signature` changes whenever the lock shows a sign of life
 * (another owner, a heartbeat); `why` describes it for a report.
 */
async function inspect(dir: string, lockPath: string): Promise<Found> {
  let names: string[];
  try {
    // Not followed: whatever sits at the lock's name, a link to a directory included, is not a lock.
    const st = await lstat(lockPath);
    if (!st.isDirectory()) {
      const what = st.isSymbolicLink()
        ? "a symbolic link"
        : st.isFile()
          ? "a regular file"
          : st.isFIFO()
            ? "a FIFO"
            : "a socket or a device";
      return { kind: "held", signature: `file ${st.mtimeMs} ${st.size}`, why: `it is ${what}, not a lock directory` };
    }
    names = await readdir(lockPath);
  } catch (e) {
    const code = errorCode(e);
    if (code === "ENOENT") return { kind: "missing", signature: "missing", why: "it vanished" };
    return { kind: "held", signature: `error ${code}`, why: `it cannot be read (${code})` };
  }
  if (names.length === 0) {
    // Between a release's two steps, or left by a process that died there:
    // an empty lock is free (where rename cannot replace it, remove it).
    await rmdir(lockPath).catch(() => undefined);
    return { kind: "missing", signature: "empty", why: "it is empty" };
  }
  const strays: string[] = [];
  const owners: { name: string; pid: number; host: string; state: OwnerState }[] = [];
  const times: number[] = [];
  let broken = false;
  let dying = false;
  for (const name of names) {
    const match = OWNER_NAME.exec(name);
    if (match === null) {
      strays.push(name);
      continue;
    }
    const [pid, host, id] = [Number(match[1]), match[2] ?? "", match[3] ?? ""];
    // Heartbeats show as the owner entries' modification times.
    const touched = await lstat(join(lockPath, name)).then(
      (s) => s.mtimeMs,
      () => -1,
    );
    times.push(touched);
    let state = ownerState(pid, host, id);
    if (state === "dead" && Date.now() - touched < STALE_MS) {
      // Its pid is gone here, but it was touched lately: wait until it is stale.
      state = "alive";
      dying = true;
    }
    if (state !== "dead") {
      owners.push({ name, pid, host, state });
      continue;
    }
    try {
      // The token makes this removal conditional: it removes this dead owner
      // or nothing, however many processes break the same lock at once.
      await rmdir(join(lockPath, name));
      broken = true;
    } catch (e) {
      if (errorCode(e) === "ENOENT") broken = true;
      else strays.push(name); // a dead owner's entry we cannot remove (not empty?)
    }
  }
  if (broken) {
    await rmdir(lockPath).catch(() => undefined);
    await sweep(dir).catch(() => undefined); // a process died here: clear what else it left
    return { kind: "broken", signature: "broken", why: "its owner died" };
  }
  const signature = `${names.join("/")} ${times.join("/")}`;
  const owner = owners[0];
  if (strays.length > 0 || owner === undefined) {
    const list =
      strays
        .slice(0, 5)
        .map((n) => JSON.stringify(n))
        .join(", ") + (strays.length > 5 ? ", …" : "");
    return { kind: "held", signature, why: `it holds ${list}, which ${strays.length === 1 ? "is" : "are"} not a lock owner` };
  }
  const why =
    owner.state === "impossible"
      ? `its owner entry ${JSON.stringify(owner.name)} names pid ${owner.pid}, which no process can have`
      : owner.state === "foreign"
        ? `its owner, process ${owner.pid} on another host or in another PID namespace (${owner.host}), has not touched it for the whole wait`
        : `its owner, process ${owner.pid} on this host, is alive but has not touched it for the whole wait (a stalled process, or a reused pid)`;
  return { kind: dying && strays.length === 0 ? "dying" : "held", signature, why };
}

/** Names of temp files and lock preparations: `.<kind>-<pid>-<host>-<token>.tmp`. */
const TEMP_NAME = /^\.(?:lock|create)-(\d+)-([0-9a-f]+)-([0-9a-f]+)\.tmp$/;

/**
 * Removes the temp files and half-taken locks that dead processes of this
 * host and PID namespace left in `dir`: their pid is gone and they have not
 * been touched for STALE_MS (a live owner keeps its own fresh).
 *
 * @example
 * await sweep("./chats");
 */
export async function sweep(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    const match = TEMP_NAME.exec(name);
    if (match === null || ownerState(Number(match[1]), match[2] ?? "", match[3] ?? "") !== "dead") continue;
    const touched = await lstat(join(dir, name)).then(
      (s) => s.mtimeMs,
      () => null,
    );
    if (touched === null || Date.now() - touched < STALE_MS) continue;
    await rm(join(dir, name), { recursive: true, force: true });
  }
}

/** `dead`: safe to break. The rest are never broken: they wait, then are reported. */
type OwnerState = "dead" | "alive" | "foreign" | "impossible";

function ownerState(pid: number, host: string, id: string): OwnerState {
  // Another host's pids mean nothing here: never break its locks.
  if (host !== thisHost()) return "foreign";
  // kill(0) would signal our process group and a pid past int32 is refused: no owner has those.
  if (!Number.isSafeInteger(pid) || pid < 1 || pid > 0x7fffffff) return "impossible";
  // Our own pid with a token we do not hold: left by an earlier process that had our pid.
  if (pid === process.pid) return live.has(id) ? "alive" : "dead";
  try {
    process.kill(pid, 0);
    return "alive";
  } catch (e) {
    const code = errorCode(e);
    if (code === "ESRCH") return "dead";
    return code === "EPERM" ? "alive" : "impossible"; // EPERM: alive, owned by another user
  }
}

/** The `code` of a Node system error, or "". */
export function errorCode(e: unknown): string {
  return typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : "";
}
