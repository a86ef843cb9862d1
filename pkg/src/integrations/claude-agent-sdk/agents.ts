// Which agent made a tool call: the SDK's PreToolUse hook names the subagent
// (`agent_id`, absent for the main agent) beside the call's tool-use id, and
// the in-process tool handler gets only the tool-use id. Bounded: a call the
// hook saw but the handler never ran (denied) is forgotten after enough newer ones.

/** Who made a call: the main agent (`null`) or a subagent. */
export type CallAgent = null | { agentId: string; agentType: string | undefined };

/** How many calls are remembered between their hook and their handler. */
const MAX_PENDING = 256;

/** Internal: the agents of tool calls, from their PreToolUse hook to their handler. */
export class CallAgents {
  readonly #pending = new Map<string, CallAgent>();

  /** Remembers the agent of the call `toolUseId` (from its PreToolUse hook input). */
  note(toolUseId: string, agentId: unknown, agentType: unknown): void {
    if (this.#pending.size >= MAX_PENDING) this.#pending.delete(this.#pending.keys().next().value as string);
    const agent: CallAgent =
      typeof agentId === "string" && agentId !== "" ? { agentId, agentType: typeof agentType === "string" ? agentType : undefined } : null;
    this.#pending.set(toolUseId, agent);
  }

  /** The agent of call `toolUseId`, forgotten once taken; `undefined`: its hook was never seen. */
  take(toolUseId: string | undefined): CallAgent | undefined {
    if (toolUseId === undefined) return undefined;
    const agent = this.#pending.get(toolUseId);
    this.#pending.delete(toolUseId);
    return agent;
  }
}
