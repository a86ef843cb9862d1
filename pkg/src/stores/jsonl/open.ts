// Opening a chat's file: the handle and the stat a read or a write works on.
import { constants, type BigIntStats, type Stats } from "node:fs";
import { lstat, open, stat, type FileHandle } from "node:fs/promises";
import { errorCode } from "./lock.js";
import { StoreError } from "../store.js";
import { READ_ONLY } from "./durable.js";
import { readOnly } from "./fs-failures.js";

export interface Opened {
  fh: FileHandle;
  st: BigIntStats;
}

/** Never blocks on a FIFO (absent on Windows, which has none at a file path). */
export const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * Opens the chat's file, which must be a regular file (a symlink to one is
 * fine); `null` when nothing is at its path.
 */
export async function openChat(chatId: string, file: string, mode: "read" | "append"): Promise<Opened | null> {
  const flags = (mode === "read" ? constants.O_RDONLY : constants.O_RDWR | constants.O_APPEND) | O_NONBLOCK;
  let fh: FileHandle;
  try {
    fh = await open(file, flags);
  } catch (e) {
    const code = errorCode(e);
    if (code === "ENOENT" && (await lstat(file).catch(() => null)) === null) return null;
    if (READ_ONLY.has(code) && mode === "append") throw readOnly(chatId, file, "file", e);
    if (NOT_A_FILE_OPEN.has(code)) await mustBeFile(chatId, file);
    throw e;
  }
  try {
    const st = await fh.stat({ bigint: true });
    if (!st.isFile()) throw notAFile(chatId, file, describe(st));
    return { fh, st };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** Errors open() gives for something that is not a regular file (ENOENT: a dangling symlink). */
export const NOT_A_FILE_OPEN = new Set(["ENOENT", "EISDIR", "ELOOP", "ENXIO", "ENODEV", "EOPNOTSUPP"]);

/** Throws `store/not-a-file` unless a regular file (or a symlink to one) is at `file`. */
export async function mustBeFile(chatId: string, file: string): Promise<void> {
  let st: Stats;
  try {
    st = await stat(file);
  } catch (e) {
    const code = errorCode(e);
    if (code === "ENOENT") throw notAFile(chatId, file, "a symbolic link to nothing");
    if (code === "ELOOP") throw notAFile(chatId, file, "a symbolic link loop");
    throw e;
  }
  if (!st.isFile()) throw notAFile(chatId, file, describe(st));
}

export function describe(st: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean }): string {
  return st.isDirectory() ? "a directory" : st.isFIFO() ? "a FIFO" : st.isSocket() ? "a socket" : "a device";
}

export function notAFile(chatId: string, file: string, what: string): StoreError {
  return new StoreError("store/not-a-file", `chat "${chatId}": ${file} is ${what}, not a chat's file; move or remove it`, chatId);
}

/** Whether something (perhaps not a file) is at `path` now (a chat deleted since answers "no" once its file is gone). */
export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (e) {
    if (errorCode(e) === "ENOENT") return false;
    throw e;
  }
}
