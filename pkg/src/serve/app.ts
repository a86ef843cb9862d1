// `serve`'s one Fetch-API handler: MCP at /mcp, `chatHandler` at /api/oda,
// the turn and chat routes an app without `_meta` needs, a page per chat at
// /chats/:id with its scripts under /assets/, the sign-in form and /health.
// Every route but /health, the sign-in form and the gate's own (the Protected
// Resource Metadata) asks the gate who the request is and whether it may
// read (`oda:read`) or write (`oda:write`).
import { readFile } from "node:fs/promises";
import { beginTurn, createChat, endTurn, type ChatSession } from "../chat/lifecycle.js";
import { chatHandler } from "../integrations/http/handler.js";
import { readBounded, readJsonBody } from "../integrations/http/body.js";
import { failure, json, thrown } from "../integrations/http/replies.js";
import { checkChatId, type Store } from "../stores/store.js";
import { admit, type Gate, type Need } from "./gate.js";
import type { FetchHandler } from "./node-http.js";
import { chatPage, PAGE_HEADERS, signInPage } from "./pages.js";

/** Where `chatHandler` is mounted. */
export const API_BASE = "/api/oda";

/** What {@link serveApp} serves. */
export interface ServeAppOptions {
  store: Store;
  /** Who may do what: `openGate()`, `tokenGate(token)` or `jwtGate(…)`. */
  gate: Gate;
  /** The MCP handler at /mcp (its own authorization is this app's bearer check). */
  mcp: FetchHandler;
  /** The folder of the built package's JS (`dist/`), where /assets/ reads. */
  assets: URL;
  onError?: (error: unknown) => void;
}

/** The largest session or turn body taken. */
const SMALL_BODY = 4096;

/** An asset path: a file of dist/serve, dist/elements or dist/chunks, nothing else. */
const ASSET = /^\/assets\/((?:serve|elements|chunks)\/[A-Za-z0-9_-]+\.js)$/;

/**
 * The handler of `oda-tasks serve`.
 *
 * @example
 * // As the CLI builds it: the gate from tokenGate(token) (or openGate(), jwtGate(…)), the MCP handler from mcpHandler.
 * declare const gate: ServeAppOptions["gate"];
 * declare const mcp: ServeAppOptions["mcp"];
 * const handler = serveApp({ store, gate, mcp, assets: new URL("file:///app/node_modules/oda-tasks/dist/") });
 */
export function serveApp({ store, gate, mcp, assets, onError }: ServeAppOptions): FetchHandler {
  const api = chatHandler({
    store,
    basePath: API_BASE,
    // The page's own requests carry the cookie; a program's carry a bearer credential.
    authorize: async (request, { action }) => {
      const principal = await admit(gate, request, actionNeed(action));
      return principal instanceof Response ? principal : true;
    },
    ...(onError === undefined ? {} : { onError: (e: unknown) => onError(e) }),
  });

  return async (request) => {
    const url = new URL(request.url);
    const path = url.pathname;
    const method = request.method.toUpperCase();
    try {
      const own = gate.route(request);
      if (own !== null) return own;
      if (path === "/health") return method === "GET" ? json(200, { ok: true }) : methodNotAllowed("GET");
      if (path === "/sign-in") return method === "POST" ? await signIn(request, gate) : methodNotAllowed("POST");
      if (path === "/mcp" || (path.startsWith("/api/") && !path.startsWith(`${API_BASE}/`))) {
        // Programs only: a cookie never calls a tool or writes a turn. Every tool writes.
        const principal = await admit(gate, request, "write", { cookie: false });
        if (principal instanceof Response) return principal;
        return path === "/mcp" ? await mcp(request) : await lifecycle(request, store, path, method);
      }
      if (path.startsWith(`${API_BASE}/`)) return await api(request);
      const page = /^\/chats\/([^/]+)\/?$/.exec(path);
      if (page?.[1] !== undefined) {
        if (method !== "GET") return methodNotAllowed("GET");
        const chatId = decodeSegment(page[1]);
        if (chatId === null) return failure(400, "http/bad-request", "the chat id is not a well-formed URL segment");
        const verdict = await gate.check(request);
        if ("refused" in verdict) {
          // A browser without a (valid) cookie gets the form; a 503 stays a 503.
          if (verdict.refused.status !== 401) return verdict.refused;
          const notice = verdict.absent ? undefined : "ended";
          return new Response(signInPage(path, { mode: gate.mode, notice }), { status: 401, headers: PAGE_HEADERS });
        }
        if (!verdict.principal.read) return gate.forbidden("read");
        return new Response(chatPage(chatId, API_BASE), { headers: PAGE_HEADERS });
      }
      const asset = ASSET.exec(path);
      if (asset?.[1] !== undefined) {
        if (method !== "GET") return methodNotAllowed("GET");
        const principal = await admit(gate, request, "read");
        if (principal instanceof Response) return principal;
        return await assetFile(assets, asset[1]);
      }
      return failure(404, "http/not-found", "no such route");
    } catch (e) {
      const answer = thrown(e);
      if (answer.status >= 500) onError?.(e);
      return answer;
    }
  };
}

