// What this process's work tells whoever measures it (`oda-tasks serve`'s
// metrics): tool calls and their outcome, store operations and their time,
// MCP operations, event streams opened and closed, change feeds connecting
// again. Nothing is kept here: with no observer, telling costs one check.
// Every value told is of a bounded set (no chat id, owner or token).

/** How a tool call ended: recorded by the core, refused (the model reads why), or failed (a store's or the host's error). */
export type ToolOutcome = "recorded" | "refused" | "failed";

/** How a store operation ended: it answered, it lost a race to another writer, or it failed. */
export type StoreOutcome = "ok" | "conflict" | "error";

/**
 * One who measures: each method is told as it happens, and a throw of it
 * changes nothing of the work told about.
 */
export interface Observer {
  toolCall?(tool: string, outcome: ToolOutcome): void;
  storeOperation?(kind: string, operation: string, outcome: StoreOutcome, seconds: number): void;
  /** An MCP request or notification handled: its method, its tool (`tools/call`), its `error.type` (none when it succeeded). */
  mcpOperation?(method: string, tool: string | undefined, errorType: string | undefined, seconds: number): void;
  /** An event stream opened (+1) or closed (-1). */
  eventStreams?(change: 1 | -1): void;
  /** A store's change feed tried to listen again after its connection failed or was lost. */
  feedReconnect?(kind: string): void;
}

const observers = new Set<Observer>();

/**
 * Adds `observer` for this process; resolves to the function that removes it.
 *
 * @example
 * const counts = new Set<string>();
 * const stop = observe({ toolCall: (tool, outcome) => counts.add(`${tool} ${outcome}`) });
 */
export function observe(observer: Observer): () => void {
  observers.add(observer);
  return () => {
    observers.delete(observer);
  };
}

/** Whether anyone observes (work that costs something to tell, a clock read, is skipped otherwise). */
export function observed(): boolean {
  return observers.size > 0;
}

/**
 * Tells every observer's `method` of `args`.
 *
 * @example
 * tell("eventStreams", 1);
 */
export function tell<K extends keyof Observer>(method: K, ...args: Parameters<NonNullable<Observer[K]>>): void {
  for (const observer of observers) {
    try {
      (observer[method] as ((...a: unknown[]) => void) | undefined)?.(...args);
    } catch {
      // an observer's failure changes no work of the package
    }
  }
}
