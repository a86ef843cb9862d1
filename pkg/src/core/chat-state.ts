// `ChatState`: one chat's state kept alive in the WASM core. Build it from a
// log once, feed it only what is new, and ask it every question; nothing
// re-reads or re-sends the whole log. The pure functions (core.ts) are thin
// wrappers over it.
import { ChatStateCore } from "../../wasm/oda_tasks.js";
import { assertReady } from "./ready.js";
import { entryLines, hostParams, inSlices, inputLimit, logArray, modelInput, recordArgument } from "./convert.js";
import { ANY, BOOLEAN, ownOptions, readOptions, wholeNumber, type OptionRules } from "./options.js";
import { realmIntact } from "./realm-guard.js";
import type {
  ChatSessionInfo,
  ChatView,
  GoalAction,
  GoalCheck,
  JsonlReport,
  ListState,
  Log,
  LogEntry,
  SettleAction,
  SettleDecision,
  StartDecision,
  StartedChatState,
  StartRequest,
  SuggestionReplay,
  SuggestTaskResult,
  TodoCard,
  TodoItem,
  TodoReplay,
  TodoToldEntry,
  TodoUpdateEntry,
  TodoWriteOptions,
  TodoWriteResult,
  ToolCallOptions,
} from "./types.js";

// The key under which an entry the core wrote carries its exact stored text: the stores' `entryLine` reads it.
import { entryLine, RAW_TEXT, parseJson, withCoreText } from "./entry-text.js";
export { RAW_TEXT };

/** An answer from the core: `[answer JSON, entry texts…]`; each entry gets its exact text under {@link RAW_TEXT}. */
export function withEntryTexts<T>(parts: string[], entries: (answer: T) => unknown[]): T {
  const [json, ...texts] = parts;
  const answer = parseJson(json as string) as T;
  entries(answer).forEach((entry, i) => {
    const text = texts[i];
    if (entry !== null && typeof entry === "object" && text !== undefined) withCoreText(entry, text);
  });
  return answer;
}

/** The entries of a tool answer, in the order the core gives their texts. */
export const toolEntries = (r: { ok: boolean; entry?: unknown }): unknown[] => (r.ok ? [r.entry] : []);
const settleEntries = (r: SettleDecision): unknown[] => (r.ok ? [r.entry] : []);
const startEntries = (r: StartDecision): unknown[] => (!r.ok ? [] : r.kind === "create" ? [r.session, r.settled, r.brief] : [r.brief]);

/** Throws unless `from` is where `core`'s log continues. */
function continuing(core: ChatStateCore, from: unknown): void {
  if (typeof from !== "number" || !Number.isSafeInteger(from) || from !== core.length) {
    throw new Error(
      `oda-tasks: ingest(from = ${typeof from === "number" ? String(from) : typeof from}) does not continue this state of ${core.length} entries; feed entries from index ${core.length}`,
    );
  }
}

/** A whole number of cards, or a TypeError. */
function cardNumber(call: string, name: string, value: unknown, absent: number): number {
  if (value === undefined) return absent;
  if (typeof value !== "number") {
    throw new TypeError(`oda-tasks: invalid arguments of ${call}: \`${name}\` must be a number`);
  }
  return value;
}

/**
 * Options of a {@link ChatState}.
 *
 * @example
 * ChatState.fromLog(log, { cards: false }); // for deciding tool calls only
 */
export interface ChatStateOptions {
  /** Keep a card per todo update, for `replayTodos()` (default `true`; decisions do not need them). */
  cards?: boolean;
  /**
   * The longest JSONL line {@link ChatState.ingestJsonl} reads, in bytes
   * (default: any the engine can hold); a longer line is reported unreadable
   * ("the line is too long to read") and skipped without being held whole.
   */
  maxLineBytes?: number;
}

const FREED = "oda-tasks: this ChatState was freed; build a new one";

/** What a method was called on, for the error that says it was not a ChatState. */
function receiver(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (typeof value !== "object") return `a ${typeof value}`;
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  if (name === "ChatState") return "an object that only inherits from ChatState.prototype";
  return typeof name === "string" && name !== "" && name !== "Object" ? `a ${name}` : "an object";
}

