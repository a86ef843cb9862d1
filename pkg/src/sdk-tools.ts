// The two tools in the shapes the OpenAI and Anthropic SDKs take, built from
// the same definitions as todoWriteTool/suggestTaskTool. Plain data: no SDK
// is imported, yet the types are what the SDKs' tool types accept.
import type { JsonSchema, JsonValue, ToolDefinition } from "./core.js";
import { suggestTaskTool, todoWriteTool } from "./gen/tools.js";

/**
 * An object schema as both SDKs want it at the top of a tool's input:
 * `type: "object"` in its type, its properties and the required ones.
 *
 * @example
 * const s: ToolInputSchema = anthropicTools()[0].input_schema;
 */
export type ToolInputSchema = JsonSchema & {
  type: "object";
  properties: { [name: string]: JsonSchema };
  required: string[];
};

/**
 * An OpenAI Chat Completions function tool (`ChatCompletionTool`).
 *
 * @example
 * const tool: OpenAiTool<"todo_write"> = openaiTools()[0];
 */
export interface OpenAiTool<N extends string = string> {
  type: "function";
  function: { name: N; description: string; parameters: ToolInputSchema; strict: boolean };
}

/**
 * An Anthropic Messages API tool (`Anthropic.Tool`).
 *
 * @example
 * const tool: AnthropicTool<"suggest_task"> = anthropicTools()[1];
 */
export interface AnthropicTool<N extends string = string> {
  name: N;
  description: string;
  input_schema: ToolInputSchema;
}

/**
 * Options for {@link openaiTools}.
 *
 * @example
 * openaiTools({ strict: true });
 */
export interface OpenAiToolsOptions {
  /**
   * OpenAI's strict mode: the schema loses the keywords strict mode refuses
   * (`minLength`, `maxLength`) and lists every property as required. The
   * core still enforces every limit and refuses with its exact text.
   */
  strict?: boolean;
}

/** Keywords OpenAI's strict mode refuses in a tool's schema. */
const STRICT_REFUSED = new Set(["minLength", "maxLength"]);

/**
 * `todo_write` and `suggest_task` as OpenAI Chat Completions tools, fresh
 * copies each call. For the Responses API, spread each `function` into
 * `{ type: "function", ...tool.function }`.
 *
 * @example
 * import { openaiTools } from "oda-tasks";
 * const reply = await openai.chat.completions.create({ model, messages, tools: openaiTools({ strict: true }) });
 */
export function openaiTools(options: OpenAiToolsOptions = {}): [OpenAiTool<"todo_write">, OpenAiTool<"suggest_task">] {
  const strict = options.strict === true;
  const openai = <N extends string>(tool: ToolDefinition<N>): OpenAiTool<N> => ({
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters: inputSchema(strict ? strictSchema(tool.inputSchema) : tool.inputSchema),
      strict,
    },
  });
  return [openai(todoWriteTool), openai(suggestTaskTool)];
}

/**
 * `todo_write` and `suggest_task` as Anthropic Messages API tools, fresh
 * copies each call.
 *
 * @example
 * import { anthropicTools } from "oda-tasks";
 * const reply = await anthropic.messages.create({ model, max_tokens: 1024, messages, tools: anthropicTools() });
 */
export function anthropicTools(): [AnthropicTool<"todo_write">, AnthropicTool<"suggest_task">] {
  const anthropic = <N extends string>(tool: ToolDefinition<N>): AnthropicTool<N> => ({
    name: tool.name,
    description: tool.description,
    input_schema: inputSchema(tool.inputSchema),
  });
  return [anthropic(todoWriteTool), anthropic(suggestTaskTool)];
}

/** A deep copy of a tool's top-level schema, checked to be the object schema both SDKs need. */
function inputSchema(schema: JsonSchema): ToolInputSchema {
  const copy = JSON.parse(JSON.stringify(schema)) as JsonSchema;
  const { type, properties, required } = copy;
  if (type !== "object" || !isObject(properties) || !Array.isArray(required)) {
    throw new Error("oda-tasks: a tool's input schema must be an object schema with properties and required");
  }
  return copy as ToolInputSchema;
}

/** The schema as strict mode takes it: refused keywords left out, every object closed with all its properties required. */
function strictSchema(schema: JsonValue): JsonSchema {
  const walk = (value: JsonValue): JsonValue => {
    if (Array.isArray(value)) return value.map(walk);
    if (!isObject(value)) return value;
    const out: JsonSchema = {};
    for (const [key, inner] of Object.entries(value)) {
      if (STRICT_REFUSED.has(key)) continue;
      // The values of `properties` are schemas keyed by name, never keywords.
      out[key] = key === "properties" && isObject(inner)
        ? Object.fromEntries(Object.entries(inner).map(([name, s]) => [name, walk(s)]))
        : walk(inner);
    }
    if (isObject(out.properties)) {
      out.required = Object.keys(out.properties);
      out.additionalProperties = false;
    }
    return out;
  };
  return walk(schema) as JsonSchema;
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
