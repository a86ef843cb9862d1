// openaiTools / anthropicTools: the SDK shapes of the two tools. Strict mode
// leaves out what OpenAI's strict mode refuses; the core keeps every limit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { anthropicTools, openaiTools, suggestTask, suggestTaskTool, todoWrite, todoWriteTool } from "oda-tasks";

/** Every object schema inside `schema`, the top one first. */
function objects(schema, out = []) {
  if (Array.isArray(schema)) schema.forEach((s) => objects(s, out));
  else if (schema !== null && typeof schema === "object") {
    if (schema.type === "object") out.push(schema);
    for (const [key, value] of Object.entries(schema)) {
      if (key === "properties") Object.values(value).forEach((s) => objects(s, out));
      else objects(value, out);
    }
  }
  return out;
}
const keywords = (schema) => JSON.stringify(schema).match(/"(minLength|maxLength)":/g) ?? [];

test("openaiTools(): Chat Completions function tools carrying the core's own schemas", () => {
  const [todo, suggest] = openaiTools();
  assert.deepEqual(todo, {
    type: "function",
    function: { name: "todo_write", description: todoWriteTool.description, parameters: todoWriteTool.inputSchema, strict: false },
  });
  assert.deepEqual(suggest.function.parameters, suggestTaskTool.inputSchema);
  assert.equal(suggest.function.parameters.properties.title.maxLength, 60);
});

test("openaiTools({ strict: true }): no minLength/maxLength, every object closed with all its properties required", () => {
  const tools = openaiTools({ strict: true });
  assert.deepEqual(
    tools.map((t) => [t.function.name, t.function.strict]),
    [
      ["todo_write", true],
      ["suggest_task", true],
    ],
  );
  for (const tool of tools) {
    const schema = tool.function.parameters;
    assert.deepEqual(keywords(schema), [], tool.function.name);
    const found = objects(schema);
    assert.ok(found.length >= 1);
    for (const o of found) {
      assert.deepEqual([...o.required].sort(), Object.keys(o.properties).sort());
      assert.equal(o.additionalProperties, false);
    }
  }
  // The descriptions still tell the model the limits.
  assert.equal(tools[1].function.parameters.properties.title.description, "Imperative title, at most 60 characters.");
  assert.equal(objects(tools[0].function.parameters).length, 2, "the list and its items");
  // The non-strict definitions are untouched: each call is a fresh copy.
  assert.ok(keywords(suggestTaskTool.inputSchema).length > 0);
  tools[0].function.parameters.properties.todos.description = "changed";
  assert.notEqual(openaiTools({ strict: true })[0].function.parameters.properties.todos.description, "changed");
});

test("the core still enforces every limit the strict schema leaves out, with its exact texts", () => {
  const log = [{ type: "session", chatId: "c", workspace: "/w", agent: "top-level" }, { type: "turn_started" }];
  assert.deepEqual(suggestTask(log, { title: "x".repeat(61), tldr: "why", brief: "do" }), {
    ok: false,
    error: "suggest_task: title must be at most 60 characters (got 61)",
  });
  assert.deepEqual(suggestTask(log, { title: "t", tldr: "y".repeat(241), brief: "do" }), {
    ok: false,
    error: "suggest_task: tldr must be at most 240 characters (got 241)",
  });
  assert.deepEqual(suggestTask(log, { title: "t", tldr: "why", brief: "  " }), {
    ok: false,
    error: "suggest_task: brief must not be empty",
  });
  assert.deepEqual(todoWrite(log, { todos: [{ content: "", status: "pending" }] }), {
    ok: false,
    error: "Error: invalid todo: `content` must be a non-empty string",
  });
});

test("anthropicTools(): Messages API tools with input_schema of type object", () => {
  const [todo, suggest] = anthropicTools();
  assert.deepEqual(todo, { name: "todo_write", description: todoWriteTool.description, input_schema: todoWriteTool.inputSchema });
  assert.equal(suggest.name, "suggest_task");
  assert.equal(suggest.input_schema.type, "object");
  assert.deepEqual(suggest.input_schema.required, ["title", "tldr", "brief"]);
  assert.notEqual(anthropicTools()[0].input_schema, todo.input_schema, "fresh copies");
});

test("looseInputSchema: the structure and descriptions stay, no keyword that checks an input is left below the top", async () => {
  const { looseInputSchema } = await import("oda-tasks");
  for (const tool of [todoWriteTool, suggestTaskTool]) {
    const loose = looseInputSchema(tool);
    assert.equal(loose.type, "object");
    assert.deepEqual(Object.keys(loose).sort(), ["properties", "type"]);
    assert.deepEqual(Object.keys(loose.properties), Object.keys(tool.inputSchema.properties));
    const text = JSON.stringify(loose.properties);
    for (const keyword of ["type", "enum", "const", "required", "minLength", "maxLength", "minItems", "maxItems", "additionalProperties"]) {
      assert.ok(!text.includes(`"${keyword}":`), `${tool.name}: no ${keyword}`);
    }
    const described = (schema, out = []) => {
      if (schema && typeof schema === "object")
        for (const [k, v] of Object.entries(schema)) k === "description" ? out.push(v) : described(v, out);
      return out;
    };
    assert.deepEqual(described(loose), described(tool.inputSchema), "every description kept");
  }
  assert.deepEqual(Object.keys(looseInputSchema(todoWriteTool).properties.todos.items.properties), ["content", "status"]);
  assert.equal(todoWriteTool.inputSchema.properties.todos.type, "array", "the tool's own schema is untouched");
});
