// `mcpHandler`: the MCP server over Streamable HTTP as one Fetch-API handler,
// `(request) => Promise<Response>`, mounted like `chatHandler`. Stateless: a
// server and transport per POST, JSON answers (no stream left open). Secure
// by default: `authorize` decides each JSON-RPC message (told the chat a
// tool call names) before anything is written, the body is bounded, no CORS
// header is sent, and a failure says a code and a fixed text, never a stack.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ANY, type OptionRules, readOptions, wholeBetween } from "../../core/options.js";
import { readJsonValue } from "../http/body.js";
import { requestGuard } from "../http/guard.js";
import { failure, thrown } from "../http/replies.js";
import { CHAT_META } from "./keys.js";
import { readServerOptions, SERVER_OPTION_RULES, type OdaMcpServerOptions } from "./options.js";
import { APP_TOOLS, appToolChat } from "./app/register.js";
import { serverOf } from "./server.js";
import { ownerPrefix } from "../../stores/owners.js";
import { McpRequestSeen } from "./telemetry.js";

/**
 * What `authorize` is told of one JSON-RPC message of a request.
 *
 * @example
 * const authorize = (request: Request, { chatId }: McpAuthorizeContext) => chatId === undefined || ownsChat(request, chatId);
 */
export interface McpAuthorizeContext {
  /** The message's JSON-RPC method: `initialize`, `tools/list`, `tools/call`, a notification's. */
  method: string;
  /** `tools/call`: the tool named. */
  tool?: string;
  /** `tools/call`: the chat it acts on, its `_meta["oda-tasks/chat"]` or the handler's `chatId`. */
  chatId?: string;
}

/**
 * Options of {@link mcpHandler}: `odaMcpServer`'s (but `sessionChat`: the
 * handler is stateless), `authorize` and the body's bound.
 *
 * @example
 * const options: McpHandlerOptions = { store, authorize: (request) => request.headers.get("authorization") === `Bearer ${process.env.ODA_TASKS_TOKEN}` };
 */
export interface McpHandlerOptions extends Omit<OdaMcpServerOptions, "sessionChat"> {
  /**
   * Decides every JSON-RPC message of a request before anything is read or
   * written: `true` lets it through; a `Response` is sent as it is (a 401
   * with your own headers); anything else is a 403.
   */
  authorize: (request: Request, context: McpAuthorizeContext) => boolean | Response | Promise<boolean | Response>;
  /** Largest POST body in bytes (default 2 MiB: a largest tool input of 1 MiB and the envelope). */
  maxBodyBytes?: number;
  /**
   * The origins a browser's request may come from (`"https://app.example"`):
   * a request whose `Origin` is another (or `null`) gets a 403 before
   * anything else; one with no `Origin` passes. Default: not checked.
   */
  allowedOrigins?: string[];
  /**
   * The hosts a request's `Host` may name (`"localhost"`: any port;
   * `"app.example:8443"`: that port), against DNS rebinding; another gets a
   * 403 before anything else. Default: not checked.
   */
  allowedHosts?: string[];
}

/**
 * An MCP handler: `(request: Request) => Promise<Response>`.
 *
 * @example
 * const handler: McpHandler = mcpHandler({ store, chatId: "chat-1", authorize: (request) => ownsChat(request, "chat-1") });
 */
export type McpHandler = (request: Request) => Promise<Response>;

const { sessionChat: _stateful, ...SERVER_RULES } = SERVER_OPTION_RULES;
const RULES: OptionRules<McpHandlerOptions> = {
  ...SERVER_RULES,
  authorize: ANY,
  maxBodyBytes: wholeBetween(256, 64 << 20),
  allowedOrigins: ANY,
  allowedHosts: ANY,
};

/**
 * The MCP server's tools over Streamable HTTP in stateless mode: each POST
 * carries its JSON-RPC messages and gets their answers as JSON. A tool
 * call's chat is its `_meta["oda-tasks/chat"]` (or `chatId`), which
 * `authorize` sees first. Throws a TypeError at once without `authorize` or
 * with a bad option.
 *
 * @example
 * // app/mcp/route.ts (Next.js)
 * import { mcpHandler } from "oda-tasks/mcp";
 * const handler = mcpHandler({ store, authorize: (request, { chatId }) => chatId === undefined || ownsChat(request, chatId) }); // your session check
 * export { handler as GET, handler as POST };
 */
