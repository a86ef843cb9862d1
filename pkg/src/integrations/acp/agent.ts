// `odaAcp`: the two tools and the turn rules for an Agent Client Protocol
// agent. A `session/prompt` is one turn of the session's chat; each recorded
// list is sent to the client as a `plan` session update, which replaces the
// client's whole plan, as a recorded update replaces the list; so is a
// person's edit when the agent is told of it.
import type {
  CancelNotification,
  PlanEntry,
  PlanEntryPriority,
  PromptRequest,
  PromptResponse,
  SessionNotification,
} from "@agentclientprotocol/sdk";
import { ANY, oneOf, readOptions, type OptionRule } from "../../core/options.js";
import { RUN_OPTION_RULES, type RunToolOptions, type UiToolResult } from "../../chat/run.js";
import { sharedCache } from "../../chat/state-cache.js";
import { openTurn, TURN_REMINDER_RULES, type OpenTurn, type TurnReminderOptions } from "../../chat/turn.js";
import { chatToolsOptions, uiToolHandlers, type UiToolHandlers } from "../tool-handlers.js";
import type { Store } from "../../stores/store.js";
import type { TodoItem } from "../../core/types.js";

/**
 * Where the plan updates go: the SDK's agent-side context (`notify`, what a
 * handler gets as `client` and `agent().connect()` as `.client`), or an
 * `AgentSideConnection` of the SDK before 2.0 (`sessionUpdate`).
 *
 * @example
 * import * as acp from "@agentclientprotocol/sdk";
 * const connection: AcpClientConnection = acp.agent().connect(acp.ndJsonStream(new WritableStream(), new ReadableStream())).client;
 */
export type AcpClientConnection =
  | {
      /** Sends a notification to the client (the SDK's `agent().connect(...).client`). */
      notify(method: "session/update", params: SessionNotification): Promise<void>;
    }
  | {
      /** Sends a `session/update` (an `AgentSideConnection` of the SDK's older API). */
      sessionUpdate(params: SessionNotification): Promise<void>;
    };

/**
 * Options of {@link odaAcp}: the store, where plan updates go, how a session
 * maps to a chat, the plan entries' priority, the tools' and the reminder's options.
 *
 * @example
 * const options: OdaAcpOptions = { store, chatId: (sessionId) => `acp:${sessionId}`, priority: "high" };
 */
export interface OdaAcpOptions extends RunToolOptions, TurnReminderOptions {
  store: Store;
  /** Where plan updates go; by default the `client` of each `session/prompt` handler's context. */
  connection?: AcpClientConnection;
  /** The chat of a session (default: the session id is the chat id). */
  chatId?: (sessionId: string) => string;
  /** Every plan entry's `priority` (the list has none): default `"medium"`, as Claude Code's ACP adapter sends. */
  priority?: PlanEntryPriority;
}

/**
 * One prompt's turn, handed to the wrapped prompt handler.
 *
 * @example
 * const run = async (turn: AcpTurn) => (await turn.tools.todo_write(input)).text; // what the model reads
 */
export interface AcpTurn {
  sessionId: string;
  chatId: string;
  /** The turn's number (1 for the chat's first). */
  turn: number;
  /** The list's text for the model's context, the notice of a person's edit (told once, and sent as a plan), or `null` when none is due. */
  reminder: string | null;
  /**
   * Call it before each model step: a person's edit made since the model last
   * read the list, as the exact text for its context (recorded as told, and
   * sent to the client as a `plan` update), or `null`.
   */
  notice(): Promise<string | null>;
  /** `todo_write` and `suggest_task` bound to the chat: `{ text, card?, offer? }`; a recorded list is sent as a plan first. */
  tools: UiToolHandlers;
  /** Aborts when the prompt is cancelled (`session/cancel`, or the request's own signal). */
  signal: AbortSignal;
}

/**
 * What a `session/prompt` handler receives: the SDK's handler context (2.x,
 * `{ params, client, signal }`) or the request itself (an `Agent`'s `prompt`).
 *
 * @example
 * const arg: AcpPromptArgument = { sessionId: "s1", prompt: [{ type: "text", text: "Plan the release" }] };
 */
export type AcpPromptArgument = PromptRequest | { params: PromptRequest; client?: unknown; signal?: AbortSignal };

/**
 * The session's turns: `prompt` wraps the agent's prompt handler, `cancel`
 * its `session/cancel` handler.
 *
 * @example
 * import * as acp from "@agentclientprotocol/sdk";
 * const oda: OdaAcp = odaAcp({ store });
 * acp.agent().onRequest("session/prompt", oda.prompt(async () => ({ stopReason: "end_turn" }))).onNotification("session/cancel", oda.cancel);
 */
