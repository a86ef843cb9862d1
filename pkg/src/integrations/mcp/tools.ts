// The two tools as the MCP SDK registers them: the core's name, description
// and JSON Schema as listed, honest annotations, the MCP Apps link; and a
// schema that lets every object through, so the core, not the SDK, judges
// the input and the model reads the core's exact refusal.
import { looseObject } from "zod/v4";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { ToolDefinition } from "../../core/types.js";
import { APP_RESOURCE_URI } from "./keys.js";

/** What `McpServer.registerTool` takes for one of the tools. */
export interface McpToolConfig {
  title: string;
  description: string;
  inputSchema: ReturnType<typeof looseObject>;
  annotations: ToolAnnotations;
  _meta: { ui: { resourceUri: string } };
}

/** Both tools record an entry on each accepted call; neither deletes, repeats safely or reaches outside the chat. */
const ANNOTATIONS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

/** Titles for a host's tool list (the model reads the description). */
const TITLES: Record<string, string> = { todo_write: "Update to-do list", suggest_task: "Suggest a follow-up task" };

/** Built once per tool: `mcpHandler` makes a server per request, and each shares these. */
const built = new Map<string, McpToolConfig>();

/**
 * Internal: the registration of `tool`. Its listed input schema is the
 * core's JSON Schema (the SDK adds `$schema`), carried as the metadata of a
 * schema that accepts any object.
 */
export function mcpToolConfig(tool: ToolDefinition): McpToolConfig {
  let config = built.get(tool.name);
  if (config === undefined) {
    config = toolConfig(tool);
    built.set(tool.name, config);
  }
  return config;
}

function toolConfig(tool: ToolDefinition): McpToolConfig {
  const listed = JSON.parse(JSON.stringify(tool.inputSchema)) as Record<string, unknown>;
  return {
    title: TITLES[tool.name] ?? tool.name,
    description: tool.description,
    inputSchema: looseObject({}).meta(listed),
    annotations: Object.freeze({ ...ANNOTATIONS }),
    _meta: Object.freeze({ ui: Object.freeze({ resourceUri: APP_RESOURCE_URI }) }),
  };
}
