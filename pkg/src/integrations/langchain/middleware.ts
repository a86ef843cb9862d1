// `oda-tasks/langchain`: the two tools and the turn rules as one LangChain v1
// `createAgent` middleware. One agent run is one turn of the chat; the
// ToolMessage's content is the core's exact text, its artifact the card or
// the offer; the list's reminder, and what the model is told of a person's
// edit, go into the run's model calls.
import { createMiddleware, tool, type AgentMiddleware, type ModelRequest } from "langchain";
import { suggestTaskTool, todoWriteTool } from "../../gen/tools.js";
import { ANY, readOptions } from "../../core/options.js";
import { RUN_OPTION_RULES, type RunToolOptions } from "../../chat/run.js";
import { openTurn, TURN_REMINDER_RULES, type OpenTurn, type TurnReminderOptions } from "../../chat/turn.js";
import { chatToolsOptions, uiToolHandlers } from "../tool-handlers.js";
import { looseInputSchema } from "../sdk-tools.js";
import type { Store } from "../../stores/store.js";
import type { ToolDefinition } from "../../core/types.js";

/**
 * Options of {@link odaTasksMiddleware}: the store, the chat (by default the
 * run's `configurable.thread_id`), the tools' options, and when to put the
 * list back into the model's context.
 *
 * @example
 * const options: OdaTasksMiddlewareOptions = { store, remind: "always" }; // the chat: each run's thread_id
 */
export interface OdaTasksMiddlewareOptions extends RunToolOptions, TurnReminderOptions {
  store: Store;
  /** The chat every run works on; omitted: each run's `configurable.thread_id`. */
  chatId?: string;
}

/** The name LangChain knows the middleware by (`createAgent` refuses a name twice). */
const NAME = "odaTasksMiddleware";

/** The task list tool of LangChain's own `todoListMiddleware`, which this middleware replaces. */
const TODO_LIST_TOOL = "write_todos";

/** One agent run on one chat: its turn, begun at its first model or tool call, and how it ended. */
interface AgentRun {
  chatId: string;
  /** The run's own abort signal, which tells its hooks and tool calls from another run's. */
  signal: AbortSignal | undefined;
  turn?: Promise<OpenTurn>;
  ended?: Promise<void>;
  /** What the run's model was told of a person's edits, each at the model call after it: in every later call of the run. */
  told: string[];
  /** Stops following the run's abort signal. */
  unfollow: () => void;
}

/**
 * `todo_write` and `suggest_task` for a LangChain v1 agent, with the turn
 * rules of `aiTurn`: one agent run is one turn of the chat, ended when the
 * run ends, when its model call throws and when it is aborted; a tool call
 * after that is refused. Each ToolMessage's content is the core's exact
 * text; its artifact is `{ card?, offer? }`. Refuses to run beside
 * `todoListMiddleware`.
 *
 * @example
 * import { createAgent } from "langchain";
 * import { odaTasksMiddleware } from "oda-tasks/langchain";
 * const agent = createAgent({ model: "openai:gpt-5", tools: [], middleware: [odaTasksMiddleware({ store })] });
 * await agent.invoke({ messages: [{ role: "user", content: "Plan the release" }] }, { configurable: { thread_id: "chat-1" } });
 */
