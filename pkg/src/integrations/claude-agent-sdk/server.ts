// The two tools as an in-process MCP server of the Claude Agent SDK: the
// core's names, descriptions and JSON Schemas as listed; a schema that lets
// every object through, so the core, not zod, judges the input and the model
// reads the core's exact text; the card or offer in the result's `_meta`.
import type { McpSdkServerConfigWithInstance } from "@anthropic-ai/claude-agent-sdk";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { looseObject } from "zod/v4";
import { suggestTaskTool, todoWriteTool } from "../../gen/tools.js";
import type { UiToolResult } from "../../chat/run.js";
import type { ToolDefinition } from "../../core/types.js";
import { CARD_META, CHAT_META, ODA_SERVER, OFFER_META, TOOL_USE_ID_META } from "./names.js";

/** The tools' names, as the core defines them. */
export type OdaToolName = "todo_write" | "suggest_task";

/** Internal: runs one call; `toolUseId` is the SDK's id of the model's tool_use block (`undefined`: none given). */
export type OdaCall = (name: OdaToolName, input: unknown, toolUseId: string | undefined) => Promise<OdaAnswer>;

/** Internal: a call's answer: the core's text, whether it accepted the call, the chat it was recorded on, and what the UI draws. */
export type OdaAnswer = UiToolResult & { ok: boolean; chatId: string };

/**
 * Internal: the `oda` server, always loaded (never deferred behind tool
 * search), whose tool calls go to `call`. Built as the SDK's
 * `createSdkMcpServer` builds one, on the app's `@modelcontextprotocol/sdk`,
 * so no part of the agent SDK is imported (its root and `/core` entries both take it).
 */
export function odaServer(call: OdaCall): McpSdkServerConfigWithInstance {
  const server = new McpServer({ name: ODA_SERVER, version: "1.0.0" }, { capabilities: { tools: {} } });
  for (const tool of [todoWriteTool, suggestTaskTool] as ToolDefinition<OdaToolName>[]) {
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        // Listed as the core's JSON Schema (zod's metadata); checks nothing below the top object.
        inputSchema: looseObject({}).meta(JSON.parse(JSON.stringify(tool.inputSchema)) as Record<string, unknown>),
        _meta: { [ALWAYS_LOAD_META]: true },
      },
      async (input, extra) => mcpResult(await call(tool.name, input, toolUseIdOf(extra))),
    );
  }
  return { type: "sdk", name: ODA_SERVER, instance: server };
}

/** The tool `_meta` key by which the SDK never defers a tool behind tool search (`createSdkMcpServer`'s `alwaysLoad`). */
const ALWAYS_LOAD_META = "anthropic/alwaysLoad";

/** The MCP result: the exact text is the only content, `isError` on a refusal, the rest in `_meta`. */
function mcpResult({ ok, text, chatId, card, offer }: OdaAnswer): CallToolResult {
  const meta: Record<string, unknown> = { [CHAT_META]: chatId };
  if (card !== undefined) meta[CARD_META] = card;
  if (offer !== undefined) meta[OFFER_META] = offer;
  return { content: [{ type: "text", text }], ...(ok ? {} : { isError: true }), _meta: meta };
}

/** The tool-use id the SDK puts in an in-process call's `_meta`. */
function toolUseIdOf(extra: unknown): string | undefined {
  const meta = (extra as { _meta?: Record<string, unknown> } | null | undefined)?._meta;
  const id = meta?.[TOOL_USE_ID_META];
  return typeof id === "string" ? id : undefined;
}
