// Commit points: each chat file as this process last saw it whole under the
// chat's lock. While the file still stats exactly so (inode, birth time,
// size, change time), its bytes are that committed log, so a read may take
// them unlocked.
import type { BigIntStats } from "node:fs";
import { MAX_FILES } from "./checkpoints.js";

export interface CommitPoint {
  dev: bigint;
  ino: bigint;
  /** Its birth time (0 where the file system keeps none): a chat deleted and made again may get the same inode, never the same birth. */
  birth: bigint;
  /** The file's size then: just past its last line end. */
  size: bigint;
  /** Any write, truncation or rename onto it changes the change time. */
  ctimeNs: bigint;
  /** Entries in the file then. */
  count: number;
  /** A reader's mark of exactly this state, once one was made. */
  mark?: string;
  /** This process's append that made this state: the mark of the state before it and the texts it added. */
  appended?: { since: string; texts: readonly string[] };
}

/** Texts of an append kept with its commit point, at most: a larger append is read back from the file. */
export const APPENDED_BYTES = 64 * 1024;

/** Per file, least recently recorded first out. */
const points = new Map<string, CommitPoint>();

/**
 * Records that `file`, stat'ed as `st` while holding the chat's lock, holds
 * `count` whole entries and nothing after them.
 *
 * @example
 * import { open } from "node:fs/promises";
 * const fh = await open("/chats/c.jsonl");
 * recordCommit("/chats/c.jsonl", await fh.stat({ bigint: true }), 12);
 * // After an append of its own: what a reader at the state before it reads next.
 * declare const mark: string, since: string;
 * recordCommit("/chats/c.jsonl", await fh.stat({ bigint: true }), 13, { mark, appended: { since, texts: ['{"type":"turn_started"}'] } });
 */
export function recordCommit(file: string, st: BigIntStats, count: number, made?: Pick<CommitPoint, "mark" | "appended">): void {
  const known = points.get(file);
  points.delete(file);
  // The same state seen again keeps its point (and the mark made of it).
  const same = known !== undefined && stillAt(known, st) && known.count === count;
  points.set(file, same ? known : { dev: st.dev, ino: st.ino, birth: st.birthtimeNs, size: st.size, ctimeNs: st.ctimeNs, count, ...made });
  if (points.size > MAX_FILES) points.delete(points.keys().next().value as string);
}

/**
 * The commit point `file` still is when stat'ed as `st` (nothing written,
 * cut or renamed onto it since), else undefined.
 *
 * @example
 * import { stat } from "node:fs/promises";
 * const point = committedAt("/chats/c.jsonl", await stat("/chats/c.jsonl", { bigint: true }));
 */
export function committedAt(file: string, st: BigIntStats): CommitPoint | undefined {
  const point = points.get(file);
  return point !== undefined && stillAt(point, st) ? point : undefined;
}

/**
 * Whether a file stat'ed as `st` is still exactly at `point`.
 *
 * @example
 * import { open } from "node:fs/promises";
 * declare const point: CommitPoint;
 * const fh = await open("/chats/c.jsonl");
 * const unlocked = stillAt(point, await fh.stat({ bigint: true })); // false: moved on, take the lock
 */
export function stillAt(point: CommitPoint, st: BigIntStats): boolean {
  return (
    st.isFile() &&
    point.dev === st.dev &&
    point.ino === st.ino &&
    point.birth === st.birthtimeNs &&
    point.size === st.size &&
    point.ctimeNs === st.ctimeNs
  );
}

/**
 * Whether this process holds a commit point of `file`: it existed then (and
 * still does, unless a process deleted the chat since, which the lock shows).
 *
 * @example
 * const known = hasCommit("/chats/c.jsonl"); // true: no need to look whether it exists before taking the lock
 */
export function hasCommit(file: string): boolean {
  return points.has(file);
}

/** Forgets `file`'s commit point: it was found replaced or cut, or its chat was deleted. */
export function forgetCommit(file: string): void {
  points.delete(file);
}
