// File names: the one a chat's log gets, and its lock directory's.
import { createHash } from "node:crypto";
import { checkChatId } from "../store.js";

/** The suffix of a chat's lock directory: the longest name a chat gets. */
export const LOCK_SUFFIX = ".jsonl.lock";
/** Longest file name most file systems take, in bytes, less the lock's suffix. */
export const MAX_STEM = 255 - LOCK_SUFFIX.length;
/** Windows device names, which no file may be called, whatever its extension. */
export const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)/;

/** A chat's file name without `.jsonl`: see {@link JsonlStore.file}. Pure ASCII, one case. */
export function fileStem(chatId: string): string {
  let stem = chatId.replace(/[^a-z0-9._-]/gu, escapeChar);
  if (WINDOWS_DEVICE.test(stem)) stem = escapeChar(stem.charAt(0)) + stem.slice(1);
  if (stem.length <= MAX_STEM) return stem;
  // "~" never occurs unescaped in a plain name, so a hashed name cannot equal one.
  const hash = createHash("sha256").update(chatId, "utf8").digest("hex").slice(0, 32);
  const prefix = stem.slice(0, MAX_STEM - hash.length - 1).replace(/%[0-9A-F]?$/, "");
  return `${prefix}~${hash}`;
}

export function escapeChar(char: string): string {
  let out = "";
  for (const byte of Buffer.from(char, "utf8")) out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  return out;
}

/** A stem as fileStem writes it, unhashed: the kept characters and `%XX`. */
const PLAIN_STEM = /^(?:[a-z0-9._-]|%[0-9A-F]{2})+$/;
/** A hashed stem: the escaped start of the id, `~`, 32 hex digits of its SHA-256. */
const HASHED_STEM = /^((?:[a-z0-9._-]|%[0-9A-F]{2})*)~[0-9a-f]{32}$/;

/** Refuses bytes that are not UTF-8 (half a character: no id's name). */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The bytes an escaped stem (or its kept start) stands for. */
function stemBytes(escaped: string): Buffer {
  return Buffer.from(
    escaped.replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    "latin1",
  );
}

/**
 * What a file's stem says of the chat it holds: `{ id }` for a name
 * {@link fileStem} gives that id (its inverse); `{ start }` for a hashed
 * name, the UTF-8 bytes of the id's start it keeps (the id itself is in the
 * file); undefined for a name no chat id gets.
 *
 * @example
 * chatOfStem("%43hat-1"); // { id: "Chat-1" }
 * chatOfStem("Chat-1"); // undefined: fileStem never writes an upper-case letter
 */
export function chatOfStem(stem: string): { id: string } | { start: Buffer } | undefined {
  if (PLAIN_STEM.test(stem)) {
    let id = stem;
    if (stem.includes("%")) {
      try {
        id = UTF8.decode(stemBytes(stem));
      } catch {
        return undefined;
      }
    }
    // The round trip refuses what fileStem never writes (another escaping, an id it would hash).
    return fileStem(id) === stem && isChatId(id) ? { id } : undefined;
  }
  const hashed = HASHED_STEM.exec(stem);
  return hashed === null ? undefined : { start: stemBytes(hashed[1] ?? "") };
}

/**
 * Whether `id` is an id every store takes (see `checkChatId`).
 *
 * @example
 * isChatId("a/b"); // false: a path separator
 */
export function isChatId(id: unknown): id is string {
  try {
    checkChatId(id);
    return true;
  } catch {
    return false;
  }
}
