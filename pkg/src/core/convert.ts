// Everything that crosses into the WASM core crosses as JSON text, made here
// (or as JSONL bytes, in slices).
// Serialising in JS first means a getter, a Proxy trap, a cycle or a stack
// overflow throws here, where it is caught, and never while Rust frames are
// on the stack (with panic=abort that would corrupt the module for good).
import { faithfulJson } from "./entry-text.js";

/**
 * Default longest model input, in UTF-16 code units of its JSON text (1 MiB).
 *
 * @example
 * todoWrite(log, input, { maxInputLength: 4 * DEFAULT_MAX_INPUT_LENGTH });
 */
export const DEFAULT_MAX_INPUT_LENGTH = 1 << 20;
/** The most bytes of JSONL handed to the core at a time (docs/performance.md: 1.1× the fold of one 45 MB chunk). */
const JSONL_SLICE = 1 << 20;

/**
 * Hands `bytes` to `push` at most 1 MiB at a time, as views of the same
 * memory: each slice is copied into WASM memory and read while it is still in
 * the CPU's cache, and a large file never grows that memory by its size.
 *
 * @example
 * inSlices(new Uint8Array(3 << 20), (slice) => console.log(slice.length)); // 1048576, three times
 */
export function inSlices(bytes: Uint8Array, push: (slice: Uint8Array) => void): void {
  const { buffer, byteOffset, length } = bytes;
  for (let at = 0; at < length; at += JSONL_SLICE) {
    push(new Uint8Array(buffer, byteOffset + at, Math.min(JSONL_SLICE, length - at)));
  }
}

/** Longest piece of a thrown message quoted in a refusal or an error, in characters. */
const MAX_QUOTE = 200;

const TOO_LARGE = Symbol("too large");

class NotData extends Error {}

/**
 * A model's input as the params field the core reads: `"input":<json>`, or
 * `"unreadable":"<why>"` when it cannot be serialised within `limit`
 * characters. Never throws: a bad input is the model's refusal, not the host's.
 *
 * @example
 * modelInput({ todos: [] }, DEFAULT_MAX_INPUT_LENGTH); // '"input":{"todos":[]}'
 */
export function modelInput(input: unknown, limit: number): string {
  let budget = limit;
  let text: string | undefined;
  try {
    text = JSON.stringify(input, function (this: unknown, key: string, value: unknown) {
      // Counted as it goes, so a huge input stops early instead of being copied whole.
      budget -= key.length + 4;
      if (typeof value === "string") budget -= value.length;
      else if (typeof value === "object" && value !== null) plainData(value);
      if (budget < 0) throw TOO_LARGE;
      return value;
    });
  } catch (e) {
    if (e === TOO_LARGE) return unreadable(tooLarge(limit));
    if (e instanceof NotData) return unreadable(e.message);
    return unreadable(`reading it threw ${describeError(e)}`);
  }
  if (text === undefined) return unreadable(`it has no JSON form (${typeof input})`);
  if (text.length > limit) return unreadable(tooLarge(limit));
  return `"input":${text}`;
}

function tooLarge(limit: number): string {
  return `it is larger than ${limit} characters as JSON`;
}

function unreadable(why: string): string {
  return `"unreadable":${JSON.stringify(why)}`;
}

/** Refuses what JSON.stringify would silently turn into `{}`: a Map, a Set, a class instance. */
function plainData(value: object): void {
  if (isArray(value)) return;
  const proto: unknown = Object.getPrototypeOf(value);
  // A plain object's prototype is some realm's Object.prototype (or null).
  if (proto === null || Object.getPrototypeOf(proto) === null) return;
  throw new NotData(`it holds ${kindName(value)} where JSON data belongs`);
}

function kindName(value: object): string {
  const tag = Object.prototype.toString.call(value).slice(8, -1);
  return `a ${tag === "Object" ? "class instance" : tag}`;
}

