// Type tests for oda-tasks/mcp against the real @modelcontextprotocol/sdk 1.32 types.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { beginTurn, MemoryStore } from "oda-tasks";
import { CHAT_META, mcpHandler, odaMcpServer, TURN_META, type McpAuthorizeContext, type McpHandler } from "oda-tasks/mcp";

const store = new MemoryStore();
export const server: McpServer = odaMcpServer({ store, chatId: "c", suggestTask: false, oneActive: true });
export const session: McpServer = odaMcpServer({ store, sessionChat: { workspace: "/w" } });
export const handler: McpHandler = mcpHandler({
  store,
  maxBodyBytes: 1 << 20,
  authorize: (_request: Request, { method, tool, chatId }: McpAuthorizeContext) =>
    method !== "tools/call" || (tool !== undefined && chatId === "c"),
});
export const answered: Promise<Response> = handler(new Request("https://x/mcp", { method: "POST" }));
export const meta: Record<string, string> = { [CHAT_META]: "c", [TURN_META]: "t" };
export const turn: Promise<number> = beginTurn(store, "c", { turn: "msg_01" });

// @ts-expect-error mcpHandler is stateless: no session chats
mcpHandler({ store, authorize: () => true, sessionChat: {} });
// @ts-expect-error authorize is required
mcpHandler({ store });
// @ts-expect-error a turn id is a string
beginTurn(store, "c", { turn: 1 });
