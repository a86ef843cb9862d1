// The chat's plan and suggestions as AI SDK data parts (`data-oda-plan`, id
// `plan`; `data-oda-suggestions`, id `suggestions`): `useChat` replaces a part
// with the same id in place, so the assistant message always holds the latest.
import { ChatStateCache } from "../../chat/state-cache.js";
import { SuggestionService, type SuggestionList } from "../../chat/service.js";
import type { UiToolResult } from "../../chat/run.js";
import type { TodoItem, TodoPlan } from "../../core/types.js";
import type { Store } from "../../stores/store.js";

/**
 * The data parts `oda-tasks/ai` writes, by name (`data-` + name): the plan
 * (what `<oda-plan plan>` takes) and the suggestions (what `<oda-suggestions
 * list>` takes, `{ open, settled }` as the chat's screen has them).
 *
 * @example
 * import type { InferUITools, UIMessage } from "ai";
 * type ChatMessage = UIMessage<never, OdaDataTypes, InferUITools<AiTools>>;
 * // part.type === "data-oda-plan" → <oda-plan plan={part.data} />
 */
export type OdaDataTypes = {
  "oda-plan": TodoPlan;
  "oda-suggestions": SuggestionList;
};

/**
 * One data part as written into the UI message stream.
 *
 * @example
 * const chunk: OdaDataChunk = { type: "data-oda-plan", id: "plan", data: { state: "none", todos: [], turn: null } };
 */
export type OdaDataChunk =
  | { type: "data-oda-plan"; id: "plan"; data: TodoPlan }
  | { type: "data-oda-suggestions"; id: "suggestions"; data: SuggestionList };

/**
 * Where the parts go: the `writer` of the app's `createUIMessageStream`
 * (its message type must include {@link OdaDataTypes}).
 *
 * @example
 * import { createUIMessageStream, type UIMessage } from "ai";
 * createUIMessageStream<UIMessage<never, OdaDataTypes>>({ execute: ({ writer }) => void (writer satisfies OdaPartWriter) });
 */
export interface OdaPartWriter {
  /** Writes one part into the stream. */
  write(part: OdaDataChunk): void;
}

/** Internal: checks that `writer` can take parts; the error names the call. */
export function partWriter(call: string, writer: unknown): OdaPartWriter {
  if (typeof writer !== "object" || writer === null || typeof (writer as { write?: unknown }).write !== "function") {
    throw new TypeError(
      `oda-tasks: invalid arguments of ${call}: \`writer\` must be a UI message stream writer (createUIMessageStream's execute gets one)`,
    );
  }
  return writer as OdaPartWriter;
}

/**
 * Internal: a writer that keeps parts until the message has begun. `useChat`
 * takes a part that reaches it before the stream's `start` chunk (which names
 * the message) as a message of its own: the parts go after it.
 */
export class PendingWriter implements OdaPartWriter {
  #target: OdaPartWriter | null = null;
  readonly #held: OdaDataChunk[] = [];

  write(part: OdaDataChunk): void {
    if (this.#target !== null) this.#target.write(part);
    else this.#held.push(part);
  }

  /** From now on parts go to `target`; answers the parts held so far, for the caller to send first. */
  release(target: OdaPartWriter): OdaDataChunk[] {
    if (this.#target !== null) return [];
    this.#target = target;
    return this.#held.splice(0);
  }

  /**
   * The model's UI message stream with the held parts right after its
   * `start` chunk (or at its end, when it has none); later parts go to `target`.
   */
  afterStart<C extends { type: string }>(stream: ReadableStream<C>, target: OdaPartWriter): ReadableStream<C> {
    const release = (controller: TransformStreamDefaultController<C>) => {
      for (const part of this.release(target)) controller.enqueue(part as unknown as C);
    };
    return stream.pipeThrough(
      new TransformStream<C, C>({
        transform(chunk, controller) {
          controller.enqueue(chunk);
          if (chunk.type === "start") release(controller);
        },
        flush: release,
      }),
    );
  }
}

const cardCaches = new WeakMap<Store, ChatStateCache>();

/**
 * Internal: writes chat `chatId`'s plan and suggestions as they stand in the
 * store, read through a warm state that keeps cards (the given cache if it
 * does, else one per store), so a write costs the catch-up of what is new.
 */
export class ChatParts {
  readonly #chatId: string;
  readonly #writer: OdaPartWriter;
  readonly #cache: ChatStateCache;
  readonly #service: SuggestionService;

  constructor(store: Store, chatId: string, cache: ChatStateCache | undefined, writer: OdaPartWriter) {
    let cards = cache?.cards ? cache : cardCaches.get(store);
    if (cards === undefined) {
      cards = new ChatStateCache(store, { cards: true });
      cardCaches.set(store, cards);
    }
    this.#chatId = chatId;
    this.#writer = writer;
    this.#cache = cards;
    this.#service = new SuggestionService({ store, cache: cards });
  }

  /** The plan's part (`view().plan`); nothing when the chat does not exist. */
  async plan(): Promise<void> {
    const lease = await this.#cache.lease(this.#chatId);
    let plan: TodoPlan;
    try {
      if (lease.state === null) return;
      plan = lease.state.view({ cards: 0 }).plan;
    } finally {
      lease.release();
    }
    this.#writer.write({ type: "data-oda-plan", id: "plan", data: plan });
  }

  /**
   * The chat's list and plan when its latest change is a person's edit (the
   * last card is theirs), else `null`: what an AG-UI run shows of an edit.
   */
  async edited(): Promise<{ todos: TodoItem[]; plan: TodoPlan } | null> {
    const lease = await this.#cache.lease(this.#chatId);
    try {
      if (lease.state === null) return null;
      const { todos, plan, cards } = lease.state.view({ cards: 1 });
      return cards[0]?.by === undefined ? null : { todos, plan };
    } finally {
      lease.release();
    }
  }

  /** The suggestions' part: the service's list, with each started chat's progress. */
  async suggestions(): Promise<void> {
    const data = await this.#service.list(this.#chatId, { progress: true });
    this.#writer.write({ type: "data-oda-suggestions", id: "suggestions", data });
  }

  /**
   * The part a recorded tool call changed. The call is recorded whatever
   * happens here: a failed read leaves the part as it was (the next write
   * or the turn's end sends it again), it does not fail the call.
   */
  async after(result: UiToolResult): Promise<void> {
    try {
      if (result.card !== undefined) await this.plan();
      if (result.offer !== undefined) await this.suggestions();
    } catch {
      // The recorded call stands; see above.
    }
  }
}
