// Type tests for oda-tasks/claude-agent-sdk against the real Claude Agent SDK
// types: withOda's result is the SDK's `Options` for `query()`, and its own options are checked.
import { query, type Options } from "@anthropic-ai/claude-agent-sdk";
import { MemoryStore } from "oda-tasks";
import { CARD_META, helperChatId, ODA_TOOL_NAMES, withOda, type OdaOptions } from "oda-tasks/claude-agent-sdk";

const store = new MemoryStore();
const oda: OdaOptions = { store, chatId: "c", remind: "always", everyTurns: 2, oneActive: false };
const app: Options = { cwd: "/repos/app", allowedTools: ["Read"], hooks: { Stop: [{ hooks: [async () => ({})] }] } };
const options: Options = withOda(app, oda);
export const run = query({ prompt: "Plan the release", options });
export const bare: Options = withOda(undefined, { store, chatId: "c" });
export const name: "mcp__oda__todo_write" = ODA_TOOL_NAMES.todo_write;
export const key: "oda-tasks/card" = CARD_META;
export const helper: string = helperChatId("c", "a1");
// @ts-expect-error the chat is needed
void withOda(app, { store });
// @ts-expect-error remind takes "due", "always" or "never"
void withOda(app, { store, chatId: "c", remind: "sometimes" });
// @ts-expect-error the app's options are the SDK's
void withOda({ allowedTools: "Read" }, oda);
