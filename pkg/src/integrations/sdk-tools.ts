// The two tools in the shapes the OpenAI and Anthropic SDKs take, built from
// the same definitions as todoWriteTool/suggestTaskTool. Plain data: no SDK
// is imported, yet the types are what the SDKs' tool types accept.
import type { JsonSchema, JsonValue, ToolDefinition, ToolInputSchema } from "../core/functions.js";
import { suggestTaskTool, todoWriteTool } from "../gen/tools.js";

/**
 * An OpenAI Chat Completions function tool (`ChatCompletionTool`).
 *
 * @example
 * const tool: OpenAiTool<"todo_write"> = openaiTools()[0];
 */
export interface OpenAiTool<N extends string = string, S extends boolean = boolean> {
  type: "function";
  function: { name: N; description: string; parameters: ToolInputSchema; strict: S };
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
 * const reply = await openai.chat.completions.create({ model: "gpt-4.1", messages, tools: openaiTools({ strict: true }) });
 */
export function openaiTools(options: { strict: true }): [OpenAiTool<"todo_write", true>, OpenAiTool<"suggest_task", true>];
export function openaiTools(options?: OpenAiToolsOptions): [OpenAiTool<"todo_write">, OpenAiTool<"suggest_task">];
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
 * const reply = await anthropic.messages.create({ model: "claude-sonnet-4-5", max_tokens: 1024, messages, tools: anthropicTools() });
 */
export function anthropicTools(): [AnthropicTool<"todo_write">, AnthropicTool<"suggest_task">] {
  const anthropic = <N extends string>(tool: ToolDefinition<N>): AnthropicTool<N> => ({
    name: tool.name,
    description: tool.description,
    input_schema: inputSchema(tool.inputSchema),
  });
  return [anthropic(todoWriteTool), anthropic(suggestTaskTool)];
}

/**
 * A tool's input schema that lets every input through to the core (for
 * frameworks that check input against the schema before calling the tool,
 * LangChain and Mastra): only the top `type: "object"` is checked; the
 * structure (`properties`, `items`) and descriptions stay for the model, the
 * checks (`type`, `enum`, `required`, lengths, `additionalProperties`) go, so
 * a bad input reaches the core and the model reads its exact refusal.
 *
 * @example
 * import { looseInputSchema, todoWriteTool } from "oda-tasks";
 * const schema = looseInputSchema(todoWriteTool);
 * // LangChain: tool(run, { name: "todo_write", description: todoWriteTool.description, schema })
 */
export function looseInputSchema(tool: ToolDefinition): LooseInputSchema {
  const loose = withoutKeywords(inputSchema(tool.inputSchema), LOOSE_DROPPED) as JsonSchema;
  return { ...loose, type: "object", properties: loose.properties as { [name: string]: JsonSchema } };
}

/**
 * What {@link looseInputSchema} returns: an object schema with properties
 * that checks nothing below its top.
 *
 * @example
 * const s: LooseInputSchema = looseInputSchema(suggestTaskTool);
 */
export type LooseInputSchema = JsonSchema & { type: "object"; properties: { [name: string]: JsonSchema } };

/** Keywords that check an input (and so would refuse it before the core does). */
const LOOSE_DROPPED = new Set([
  "type",
  "enum",
  "const",
  "required",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "additionalProperties",
]);

/** A deep copy of a tool's top-level schema, checked to be the object schema both SDKs need. */
function inputSchema(schema: JsonSchema): ToolInputSchema {
  const copy = JSON.parse(JSON.stringify(schema)) as JsonSchema;
  const { type, properties, required, additionalProperties } = copy;
  if (type !== "object" || !isObject(properties) || !Array.isArray(required) || additionalProperties !== false) {
    throw new Error("oda-tasks: a tool's input schema must be an object schema with properties and required");
  }
  return copy as ToolInputSchema;
}

/** The schema as strict mode takes it: refused keywords left out, every object closed with all its properties required. */
function strictSchema(schema: JsonValue): JsonSchema {
  return withoutKeywords(schema, STRICT_REFUSED, (out) => {
    if (isObject(out.properties)) {
      out.required = Object.keys(out.properties);
      out.additionalProperties = false;
    }
  }) as JsonSchema;
}

/**
 * A copy of a schema without the keywords in `drop`, at every depth;
 * `finish` may amend each schema object copied. The values of `properties`
 * are schemas keyed by name, never keywords, so a property named like a
 * keyword stays.
 */
function withoutKeywords(schema: JsonValue, drop: ReadonlySet<string>, finish?: (out: JsonSchema) => void): JsonValue {
  const walk = (value: JsonValue): JsonValue => {
    if (Array.isArray(value)) return value.map(walk);
    if (!isObject(value)) return value;
    const out: JsonSchema = {};
    for (const [key, inner] of Object.entries(value)) {
      if (drop.has(key)) continue;
      out[key] =
        key === "properties" && isObject(inner)
          ? Object.fromEntries(Object.entries(inner).map(([name, s]) => [name, walk(s)]))
          : walk(inner);
    }
    finish?.(out);
    return out;
  };
  return walk(schema);
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