export function odaTasksMiddleware(options: OdaTasksMiddlewareOptions): AgentMiddleware {
  const {
    remind = "due",
    everyTurns,
    chatId,
    ...rest
  } = readOptions<OdaTasksMiddlewareOptions>(NAME, options, {
    ...RUN_OPTION_RULES,
    store: ANY,
    chatId: ANY,
    ...TURN_REMINDER_RULES,
  });
  // The one check of the store and the tools' options; a missing chat id is the run's to give.
  const { store, chatId: fixed, ...run } = chatToolsOptions(NAME, { ...rest, chatId: chatId ?? "" });
  const reminder = { remind, ...(everyTurns === undefined ? {} : { everyTurns }) };
  const runs = new Map<string, AgentRun>();

  const chatOf = (configurable: unknown): string => {
    if (chatId !== undefined) return fixed;
    const thread = (configurable as { thread_id?: unknown } | undefined)?.thread_id;
    if (typeof thread === "string" && thread !== "") return thread;
    throw new TypeError(
      `oda-tasks: ${NAME} has no chat id: pass \`chatId\` to ${NAME}, or run the agent with \`configurable: { thread_id }\` (the chat's id)`,
    );
  };
  const refusal = (name: string) =>
    `oda-tasks: ${name} was called after its agent run ended; it was refused and recorded nothing ` +
    `(${NAME}'s tools work during a run of the agent it was given to)`;

  const register = (chat: string, signal: AbortSignal | undefined): AgentRun => {
    const agentRun: AgentRun = { chatId: chat, signal, told: [], unfollow: () => undefined };
    runs.set(chat, agentRun);
    agentRun.unfollow = follow(signal, () => void end(agentRun).catch(() => undefined));
    return agentRun;
  };
  /** Whether `agentRun` is the run `runtime` belongs to (a newer run on the chat has taken its turn over). */
  const mine = (agentRun: AgentRun | undefined, runtime: Runtime): agentRun is AgentRun =>
    agentRun !== undefined && (agentRun.signal === undefined || agentRun.signal === runSignal(runtime));
  /** The run's turn, begun on first use; `undefined` once the run ended (aborted) before it began. */
  const begin = (agentRun: AgentRun): Promise<OpenTurn> | undefined => {
    if (agentRun.ended === undefined) agentRun.turn ??= openTurn(store, agentRun.chatId, run.cache, reminder, refusal);
    return agentRun.turn;
  };
  /** Ends the run's turn once (after its tool calls settle); later calls of its tools are refused. */
  const end = (agentRun: AgentRun): Promise<void> => {
    if (runs.get(agentRun.chatId) === agentRun) runs.delete(agentRun.chatId);
    agentRun.unfollow();
    agentRun.ended ??= (async () => {
      const open = await agentRun.turn?.catch(() => undefined);
      await open?.end();
    })();
    return agentRun.ended;
  };

  const langchainTool = (definition: ToolDefinition<"todo_write" | "suggest_task">) =>
    tool(
      async (input: unknown, config: Runtime) => {
        const chat = chatOf(config.configurable);
        const agentRun = runs.get(chat);
        if (!mine(agentRun, config) || agentRun.ended !== undefined) throw new TypeError(refusal(definition.name));
        const open = await begin(agentRun);
        if (open === undefined) throw new TypeError(refusal(definition.name));
        const handlers = uiToolHandlers({ store, chatId: chat, ...run });
        const { text, ...ui } = await open.calls.run(definition.name, () => handlers[definition.name](input, config.toolCall?.id));
        // The model reads `text`; the artifact carries what the UI draws.
        return [text, ui] as [string, typeof ui];
      },
      {
        name: definition.name,
        description: definition.description,
        schema: looseInputSchema(definition),
        responseFormat: "content_and_artifact",
      },
    );

  return createMiddleware({
    name: NAME,
    tools: [langchainTool(todoWriteTool), langchainTool(suggestTaskTool)],
    beforeAgent: async (_state, runtime) => {
      const chat = chatOf(runtime.configurable);
      const previous = runs.get(chat);
      // A run still registered on this chat failed outside the model call, or still runs: its turn ends
      // first, and the newer run holds the chat's turn (one open turn per chat, as beginTurn keeps).
      if (previous !== undefined) await end(previous).catch(() => undefined);
      register(chat, runSignal(runtime));
    },
    wrapModelCall: async (request, handler) => {
      const tools = request.tools.map((t) => (t as { name?: unknown }).name);
      const chat = chatOf(request.runtime.configurable);
      const registered = runs.get(chat);
      if (tools.includes(TODO_LIST_TOOL)) {
        if (mine(registered, request.runtime)) await end(registered);
        throw new TypeError(
          `oda-tasks: ${NAME} replaces LangChain's todoListMiddleware: remove todoListMiddleware (its ${TODO_LIST_TOOL} tool) from the agent's middleware; two task lists would confuse the model`,
        );
      }
      // A newer run on this chat holds its turn: this run's model calls go on without one (its tools are refused).
      if (registered !== undefined && !mine(registered, request.runtime)) return handler(request);
      // A model call after the run's turn ended (a retry by a middleware listed before this one) opens the next.
      const agentRun = registered ?? register(chat, runSignal(request.runtime));
      const open = await begin(agentRun);
      if (open === undefined) return handler(request); // aborted before its first model call: no turn to write
      try {
        // A person's edit since the last model call: told now (recorded), and kept in the run's later calls.
        const edited = await open.notice().catch(() => null);
        if (edited !== null) agentRun.told.push(edited.text);
        const context = [open.reminder, ...agentRun.told].filter((text): text is string => text !== null);
        return await handler(context.length === 0 ? request : withReminder(request, context.join("\n\n")));
      } catch (e) {
        // The model call's failure is the one to report; the turn still ends, after its tool calls.
        await end(agentRun).catch(() => undefined);
        throw e;
      }
    },
    afterAgent: async (_state, runtime) => {
      const agentRun = runs.get(chatOf(runtime.configurable));
      if (mine(agentRun, runtime)) await end(agentRun);
    },
  }) as AgentMiddleware;
}

/** What the middleware reads of a hook's runtime or a tool call's config. */
interface Runtime {
  configurable?: unknown;
  signal?: AbortSignal | undefined;
  /** A tool call's: the model's call, its `id` the span's `gen_ai.tool.call.id`. */
  toolCall?: { id?: string | undefined } | undefined;
}

/** The request with the list's text (and what the model is told of a person's edits) after the system message (or as it, when there is none). */
function withReminder(request: ModelRequest, reminder: string): ModelRequest {
  const system = request.systemMessage;
  if (system === undefined || system.text === "") return { ...request, systemPrompt: reminder };
  return { ...request, systemMessage: system.concat(`\n\n${reminder}`) };
}

/**
 * The run's own abort signal: LangGraph hands each step a signal of its own
 * (the run's, the step's timeout and its failures), which stops following
 * the run once the step is over; the run's is kept beside it.
 */
function runSignal(runtime: Runtime): AbortSignal | undefined {
  const signals = (runtime.configurable as { __pregel_abort_signals?: { externalAbortSignal?: unknown } } | undefined)
    ?.__pregel_abort_signals;
  const external = signals?.externalAbortSignal;
  if (typeof (external as AbortSignal | undefined)?.addEventListener === "function") return external as AbortSignal;
  return runtime.signal;
}

/** Calls `onAbort` once when `signal` aborts (at once if it has); resolves to a function that stops following. */
function follow(signal: AbortSignal | undefined, onAbort: () => void): () => void {
  if (signal === undefined) return () => undefined;
  if (signal.aborted) {
    onAbort();
    return () => undefined;
  }
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}
