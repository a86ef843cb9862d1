// The JSON-RPC messages of one MCP POST as they are seen, as the MCP semantic
// conventions describe a server: a SERVER span per message (`tools/call
// todo_write`, `initialize`), its parent the trace context in the message's
// `params._meta` (`traceparent`, `tracestate`) when the client sends one, and
// its method, tool, `error.type` and time told to the observers. The outcome
// of each request is read from the answer the transport sends for it.
import { beginSpan, extractContext, noteTrace, runIn, activeContext, type OpenSpan } from "../../telemetry/otel.js";
import { observed, tell } from "../../telemetry/observe.js";
import { suggestTaskTool, todoWriteTool } from "../../gen/tools.js";
import { APP_TOOLS } from "./app/register.js";

/** The methods of MCP (2025-11-25) a server is sent; any other is `_OTHER`, so no client's text becomes a name or a label. */
const METHODS = new Set([
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "logging/setLevel",
  "tasks/get",
  "tasks/list",
  "tasks/result",
  "tasks/cancel",
  "notifications/initialized",
  "notifications/cancelled",
  "notifications/progress",
  "notifications/roots/list_changed",
]);

/** The tools a metric names: this package's (the model's two, the widget's); another is `_OTHER`. */
const TOOLS = new Set([todoWriteTool.name, suggestTaskTool.name, ...APP_TOOLS]);

/** One message of the POST: what its span and its metric say, and when it began. */
interface Message {
  method: string;
  tool: string | undefined;
  /** The request's id as `jsonrpc.request.id` writes it; `undefined` for a notification. */
  id: string | undefined;
  span: OpenSpan | null;
  errorType: string | undefined;
  answered: boolean;
}

/**
 * The messages of one POST's body, seen while the transport handles them.
 * `watch(transport)` before it connects; `run(handle)` in the single
 * message's span; `end(status)` once the transport answered.
 */
export class McpRequestSeen {
  readonly #messages: Message[] = [];
  readonly #started = performance.now();
  readonly #told: boolean;
  readonly #request: Request;

  /** `telemetry: false` makes no span; the observers are told all the same. */
  constructor(body: unknown, request: Request, telemetry: boolean) {
    this.#told = observed();
    this.#request = request;
    const header = request.headers.get("mcp-protocol-version");
    const base = telemetry ? activeContext() : null;
    for (const raw of Array.isArray(body) ? body : [body]) {
      const { method, id, params } = (raw ?? {}) as { method?: unknown; id?: unknown; params?: unknown };
      if (typeof method !== "string") continue;
      const p = params !== null && typeof params === "object" ? (params as Record<string, unknown>) : {};
      const known = METHODS.has(method) ? method : "_OTHER";
      const toolName = known === "tools/call" && typeof p.name === "string" ? p.name : undefined;
      const tool = toolName === undefined ? undefined : /^[A-Za-z0-9_./-]{1,64}$/.test(toolName) ? toolName : "_OTHER";
      const requestId = typeof id === "string" || typeof id === "number" ? String(id) : undefined;
      const message: Message = { method: known, tool, id: requestId, span: null, errorType: undefined, answered: false };
      if (base !== null) {
        const version = known === "initialize" && typeof p.protocolVersion === "string" ? p.protocolVersion : header;
        const meta = p._meta !== null && typeof p._meta === "object" ? (p._meta as Record<string, unknown>) : undefined;
        message.span = beginSpan(tool === undefined ? known : `${known} ${tool}`, {
          kind: "server",
          parent: meta === undefined ? base : extractContext(base, meta, META_GETTER),
          attributes: {
            "mcp.method.name": known,
            ...(requestId === undefined ? {} : { "jsonrpc.request.id": requestId }),
            ...(version !== null && /^\d{4}-\d{2}-\d{2}$/.test(version) ? { "mcp.protocol.version": version } : {}),
            ...(tool === undefined ? {} : { "gen_ai.tool.name": tool, "gen_ai.operation.name": "execute_tool" }),
          },
        });
      }
      this.#messages.push(message);
    }
  }

  /** Reads each answer `transport` sends: a refusal's `isError` is `tool_error`, a JSON-RPC error its code. */
  watch(transport: { send: (message: never, options?: never) => Promise<void> }): void {
    const send = transport.send.bind(transport) as (message: unknown, options?: unknown) => Promise<void>;
    (transport as { send: (message: unknown, options?: unknown) => Promise<void> }).send = (message, options) => {
      this.#answer(message);
      return send(message, options);
    };
  }

  /** Runs `handle` with the message's span active when the POST holds one message (a batch's messages share the caller's context). */
  run<T>(handle: () => Promise<T>): Promise<T> {
    const only = this.#messages.length === 1 ? this.#messages[0]?.span : undefined;
    if (only === null || only === undefined) return handle();
    noteTrace(this.#request, only.traceId);
    return runIn(only.context, handle);
  }

  /** Ends every span and tells the observers; a request left unanswered (the transport refused the POST) is `_OTHER`. */
  end(status: number): void {
    const seconds = (performance.now() - this.#started) / 1000;
    for (const m of this.#messages) {
      if (m.id !== undefined && !m.answered && status >= 400) m.errorType = "_OTHER";
      if (m.errorType !== undefined) m.span?.fail(m.errorType);
      m.span?.end();
      if (this.#told) tell("mcpOperation", m.method, m.tool === undefined || TOOLS.has(m.tool) ? m.tool : "_OTHER", m.errorType, seconds);
    }
  }

  #answer(message: unknown): void {
    const { id, result, error } = (message ?? {}) as { id?: unknown; result?: unknown; error?: unknown };
    if (typeof id !== "string" && typeof id !== "number") return;
    const m = this.#messages.find((x) => x.id === String(id) && !x.answered);
    if (m === undefined) return;
    m.answered = true;
    const code = (error as { code?: unknown } | null | undefined)?.code;
    if (error !== undefined) m.errorType = Number.isSafeInteger(code as number) ? String(code) : "_OTHER";
    else if ((result as { isError?: unknown } | null | undefined)?.isError === true) m.errorType = "tool_error";
  }
}

/** `_meta`'s own string members, as a propagator reads a carrier. */
const META_GETTER = {
  keys: (meta: Record<string, unknown>) => Object.keys(meta),
  get: (meta: Record<string, unknown>, key: string) => {
    const value = Object.hasOwn(meta, key) ? meta[key] : undefined;
    return typeof value === "string" ? value : undefined;
  },
};