/** Whether a buffer was detached (transferred or posted away): its views then read as empty. */
function detached(buffer: ArrayBufferLike): boolean {
  const flag = (buffer as { detached?: unknown }).detached;
  if (typeof flag === "boolean") return flag;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

/**
 * Options of {@link ChatState.editTodos}: the log length the person's screen
 * showed, their display name, and `todo_write`'s options.
 *
 * @example
 * state.editTodos([{ content: "Ship", status: "completed" }], { basedOn: state.length, by: "Ada" } satisfies EditTodosOptions);
 */
export interface EditTodosOptions extends TodoWriteOptions {
  /** The log's length the person's screen showed (a screen's `length`, `ChatState#length`): the list must not have changed since. */
  basedOn: number;
  /** The person's display name for the card ("Edited by Ada"), 1 to 200 characters; none: "Edited by you". */
  by?: string;
}

/**
 * What {@link ChatState.editTodos} decides: the update to record (`entry`,
 * `null` when the list already is the edited one), the core's refusal of the
 * list (`error`, the text `todo_write` refuses it with), or `chat/changed`: the
 * list changed after `basedOn`.
 *
 * @example
 * const d: EditDecision = state.editTodos([{ content: "Ship", status: "pending" }], { basedOn: 12 });
 * if (d.ok && d.entry !== null) await store.append("chat-1", [d.entry], state.length);
 */
export type EditDecision = { ok: true; entry: TodoUpdateEntry | null } | { ok: false; error: string } | { ok: false; code: "chat/changed" };

/**
 * What the model is told of a person's edit, and the record of it to append.
 *
 * @example
 * const told: EditNotice | null = state.editNotice(); // its text goes into the model's context, its entry into the log
 */
export interface EditNotice {
  /** The exact text: what the person changed, and the list as edited. */
  text: string;
  /** The `todo_told` entry that records it was told. */
  entry: TodoToldEntry;
}

/** The binding's `told` answer: its text and the `todo_told` to record, or `null` when nothing is to be told. */
function toldOf(parts: string[]): EditNotice | null {
  const answer = withEntryTexts<{ entry: TodoToldEntry; output: string } | null>(parts, (a) => (a === null ? [] : [a.entry]));
  return answer === null ? null : { text: answer.output, entry: answer.entry };
}

/** Longest display name of an edit's `by`. */
const MAX_EDITOR_NAME = 200;

/** Internal: the rules of {@link EditTodosOptions} (`basedOn` is required: checked after them). */
export const EDIT_OPTION_RULES: OptionRules<EditTodosOptions> = {
  basedOn: wholeNumber(0),
  by: {
    expected: `a well-formed string of 1 to ${MAX_EDITOR_NAME} characters`,
    // With the `u` flag a surrogate range matches only a surrogate without its pair.
    check: (v) => typeof v === "string" && v.length > 0 && v.length <= MAX_EDITOR_NAME && !/[\uD800-\uDFFF]/u.test(v),
  },
  oneActive: BOOLEAN,
  maxInputLength: wholeNumber(2),
};

/**
 * Internal (a tool's UI result): `state.todoWrite(input, options)` and, when
 * accepted, the card its entry makes when appended now, decided in one call of the core.
 *
 * @example
 * const { result, card } = todoWriteWithCard(state, { todos: [{ content: "Ship", status: "pending" }] });
 */
export let todoWriteWithCard: (
  state: ChatState,
  input: unknown,
  options?: TodoWriteOptions,
) => { result: TodoWriteResult; card: TodoCard | null };

/**
 * A chat's state in the WASM core: the fold of its log, kept between calls.
 * Its answers equal the pure functions' on the same log.
 *
 * @example
 * import { ChatState } from "oda-tasks";
 * const state = ChatState.fromLog((await store.read("chat-1")) ?? []); // in JS, `using state = …` frees it too
 * try {
 *   const r = state.suggestTask(call.input);
 *   if (r.ok) { await store.append("chat-1", [r.entry], state.length); state.ingest(state.length, [r.entry]); }
 * } finally { state.free(); }
 */
export class ChatState {
  #core: ChatStateCore | undefined;

  static {
    todoWriteWithCard = (state, input, options) => {
      const params = todoParams(input, options);
      const core = ChatState.#live(state, "todoWrite");
      const stale = ChatState.#stale(core);
      if (stale !== null) return { result: stale, card: null };
      const parts = core.todoWriteCard(params);
      const card = parts.length === 3 ? (parseJson(parts.pop() as string) as TodoCard) : null;
      return { result: withEntryTexts<TodoWriteResult>(parts, toolEntries), card };
    };
  }

  /** The guard every `todo_write` passes first: refused, told of a person's edit it was written before, or `null`. */
  static #stale(core: ChatStateCore): TodoWriteResult | null {
    const told = toldOf(core.told(true));
    return told === null ? null : { ok: false, error: told.text, entry: told.entry };
  }

  private constructor(options: ChatStateOptions | undefined) {
    assertReady();
    const { cards = true, maxLineBytes } = readOptions<ChatStateOptions>("ChatState", options, {
      cards: BOOLEAN,
      maxLineBytes: wholeNumber(1),
    });
    this.#core = new ChatStateCore(cards);
    if (maxLineBytes !== undefined) this.#core.limitJsonlLines(maxLineBytes);
  }

  /**
   * A state of an empty log, to feed with {@link ingest} or {@link ingestJsonl}.
   *
   * @example
   * const state = ChatState.empty();
   */
  static empty(options?: ChatStateOptions): ChatState {
    return new ChatState(options);
  }

  /**
   * The state of a log given as entries.
   *
   * @example
   * const state = ChatState.fromLog([{ type: "session", workspace: "/w" }, { type: "turn_started" }]);
   */
  static fromLog(log: Log, options?: ChatStateOptions): ChatState {
    const entries = logArray(log);
    return ChatState.#built(options, (state) => state.ingest(0, entries as readonly LogEntry[]));
  }

  /**
   * The state of a JSONL log given as bytes (one chunk or several): parsed
   * inside WASM, with no per-entry object crossing over.
   *
   * @example
   * import { readFile } from "node:fs/promises";
   * const state = ChatState.fromJsonl(await readFile("chat.jsonl"));
   */
  static fromJsonl(bytes: Uint8Array | Iterable<Uint8Array>, options?: ChatStateOptions): ChatState {
    const iterable = typeof (bytes as { [Symbol.iterator]?: unknown } | null)?.[Symbol.iterator] === "function";
    if (!(bytes instanceof Uint8Array) && !iterable) {
      throw new TypeError("oda-tasks: ChatState.fromJsonl needs a Uint8Array or an iterable of Uint8Array chunks");
    }
    return ChatState.#built(options, (state) => {
      if (bytes instanceof Uint8Array) state.ingestJsonl(bytes);
      else for (const chunk of bytes) state.ingestJsonl(chunk);
      state.endJsonl();
    });
  }

  /** A new state filled by `fill`; if that throws, its WASM memory is freed at once, not left to the GC. */
  static #built(options: ChatStateOptions | undefined, fill: (state: ChatState) => void): ChatState {
    const state = new ChatState(options);
    try {
      fill(state);
    } catch (e) {
      state.free();
      throw e;
    }
    return state;
  }

  /** Entries folded so far: the log's length. */
  get length(): number {
    return ChatState.#live(this, "length").length;
  }

  /**
   * Folds `entries`, which must continue the log at index `from` (its
   * current length); otherwise throws, so a gap or a double feed cannot pass.
   *
   * @example
   * state.ingest(state.length, (await readFrom(store, "chat-1", state.length)) ?? []);
   */
  ingest(from: number, entries: readonly LogEntry[]): void {
    // The entries are read (their getters run) before the core is looked at.
    const list = logArray(entries, "entries");
    const lines = list.length === 0 ? "" : entryLines(list, typeof from === "number" ? from : 0);
    const core = ChatState.#live(this, "ingest");
    continuing(core, from);
    if (list.length === 0) return;
    core.ingest(from, list.length, lines);
  }

  /**
   * Folds entries given as their JSON texts exactly as stored (no JS
   * re-serialising), continuing the log at `from`. A text that is not one
   * JSON value is an entry skipped as "not JSON".
   *
   * @example
   * const texts = await new JsonlStore("./chats").readTextFrom("chat-1", state.length);
   * if (texts) state.ingestTexts(state.length, texts);
   */
  ingestTexts(from: number, texts: readonly string[]): void {
    if (!Array.isArray(texts) || !texts.every((t) => typeof t === "string")) {
      throw new TypeError("oda-tasks: invalid arguments of ingestTexts: `texts` must be an array of strings");
    }
    const copy = [...texts];
    const core = ChatState.#live(this, "ingestTexts");
    continuing(core, from);
    if (copy.length > 0) core.ingestTexts(from, copy);
  }

  /** The number of todo cards (needs `cards: true`, the default). */
  get cardCount(): number {
    return ChatState.#live(this, "cardCount").cardCount;
  }

  /**
   * The chat's first screen in one call: the list, the plan, the open and
   * settled suggestions, the card count and the last `cards` cards.
   *
   * @example
   * const { todos, plan, open, cardCount, cards } = state.view({ cards: 50 });
   */
  view(options: { cards: number }): ChatView {
    const { cards } = readOptions<{ cards: number }>("view", options, { cards: wholeNumber(0) });
    if (cards === undefined)
      throw new TypeError("oda-tasks: invalid arguments of view: `cards` must be a whole number >= 0 (got undefined)");
    const core = ChatState.#live(this, "view");
    return (realmIntact() ? core.viewValue(cards) : parseJson(core.view(cards))) as ChatView;
  }

  /**
   * One page of cards, with \`Array.prototype.slice\` semantics over the card
   * list (negative numbers count from the end).
   *
   * @example
   * const older = state.cards(-100, -50);
   */
  cards(from?: number, to?: number): TodoCard[] {
    const start = cardNumber("cards", "from", from, 0);
    const end = cardNumber("cards", "to", to, Infinity);
    const core = ChatState.#live(this, "cards");
    return (realmIntact() ? core.cardsValue(start, end) : parseJson(core.cards(start, end))) as TodoCard[];
  }

  /**
   * Folds the next chunk of a JSONL log; a line may span chunks. Call
   * {@link endJsonl} after the last chunk.
   *
   * @example
   * import { createReadStream } from "node:fs";
   * for await (const chunk of createReadStream("chat.jsonl")) state.ingestJsonl(chunk);
   * state.endJsonl();
   */
  ingestJsonl(chunk: Uint8Array): void {
    if (!(chunk instanceof Uint8Array)) throw new TypeError("oda-tasks: ingestJsonl needs a Uint8Array chunk");
    const core = ChatState.#live(this, "ingestJsonl");
    if (detached(chunk.buffer)) {
      throw new TypeError(
        "oda-tasks: ingestJsonl was given a chunk whose ArrayBuffer is detached (transferred away); pass the bytes before transferring them, or a copy",
      );
    }
    inSlices(chunk, (slice) => core.ingestJsonl(slice));
  }

  /**
   * Ends a JSONL stream and reports its unreadable lines and torn tail (a
   * last line without a newline is an entry only if it is complete JSON).
   *
   * @example
   * const { unreadable, tornBytes } = state.endJsonl();
   */
  endJsonl(): JsonlReport {
    const core = ChatState.#live(this, "endJsonl");
    core.endJsonl();
    return parseJson(core.jsonlReport()) as JsonlReport;
  }

  /**
   * Checks a `todo_write` call against this chat. While a person's edit is
   * the list's latest change and the model was not told of it, the call is
   * refused with the list as edited, and the answer's `entry` (a
   * `todo_told`) records that the model was told: append it.
   *
   * @example
   * const r = state.todoWrite({ todos: [{ content: "Write tests", status: "in_progress" }] });
   */
  todoWrite(input: unknown, options?: TodoWriteOptions): TodoWriteResult {
    const params = todoParams(input, options);
    const core = ChatState.#live(this, "todoWrite");
    return ChatState.#stale(core) ?? withEntryTexts<TodoWriteResult>(core.todoWrite(params), toolEntries);
  }

  /**
   * Decides a person's edit of the list: the whole list, checked by
   * `todo_write`'s rules, made on the log length `basedOn` their screen
   * showed. Refused as `chat/changed` when the list changed after it.
   *
   * @example
   * const d = state.editTodos([{ content: "Ship", status: "completed" }], { basedOn: 7, by: "Ada" });
   * if (d.ok && d.entry !== null) await store.append("chat-1", [d.entry], state.length);
   */
  editTodos(todos: readonly TodoItem[], options: EditTodosOptions): EditDecision {
    const { basedOn, by, ...tool } = readOptions<EditTodosOptions>("editTodos", options, EDIT_OPTION_RULES);
    if (basedOn === undefined)
      throw new TypeError("oda-tasks: invalid arguments of editTodos: `basedOn` is required (the log length the person's screen showed)");
    const params = todoParams({ todos }, tool);
    const answer = withEntryTexts<{ ok: true; entry: TodoUpdateEntry } | { ok: false; error: string } | null>(
      ChatState.#live(this, "editTodos").editTodos(params, basedOn, by),
      (a) => (a?.ok === true ? [a.entry] : []),
    );
    if (answer === null) return { ok: true, entry: null };
    if (answer.ok) return { ok: true, entry: answer.entry };
    return answer.error === "chat/changed" ? { ok: false, code: "chat/changed" } : answer;
  }

  /**
   * What the model is told of a person's edit while one is the list's
   * latest change and the model was not told of it: the text for its
   * context, and the `todo_told` entry to append (after which it is told);
   * `null` when nothing is to be told.
   *
   * @example
   * const told = state.editNotice();
   * if (told) { await store.append("chat-1", [told.entry], state.length); show(told.text); } // the text: the model's next request
   */
  editNotice(): EditNotice | null {
    return toldOf(ChatState.#live(this, "editNotice").told(false));
  }

  /**
   * The list as a short text for the model's context (`todoListText`), or `null` for an empty list.
   *
   * @example
   * const text = state.listText(); // "Your todo list, as last recorded with todo_write (…):\n1. …"
   */
  listText(): string | null {
    return parseJson(ChatState.#live(this, "listText").listText()) as string | null;
  }

  /**
   * Checks a `suggest_task` call against this chat.
   *
   * @example
   * const r = state.suggestTask({ title: "Add retries", tldr: "Flaky uploads", brief: "In upload.ts ..." });
   */
  suggestTask(input: unknown, options?: ToolCallOptions): SuggestTaskResult {
    const params = suggestParams(input, options);
    return withEntryTexts<SuggestTaskResult>(ChatState.#live(this, "suggestTask").suggestTask(params), toolEntries);
  }

  /**
   * The card a `todo_update` entry makes when appended now, at the log's end
   * (what a UI shows for a recorded `todo_write`); `null` for any other
   * entry. Works with or without `cards`.
   *
   * @example
   * const r = state.todoWrite(input);
   * const card = r.ok ? state.nextCard(r.entry) : null;
   */
  nextCard(entry: LogEntry): TodoCard | null {
    return parseJson(ChatState.#live(this, "nextCard").nextCard(entryLine(entry))) as TodoCard | null;
  }

  /**
   * What the chat's `session` entry names of it: its `title` and
   * `workspace` (each `null` when it names none), or `null` for a log with
   * no session entry. A session entry that cannot be read names neither.
   *
   * @example
   * const state = ChatState.fromLog([{ type: "session", title: "Fix the upload", workspace: "/repos/app" }]);
   * state.session(); // { title: "Fix the upload", workspace: "/repos/app" }
   */
  session(): ChatSessionInfo | null {
    return parseJson(ChatState.#live(this, "session").session()) as ChatSessionInfo | null;
  }

  /**
   * Where the list and the turns stand, with or without cards: the turn
   * markers and the list's reminder read it.
   *
   * @example
   * const { todos, turnOpen, turnsSinceUpdate } = state.listState();
   */
  listState(): ListState {
    const core = ChatState.#live(this, "listState");
    return (realmIntact() ? core.listStateValue() : parseJson(core.listState())) as ListState;
  }

  /**
   * The list, one card per update and the plan (needs `cards: true`, the default).
   *
   * @example
   * const { todos, cards, plan } = state.replayTodos();
   */
  replayTodos(): TodoReplay {
    const core = ChatState.#live(this, "replayTodos");
    return (realmIntact() ? core.replayTodosValue() : parseJson(core.replayTodos())) as TodoReplay;
  }

  /**
   * Open offers newest first, settled ones in offer order.
   *
   * @example
   * const { open, settled } = state.replaySuggestions();
   */
  replaySuggestions(): SuggestionReplay {
    const core = ChatState.#live(this, "replaySuggestions");
    return (realmIntact() ? core.replaySuggestionsValue() : parseJson(core.replaySuggestions())) as SuggestionReplay;
  }

  /**
   * Decides a draft, dismiss or restore of offer `id`.
   *
   * @example
   * const d = state.settleSuggestion("s1", "dismiss");
   */
  settleSuggestion(id: string, action: SettleAction): SettleDecision {
    const params = hostParams("settleSuggestion", { id, action });
    return withEntryTexts<SettleDecision>(ChatState.#live(this, "settleSuggestion").settleSuggestion(params), settleEntries);
  }

  /**
   * Plans a Start of offer `id` of this chat, `chatId`.
   *
   * @example
   * const p = state.planStart("chat-1", "s1", { permission: "ask" });
   */
  planStart(chatId: string, id: string, request?: StartRequest, permissions?: readonly string[]): StartDecision {
    const params = hostParams("planStart", {
      chatId,
      id,
      request: recordArgument("planStart", "request", request),
      permissions: permissions ?? null,
    });
    return withEntryTexts<StartDecision>(ChatState.#live(this, "planStart").planStart(params), startEntries);
  }

  /**
   * Where this chat stands as the chat started from offer `suggestionId` of `chatId`.
   *
   * @example
   * state.startedChat("chat-1", "s1"); // "needs_brief"
   */
  startedChat(chatId: string, suggestionId: string): StartedChatState {
    const params = hostParams("startedChat", { chatId, suggestionId });
    return parseJson(ChatState.#live(this, "startedChat").startedChat(params)) as StartedChatState;
  }

  /**
   * Refuses creating or completing a goal until the person has spoken here.
   *
   * @example
   * state.checkGoal("create"); // { ok: false, error: "goal: ..." }
   */
  checkGoal(action: GoalAction): GoalCheck {
    const params = hostParams("checkGoal", { action });
    return parseJson(ChatState.#live(this, "checkGoal").checkGoal(params)) as GoalCheck;
  }

  /**
   * Releases the state's WASM memory now (it is also released when the
   * object is garbage-collected). Later calls throw.
   *
   * @example
   * state.free();
   */
  free(): void {
    if (typeof this !== "object" || this === null || !(#core in this)) ChatState.#live(this, "free");
    const core = this.#core;
    this.#core = undefined;
    core?.free();
  }

  /**
   * The live core of `self`, the receiver of `method`: a TypeError if `self`
   * is no ChatState (an unbound method) or was freed. Called after a method's
   * arguments are read, so an input's getter that frees the state is caught here.
   */
  static #live(self: unknown, method: string): ChatStateCore {
    if (typeof self !== "object" || self === null || !(#core in self)) {
      throw new TypeError(
        `oda-tasks: ChatState#${method} was called on ${receiver(self)}, not on a ChatState; ` +
          `call it as state.${method}(…), or pass it on bound (state.${method}.bind(state))`,
      );
    }
    const core = (self as ChatState).#core;
    if (core === undefined) throw new TypeError(FREED);
    return core;
  }
}

// `using state = ChatState.fromLog(log)` frees it at the end of the block where
// the runtime has `Symbol.dispose` (set at run time so the typings need no ESNext lib).
const dispose = (Symbol as { dispose?: symbol }).dispose;
if (typeof dispose === "symbol") {
  Object.defineProperty(ChatState.prototype, dispose, { value: ChatState.prototype.free, writable: true, configurable: true });
}

/** The params of a `todo_write` call: the input (or why it cannot be read) and the core's options. */
export function todoParams(input: unknown, options: TodoWriteOptions | undefined): string {
  const { maxInputLength, ...core } = ownOptions("todoWrite", options) as TodoWriteOptions;
  if (core.oneActive !== undefined && core.oneActive !== null && typeof core.oneActive !== "boolean") {
    throw new TypeError("oda-tasks: invalid arguments of todoWrite: `oneActive` must be a boolean");
  }
  return hostParams("todoWrite", { options: core }, modelInput(input, inputLimit("todoWrite", maxInputLength)));
}

/** The params of a `suggest_task` call. */
export function suggestParams(input: unknown, options: ToolCallOptions | undefined): string {
  const { maxInputLength } = readOptions<ToolCallOptions>("suggestTask", options, { maxInputLength: ANY });
  return `{${modelInput(input, inputLimit("suggestTask", maxInputLength))}}`;
}
