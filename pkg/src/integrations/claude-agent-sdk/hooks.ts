// The hooks withOda adds to the app's: a prompt of the main agent begins a
// turn and hands the model the list's reminder; after each of its tool calls,
// a person's edit of the list made meanwhile is told to the model; its Stop,
// StopFailure and Interrupt end it; PreToolUse tells each of the tools' calls
// which agent made it.
import type { HookCallbackMatcher, HookEvent, HookInput, HookJSONOutput } from "@anthropic-ai/claude-agent-sdk";
import type { CallAgents } from "./agents.js";
import { ODA_TOOL_NAMES } from "./names.js";
import type { ChatTurns } from "./turns.js";

/** Internal: the hooks of one `withOda` options object, by event. */
export type OdaHooks = Partial<Record<HookEvent, HookCallbackMatcher[]>>;

/** Internal: the hooks that run `turns` and note the tools' callers in `agents`. */
export function odaHooks(turns: ChatTurns, agents: CallAgents): OdaHooks {
  // Only the main agent's events make turns: a subagent's carry its `agent_id`.
  const main = (input: HookInput) => input.agent_id === undefined;
  const endTurn = async (input: HookInput): Promise<HookJSONOutput> => {
    if (main(input)) await turns.end();
    return {};
  };
  return {
    UserPromptSubmit: [
      {
        // A turn that cannot be recorded (no such chat, a failing store) stops the prompt instead of running unrecorded.
        onFailure: "block",
        hooks: [
          async (input) => {
            if (!main(input)) return {};
            let reminder: string | null;
            try {
              reminder = await turns.begin();
            } catch (e) {
              // The app reads why in the query's messages (a system message with this reason); the model is not called.
              return { continue: false, stopReason: `oda-tasks: the turn could not begin, so the prompt was not sent: ${describe(e)}` };
            }
            return reminder === null ? {} : { hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: reminder } };
          },
        ],
      },
    ],
    PreToolUse: [
      {
        matcher: `${ODA_TOOL_NAMES.todo_write}|${ODA_TOOL_NAMES.suggest_task}`,
        hooks: [
          async (input) => {
            if (input.hook_event_name === "PreToolUse") agents.note(input.tool_use_id, input.agent_id, input.agent_type);
            return {};
          },
        ],
      },
    ],
    PostToolUse: [
      {
        hooks: [
          async (input) => {
            // The model's next request follows its tool calls: a person's edit made meanwhile goes into it, told once.
            const told = main(input) ? await turns.notice().catch(() => null) : null;
            return told === null ? {} : { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: told } };
          },
        ],
      },
    ],
    Stop: [{ hooks: [endTurn] }],
    StopFailure: [{ hooks: [endTurn] }],
    Interrupt: [{ hooks: [endTurn] }],
  };
}

/** An error as the stop reason gives it: its message, and its code when it has one (a store's failure). */
function describe(e: unknown): string {
  const { message, code } = (typeof e === "object" && e !== null ? e : { message: String(e) }) as { message?: unknown; code?: unknown };
  return `${String(message)}${typeof code === "string" ? ` (${code})` : ""}`;
}
