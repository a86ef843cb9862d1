// Checkpoints: where the lines a process has counted end, per file.
import type { BigIntStats } from "node:fs";
import type { FileHandle } from "node:fs/promises";

export interface Checkpoint {
  dev: bigint;
  ino: bigint;
  /** The file's birth time (0 where the file system keeps none): an inode reused by a chat made again is another file. */
  birth: bigint;
  /** Just past a line end (or 0). */
  offset: number;
  /** Entries before `offset`. */
  count: number;
  /** The bytes just before `offset`: a file rewritten in place no longer has them. */
  probe: Buffer;
}

export const PROBE_BYTES = 32;
/** Files remembered per process, least recently used first out. */
export const MAX_FILES = 4096;
/** Checkpoints kept per file: a read from a little before the latest still seeks. */
export const PER_FILE = 4;
/** Per file: its latest checkpoints, oldest first. */
export const checkpoints = new Map<string, Checkpoint[]>();

/** The latest checkpoint of `file` with at most `count` entries before it. */
export function latestBefore(file: string, count: number): Checkpoint | undefined {
  const list = checkpoints.get(file) ?? [];
  return list
    .slice()
    .reverse()
    .find((checkpoint) => checkpoint.count <= count);
}

/**
 * Remembers a checkpoint of `file` (now `st`); `probe` is the bytes just
 * before `at.offset`. Earlier checkpoints past `verified` (bytes read again
 * since) give way to it.
 */
export function remember(file: string, st: BigIntStats, at: { offset: number; count: number }, probe: Buffer, verified = at.offset): void {
  const keep = Math.min(verified, at.offset - 1);
  const list = (checkpoints.get(file) ?? []).filter(
    (c) => c.dev === st.dev && c.ino === st.ino && c.birth === st.birthtimeNs && c.offset <= keep,
  );
  list.push({ dev: st.dev, ino: st.ino, birth: st.birthtimeNs, offset: at.offset, count: at.count, probe });
  checkpoints.delete(file);
  checkpoints.set(file, list.slice(-PER_FILE));
  if (checkpoints.size > MAX_FILES) checkpoints.delete(checkpoints.keys().next().value as string);
}

/** The (up to) PROBE_BYTES bytes of the file just before `offset`. */
export async function probeBefore(fh: FileHandle, offset: number): Promise<Buffer> {
  const probe = Buffer.alloc(Math.min(PROBE_BYTES, offset));
  const { bytesRead } = await fh.read(probe, 0, probe.length, offset - probe.length);
  return probe.subarray(0, bytesRead);
}

export async function sameBytes(fh: FileHandle, position: number, expected: Buffer): Promise<boolean> {
  if (expected.length === 0) return true;
  const actual = Buffer.alloc(expected.length);
  const { bytesRead } = await fh.read(actual, 0, expected.length, position);
  return bytesRead === expected.length && actual.equals(expected);
}
