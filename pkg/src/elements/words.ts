// The words the elements show; one place, so a state reads the same everywhere.
import type { TodoStatus } from "../core/types.js";

/**
 * A to-do state in words.
 *
 * @example
 * STATUS.in_progress; // "In progress"
 */
export const STATUS: Record<TodoStatus, string> = { pending: "Pending", in_progress: "In progress", completed: "Completed" };

/**
 * A settled offer's outcome in words.
 *
 * @example
 * OUTCOME.dismissed; // "Dismissed"
 */
export const OUTCOME: Record<"started" | "drafted" | "dismissed", string> = {
  started: "Started",
  drafted: "Drafted",
  dismissed: "Dismissed",
};

/**
 * "1 entry", "2 entries": a count with its noun.
 *
 * @example
 * plural(2, "card"); // "2 cards"
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
