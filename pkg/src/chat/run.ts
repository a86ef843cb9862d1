// Running a model's tool call against a stored chat: the core decides on the
// chat's warm state, the entry is appended at the length decided on, and a
// lost race is decided again. The host never judges a call itself.
import { suggestTask, todoWrite } from "../core/functions.js";
import { decideAndAppend, MAX_ATTEMPTS } from "./append-loop.js";
import { ANY, BOOLEAN, readOptions, wholeNumber, type OptionRule, type OptionRules } from "../core/options.js";
import { cacheFor, type ChatStateCache } from "./state-cache.js";
import type { Store } from "../stores/store.js";
import { todoWriteWithCard, type ChatState } from "../core/chat-state.js";
import type { Suggestion, SuggestionOfferedEntry, SuggestTaskResult, TodoCard, TodoUpdateEntry, TodoWriteResult } from "../core/types.js";
import { toolCallSeen, type TelemetryOptions } from "../telemetry/tool-call.js";

export { isConflict } from "../stores/store.js";

/**
 * A model's call of one of the package's tools, as function-calling APIs
 * deliver it: the tool's name and its input, unchecked (`unknown`): the core
 * checks its shape, so a malformed input is the model's refusal, not a throw.
 * `id`, the model's id of the call where the API gives one, is its span's
 * `gen_ai.tool.call.id`.
 *
 * @example
 * const call: ToolCall = { name: "todo_write", input: block.input, id: block.id }; // block: an SDK's tool_use block, its input unknown
 */
export type ToolCall = { name: "todo_write" | "suggest_task"; input: unknown; id?: string };

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
 * await runTool(store, "chat-1", call, { oneActive: false, maxInputLength: 65536 });
 */
export interface RunToolOptions {
  /** `todo_write`: at most one item `in_progress` per update (the core's default is `true`). */
  oneActive?: boolean;
  /** Longest input, in UTF-16 code units of its JSON text (default 1 MiB); longer is refused. */
  maxInputLength?: number;
  /** The warm chat states to use; by default one cache per store, shared with `SuggestionService`. */
  cache?: ChatStateCache;
  /**
   * The call's OpenTelemetry span (`execute_tool <tool>`, where `@opentelemetry/api`
   * is installed): `false` makes none; `{ recordContent: true }` also puts the
   * model's arguments and the text it reads on it (docs/operations.md).
   */
  telemetry?: boolean | TelemetryOptions;
}

/** `telemetry`: a boolean, or `{ recordContent }` with a boolean. */
const TELEMETRY: OptionRule = {
  expected: "a boolean or { recordContent: boolean }",
  check: (v) =>
    typeof v === "boolean" ||
    (typeof v === "object" &&
      v !== null &&
      !Array.isArray(v) &&
      Object.keys(v).every((k) => k === "recordContent") &&
      ["boolean", "undefined"].includes(typeof (v as TelemetryOptions).recordContent)),
};

/**
 * How many times a call is decided again after another writer appended to
 * the same chat first (the same for every write of the host layer).
 *
 * @example
 * console.log(MAX_TOOL_ATTEMPTS); // 20
 */
export const MAX_TOOL_ATTEMPTS = MAX_ATTEMPTS;

/** Internal: the options of {@link runTool} and of every entry that passes them on (`toolHandlers`, `aiTools`, `aiTurn`). */
export const RUN_OPTION_RULES: OptionRules<RunToolOptions> = {
  oneActive: BOOLEAN,
  maxInputLength: wholeNumber(2),
  cache: ANY,
  telemetry: TELEMETRY,
};

/**
 * Runs a `todo_write` or `suggest_task` call for chat `chatId` and records
 * what the core accepts, appended only if the chat is still as long as when
 * it was decided (else decided again), so one suggestion per turn holds
 * across processes. A chat that does not exist is "no owning session".
 *
 * Throws a `TypeError` for a tool name this package does not know or an
 * unknown option (a host bug, not the model's), and an `Error` after
 * {@link MAX_TOOL_ATTEMPTS} lost races.
 *
 * @example
 * import { runTool } from "oda-tasks";
 * const r = await runTool(store, "chat-1", { name: "suggest_task", input: block.input });
 * r.ok ? r.output : r.error;
 */
export async function runTool(store: Store, chatId: string, call: ToolCall, options?: RunToolOptions | null): Promise<ToolResult> {
  const { ui: _ui, ...result } = await recordCall(store, chatId, call, options, false);
  return result;
}

/**
 * What a tool call resolves to for a chat's UI: `text`, the core's exact
 * output or refusal (the only part the model sees); `card`, the recorded
 * `todo_write`'s card (what `<oda-todo-card>` takes); `offer`, the recorded
 * suggestion.
 *
 * @example
 * const handlers = toolHandlers({ store, chatId: "chat-1", ui: true });
 * const { text, card } = await handlers.todo_write(input);
 */
