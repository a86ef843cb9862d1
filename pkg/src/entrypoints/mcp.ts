// `oda-tasks/mcp`: the two tools as an MCP server (`@modelcontextprotocol/sdk`),
// for stdio and for Streamable HTTP behind a Fetch-API handler.
export { odaMcpServer } from "../integrations/mcp/server.js";
export type { OdaMcpServerOptions } from "../integrations/mcp/options.js";
export { mcpHandler, type McpAuthorizeContext, type McpHandler, type McpHandlerOptions } from "../integrations/mcp/handler.js";
export {
  APP_RESOURCE_URI,
  CARD_META,
  CHAT_META,
  OFFER_META,
  TURN_META,
  VSCODE_CONVERSATION_META,
  VSCODE_REQUEST_META,
} from "../integrations/mcp/keys.js";
export * from "../integrations/mcp/app/index.js";
