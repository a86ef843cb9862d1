// Each request of `serve` as operators see it: a SERVER span named by its
// route template (`GET /api/oda/chats/:chatId`, never the chat's id), under
// the trace context of its `traceparent` header; its duration in
// `http_server_request_duration_seconds` (event streams left out); and one
// JSON log line with its request id (an incoming `X-Request-Id`, else a new
// one, sent back as `X-Request-Id`). `/mcp` gets no HTTP span: each of its
// JSON-RPC messages gets its MCP span (integrations/mcp/telemetry.ts).
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { matchRoute } from "../integrations/http/routes.js";
import { activeContext, beginSpan, extractContext, noteTrace, runIn, traceOf, type OpenSpan, type OtelContext } from "../telemetry/otel.js";
import { API_BASE } from "./app.js";
import type { Logger } from "./log.js";
import { httpMethod, type ServeMetrics } from "./metrics.js";
import type { FetchHandler } from "./node-http.js";

/** The request a piece of work runs for: its id, and the request (whose trace {@link traceOf} tells). */
export interface RequestRecord {
  readonly reqId: string;
  readonly request: Request;
}

const requests = new AsyncLocalStorage<RequestRecord>();

/**
 * The request the current work runs for (an error reported while serving it), if any.
 *
 * @example
 * const onError = (e: unknown) => console.error(JSON.stringify({ msg: "request failed", reqId: currentRequest()?.reqId }));
 */
export function currentRequest(): RequestRecord | undefined {
  return requests.getStore();
}

/** The paths that are their own template. */
const FIXED = new Set([
  "/",
  "/health",
  "/livez",
  "/readyz",
  "/mcp",
  "/sign-in",
  "/api/sessions",
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp",
]);

/** The probes: their successes are logged at `debug` (a load balancer asks every few seconds). */
const PROBES = new Set(["/health", "/livez", "/readyz"]);

/**
 * The route template of `path` as spans, metrics and logs name it, or `""`
 * for no route of `serve`'s. Ids are never part of it.
 *
 * @example
 * routeTemplate("/api/oda/chats/c1/suggestions/s1/start"); // "/api/oda/chats/:chatId/suggestions/:suggestionId/start"
 */
export function routeTemplate(path: string): string {
  if (FIXED.has(path)) return path;
  if (path.startsWith(`${API_BASE}/`)) {
    if ("miss" in matchRoute(path, API_BASE)) return "";
    // The chat API's own words stay; its ids (the chat's, a suggestion's) become names.
    const [, , chat, ...rest] = path.slice(API_BASE.length).replace(/\/$/, "").split("/");
    if (chat === undefined) return "";
    if (rest[0] === "suggestions") rest[1] = ":suggestionId";
    return [`${API_BASE}/chats/:chatId`, ...rest].join("/");
  }
  if (/^\/api\/sessions\/[^/]+$/.test(path)) return "/api/sessions/:chatId";
  if (/^\/api\/sessions\/[^/]+\/reminder$/.test(path)) return "/api/sessions/:chatId/reminder";
  const turn = /^\/api\/turns\/[^/]+\/(begin|end|context)$/.exec(path);
  if (turn !== null) return `/api/turns/:chatId/${turn[1]}`;
  if (/^\/chats\/[^/]+\/?$/.test(path)) return "/chats/:chatId";
  if (/^\/assets\/(?:serve|elements|chunks)\/[A-Za-z0-9_-]+\.js$/.test(path)) return "/assets/*";
  return "";
}

/** An incoming `X-Request-Id`, kept when it is 1 to 128 visible ASCII characters; else a new one. */
function requestIdOf(header: string | null): string {
  return header !== null && /^[\x21-\x7e]{1,128}$/.test(header) ? header : randomUUID();
}

/** A request's headers, as a propagator reads them (`traceparent`, `tracestate`). */
const HEADERS_GETTER = {
  keys: (headers: Headers) => {
    const names: string[] = [];
    headers.forEach((_value, name) => names.push(name));
    return names;
  },
  get: (headers: Headers, key: string) => headers.get(key) ?? undefined,
};

/**
 * `handler` with each request seen: its span, its duration and its log line.
 *
 * @example
 * declare const app: (request: Request) => Promise<Response>;
 * const handler = observedHandler(app, { log: { enabled: () => true, write: (level, msg) => console.error(level, msg) }, metrics: null });
 */
export function observedHandler(handler: FetchHandler, { log, metrics }: { log: Logger; metrics: ServeMetrics | null }): FetchHandler {
  return async (request) => {
    const started = performance.now();
    let path = "/";
    try {
      path = new URL(request.url).pathname;
    } catch {
      // node-http hands over a URL it built; a path it cannot read has no route
    }
    const route = routeTemplate(path);
    const method = httpMethod(request.method);
    const record: RequestRecord = { reqId: requestIdOf(request.headers.get("x-request-id")), request };
    const context = traced(request, route, method);
    let response: Response;
    try {
      response = await requests.run(record, () => (context === null ? handler(request) : runIn(context.context, () => handler(request))));
    } catch {
      // As node-http would answer it, said once here with the request's id.
      response = Response.json({ error: { code: "http/internal", message: "internal error" } }, { status: 500 });
    }
    const status = response.status;
    if (context?.span) {
      context.span.set("http.response.status_code", status);
      if (status >= 500) context.span.fail(String(status));
      context.span.end();
    }
    const ms = performance.now() - started;
    // An event stream lasts as long as its client stays: its time is no request's duration.
    const streaming = (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
    if (!streaming) metrics?.httpRequest(method, route, status, ms / 1000);
    const level = status >= 500 ? "error" : status >= 400 ? "warn" : PROBES.has(route) ? "debug" : "info";
    log.write(level, "request", {
      reqId: record.reqId,
      method,
      route: route === "" ? null : route,
      status,
      ms: Math.round(ms * 10) / 10,
      traceId: traceOf(request) || undefined,
    });
    try {
      response.headers.set("x-request-id", record.reqId);
    } catch {
      // a Response whose headers are immutable goes out as it is
    }
    return response;
  };
}

/**
 * The context a request is handled in: its HTTP span's, under the
 * `traceparent` it came with; `/mcp` gets no HTTP span (each message gets
 * its MCP span, which notes its trace), only the `traceparent`'s context
 * when it came with one. `null`: the active context serves.
 */
function traced(request: Request, route: string, method: string): { context: OtelContext; span: OpenSpan | null } | null {
  const base = activeContext();
  if (base === null) return null;
  if (route === "/mcp") {
    return request.headers.has("traceparent") ? { context: extractContext(base, request.headers, HEADERS_GETTER), span: null } : null;
  }
  const span = beginSpan(route === "" ? method : `${method} ${route}`, {
    kind: "server",
    parent: extractContext(base, request.headers, HEADERS_GETTER),
    attributes: { "http.request.method": method, ...(route === "" ? {} : { "http.route": route }) },
  });
  if (span === null) return null;
  noteTrace(request, span.traceId);
  return { context: span.context, span };
}