export interface UiToolResult {
  text: string;
  card?: TodoCard;
  offer?: Suggestion;
}

/**
 * Internal: {@link runTool} whose answer also carries what the UI draws
 * (`ui`: the card of a recorded update or the recorded offer).
 */
export async function runToolForUi(store: Store, chatId: string, call: ToolCall, options?: RunToolOptions | null): Promise<UiToolResult> {
  const { ok: _ok, ...result } = await runToolWithParts(store, chatId, call, options);
  return result;
}

/**
 * Internal: {@link runToolForUi}'s answer and whether the core accepted the
 * call (`ok`), for protocols that mark a refusal (MCP's `isError`).
 * `conversationId` is the chat as the caller names it on the call's span,
 * where `chatId` is a store key of an owner's (stores/owners.ts).
 */
export async function runToolWithParts(
  store: Store,
  chatId: string,
  call: ToolCall,
  options?: RunToolOptions | null,
  conversationId = chatId,
): Promise<UiToolResult & { ok: boolean }> {
  const r = await recordCall(store, chatId, call, options, true, conversationId);
  return { ok: r.ok, text: r.ok ? r.output : r.error, ...r.ui };
}

type Recorded = ToolResult & { ui: { card?: TodoCard; offer?: Suggestion } };

async function recordCall(
  store: Store,
  chatId: string,
  call: ToolCall,
  options: RunToolOptions | null | undefined,
  ui: boolean,
  conversationId = chatId,
): Promise<Recorded> {
  const opts = readOptions("runTool", options, RUN_OPTION_RULES);
  const decide = decider(call, opts, ui);
  const cache = cacheFor("runTool", store, opts.cache);
  const name = String(ownValue(call, "name"));
  const id = ownValue(call, "id");
  const about = { tool: name, callId: typeof id === "string" ? id : undefined, conversationId, input: ownValue(call, "input") };
  const record = () =>
    decideAndAppend<Recorded>(cache, chatId, `${name} on chat "${chatId}"`, (state) => {
      const { result, card } = decide(state);
      if (!result.ok) {
        const refused: Recorded = { ok: false, error: result.error, ui: {} };
        // A write made before the model saw a person's edit: refused, and recorded as told of it.
        // biome-ignore lint/suspicious/noThenProperty: the append loop's step (append-loop.ts `Step`), never awaited
        return "entry" in result ? { append: [result.entry], then: refused } : { done: refused };
      }
      // Decided on the state the entry is appended to: the card is the one replay will make.
      const shown = !ui || state === null ? {} : card !== null ? { card } : uiParts(result.entry);
      // biome-ignore lint/suspicious/noThenProperty: the append loop's step (append-loop.ts `Step`): `then` is what it answers after the append, never awaited
      return { append: [result.entry], then: { ok: true, output: result.output, ui: shown } };
    });
  return toolCallSeen(about, opts.telemetry, record, (r) => ({ ok: r.ok, text: r.ok ? r.output : r.error }));
}

/** The offer of a `suggestion_offered` about to be appended (a `todo_update`'s card comes with its decision). */
function uiParts(entry: TodoUpdateEntry | SuggestionOfferedEntry): { offer?: Suggestion } {
  return entry.type === "suggestion_offered" ? { offer: { id: entry.id, title: entry.title, tldr: entry.tldr, brief: entry.brief } } : {};
}

/** A decision, and the card of an accepted `todo_write` when the caller shows one. */
type Decide = (state: ChatState | null) => { result: TodoWriteResult | SuggestTaskResult; card: TodoCard | null };

function decider(call: ToolCall, options: RunToolOptions, ui: boolean): Decide {
  // Own properties only, as of every option: a polluted Object.prototype supplies no part of a call.
  const name = ownValue(call, "name");
  const input = ownValue(call, "input");
  const limit = options.maxInputLength === undefined ? {} : { maxInputLength: options.maxInputLength };
  switch (name) {
    case "todo_write": {
      const opts = options.oneActive === undefined ? limit : { ...limit, oneActive: options.oneActive };
      if (ui)
        return (state) => (state === null ? { result: todoWrite(null, input, opts), card: null } : todoWriteWithCard(state, input, opts));
      return (state) => ({ result: state === null ? todoWrite(null, input, opts) : state.todoWrite(input, opts), card: null });
    }
    case "suggest_task":
      return (state) => ({ result: state === null ? suggestTask(null, input, limit) : state.suggestTask(input, limit), card: null });
    default:
      throw new TypeError(`oda-tasks: runTool knows the tools "todo_write" and "suggest_task" (got ${JSON.stringify(String(name))})`);
  }
}

function ownValue(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}
