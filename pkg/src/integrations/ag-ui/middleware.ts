// `odaAgUi`: an AG-UI middleware that adds the chat's card, plan and
// suggestions to any agent's event stream, read from what the package's tools
// returned (never from the model's arguments), and with a store the list as a
// person edited it, in order, the app's own events untouched.
import { Middleware, type AbstractAgent } from "@ag-ui/client";
import type { BaseEvent, RunAgentInput, StateDeltaEvent, StateSnapshotEvent, ToolCallResultEvent, ToolCallStartEvent } from "@ag-ui/core";
import { Observable } from "rxjs";
import { ANY, readOptions } from "../../core/options.js";
import { ChatParts, type OdaDataChunk } from "../ai/parts.js";
import type { ChatStateCache } from "../../chat/state-cache.js";
import type { UiToolResult } from "../../chat/run.js";
import type { Store } from "../../stores/store.js";
import { odaCardActivity, odaPlanActivity, odaStateDelta, odaSuggestionsActivity, odaToolResult, type OdaState } from "./events.js";

/**
 * Options of {@link odaAgUi}. With a `store`, the plan and the suggestions
 * are read from the chat after each recorded call; without one, only what
 * the tool results carry is drawn.
 *
 * @example
 * const options: OdaAgUiOptions = { store, chatId: "chat-1" }; // omit chatId: the run's threadId
 */
export interface OdaAgUiOptions {
  /** The store the tools record into; its chat's screen is the plan and suggestions drawn. */
  store?: Store;
  /** The chat (needs `store`); by default each run's `threadId`. */
  chatId?: string;
  /** The warm chat states to read through (default: one per store, keeping cards). */
  cache?: ChatStateCache;
}

const NAME = "odaAgUi";
const TOOLS = new Set(["todo_write", "suggest_task"]);

/**
 * An `@ag-ui/client` middleware: after each `TOOL_CALL_RESULT` of
 * `todo_write` or `suggest_task` (named by its `TOOL_CALL_START` or first chunk) whose
 * content is the package's result, it adds an `ACTIVITY_SNAPSHOT` per
 * recorded card (`oda-card`), the plan's (`oda-plan`) and the suggestions'
 * (`oda-suggestions`, with a store), and a `STATE_DELTA` under `/oda`. A
 * refusal adds nothing; every other event passes as it came. With a store, a
 * person's edit of the list made since the run last showed it is added too
 * (the plan's activity and `/oda/todos`), at the run's start and after each
 * other tool result: the agent reads it in its state, the client draws it.
 *
 * @example
 * import { HttpAgent } from "@ag-ui/client";
 * import { odaAgUi } from "oda-tasks/ag-ui";
 * const agent = new HttpAgent({ url: "https://agents.example/planner" }).use(odaAgUi({ store })); // the chat: each run's threadId
 */
export function odaAgUi(options?: OdaAgUiOptions | null): Middleware {
  const { store, chatId, cache } = readOptions<OdaAgUiOptions>(NAME, options, { store: ANY, chatId: ANY, cache: ANY });
  if (store !== undefined && (store === null || typeof (store as { append?: unknown }).append !== "function")) {
    throw new TypeError(`oda-tasks: invalid arguments of ${NAME}: \`store\` must be a store (MemoryStore, JsonlStore, ...)`);
  }
  if (chatId !== undefined && typeof chatId !== "string") {
    throw new TypeError(`oda-tasks: invalid arguments of ${NAME}: \`chatId\` must be a string`);
  }
  if (store === undefined && (chatId !== undefined || cache !== undefined)) {
    throw new TypeError(`oda-tasks: invalid arguments of ${NAME}: \`chatId\` and \`cache\` need a \`store\``);
  }
  if (cache !== undefined && (cache === null || (cache as { store?: unknown }).store !== store)) {
    throw new TypeError(`oda-tasks: invalid arguments of ${NAME}: the cache belongs to another store`);
  }
  return new OdaAgUiMiddleware(store === undefined ? null : { store, chatId, cache });
}

