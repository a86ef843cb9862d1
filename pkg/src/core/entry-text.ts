// The one way every store turns a log entry into the text it stores: one
// line of JSON of an object with a string `type`, made by the JSON functions
// as they were when this module loaded, so that an app wrapping
// JSON.stringify (to pretty-print, say) cannot make a write land across lines.

/**
 * Where an entry made by the core carries its exact stored text (a
 * non-enumerable own property), so copied numbers reach a store unchanged.
 *
 * @example
 * const text = (entry as { [RAW_TEXT]?: string })[RAW_TEXT];
 */
export const RAW_TEXT: unique symbol = Symbol.for("oda-tasks.rawText") as never;

/**
 * `JSON.parse` as it was when the package loaded: an app that wraps it later
 * never sees (nor changes) what the package reads.
 *
 * @example
 * const entry = parseJson(text) as LogEntry;
 */
export const parseJson: (text: string) => unknown = JSON.parse;

/**
 * `JSON.stringify` as it was when the package loaded: an app's wrapper (to
 * pretty-print, say) cannot make a stored text span lines.
 *
 * @example
 * const text = stringifyJson(entry);
 */
export const stringifyJson = JSON.stringify as (value: unknown) => string;
const stringify = stringifyJson;
const parse = parseJson;
const hasOwn = Object.prototype.hasOwnProperty;
const ownDescriptor = Object.getOwnPropertyDescriptor;
const isArray = Array.isArray;

/** Stands in for a non-finite number while a value is serialised (JSON has no such number). */
const NON_FINITE = "\u0000oda-tasks:non-finite\u0000";
const NON_FINITE_TEXT = stringify(NON_FINITE);
const markNonFinite = (_key: string, v: unknown): unknown => (typeof v === "number" && !Number.isFinite(v) ? NON_FINITE : v);

/**
 * The JSON text of a parsed entry that keeps a non-finite number unreadable:
 * `JSON.parse` reads `1e400` as `Infinity`, which `JSON.stringify` would
 * write as `null` (a `v` of 1, a field absent); here it is written `1e400`
 * again, so the core refuses the entry as it refuses those bytes.
 *
 * @example
 * faithfulJson({ type: "todo_update", v: Infinity }); // '{"type":"todo_update","v":1e400}'
 */
export function faithfulJson(value: unknown): string | undefined {
  const text = stringify(value) as string | undefined;
  const marked = text === undefined ? undefined : nonFiniteMarked(value, text);
  return marked === undefined ? text : marked.replaceAll(NON_FINITE_TEXT, "1e400");
}

/** `value`'s JSON with its non-finite numbers marked, or `undefined` when it holds none (`text` is its plain JSON). */
function nonFiniteMarked(value: unknown, text: string): string | undefined {
  if (!text.includes("null")) return undefined; // a non-finite number shows as null
  const marked = (stringify as unknown as (v: unknown, r: typeof markNonFinite) => string | undefined)(value, markNonFinite);
  return marked?.includes(NON_FINITE_TEXT) ? marked : undefined;
}

/** Entries the core made, with the text it gave each: checked once, by the core. */
const coreTexts = new WeakMap<object, string>();

/**
 * Gives `entry`, made by the core, its exact stored `text` under {@link RAW_TEXT}.
 *
 * @example
 * const entry = { type: "turn_started" };
 * withCoreText(entry, '{"type":"turn_started"}');
 */
export function withCoreText(entry: object, text: string): void {
  Object.defineProperty(entry, RAW_TEXT, { value: text, enumerable: false, writable: false, configurable: true });
  coreTexts.set(entry, text);
}

/**
 * The stored text of `entry`: its own `RAW_TEXT` string when it has one,
 * else its JSON text. Throws a `TypeError` (and so nothing is written) unless
 * that text is one line of JSON of an object with a string `type`.
 *
 * @example
 * entryLine({ type: "turn_started" }); // '{"type":"turn_started"}'
 */
export function entryLine(entry: unknown): string {
  let text: unknown;
  if (typeof entry === "object" && entry !== null && hasOwn.call(entry, RAW_TEXT)) {
    const raw = ownDescriptor(entry, RAW_TEXT);
    text = raw !== undefined && "value" in raw ? raw.value : undefined;
    if (typeof text !== "string") throw new TypeError("oda-tasks: the entry has a RAW_TEXT that is not a string");
    // The core's own text, as the core gave it: already one line of an entry's JSON.
    if (coreTexts.get(entry) === text) return text;
  } else {
    try {
      // `undefined`, a function or a symbol has no JSON form: it stands as null, as in an array.
      text = stringify(entry) ?? "null";
    } catch (e) {
      throw new TypeError(`oda-tasks: the entry is not JSON data (${e instanceof Error ? e.message : String(e)})`);
    }
    if (nonFiniteMarked(entry, text as string) !== undefined) {
      throw new TypeError("oda-tasks: the entry is not JSON data (it holds Infinity or NaN, which JSON would store as null)");
    }
  }
  checkLine(text as string);
  return text as string;
}

/**
 * The stored texts of `entries` (an array), all checked before any is
 * written; a refusal names the entry's index.
 *
 * @example
 * entryTexts([{ type: "turn_started" }, { type: "turn_ended" }]); // two lines, no "\n" in either
 */
export function entryTexts(entries: readonly unknown[]): string[] {
  if (!isArray(entries)) throw new TypeError("oda-tasks: entries must be an array of log entries");
  const texts = new Array<string>(entries.length);
  for (let i = 0; i < entries.length; i++) {
    try {
      texts[i] = entryLine(entries[i]);
    } catch (e) {
      if (!(e instanceof TypeError)) throw e;
      throw new TypeError(e.message.replace(/^oda-tasks: the entry('s)? /, `oda-tasks: entry ${i}$1 `));
    }
  }
  return texts;
}

/**
 * The entry a stored text holds, read by the JSON.parse this module loaded
 * with (an app's wrapper never sees the store's own texts).
 *
 * @example
 * entryFromText('{"type":"turn_started"}'); // { type: "turn_started" }
 */
export function entryFromText(text: string): Record<string, unknown> {
  return parse(text) as Record<string, unknown>;
}

function checkLine(text: string): void {
  if (text.includes("\n") || text.includes("\r"))
    throw new TypeError("oda-tasks: the entry's JSON text is not one line (is JSON.stringify wrapped?); nothing was written");
  let value: unknown;
  try {
    value = parse(text);
  } catch {
    throw new TypeError("oda-tasks: the entry has a text that is not JSON");
  }
  if (typeof value !== "object" || value === null || isArray(value)) {
    const what = value === null ? "null" : isArray(value) ? "an array" : typeof value;
    throw new TypeError(`oda-tasks: the entry is not a JSON object (it is ${what})`);
  }
  if (typeof (value as { type?: unknown }).type !== "string" || !hasOwn.call(value, "type")) {
    throw new TypeError("oda-tasks: the entry has no string `type`");
  }
}
