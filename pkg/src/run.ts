// Running a model's tool call against a stored chat: read the log, let the
// core decide, append its entry conditionally, retry on a lost race. The
// host never judges a call itself; it only orders the write.
import { suggestTask, todoWrite } from "./core.js";
import type { LogEntry, SuggestTaskInput, TodoWriteInput } from "./core.js";
import { ConflictError } from "./store.js";
import type { Store } from "./store.js";

/**
 * A model's call of one of the package's tools, as function-calling APIs
 * deliver it: the tool's name and its (unchecked) input. The core checks the
 * input's shape, so a malformed input is the model's refusal, not a throw.
 *
 * @example
 * const call = { name: "todo_write", input: { todos: [{ content: "Write tests", status: "pending" }] } };
 */
export type ToolCall =
  | { name: "todo_write"; input: TodoWriteInput | Record<string, unknown> }
  | { name: "suggest_task"; input: SuggestTaskInput | Record<string, unknown> };

/**
 * What to tell the model: the core's success `output` or its exact refusal
 * `error`. A refusal records nothing.
 *
 * @example
 * const r = await runTool(store, "chat-1", call);
 * reply(r.ok ? r.output : r.error);
 */
export type ToolResult = { ok: true; output: string } | { ok: false; error: string };

/**
 * Host options for {@link runTool}.
 *
 * @example
 * await runTool(store, "chat-1", call, { oneActive: false });
 */
export interface RunToolOptions {
  /** `todo_write`: at most one item `in_progress` per update (the core's default is `true`). */
  oneActive?: boolean;
}

/**
 * How many times a call is decided again after another writer appended to
 * the same chat first. Each retry re-reads, so only a chat written faster
 * than we can read it runs out.
 *
 * @example
 * // runTool throws after this many lost races: a chat written faster than it can be read.
 * console.log(MAX_TOOL_ATTEMPTS); // 20
 */
export const MAX_TOOL_ATTEMPTS = 20;

/**
 * Runs a `todo_write` or `suggest_task` call for chat `chatId` and records
 * what the core accepts. The core judges against the log as read; the entry
 * is appended only if the log is still that long, else it is read and judged
 * again, so two racing calls are both decided on what the other wrote (e.g.
 * one suggestion per turn holds across processes). A chat that does not exist
 * is "no owning session", which the core refuses with its own text.
 *
 * Throws a `TypeError` for a tool name this package does not know (a host
 * bug, not the model's), and an `Error` after {@link MAX_TOOL_ATTEMPTS} lost races.
 *
 * @example
 * import { runTool } from "oda-tasks";
 * const r = await runTool(store, "chat-1", {
 *   name: "suggest_task",
 *   input: { title: "Add retries", tldr: "Uploads fail on flaky networks", brief: "In upload.ts ..." },
 * });
 * r.ok ? r.output : r.error; // 'Suggested "Add retries". The user decides whether to start it; do not start it yourself.'
 */
export async function runTool(
  store: Store,
  chatId: string,
  call: ToolCall,
  options: RunToolOptions = {},
): Promise<ToolResult> {
  const decide = decider(call, options);
  for (let attempt = 0; attempt < MAX_TOOL_ATTEMPTS; attempt++) {
    const log = await store.read(chatId);
    const result = decide(log);
    if (!result.ok) return { ok: false, error: result.error };
    if (log === null) {
      // The core refuses a missing chat; an acceptance here would be a core bug.
      throw new Error(`oda-tasks: the core accepted a ${call.name} call for chat "${chatId}", which does not exist`);
    }
    try {
      await store.append(chatId, [result.entry], log.length);
      return { ok: true, output: result.output };
    } catch (e) {
      if (isConflict(e)) continue;
      throw e;
    }
  }
  throw new Error(
    `oda-tasks: ${call.name} on chat "${chatId}" lost ${MAX_TOOL_ATTEMPTS} races to other writers; try again`,
  );
}

/**
 * Whether a store refused an append because its `expectedLength` no longer
 * holds. Also recognises a `store/conflict` error from a second copy of this
 * package (a store shipped by another bundle), where `instanceof` fails.
 *
 * @example
 * try { await store.append(id, [entry], log.length); } catch (e) { if (!isConflict(e)) throw e; }
 */
export function isConflict(error: unknown): boolean {
  return error instanceof ConflictError || (error instanceof Error && (error as { code?: unknown }).code === "store/conflict");
}

type Decision = { ok: true; entry: LogEntry; output: string } | { ok: false; error: string };

function decider(call: ToolCall, options: RunToolOptions): (log: LogEntry[] | null) => Decision {
  const name: unknown = (call as { name?: unknown } | null | undefined)?.name;
  switch (name) {
    case "todo_write": {
      const input = call.input as TodoWriteInput;
      const opts = options.oneActive === undefined ? {} : { oneActive: options.oneActive };
      return (log) => todoWrite(log, input, opts);
    }
    case "suggest_task": {
      const input = call.input as SuggestTaskInput;
      return (log) => suggestTask(log, input);
    }
    default:
      throw new TypeError(
        `oda-tasks: runTool knows the tools "todo_write" and "suggest_task" (got ${JSON.stringify(String(name))})`,
      );
  }
}