interface StoreReading {
  store: Store;
  chatId: string | undefined;
  cache: ChatStateCache | undefined;
}

type Upstream = { next: BaseEvent } | { error: unknown } | { complete: true };

class OdaAgUiMiddleware extends Middleware {
  readonly #reading: StoreReading | null;

  constructor(reading: StoreReading | null) {
    super();
    this.#reading = reading;
  }

  run(input: RunAgentInput, next: AbstractAgent): Observable<BaseEvent> {
    return new Observable<BaseEvent>((subscriber) => {
      // Per subscription: one middleware serves every run.
      const run = new RunEvents(input, this.#reading);
      const pending: Upstream[] = [];
      let busy = false;
      let draining = false;
      const pump = (): void => {
        if (draining) return; // an event sent while one is being passed on waits its turn in the loop below
        draining = true;
        try {
          drain();
        } finally {
          draining = false;
        }
      };
      const drain = (): void => {
        while (!busy && pending.length > 0 && !subscriber.closed) {
          const item = pending.shift() as Upstream;
          if ("error" in item) {
            subscriber.error(item.error);
            return;
          }
          if ("complete" in item) {
            subscriber.complete();
            return;
          }
          subscriber.next(item.next);
          const added = run.after(item.next);
          if (Array.isArray(added)) for (const event of added) subscriber.next(event);
          else {
            // A store read: the next events wait, so everything stays in order.
            busy = true;
            added
              .catch((): BaseEvent[] => [])
              .then((events) => {
                busy = false;
                if (!subscriber.closed) for (const event of events) subscriber.next(event);
                pump();
              });
          }
        }
      };
      // next.run, not runNext: the app's events pass as they came (chunks stay chunks; the client expands them later).
      const subscription = next.run(input).subscribe({
        next: (event) => {
          pending.push({ next: event });
          pump();
        },
        error: (error: unknown) => {
          pending.push({ error });
          pump();
        },
        complete: () => {
          pending.push({ complete: true });
          pump();
        },
      });
      return () => subscription.unsubscribe();
    });
  }
}

/** One run's bookkeeping: the tool calls' names, and whether the state holds `/oda`. */
class RunEvents {
  readonly #names = new Map<string, string>();
  readonly #parts: ChatParts | null = null;
  readonly #chunks: OdaDataChunk[] = [];
  /** What this run has set under `/oda`, sent whole when the state lost it. */
  readonly #known: Partial<OdaState> = {};
  /** The state is an object (else no delta can apply). */
  readonly #patchable: boolean;
  #hasOda: boolean;
  /** The list the run's state was given (`/oda/todos`), until this run sets one. */
  readonly #given: unknown;

  constructor(input: RunAgentInput, reading: StoreReading | null) {
    this.#patchable = isObject(input.state);
    this.#hasOda = this.#patchable && isObject((input.state as Record<string, unknown>).oda);
    this.#given = this.#hasOda ? ((input.state as { oda: Record<string, unknown> }).oda.todos ?? null) : null;
    if (reading !== null) {
      const chatId = reading.chatId ?? input.threadId;
      if (typeof chatId === "string" && chatId !== "") {
        this.#parts = new ChatParts(reading.store, chatId, reading.cache, { write: (chunk) => void this.#chunks.push(chunk) });
      }
    }
  }

