// What the elements accept: the shapes of the core's answers they draw. A
// malformed value is refused at the property, with what was wrong, before
// anything is drawn, so the element keeps its last good value and works on.
const STATUSES = ["pending", "in_progress", "completed"];
const OUTCOMES = ["started", "drafted", "dismissed"];

type Problem = string | null;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const kind = (v: unknown): string =>
  v === null || v === undefined ? String(v) : Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : `a ${typeof v}`;
const first = (...problems: (() => Problem)[]): Problem => {
  for (const p of problems) {
    const found = p();
    if (found !== null) return found;
  }
  return null;
};

function text(v: unknown, at: string): Problem {
  return typeof v === "string" ? null : `${at} must be a string (got ${kind(v)})`;
}
function count(v: unknown, at: string): Problem {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? null : `${at} must be a whole number (got ${kind(v)})`;
}
function turn(v: unknown, at: string): Problem {
  return v === null || (typeof v === "number" && Number.isSafeInteger(v)) ? null : `${at} must be a turn number or null (got ${kind(v)})`;
}
function status(v: unknown, at: string): Problem {
  return STATUSES.includes(v as string) ? null : `${at} must be "pending", "in_progress" or "completed"`;
}
function list(v: unknown, at: string, each: (item: Record<string, unknown>, at: string) => Problem): Problem {
  if (!Array.isArray(v)) return `${at} must be an array (got ${kind(v)})`;
  for (let i = 0; i < v.length; i++) {
    const item: unknown = v[i];
    if (!isObject(item)) return `${at}[${i}] must be an object (got ${kind(item)})`;
    const p = each(item, `${at}[${i}]`);
    if (p !== null) return p;
  }
  return null;
}
/** An item whose named fields each pass their check, in order: the first problem found. */
const fields =
  (checks: Record<string, (v: unknown, at: string) => Problem>) =>
  (item: Record<string, unknown>, at: string): Problem =>
    first(
      ...Object.entries(checks).map(
        ([name, check]) =>
          () =>
            check(item[name], `${at}.${name}`),
      ),
    );
const todo = fields({ content: text, status });
/** A change of an item's `from` to `to` (a status, or a position), each checked by `check`. */
const fromTo = (check: (v: unknown, at: string) => Problem) => fields({ content: text, from: check, to: check });

/**
 * Why `value` is not a card of `view().cards` (or `cards(from, to)`), or `null` when it is one.
 *
 * @example
 * todoCardProblem({}); // "`todos` must be an array (got undefined)"
 */
export function todoCardProblem(value: unknown): Problem {
  if (!isObject(value)) return `it must be an object (got ${kind(value)})`;
  const c = value as Record<string, unknown>;
  const changes = c.changes;
  const counts = c.counts;
  return first(
    () => list(c.todos, "`todos`", todo),
    () => (isObject(changes) ? null : `\`changes\` must be an object (got ${kind(changes)})`),
    () => list((changes as Record<string, unknown>).added, "`changes.added`", todo),
    () => list((changes as Record<string, unknown>).removed, "`changes.removed`", (r, at) => text(r.content, `${at}.content`)),
    () => list((changes as Record<string, unknown>).statusChanged, "`changes.statusChanged`", fromTo(status)),
    () => list((changes as Record<string, unknown>).moved, "`changes.moved`", fromTo(count)),
    () => (isObject(counts) ? null : `\`counts\` must be an object (got ${kind(counts)})`),
    () => count((counts as Record<string, unknown>).pending, "`counts.pending`"),
    () => count((counts as Record<string, unknown>).inProgress, "`counts.inProgress`"),
    () => count((counts as Record<string, unknown>).completed, "`counts.completed`"),
    () => turn(c.turn ?? null, "`turn`"),
    () =>
      c.by === undefined
        ? null
        : isObject(c.by)
          ? c.by.name === undefined
            ? null
            : text(c.by.name, "`by.name`")
          : `\`by\` must be an object (got ${kind(c.by)})`,
  );
}

/**
 * Why `value` is not a list of `view().todos` (items of `content` and `status`), or `null` when it is one.
 *
 * @example
 * todoListProblem([{ content: "Ship" }]); // '`todos`[0].status must be "pending", "in_progress" or "completed"'
 */
export function todoListProblem(value: unknown): Problem {
  return list(value, "`todos`", todo);
}

/**
 * Why `value` is not a card of `previewCard(input, lastCard)`, or `null` when it is one.
 *
 * @example
 * previewCardProblem({ todos: [] }); // "`preview` must be true"
 */
export function previewCardProblem(value: unknown): Problem {
  return isObject(value) && value.preview !== true ? "`preview` must be true" : todoCardProblem(value);
}

/**
 * Why `value` is not a plan of `view().plan`, or `null` when it is one.
 *
 * @example
 * todoPlanProblem({ state: "running", todos: "abc", turn: 1 }); // "`todos` must be an array (got a string)"
 */
export function todoPlanProblem(value: unknown): Problem {
  if (!isObject(value)) return `it must be an object (got ${kind(value)})`;
  const p = value as Record<string, unknown>;
  return first(
    () => (["none", "running", "finished"].includes(p.state as string) ? null : '`state` must be "none", "running" or "finished"'),
    () => list(p.todos, "`todos`", todo),
    () => turn(p.turn ?? null, "`turn`"),
  );
}

const suggestion = fields({ id: text, title: text, tldr: text, brief: text });

/**
 * Why `value` is not a `service.list()` answer (`{ open, settled }`), or `null` when it is one.
 *
 * @example
 * suggestionListProblem({ open: 5 }); // "`open` must be an array (got a number)"
 */
export function suggestionListProblem(value: unknown): Problem {
  if (!isObject(value)) return `it must be an object (got ${kind(value)})`;
  const l = value as Record<string, unknown>;
  return first(
    () => list(l.open, "`open`", suggestion),
    () =>
      list(l.settled, "`settled`", (s, at) =>
        first(
          () => suggestion(s, at),
          () => (OUTCOMES.includes(s.outcome as string) ? null : `${at}.outcome must be "started", "drafted" or "dismissed"`),
          () => (s.chatId === undefined ? null : text(s.chatId, `${at}.chatId`)),
          () =>
            s.progress === undefined
              ? null
              : isObject(s.progress)
                ? fields({ completed: count, total: count })(s.progress as Record<string, unknown>, `${at}.progress`)
                : `${at}.progress must be an object (got ${kind(s.progress)})`,
        ),
      ),
  );
}

/**
 * `value` as the property's value (`null` for none), or a TypeError naming
 * the element, the property and what was wrong; nothing is changed then.
 *
 * @example
 * const value = accepted<TodoCard>("oda-todo-card", "card", "a card of view().cards", input, todoCardProblem); // or throws
 */
export function accepted<T>(
  element: string,
  property: string,
  expected: string,
  value: unknown,
  problem: (v: unknown) => Problem,
): T | null {
  if (value === null || value === undefined) return null;
  const why = problem(value);
  if (why !== null) throw new TypeError(`oda-tasks: <${element}>.${property} must be ${expected}, or null: ${why}`);
  return value as T;
}
