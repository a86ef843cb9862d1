// File names: the one a chat's log gets, and its lock directory's.
import { createHash } from "node:crypto";

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