  /** The events to add after `event`: none, or those of a recorded call (a promise when the store is read). */
  after(event: BaseEvent): BaseEvent[] | Promise<BaseEvent[]> {
    switch (event.type) {
      case "RUN_STARTED":
        return this.#parts === null ? [] : this.#edited(this.#parts);
      case "TOOL_CALL_START":
      case "TOOL_CALL_CHUNK": {
        // A call's first chunk names it, as its TOOL_CALL_START does.
        const { toolCallId, toolCallName } = event as ToolCallStartEvent;
        if (typeof toolCallId === "string" && TOOLS.has(toolCallName)) this.#names.set(toolCallId, toolCallName);
        return [];
      }
      case "TOOL_CALL_RESULT": {
        const { toolCallId, content } = event as ToolCallResultEvent;
        const name = this.#names.get(toolCallId);
        this.#names.delete(toolCallId);
        const result = name === undefined ? null : odaToolResult(content);
        const ui: UiToolResult | null =
          result === null
            ? null
            : name === "todo_write"
              ? { text: result.text, ...pick(result, "card") }
              : { text: result.text, ...pick(result, "offer") };
        // Another tool's result, or a refusal: a step went by, in which a person may have edited the list.
        if (ui === null || (ui.card === undefined && ui.offer === undefined)) return this.#parts === null ? [] : this.#edited(this.#parts);
        return this.#parts === null ? this.#fromResult(toolCallId, ui) : this.#fromStore(toolCallId, ui, this.#parts);
      }
      case "STATE_SNAPSHOT":
        this.#hasOda = this.#patchable && isObject((event as StateSnapshotEvent).snapshot?.oda);
        return [];
      case "STATE_DELTA":
        // The app's own patch may have touched /oda: the next delta sends it whole.
        if (!Array.isArray((event as StateDeltaEvent).delta) || (event as StateDeltaEvent).delta.some(touchesOda)) this.#hasOda = false;
        return [];
      default:
        return [];
    }
  }

  /** Without a store: the card, and the plan as the list it recorded, running in the card's turn. */
  #fromResult(toolCallId: string, { card }: UiToolResult): BaseEvent[] {
    if (card === undefined) return []; // the suggestion list needs the store (settlements are not in results)
    const plan = { state: "running" as const, todos: card.todos, turn: card.turn };
    return [odaCardActivity(card, toolCallId), odaPlanActivity(plan), ...this.#delta({ todos: card.todos, plan })];
  }

  /** With a store: the card, then the plan or the suggestions as the chat's screen has them now. */
  async #fromStore(toolCallId: string, ui: UiToolResult, parts: ChatParts): Promise<BaseEvent[]> {
    this.#chunks.length = 0;
    await parts.after(ui).catch(() => undefined); // a failed read leaves the part as it was
    const events: BaseEvent[] = ui.card === undefined ? [] : [odaCardActivity(ui.card, toolCallId)];
    const values: Partial<OdaState> = ui.card === undefined ? {} : { todos: ui.card.todos };
    for (const chunk of this.#chunks.splice(0)) {
      if (chunk.type === "data-oda-plan") {
        events.push(odaPlanActivity(chunk.data));
        values.plan = chunk.data;
      } else {
        events.push(odaSuggestionsActivity(chunk.data));
        values.suggestions = chunk.data;
      }
    }
    return [...events, ...this.#delta(values)];
  }

  /** With a store: the list as a person edited it, when the run has not shown it yet (its plan's activity and `/oda`). */
  async #edited(parts: ChatParts): Promise<BaseEvent[]> {
    const edited = await parts.edited();
    if (edited === null) return [];
    const shown = this.#known.todos ?? this.#given;
    if (JSON.stringify(shown) === JSON.stringify(edited.todos)) return [];
    return [odaPlanActivity(edited.plan), ...this.#delta({ todos: edited.todos, plan: edited.plan })];
  }

  #delta(values: Partial<OdaState>): BaseEvent[] {
    Object.assign(this.#known, values);
    if (!this.#patchable || Object.keys(values).length === 0) return [];
    const whole = !this.#hasOda;
    this.#hasOda = true;
    return [odaStateDelta(whole ? this.#known : values, { whole })];
  }
}

/** Whether an operation of the app's own patch may change `/oda` (its path, or a move's source). */
function touchesOda(op: unknown): boolean {
  if (!isObject(op)) return true;
  const hits = (path: unknown) => typeof path !== "string" || path === "" || path === "/oda" || path.startsWith("/oda/");
  return hits(op.path) || (op.from !== undefined && hits(op.from));
}

function pick<K extends "card" | "offer">(result: UiToolResult, key: K): Pick<UiToolResult, K> {
  return (result[key] === undefined ? {} : { [key]: result[key] }) as Pick<UiToolResult, K>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