/** What a chat API action needs: its reads `oda:read`, everything else (the suggestion actions, deletion) `oda:write`. */
function actionNeed(action: string): Need {
  return action === "read" || action === "cards" || action === "events" ? "read" : "write";
}

function methodNotAllowed(allow: string): Response {
  return failure(405, "http/method-not-allowed", `${allow} only`, { allow });
}

function decodeSegment(segment: string): string | null {
  try {
    const id = decodeURIComponent(segment);
    checkChatId(id);
    return id;
  } catch {
    return null;
  }
}

/**
 * `PUT /api/sessions/:chatId` (create the chat, its session in the body),
 * `POST /api/turns/:chatId/begin` and `POST /api/turns/:chatId/end`.
 */
async function lifecycle(request: Request, store: Store, path: string, method: string): Promise<Response> {
  const match = /^\/api\/(sessions|turns)\/([^/]+)(?:\/(begin|end))?$/.exec(path);
  const [, kind, segment = "", step] = match ?? [];
  if (match === null || (kind === "sessions") !== (step === undefined)) return failure(404, "http/not-found", "no such route");
  const want = kind === "sessions" ? "PUT" : "POST";
  if (method !== want) return methodNotAllowed(want);
  const chatId = decodeSegment(segment);
  if (chatId === null) return failure(400, "http/bad-request", "invalid chat id");
  const read = await readJsonBody(request, SMALL_BODY);
  if ("refused" in read) return read.refused;
  if (kind === "sessions") {
    let created: boolean;
    try {
      created = await createChat(store, chatId, read.body as ChatSession);
    } catch (e) {
      if (e instanceof TypeError) return failure(400, "http/bad-request", e.message.replace(/^oda-tasks: /, ""));
      throw e;
    }
    return json(created ? 201 : 200, { ok: true, created });
  }
  if (Object.keys(read.body).length > 0) return failure(400, "http/bad-request", `${step} takes no fields in its body`);
  if (step === "begin") return json(200, { ok: true, turn: await beginTurn(store, chatId) });
  return json(200, { ok: true, ended: await endTurn(store, chatId) });
}

/**
 * `POST /sign-in`: the token from the form (the server's token, or an
 * access token under `--auth jwt`); taken, a cookie and back to `next`;
 * refused, the form again (401), or 503 while tokens cannot be checked.
 */
async function signIn(request: Request, gate: Gate): Promise<Response> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
    return failure(415, "http/unsupported-media-type", "sign in with the form (application/x-www-form-urlencoded)");
  }
  const bytes = await readBounded(request, gate.signInBytes);
  if (bytes === null) return failure(413, "http/payload-too-large", `the body is larger than ${gate.signInBytes} bytes`);
  const form = new URLSearchParams(new TextDecoder().decode(bytes));
  const wanted = form.get("next") ?? "";
  // Only a chat page of this server: no open redirect.
  const next = /^\/chats\/[^/?#\\]+$/.test(wanted) ? wanted : "/health";
  const signedIn = await gate.signIn(form.get("token") ?? "");
  if ("refused" in signedIn) {
    const unavailable = signedIn.refused === "unavailable";
    return new Response(signInPage(next, { mode: gate.mode, notice: signedIn.refused }), {
      status: unavailable ? 503 : 401,
      headers: unavailable ? { ...PAGE_HEADERS, "retry-after": "5" } : PAGE_HEADERS,
    });
  }
  return new Response(null, { status: 303, headers: { location: next, "set-cookie": signedIn.cookie, "cache-control": "no-store" } });
}

/** A built JS file of the package (read once per request; the OS caches it). */
async function assetFile(assets: URL, file: string): Promise<Response> {
  let text: string;
  try {
    text = await readFile(new URL(file, assets), "utf8");
  } catch {
    return failure(404, "http/not-found", "no such route");
  }
  return new Response(text, {
    headers: {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "no-cache",
      "x-content-type-options": "nosniff",
    },
  });
}