export function mcpHandler(options: McpHandlerOptions): McpHandler {
  return ownedMcpHandler(options, undefined);
}

/**
 * Internal: {@link mcpHandler} acting on the chats of each request's owner
 * (`owner(request)`, asked once `authorize` let every message in; `""`: the
 * store's own ids), so that two owners' chats of one id are two chats
 * (stores/owners.ts). `serve` gives it its verified credential's owner.
 *
 * @internal
 */
export function ownedMcpHandler(
  options: McpHandlerOptions,
  owner: ((request: Request) => string | Promise<string>) | undefined,
): McpHandler {
  const {
    authorize,
    maxBodyBytes = 2 << 20,
    allowedOrigins,
    allowedHosts,
    ...rest
  } = readOptions<McpHandlerOptions>("mcpHandler", options, RULES);
  const guard = requestGuard("mcpHandler", { allowedOrigins, allowedHosts });
  if (typeof authorize !== "function") {
    throw new TypeError(
      "oda-tasks: invalid arguments of mcpHandler: `authorize(request, { method, tool, chatId })` is required; it decides who may call the tools on each chat",
    );
  }
  const server = readServerOptions("mcpHandler", rest);
  const report = (e: unknown) => {
    try {
      server.onError?.(e);
    } catch {
      // the app's logger failing changes no answer
    }
  };

  return async function handle(request: Request): Promise<Response> {
    // Host and Origin first: a request from another site is told nothing else.
    const foreign = guard?.(request);
    if (foreign) return foreign;
    try {
      // Stateless: no session stream to GET, no session to DELETE.
      if (request.method.toUpperCase() !== "POST") return failure(405, "http/method-not-allowed", "POST only", { allow: "POST" });
      const read = await readJsonValue(request, maxBodyBytes);
      if ("refused" in read) return read.refused;
      const contexts = messageContexts(read.value, server.chatId);
      if (contexts === null)
        return failure(400, "http/bad-request", "the body must be a JSON-RPC request or notification, or a batch of them");
      for (const context of contexts) {
        const verdict = await authorize(request, context);
        if (verdict instanceof Response) return verdict;
        if (verdict !== true) return failure(403, "http/forbidden", "not allowed");
      }
      // Stateless: no initialize tells whether the client is an MCP Apps host, so the widget's
      // app-only tools are never listed (no model sees them) yet answer a call that names one.
      const callsApp = contexts.some((c) => c.method === "tools/call" && c.tool !== undefined && APP_TOOLS.includes(c.tool));
      const prefix = owner === undefined ? "" : await ownerPrefix(await owner(request));
      // A span per message (its parent the client's `_meta.traceparent`), its outcome read from the answers sent.
      const seen = new McpRequestSeen(read.value, request, server.telemetry !== false);
      const mcp = serverOf(server, callsApp ? "always" : "declared", prefix);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      seen.watch(transport);
      let status = 500;
      try {
        await mcp.connect(transport);
        const response = await seen.run(() => transport.handleRequest(request, { parsedBody: read.value }));
        status = response.status;
        return response;
      } finally {
        seen.end(status);
        await mcp.close().catch(report);
      }
    } catch (e) {
      const answer = thrown(e);
      if (answer.status >= 500) report(e);
      return answer;
    }
  };
}

/** What `authorize` is told of each message of a body, or `null` when it holds no JSON-RPC message. */
function messageContexts(body: unknown, chatId: string | undefined): McpAuthorizeContext[] | null {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return null;
  const contexts: McpAuthorizeContext[] = [];
  for (const message of messages) {
    if (message === null || typeof message !== "object" || Array.isArray(message)) return null;
    const { method, params } = message as { method?: unknown; params?: unknown };
    // A response has no method: a stateless server asks the client nothing, so none is expected.
    if (typeof method !== "string") return null;
    const context: McpAuthorizeContext = { method };
    if (method === "tools/call" && params !== null && typeof params === "object") {
      const { name, arguments: args, _meta: meta } = params as { name?: unknown; arguments?: unknown; _meta?: unknown };
      if (typeof name === "string") context.tool = name;
      const named = meta !== null && typeof meta === "object" ? (meta as Record<string, unknown>)[CHAT_META] : undefined;
      // An app-only tool acts on the chat in its arguments: that is the chat authorize decides on.
      const chat = appToolChat(name, args) ?? (typeof named === "string" ? named : chatId);
      if (chat !== undefined) context.chatId = chat;
    }
    contexts.push(context);
  }
  return contexts;
}
