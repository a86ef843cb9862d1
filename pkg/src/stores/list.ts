// What every store's `list` shares: reading its options, and the cursor that
// carries a page's last position (and the prefix it was made for) to the
// next call. The order and the position are each store's own.
import { parseJson, stringifyJson } from "../core/entry-text.js";
import { readOptions, wholeBetween, type OptionRule } from "../core/options.js";
import { StoreError } from "./store.js";

/**
 * Chats in a page when `limit` is not given.
 *
 * @example
 * const page = await store.list!(); // at most DEFAULT_LIST_LIMIT (50) chats
 */
export const DEFAULT_LIST_LIMIT = 50;
/**
 * The most chats a page may hold.
 *
 * @example
 * const page = await store.list!({ limit: MAX_LIST_LIMIT }); // 1000 chats at most
 */
export const MAX_LIST_LIMIT = 1000;
/** A cursor longer than this was not made by a store (the longest holds a 200-character prefix and a file name). */
const MAX_CURSOR_LENGTH = 4096;

/**
 * A `list` call's options, checked, with their defaults.
 *
 * @example
 * const { prefix, limit, cursor } = listOptions({ limit: 20 }); // "", 20, null
 */
export interface ListRequest {
  prefix: string;
  limit: number;
  cursor: string | null;
}

const STRING: OptionRule = { expected: "a string", check: (v) => typeof v === "string" };
const CURSOR: OptionRule = { expected: "a string or null", check: (v) => v === null || typeof v === "string" };

/**
 * Reads `list`'s options: `prefix` a string (default `""`), `limit` a whole
 * number from 1 to 1000 (default 50), `cursor` a string or null (default
 * null); anything else is an `oda-tasks:` TypeError, thrown before the store
 * is touched.
 *
 * @example
 * listOptions({ limit: 0 }); // throws TypeError: oda-tasks: invalid arguments of list: `limit` must be a whole number from 1 to 1000 (got 0)
 */
export function listOptions(options: unknown): ListRequest {
  const own = readOptions<{ prefix: string; limit: number; cursor: string | null }>("list", options, {
    prefix: STRING,
    limit: wholeBetween(1, MAX_LIST_LIMIT),
    cursor: CURSOR,
  });
  return { prefix: own.prefix ?? "", limit: own.limit ?? DEFAULT_LIST_LIMIT, cursor: own.cursor ?? null };
}

/**
 * The `store/bad-cursor` refusal: a cursor the store did not make, or made for another prefix.
 *
 * @example
 * throw badCursor(); // StoreError { code: "store/bad-cursor", message: "invalid cursor" }
 */
export function badCursor(): StoreError {
  return new StoreError("store/bad-cursor", "invalid cursor", "");
}

/**
 * What a part of a cursor's position may hold: a whole number >= 0, or a string.
 *
 * @example
 * const shape: PositionPart[] = ["string", "string"]; // JsonlStore's: a birth time and a file name
 */
export type PositionPart = "count" | "string";

/**
 * The cursor of the page that ends at `position` (a store's own sort key of
 * the page's last chat): `<tag>.<base64url of the JSON [prefix, ...position]>`.
 * `tag` names the store kind and its cursor's version ("m1", "j1", "i1").
 *
 * @example
 * makeCursor("m1", "team-", [41]); // "m1.WyJ0ZWFtLSIsNDFd"
 */
export function makeCursor(tag: string, prefix: string, position: readonly (string | number)[]): string {
  return `${tag}.${toBase64Url(stringifyJson([prefix, ...position]))}`;
}

/**
 * The position `cursor` carries, when this kind of store (`tag`) made it for
 * `prefix` and its parts are of the kinds `shape` lists; else `store/bad-cursor`.
 *
 * @example
 * const [seq] = cursorPosition("m1", "team-", "m1.WyJ0ZWFtLSIsNDFd", ["count"]); // 41
 */
export function cursorPosition(tag: string, prefix: string, cursor: string, shape: readonly PositionPart[]): (string | number)[] {
  if (cursor.length > MAX_CURSOR_LENGTH || !cursor.startsWith(`${tag}.`)) throw badCursor();
  const text = fromBase64Url(cursor.slice(tag.length + 1));
  let value: unknown;
  try {
    value = text === undefined ? undefined : parseJson(text);
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(value) || value.length !== shape.length + 1 || value[0] !== prefix) throw badCursor();
  const position = value.slice(1) as unknown[];
  shape.forEach((kind, i) => {
    const part = position[i];
    const fits = kind === "string" ? typeof part === "string" : typeof part === "number" && Number.isSafeInteger(part) && part >= 0;
    if (!fits) throw badCursor();
  });
  return position as (string | number)[];
}

/** UTF-8 bytes as base64url without padding (btoa: Node, browsers and workers alike). */
function toBase64Url(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The text `toBase64Url` made, or undefined for anything else (other characters, bad UTF-8). */
function fromBase64Url(encoded: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(encoded)) return undefined;
  try {
    const binary = atob(encoded.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
