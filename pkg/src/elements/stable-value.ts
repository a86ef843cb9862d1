// A React hook that keeps a value's first object while later renders hand
// over equal copies: the elements take a new object as a new answer and draw
// it, so a copy made by the chat kit on a re-render must not replace a newer
// screen the element's `src` pushed since.
import { useRef } from "react";

/**
 * `value`, or the object an earlier render handed over when `value` has the same JSON.
 *
 * @example
 * const plan = useStableValue(state.replayTodos().plan); // the same object until the plan changes
 */
export function useStableValue<T>(value: T): T {
  const kept = useRef<{ json: string; value: T } | null>(null);
  let json: string;
  try {
    json = JSON.stringify(value) ?? "";
  } catch {
    return value;
  }
  if (kept.current === null || kept.current.json !== json) kept.current = { json, value };
  return kept.current.value;
}
