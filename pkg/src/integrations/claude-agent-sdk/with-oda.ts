// `withOda`: the Claude Agent SDK's options with the chat's task list in them.
// The two tools run in process on the app's store; the SDK's own todo and
// task tools are disallowed (one list per chat); the turns come from its hooks.
import type { Options } from "@anthropic-ai/claude-agent-sdk";
import { ANY, ownOptions, readOptions } from "../../core/options.js";
import { createChat } from "../../chat/lifecycle.js";
import { RUN_OPTION_RULES, runToolWithParts, type RunToolOptions } from "../../chat/run.js";
import { TURN_REMINDER_RULES, type TurnReminderOptions } from "../../chat/turn.js";
import type { Store } from "../../stores/store.js";
import { chatToolsOptions } from "../tool-handlers.js";
import { CallAgents } from "./agents.js";
import { odaHooks } from "./hooks.js";
import { mergeOptions } from "./merge.js";
import { helperChatId } from "./names.js";
import { odaServer, type OdaCall } from "./server.js";
import { ChatTurns } from "./turns.js";

/**
 * The chat of {@link withOda}, the tools' options, and when to put the list
 * back into the model's context.
 *
 * @example
 * const oda: OdaOptions = { store, chatId: "chat-1", remind: "always" }; // after compaction or on resume
 */
export interface OdaOptions extends RunToolOptions, TurnReminderOptions {
  store: Store;
  chatId: string;
}

/** The name misuse errors give. */
const NAME = "withOda";

/**
 * The app's Claude Agent SDK `options` with the chat's task list: the tools
 * `todo_write` and `suggest_task` (`mcp__oda__*`, in process, allowed), the
 * SDK's own todo and task tools disallowed, and one turn of chat `chatId`
 * per prompt of the main agent, ended by its Stop, StopFailure, Interrupt or
 * the query's end after its tool calls settled. The app's hooks, MCP servers
 * and tool lists are kept and extended. A subagent's calls go to its own
 * chat ({@link helperChatId}), where `suggest_task` is refused. Call it for
 * each `query()`; the chat must exist (`createChat`).
 *
 * @example
 * import { query } from "@anthropic-ai/claude-agent-sdk";
 * import { withOda } from "oda-tasks/claude-agent-sdk";
 * for await (const message of query({ prompt: "Plan the release", options: withOda({ cwd: "/repos/app" }, { store, chatId: "chat-1" }) })) {
 *   if (message.type === "result") console.log(message.subtype);
 * }
 */
export function withOda(options: Options | null | undefined, oda: OdaOptions): Options {
  const app = ownOptions(NAME, options);
  const {
    remind = "due",
    everyTurns,
    ...rest
  } = readOptions<OdaOptions>(NAME, oda, { ...RUN_OPTION_RULES, store: ANY, chatId: ANY, ...TURN_REMINDER_RULES });
  const { store, chatId, ...run } = chatToolsOptions(NAME, rest);
  const turns = new ChatTurns(store, chatId, run.cache, { remind, ...(everyTurns === undefined ? {} : { everyTurns }) });
  const agents = new CallAgents();

  const call: OdaCall = async (name, input, toolUseId) => {
    const agent = agents.take(toolUseId);
    if (agent === undefined) {
      throw new TypeError(
        `oda-tasks: ${name} ran without ${NAME}'s PreToolUse hook, so its agent is unknown; it was refused and recorded nothing (keep the hooks ${NAME} returns)`,
      );
    }
    // The SDK's tool-use id of the call (its hook saw it): the span's gen_ai.tool.call.id.
    const call = { name, input, ...(toolUseId === undefined ? {} : { id: toolUseId }) };
    if (agent === null) {
      const r = await turns.run(name, () => runToolWithParts(store, chatId, call, run));
      return { ...r, chatId };
    }
    // A subagent works on a helper chat of its own: its own list, and the core refuses its suggestions.
    const helper = helperChatId(chatId, agent.agentId);
    await createChat(store, helper, { agent: "helper", ...(agent.agentType === undefined ? {} : { title: agent.agentType }) });
    return { ...(await runToolWithParts(store, helper, call, run)), chatId: helper };
  };

  const server = odaServer(call);
  const merged = mergeOptions(NAME, app, { server, hooks: odaHooks(turns, agents) });
  // The query's end (its result, an abort, the app leaving the loop) closes the server: the turn ends if still open.
  const protocol = server.instance.server;
  const onclose = protocol.onclose;
  protocol.onclose = () => {
    onclose?.();
    turns.end().catch(() => undefined); // the next beginTurn closes a turn this could not
  };
  return merged;
}
