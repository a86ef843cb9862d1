// A person's edit of the list over a store, and what the model is told of it.
// The core decides both on the chat's warm state (chat-state.ts); they go
// through the one write loop, so two people editing at once each decide on
// what the other wrote: the second finds the list changed since its screen.
import { ANY, readOptions } from "../core/options.js";
import { EDIT_OPTION_RULES, type EditNotice, type EditTodosOptions } from "../core/chat-state.js";
import { decideAndAppend } from "./append-loop.js";
import { missingChat } from "./lifecycle.js";
import { cacheFor, type ChatStateCache } from "./state-cache.js";
import type { Store } from "../stores/store.js";
import type { TodoItem } from "../core/types.js";

/**
 * Options of {@link editTodos}: the log length the person's screen showed
 * (`basedOn`), their display name (`by`), `todo_write`'s options, and the warm states to use.
 *
 * @example
 * const options: EditTodosCallOptions = { basedOn: state.length, by: "Ada" };
 */
export interface EditTodosCallOptions extends EditTodosOptions {
  /** The warm chat states to use; by default the store's shared cache (the one `runTool` uses). */
  cache?: ChatStateCache;
}

/**
 * The list changed after the log length a person's edit was made on: the
 * edit is not recorded, so that nobody's change is overwritten unseen.
 * `payload` is the list as it stands, `length` the log's length it was read
 * at (the next edit's `basedOn`). The UI re-applies the edit to it, or asks.
 *
 * @example
 * try { await editTodos(store, "chat-1", [{ content: "Ship", status: "completed" }], { basedOn: 4 }); }
 * catch (e) { if (e instanceof ChatChangedError) show(e.payload, e.length); else throw e; }
 */
export class ChatChangedError extends Error {
  readonly code = "chat/changed" as const;
  /** The list as it stands now. */
  readonly payload: TodoItem[];
  /** The log's length now: the `basedOn` of an edit made on this list. */
  readonly length: number;

  constructor(basedOn: number, payload: TodoItem[], length: number) {
    super(`the todo list changed after length ${basedOn}, the screen this edit was made on; re-apply the edit to the list as it stands`);
    this.name = "ChatChangedError";
    this.payload = payload;
    this.length = length;
  }
}

/**
 * What {@link editTodos} resolves to: recorded (`length`: the log's length
 * after it), or the core's refusal of the list (the text `todo_write` refuses it with).
 *
 * @example
 * const r: EditTodosResult = await editTodos(store, "chat-1", [{ content: "Ship", status: "pending" }], { basedOn: 4 });
 * if (!r.ok) show(r.error); // "Error: invalid todos: at most one task may be in_progress (got 2)"
 */
export type EditTodosResult = { ok: true; length: number } | { ok: false; error: string };

const CALL_RULES = { ...EDIT_OPTION_RULES, cache: ANY };

/**
 * Records a person's edit of chat `chatId`'s list: the whole list, under
 * `todo_write`'s rules (the same limits, at most one item in progress),
 * made on the log length `basedOn` their screen showed. It is a `todo_update`
 * attributed to the person (`by`, the display name the app gives). Every
 * viewer's plan updates as for the model's writes, and the model is told of
 * it once, at its next step (`editNotice`), or when its next `todo_write`,
 * written before it saw the edit, is refused with the list as edited.
 *
 * Resolves to `{ ok: true, length }` (an edit that changes nothing records
 * nothing) or `{ ok: false, error }` with the core's refusal text. Rejects
 * with a {@link ChatChangedError} (`code` `chat/changed`, the current list
 * in `payload`) when the list changed after `basedOn`, and with a
 * `StoreError` `store/missing-chat` for a chat that does not exist.
 *
 * @example
 * import { editTodos } from "oda-tasks";
 * const r = await editTodos(store, "chat-1", [{ content: "Ship", status: "completed" }], { basedOn: state.length, by: "Ada" });
 * if (r.ok) show(r.length); // the log's length after it: the next edit's basedOn
 */
export async function editTodos(
  store: Store,
  chatId: string,
  todos: readonly TodoItem[],
  options: EditTodosCallOptions,
): Promise<EditTodosResult> {
  const { cache, ...edit } = readOptions<EditTodosCallOptions>("editTodos", options, CALL_RULES);
  const states = cacheFor("editTodos", store, cache);
  return decideAndAppend<EditTodosResult>(states, chatId, `editTodos on chat "${chatId}"`, (state) => {
    if (state === null) throw missingChat(chatId, "editTodos");
    const decided = state.editTodos(todos, edit as EditTodosOptions);
    if (!decided.ok) {
      if ("error" in decided) return { done: decided };
      throw new ChatChangedError(edit.basedOn as number, state.listState().todos, state.length);
    }
    if (decided.entry === null) return { done: { ok: true, length: state.length } };
    // biome-ignore lint/suspicious/noThenProperty: the append loop's step (append-loop.ts `Step`): `then` is what it answers after the append, never awaited
    return { append: [decided.entry], then: { ok: true, length: state.length + 1 } };
  });
}

/**
 * Options of {@link editNotice}.
 *
 * @example
 * await editNotice(store, "chat-1", { cache } satisfies EditNoticeOptions);
 */
export interface EditNoticeOptions {
  /** The warm chat states to use; by default the store's shared cache. */
  cache?: ChatStateCache;
}

/**
 * What the model must be told now of a person's edit, for its context at
 * its next step: the exact text (what the person changed, and the list as
 * edited), recorded in the log as told, so it is told once; `null` when no
 * edit waits. Rejects with a `StoreError` `store/missing-chat` for a chat
 * that does not exist. Put it in the request you send
 * next: once it is recorded, the model's next `todo_write` records as usual.
 * The integrations (`aiTurn`'s `prepareStep`, the LangChain middleware,
 * `withOda`'s hooks, `odaAcp`'s `notice()`) call it for you.
 *
 * @example
 * import { editNotice } from "oda-tasks";
 * const notice = await editNotice(store, "chat-1");
 * if (notice !== null) messages.push({ role: "user", content: notice });
 */
export async function editNotice(store: Store, chatId: string, options?: EditNoticeOptions | null): Promise<string | null> {
  return (await tellEdit(store, chatId, options))?.text ?? null;
}

/**
 * Internal: {@link editNotice} with the list as edited, for an integration
 * that also shows it (ACP's plan update).
 */
export async function tellEdit(
  store: Store,
  chatId: string,
  options?: EditNoticeOptions | null,
): Promise<{ text: string; todos: TodoItem[] } | null> {
  const { cache } = readOptions<EditNoticeOptions>("editNotice", options, { cache: ANY });
  const states = cacheFor("editNotice", store, cache);
  return decideAndAppend<{ text: string; todos: TodoItem[] } | null>(states, chatId, `editNotice on chat "${chatId}"`, (state) => {
    if (state === null) throw missingChat(chatId, "editNotice");
    const told: EditNotice | null = state.editNotice();
    if (told === null) return { done: null };
    // biome-ignore lint/suspicious/noThenProperty: the append loop's step (append-loop.ts `Step`): `then` is what it answers after the append, never awaited
    return { append: [told.entry], then: { text: told.text, todos: state.listState().todos } };
  });
}
