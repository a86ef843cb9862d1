// The one reader of a host call's options, for every entry point and store:
// own properties only (a polluted Object.prototype is never an option), and
// every unknown or ill-typed option refused before anything is written.
import { describeError, typeName } from "./convert.js";

/** What one option may hold, and how the error says so ("a whole number >= 1"). */
export interface OptionRule {
  readonly expected: string;
  readonly check: (value: unknown) => boolean;
}

/** The rules of a call's options, one per name it accepts. */
export type OptionRules<T> = { readonly [K in keyof T]-?: OptionRule };

/**
 * A whole number of at least `min`.
 *
 * @example
 * readOptions("JsonlStore", { lockWait: 0 }, { lockWait: wholeNumber(1) }); // throws: must be a whole number >= 1 (got 0)
 */
export function wholeNumber(min: number): OptionRule {
  return { expected: `a whole number >= ${min}`, check: (v) => typeof v === "number" && Number.isSafeInteger(v) && v >= min };
}

/**
 * A whole number from `min` to `max`.
 *
 * @example
 * readOptions("chatHandler", { pollMs: 5 }, { pollMs: wholeBetween(100, 60_000) }); // throws: must be a whole number from 100 to 60000 (got 5)
 */
export function wholeBetween(min: number, max: number): OptionRule {
  return {
    expected: `a whole number from ${min} to ${max}`,
    check: (v) => typeof v === "number" && Number.isSafeInteger(v) && v >= min && v <= max,
  };
}

/**
 * A boolean.
 *
 * @example
 * readOptions("runTool", { oneActive: "no" }, { oneActive: BOOLEAN }); // throws: must be a boolean (got "no")
 */
export const BOOLEAN: OptionRule = { expected: "a boolean", check: (v) => typeof v === "boolean" };

/**
 * One of the listed strings.
 *
 * @example
 * readOptions("aiTurn", { remind: "sometimes" }, { remind: oneOf("due", "always", "never") }); // throws
 */
export function oneOf(...values: readonly string[]): OptionRule {
  return {
    expected: values
      .map((v) => JSON.stringify(v))
      .join(", ")
      .replace(/, ([^,]*)$/, " or $1"),
    check: (v) => values.includes(v as string),
  };
}

/**
 * An object (not null, not a function); its own checks happen where it is used.
 *
 * @example
 * readOptions("ChatStateCache", { store }, { store: OBJECT });
 */
export const OBJECT: OptionRule = { expected: "an object", check: (v) => typeof v === "object" && v !== null };

/**
 * Anything: the option is checked where it is used (a store, a cache, a signal).
 *
 * @example
 * readOptions("runTool", { cache }, { cache: ANY });
 */
export const ANY: OptionRule = { expected: "anything", check: () => true };

/**
 * The call's options as a prototype-free object of its own, defined, checked
 * properties. `undefined`/`null` is no options; a non-object, an unknown
 * name, an ill-typed value or a getter that throws is an `oda-tasks:` TypeError.
 *
 * @example
 * const { oneActive = true } = readOptions("runTool", options, { oneActive: BOOLEAN, maxInputLength: wholeNumber(2), cache: ANY });
 */
export function readOptions<T extends object>(call: string, options: unknown, rules: OptionRules<T>): Partial<T> {
  const own = ownOptions(call, options);
  for (const key of Object.keys(own)) {
    if (!Object.hasOwn(rules, key)) throw new TypeError(`oda-tasks: invalid arguments of ${call}: unknown option \`${key}\``);
    const value = own[key];
    if (value === undefined) {
      delete own[key];
      continue;
    }
    const rule = (rules as Record<string, OptionRule>)[key] as OptionRule;
    if (!rule.check(value)) {
      throw new TypeError(`oda-tasks: invalid arguments of ${call}: \`${key}\` must be ${rule.expected} (got ${shown(value)})`);
    }
  }
  return own as Partial<T>;
}

/**
 * The options' own enumerable properties, copied once: `undefined`/`null` → none;
 * a Proxy's or getter's throw is the host's error, thrown here.
 *
 * @example
 * const { store, chatId, ...rest } = ownOptions("toolHandlers", options);
 */
export function ownOptions(call: string, options: unknown): Record<string, unknown> {
  if (options === undefined || options === null) return Object.create(null) as Record<string, unknown>;
  if (typeof options !== "object" || typeName(options) === "an array") {
    throw new TypeError(`oda-tasks: invalid arguments of ${call}: options must be an object (got ${typeName(options)})`);
  }
  try {
    return Object.assign(Object.create(null) as Record<string, unknown>, { ...(options as Record<string, unknown>) });
  } catch (e) {
    throw new TypeError(`oda-tasks: invalid arguments of ${call}: reading the options threw ${describeError(e)}`);
  }
}

/** A value as the error shows it: primitives as written, other values by kind. */
function shown(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return typeName(value);
}
