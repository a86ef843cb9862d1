// The schemas a chat UI checks an activity's content with before it draws it
// (CopilotKit calls `safeParse`; Standard Schema's `~standard.validate` for
// others): the elements' own shape checks, so no schema library is loaded.
import type { SuggestionList } from "../chat/service.js";
import type { TodoCard, TodoPlan } from "../core/types.js";
import { suggestionListProblem, todoCardProblem, todoPlanProblem } from "./shapes.js";

/**
 * What `safeParse` answers: the value itself when it has the shape, else the
 * problem as an `Error` (`oda-tasks: <what> …`).
 *
 * @example
 * const parsed: SafeParseResult<TodoPlan> = odaPlanSchema.safeParse(JSON.parse(text));
 */
export type SafeParseResult<T> = { success: true; data: T; error?: undefined } | { success: false; error: Error; data?: undefined };

/**
 * A schema of one content shape: `safeParse` as zod has it, and the
 * Standard Schema v1 interface (`~standard`).
 *
 * @example
 * const content: unknown = JSON.parse(text);
 * if (odaCardSchema.safeParse(content).success) console.log("a card of view().cards");
 */
export interface OdaContentSchema<T> {
  /** Checks `value`: `{ success: true, data }` (the value as given) or `{ success: false, error }`. */
  safeParse(value: unknown): SafeParseResult<T>;
  /** Standard Schema v1: the same check. */
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: "oda-tasks";
    /** Standard Schema's check: the value, or the issues. */
    readonly validate: (value: unknown) => { value: T; issues?: undefined } | { issues: readonly { message: string }[] };
    readonly types?: { readonly input: T; readonly output: T } | undefined;
  };
}

function schema<T>(what: string, problem: (value: unknown) => string | null): OdaContentSchema<T> {
  const message = (why: string) => `oda-tasks: ${what}: ${why}`;
  return {
    safeParse(value) {
      const why = problem(value);
      return why === null ? { success: true, data: value as T } : { success: false, error: new TypeError(message(why)) };
    },
    "~standard": {
      version: 1,
      vendor: "oda-tasks",
      validate(value) {
        const why = problem(value);
        return why === null ? { value: value as T } : { issues: [{ message: message(why) }] };
      },
    },
  };
}

/**
 * The schema of a card's content (`oda-card`): a `TodoCard`.
 *
 * @example
 * odaCardSchema.safeParse({}).success; // false
 */
export const odaCardSchema: OdaContentSchema<TodoCard> = schema("not a card of view().cards", todoCardProblem);

/**
 * The schema of the plan's content (`oda-plan`): a `TodoPlan`.
 *
 * @example
 * odaPlanSchema.safeParse({ state: "none", todos: [], turn: null }).success; // true
 */
export const odaPlanSchema: OdaContentSchema<TodoPlan> = schema("not a plan of view().plan", todoPlanProblem);

/**
 * The schema of the suggestions' content (`oda-suggestions`): `{ open, settled }`.
 *
 * @example
 * odaSuggestionsSchema.safeParse({ open: [], settled: [] }).success; // true
 */
export const odaSuggestionsSchema: OdaContentSchema<SuggestionList> = schema(
  "not a list of service.list() ({ open, settled })",
  suggestionListProblem,
);
