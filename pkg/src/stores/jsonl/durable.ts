// Writes that survive a crash: whole buffers, fsynced files and directories.
import { fsyncSync, openSync, closeSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { errorCode } from "./lock.js";
export const NEWLINE = Buffer.from("\n");

/** Codes for a file or directory this process may read but not change. */
export const READ_ONLY = new Set(["EACCES", "EPERM", "EROFS"]);

/** Windows cannot open a directory; some file systems refuse to fsync one. */
export const DIR_SYNC_UNSUPPORTED = new Set(["EISDIR", "EPERM", "EACCES", "EINVAL", "ENOTSUP"]);

export async function writeAll(fh: FileHandle, data: Buffer): Promise<void> {
  for (let done = 0; done < data.length; ) {
    const { bytesWritten } = await fh.write(data, done, data.length - done);
    done += bytesWritten;
  }
}

/** fsync a directory so a name just added to it survives a crash (a no-op where impossible). */
export async function syncDir(dir: string): Promise<void> {
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

export function syncDirSync(dir: string): void {
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