export interface OdaAcp {
  /**
   * The handler wrapped: the turn begins before it runs (an empty plan is
   * sent when the last turn left one showing) and ends when it settles, after
   * its tool calls; a cancelled prompt answers `stopReason: "cancelled"`.
   */
  prompt<A extends AcpPromptArgument>(
    handler: (arg: A, turn: AcpTurn) => PromptResponse | Promise<PromptResponse>,
  ): (arg: A) => Promise<PromptResponse>;
  /** Cancels the session's running prompt: its signal aborts, its tools refuse new calls and its turn ends. */
  cancel(arg: CancelNotification | { params: CancelNotification }): Promise<void>;
}

const NAME = "odaAcp";
const FUNCTION: OptionRule = { expected: "a function", check: (v) => typeof v === "function" };

/** A prompt of a session, from its arrival until its turn has ended. */
interface Running {
  controller: AbortController;
  cancelled: boolean;
  /** The prompt's turn, once begun. */
  open: OpenTurn | null;
  /** Ends the turn once it has begun (after its calls settle); nothing when it never began. */
  end: () => Promise<void>;
}

/** Cancels a prompt: its signal aborts, its tools refuse new calls, its turn ends. */
function cancelRunning(active: Running): Promise<void> {
  active.cancelled = true;
  // Its tools are closed before its signal aborts, so the handler's next call is refused.
  const ended = active.end();
  active.controller.abort();
  return ended;
}

/**
 * `todo_write`, `suggest_task` and the turn rules for an ACP agent: each
 * `session/prompt` is one turn of the session's chat (the chat must exist:
 * `createChat` in `session/new`), every recorded list is a `plan` session
 * update (statuses one to one, `priority` constant), a refusal sends none.
 *
 * @example
 * import * as acp from "@agentclientprotocol/sdk";
 * import { odaAcp } from "oda-tasks/acp";
 * const oda = odaAcp({ store });
 * acp.agent()
 *   .onRequest("session/prompt", oda.prompt(async (_ctx, { tools }) => {
 *     await tools.todo_write({ todos: [{ content: "Ship it", status: "in_progress" }] });
 *     return { stopReason: "end_turn" };
 *   }))
 *   .onNotification("session/cancel", oda.cancel);
 */