/**
 * The JSON texts of `entries`, one per line, for `ChatStateCore.ingest`.
 * Entries are the host's data, so one that cannot be serialised is the
 * host's error: it throws an `oda-tasks:` Error naming the entry's index.
 *
 * @example
 * entryLines([{ type: "turn_started" }], 4); // '{"type":"turn_started"}'
 */
export function entryLines(entries: readonly unknown[], from: number): string {
  let i = 0;
  try {
    const count = entries.length;
    const parts = new Array<string>(count);
    for (; i < count; i++) {
      const entry: unknown = entries[i];
      if (typeof entry === "object" && entry !== null) plainData(entry);
      // `undefined`, a function or a symbol has no JSON form: read as null (skipped).
      parts[i] = stringifyEntry(entry);
    }
    return parts.join("\n");
  } catch (e) {
    const why = e instanceof NotData ? e.message : `reading it threw ${describeError(e)}`;
    throw new Error(`oda-tasks: log entry ${from + i} cannot be read as JSON data: ${why}`);
  }
}

/**
 * An entry's JSON text. One nested too deep for `JSON.stringify` (a stack
 * overflow) becomes an entry of its `type` whose `v` says why: the core
 * ignores an app's type, skips a known one with that reason, and fails a
 * session closed, so the chat keeps working and nothing reads as more than it is.
 */
function stringifyEntry(entry: unknown): string {
  try {
    return faithfulJson(entry) ?? "null";
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    const type: unknown = (entry as { type?: unknown } | null)?.type;
    const why = '"v":"nested too deep to serialise"';
    return typeof type === "string" ? `{"type":${JSON.stringify(type)},${why}}` : `{${why}}`;
  }
}

/** The log as an array, or a clear `oda-tasks:` error. */
export function logArray(log: unknown, what = "the log"): readonly unknown[] {
  if (!isArray(log)) throw new TypeError(`oda-tasks: ${what} must be an array of entries (got ${typeName(log)})`);
  return log as readonly unknown[];
}

/**
 * An export's params as JSON text. The host's arguments must be JSON data; if
 * serialising them throws, the call throws an `oda-tasks:` Error.
 *
 * @example
 * hostParams("settleSuggestion", { id: "s1", action: "dismiss" }); // '{"id":"s1","action":"dismiss"}'
 */
export function hostParams(call: string, params: Record<string, unknown>, extra = ""): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(params, (_key, value: unknown) => {
      if (typeof value === "object" && value !== null) plainData(value);
      return value;
    });
  } catch (e) {
    const why = e instanceof NotData ? e.message : `reading them threw ${describeError(e)}`;
    throw new TypeError(`oda-tasks: invalid arguments of ${call}: ${why}`);
  }
  if (text === undefined) throw new TypeError(`oda-tasks: invalid arguments of ${call}`);
  if (extra === "") return text;
  return text === "{}" ? `{${extra}}` : `{${extra},${text.slice(1)}`;
}

/** A thrown value as short text, without letting its own getters throw. */
export function describeError(e: unknown): string {
  let text: string;
  try {
    text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  } catch {
    text = "an exception";
  }
  return text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE)}…` : text;
}

export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (isArray(value)) return "an array";
  return typeof value;
}

/** `Array.isArray` that never throws (it does on a revoked Proxy). */
function isArray(value: unknown): boolean {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}

/** A record argument (a Start request): `undefined`/`null` → none; an array or another kind throws. */
export function recordArgument(call: string, name: string, value: unknown): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object" || isArray(value)) {
    throw new TypeError(`oda-tasks: invalid arguments of ${call}: \`${name}\` must be an object (got ${typeName(value)})`);
  }
  return value as Record<string, unknown>;
}

/** The model-input size limit from host options, checked. */
export function inputLimit(call: string, value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_INPUT_LENGTH;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 2) {
    throw new TypeError(`oda-tasks: invalid arguments of ${call}: \`maxInputLength\` must be a whole number >= 2`);
  }
  return value;
}
