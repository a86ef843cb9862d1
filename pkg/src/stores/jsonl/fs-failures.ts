// What a file system's refusal means to a chat: the store/* errors that name
// the chat, the path and the cause, so that an app never sees a raw errno
// about a lock's or a temp file's name.
import { constants } from "node:fs";
import { access, lstat } from "node:fs/promises";
import { StoreError } from "../store.js";
import { errorCode } from "./lock.js";
import { READ_ONLY } from "./durable.js";

/** What an operation was doing when the file system refused it. */
export interface FsScene {
  chatId: string;
  /** The store's directory. */
  dir: string;
  /** The chat's file. */
  file: string;
  kind: "read" | "write";
}

/**
 * The store error a raw file-system error stands for: the directory gone
 * (`store/unavailable`), a path this process may not write (`store/read-only`)
 * or read (`store/no-access`). Anything else is returned as it is.
 *
 * @example
 * import { readFile } from "node:fs/promises";
 * const dir = "/var/lib/chats";
 * try { await readFile(`${dir}/c.jsonl`); } catch (e) { throw await fsFailure(e, { chatId: "c", dir, file: `${dir}/c.jsonl`, kind: "read" }); }
 */
export async function fsFailure(e: unknown, at: FsScene): Promise<unknown> {
  if (e instanceof StoreError) return e;
  const code = errorCode(e);
  if (code === "ENOENT" && !(await present(at.dir))) return missingDirectory(at.chatId, at.dir);
  if (!READ_ONLY.has(code)) return e;
  // The chat's file, unless its directory is what may not be entered.
  const onFile =
    (e as { path?: unknown }).path === at.file &&
    (await access(at.dir, constants.X_OK).then(
      () => true,
      () => false,
    ));
  const path = onFile ? at.file : at.dir;
  const what = onFile ? "file" : "directory";
  return at.kind === "write" ? readOnly(at.chatId, path, what, e) : noAccess(at.chatId, path, what, e);
}

/** Whether `dir` is still there (`true` when that cannot be told: the refusal is then the cause). */
export async function present(dir: string): Promise<boolean> {
  try {
    return (await lstat(dir)).isDirectory();
  } catch (e) {
    return errorCode(e) !== "ENOENT" && errorCode(e) !== "ENOTDIR";
  }
}

/** `store/unavailable`: the store's directory was removed (or unmounted) while in use. */
export function missingDirectory(chatId: string, dir: string): StoreError {
  return new StoreError(
    "store/unavailable",
    `chat "${chatId}" cannot be reached: the store's directory ${dir} is missing (ENOENT); restore it, or open the store where the chats are`,
    chatId,
  );
}

export function readOnly(chatId: string, path: string, what: "file" | "directory", cause: unknown): StoreError {
  return new StoreError(
    "store/read-only",
    `chat "${chatId}" cannot be written: the ${what} ${path} is read-only here (${errorCode(cause)})`,
    chatId,
  );
}

export function noAccess(chatId: string, path: string, what: "file" | "directory", cause: unknown): StoreError {
  return new StoreError(
    "store/no-access",
    `chat "${chatId}" cannot be read: this process may not read the ${what} ${path} (${errorCode(cause)})`,
    chatId,
  );
}

/**
 * Why the chats of `dir` cannot be listed: the directory gone
 * (`store/unavailable`), or it or a chat's file unreadable (`store/no-access`,
 * naming which); anything else is returned as it is.
 *
 * @example
 * import { readdir } from "node:fs/promises";
 * try { await readdir("/var/lib/chats"); } catch (e) { throw listFailure(e, "/var/lib/chats"); }
 */
export function listFailure(e: unknown, dir: string): unknown {
  const code = errorCode(e);
  if (code === "ENOENT" || code === "ENOTDIR") {
    return new StoreError(
      "store/unavailable",
      `the chats cannot be listed: the store's directory ${dir} is missing (${code}); restore it, or open the store where the chats are`,
      "",
    );
  }
  if (READ_ONLY.has(code)) {
    const path = (e as { path?: unknown }).path;
    const what = typeof path === "string" && path !== dir ? `file ${path}` : `directory ${dir}`;
    return new StoreError("store/no-access", `the chats cannot be listed: this process may not read the ${what} (${code})`, "");
  }
  return e;
}