export function odaAcp(options: OdaAcpOptions): OdaAcp {
  const {
    connection,
    chatId: chatOf,
    priority = "medium",
    remind = "due",
    everyTurns,
    ...rest
  } = readOptions<OdaAcpOptions>(NAME, options, {
    ...RUN_OPTION_RULES,
    ...TURN_REMINDER_RULES,
    store: ANY,
    connection: ANY,
    chatId: FUNCTION,
    priority: oneOf("high", "medium", "low"),
  });
  const { store, chatId: _none, ...run } = chatToolsOptions(NAME, { ...rest, chatId: "" });
  if (connection !== undefined && senderOf(connection) === null) {
    throw new TypeError(
      `oda-tasks: invalid arguments of ${NAME}: \`connection\` must be an ACP agent-side connection (with notify or sessionUpdate)`,
    );
  }
  const reminder = { remind, ...(everyTurns === undefined ? {} : { everyTurns }) };
  const cache = run.cache ?? sharedCache(store);
  const running = new Map<string, Running>();
  const refusal = (name: string) =>
    `oda-tasks: ${name} was called after its ACP prompt ended; it was refused and recorded nothing ` +
    `(${NAME}'s tools work while the session/prompt they were handed to runs)`;

  const cancelSession = async (sessionId: string): Promise<void> => {
    const active = running.get(sessionId);
    if (active !== undefined) await cancelRunning(active);
  };

  const prompt: OdaAcp["prompt"] = (handler) => {
    if (typeof handler !== "function")
      throw new TypeError(`oda-tasks: invalid arguments of ${NAME}.prompt: the handler must be a function`);
    return async (arg) => {
      const context =
        typeof arg === "object" && arg !== null && "params" in arg
          ? (arg as { params: PromptRequest; client?: unknown; signal?: AbortSignal })
          : null;
      const request = context === null ? (arg as PromptRequest | undefined) : context.params;
      const sessionId = request?.sessionId;
      if (typeof sessionId !== "string")
        throw new TypeError(`oda-tasks: ${NAME}.prompt got no session id (a session/prompt request has one)`);
      const send = senderOf(connection ?? context?.client);
      if (send === null) {
        throw new TypeError(
          `oda-tasks: ${NAME} has no ACP connection for plan updates: pass \`connection\`, or wrap a handler of the SDK's agent().onRequest("session/prompt", ...)`,
        );
      }
      const chatId = chatOf === undefined ? sessionId : chatOf(sessionId);
      if (typeof chatId !== "string") throw new TypeError(`oda-tasks: ${NAME}'s chatId(sessionId) must return a string`);
      const plan = (todos: readonly TodoItem[]) =>
        send({ sessionId, update: { sessionUpdate: "plan", entries: todos.map((t) => planEntry(t, priority)) } });

      let opened: (open: OpenTurn | null) => void = () => undefined;
      const turnOpened = new Promise<OpenTurn | null>((resolve) => {
        opened = resolve;
      });
      let ended: Promise<void> | undefined;
      const active: Running = {
        controller: new AbortController(),
        cancelled: false,
        open: null,
        end: () => (ended ??= active.open === null ? turnOpened.then((o) => o?.end()) : active.open.end()),
      };
      // One prompt per session, registered before anything is awaited: a prompt still running there is cancelled first.
      const before = running.get(sessionId);
      running.set(sessionId, active);
      const unfollow = follow(context?.signal, () => void cancelRunning(active).catch(() => undefined));
      try {
        if (before !== undefined) await cancelRunning(before);
        let open: OpenTurn | null = null;
        try {
          const showing = active.cancelled ? false : await planShowing(cache, chatId);
          if (!active.cancelled) open = await openTurn(store, chatId, run.cache, reminder, refusal);
          if (showing && open !== null) await plan([]).catch(() => undefined); // the standing plan clears as the turn begins
        } finally {
          active.open = open;
          opened(open);
        }
        if (open === null || active.cancelled) return { stopReason: "cancelled" };
        // The list as the person edited it, told in the turn's reminder, is the client's plan too.
        if (open.edited !== null) await plan(open.edited.todos).catch(() => undefined);
        const calls = open.calls;
        const turnOpen = open;
        const handlers = uiToolHandlers({ store, chatId, ...run });
        const tool =
          (name: "todo_write" | "suggest_task") =>
          (input: unknown): Promise<UiToolResult> =>
            calls.run(name, async () => {
              const result = await handlers[name](input);
              // The recorded call stands whatever becomes of its update (a client gone).
              if (result.card !== undefined) await plan(result.card.todos).catch(() => undefined);
              return result;
            });
        const turn: AcpTurn = {
          sessionId,
          chatId,
          turn: open.turn,
          reminder: open.reminder,
          notice: async () => {
            const told = await turnOpen.notice();
            if (told === null) return null;
            await plan(told.todos).catch(() => undefined);
            return told.text;
          },
          tools: { todo_write: tool("todo_write"), suggest_task: tool("suggest_task") },
          signal: active.controller.signal,
        };
        let response: PromptResponse;
        try {
          response = await handler(arg, turn);
        } catch (e) {
          if (!active.cancelled) throw e;
          response = { stopReason: "cancelled" }; // ACP: a cancelled prompt answers `cancelled`, not an error
        }
        return active.cancelled ? { ...response, stopReason: "cancelled" } : response;
      } finally {
        unfollow();
        if (running.get(sessionId) === active) running.delete(sessionId);
        await active.end();
      }
    };
  };

  const cancel: OdaAcp["cancel"] = async (arg) => {
    const params = arg !== null && typeof arg === "object" && "params" in arg ? arg.params : arg;
    const sessionId = (params as CancelNotification | undefined)?.sessionId;
    if (typeof sessionId === "string") await cancelSession(sessionId);
  };

  return { prompt, cancel };
}

/** The ACP plan entry of a list item: content and status as they are, the priority given. */
function planEntry(item: TodoItem, priority: PlanEntryPriority): PlanEntry {
  return { content: item.content, status: item.status, priority };
}

/** How `connection` sends a session update, or `null` when it cannot. */
function senderOf(connection: unknown): ((params: SessionNotification) => Promise<void>) | null {
  const c = connection as { notify?: unknown; sessionUpdate?: unknown } | null | undefined;
  if (typeof c?.notify === "function")
    return (params) => (c.notify as (m: string, p: unknown) => Promise<void>).call(c, "session/update", params);
  if (typeof c?.sessionUpdate === "function") return (params) => (c.sessionUpdate as (p: unknown) => Promise<void>).call(c, params);
  return null;
}

/** Whether the chat shows a plan now, which the next turn clears: a list was recorded in its latest turn. */
async function planShowing(cache: ReturnType<typeof sharedCache>, chatId: string): Promise<boolean> {
  const lease = await cache.lease(chatId);
  try {
    return lease.state !== null && lease.state.listState().turnsSinceUpdate === 0;
  } finally {
    lease.release();
  }
}

/** Calls `onAbort` once when `signal` aborts; answers a function that stops following. */
function follow(signal: AbortSignal | undefined, onAbort: () => void): () => void {
  if (signal === undefined || typeof signal?.addEventListener !== "function") return () => undefined;
  if (signal.aborted) {
    onAbort();
    return () => undefined;
  }
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}
