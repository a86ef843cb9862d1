// Marks: where a warm reader stands, checkable against the file as it is.
import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { replaced } from "../store.js";
import type { Opened } from "./open.js";
import { probeBefore, sameBytes } from "./checkpoints.js";

/** Bytes of the file's start a mark holds a hash of: a replaced first line (the session) shows. */
export const HEAD_BYTES = 4096;

/**
 * The mark of `opened` at `at`: `j2:<dev>:<ino>:<birth>:<offset>:<count>:<head hash>:<probe>`
 * (the birth time tells a chat made again on a reused inode from the one deleted).
 */
export async function markOf(opened: Opened, at: { offset: number; count: number }): Promise<string> {
  const head = await headHash(opened.fh, at.offset);
  const probe = await probeBefore(opened.fh, at.offset);
  const { dev, ino, birthtimeNs } = opened.st;
  return `j2:${dev}:${ino}:${birthtimeNs}:${at.offset}:${at.count}:${head}:${probe.toString("hex")}`;
}

/**
 * The mark at `at` of a file that grew by an append from the state `previous`
 * marks, without reading it: its head is the same once `previous` lies past
 * HEAD_BYTES (else undefined: read it). `probe` is the bytes just before `at`.
 *
 * @example
 * declare const previous: string, probe: Buffer;
 * const next = markAfter(previous, { offset: 9000, count: 41 }, probe);
 */
export function markAfter(previous: string, at: { offset: number; count: number }, probe: Buffer): string | undefined {
  const [tag, dev, ino, birth, offset, , head] = previous.split(":");
  if (tag !== "j2" || !(Number(offset) >= HEAD_BYTES)) return undefined;
  return `j2:${dev}:${ino}:${birth}:${at.offset}:${at.count}:${head}:${probe.toString("hex")}`;
}

/** The position a mark names, when the file still is the one it was taken of; else `store/replaced`. */
export async function markedStart(opened: Opened, mark: string, chatId: string): Promise<{ offset: number; count: number }> {
  const [tag, dev, ino, birth, offset, count, head, probe] = mark.split(":");
  const at = { offset: Number(offset), count: Number(count) };
  if (tag !== "j2" || !Number.isSafeInteger(at.offset) || !Number.isSafeInteger(at.count) || at.offset < 0 || at.count < 0) {
    throw new TypeError(`oda-tasks: readSince: ${JSON.stringify(mark.slice(0, 80))} is not a mark of this store`);
  }
  const same =
    String(opened.st.dev) === dev &&
    String(opened.st.ino) === ino &&
    String(opened.st.birthtimeNs) === birth &&
    at.offset <= Number(opened.st.size) &&
    (await headHash(opened.fh, at.offset)) === head &&
    (await sameBytes(opened.fh, at.offset - (probe ?? "").length / 2, Buffer.from(probe ?? "", "hex")));
  if (!same) throw replaced(chatId);
  return at;
}

export async function headHash(fh: FileHandle, offset: number): Promise<string> {
  const head = Buffer.alloc(Math.min(HEAD_BYTES, offset));
  const { bytesRead } = await fh.read(head, 0, head.length, 0);
  return createHash("sha256").update(head.subarray(0, bytesRead)).digest("hex").slice(0, 16);
}
