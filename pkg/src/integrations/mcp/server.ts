// `odaMcpServer`: the two tools on an MCP server of the official SDK, for
// MCP hosts (Claude Desktop, VS Code, Cursor) and agents in any language
// that take tools from an MCP server (Pydantic AI, LangGraph).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { createChatAt } from "../../chat/lifecycle.js";
import { checkChatId } from "../../stores/store.js";
import type { RunToolOptions } from "../../chat/run.js";
import { CORE_VERSION } from "../../gen/wasm-interface.js";
import { suggestTaskTool, todoWriteTool } from "../../gen/tools.js";
import { registerOwnedApp } from "./app/register.js";
import { callTool, type CallScope } from "./call.js";
import { readServerOptions, type OdaMcpServerOptions } from "./options.js";
import { mcpToolConfig } from "./tools.js";

/**
 * An MCP server with the tools `todo_write` and `suggest_task` over `store`.
 * A call acts on the chat in its `_meta["oda-tasks/chat"]`, else `chatId`,
 * else its MCP session's chat (`sessionChat`); with none, the core refuses
 * it (no owning session). `_meta["oda-tasks/turn"]` names the model turn:
 * a new id ends the open turn and begins the next. An unknown option throws here.
 *
 * @example
 * import { odaMcpServer } from "oda-tasks/mcp";
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 * const server = odaMcpServer({ store, chatId: "chat-1" });
 * await server.connect(new StdioServerTransport());
 */
export function odaMcpServer(options: OdaMcpServerOptions): McpServer {
  return serverOf(readServerOptions("odaMcpServer", options));
}

/**
 * The SDK validates JSON Schemas only for elicitation, which these tools never
 * ask: this stands in for the Ajv it builds per server otherwise (most of
 * the time of `mcpHandler`'s server per request, `npm run bench:mcp`).
 */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: "oda-tasks: this MCP server asks for no elicitation" }),
};

/**
 * Internal: the server over options already read by `readServerOptions`,
 * acting on the chats of the owner whose store key prefix is `prefix`
 * (stores/owners.ts; `""`: the store's own ids).
 */
export function serverOf(
  options: ReturnType<typeof readServerOptions>,
  appTools: "declared" | "always" = "declared",
  prefix = "",
): McpServer {
  const { store, chatId, sessionChat, suggestTask = true, onError, chatUrl, addTools, ...run } = options;
  const server = new McpServer({ name: "oda-tasks", version: CORE_VERSION }, { jsonSchemaValidator: NO_ELICITATION });
  /** The chats made for sessions and conversations, by chat id (each created once). */
  const madeChats = new Map<string, Promise<string>>();
  const madeChat = (id: string): Promise<string> => {
    let chat = madeChats.get(id);
    if (chat === undefined) {
      chat = createChatAt(store, prefix + id, id, sessionChat ?? {}).then(() => id); // an existing chat is left as it is
      madeChats.set(id, chat);
      chat.catch(() => madeChats.delete(id));
    }
    return chat;
  };
  const scope: CallScope = {
    store,
    prefix,
    run: run as RunToolOptions,
    onError,
    async defaultChat(sessionId, conversationId) {
      if (chatId !== undefined) return chatId;
      if (sessionChat === undefined) return null;
      const conversationChat = conversationId === undefined ? undefined : `vscode-${conversationId}`;
      if (conversationChat !== undefined && isChatId(conversationChat)) return madeChat(conversationChat);
      return sessionId === undefined ? null : madeChat(`mcp-session-${sessionId}`);
    },
  };
  server.registerTool(todoWriteTool.name, mcpToolConfig(todoWriteTool), (args, extra) =>
    callTool(scope, "todo_write", args, extra._meta, extra.sessionId),
  );
  if (suggestTask) {
    server.registerTool(suggestTaskTool.name, mcpToolConfig(suggestTaskTool), (args, extra) =>
      callTool(scope, "suggest_task", args, extra._meta, extra.sessionId),
    );
  }
  // MCP Apps: the `ui://oda-tasks/chat.html` resource the tools link to, and its app-only tools.
  addTools?.(server);
  registerOwnedApp(
    server,
    { store, appTools, ...(chatUrl === undefined ? {} : { chatUrl }), ...(onError === undefined ? {} : { onError }) },
    prefix,
  );
  return server;
}

/** Whether `id` is a chat id every store takes. */
function isChatId(id: string): boolean {
  try {
    checkChatId(id);
    return true;
  } catch {
    return false;
  }
}
