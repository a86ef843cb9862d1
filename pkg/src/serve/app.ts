// `serve`'s one Fetch-API handler: MCP at /mcp, `chatHandler` at /api/oda,
// the chat, turn and reminder routes an app without `_meta` needs, the owner's chats at
// / (and /api/sessions), a page per chat at /chats/:id with its scripts under
// /assets/, the sign-in form, and /health, /livez and /readyz. Every route
// but those three, the sign-in form and the gate's own (the Protected
// Resource Metadata) asks the gate who the request is and whether it may read
// (`oda:read`) or write (`oda:write`); what it touches is that principal's
// owner's chats alone.
import { readFile } from "node:fs/promises";
import { beginTurn, createChatAt, deleteChat, endTurn, type ChatSession } from "../chat/lifecycle.js";
import { editNotice } from "../chat/edit.js";
import { ChatStateCache } from "../chat/state-cache.js";
import { ownedChatHandler } from "../integrations/http/handler.js";
import { readBounded, readJsonBody } from "../integrations/http/body.js";
import { failure, json, thrown } from "../integrations/http/replies.js";
import { type McpHandlerOptions, ownedMcpHandler } from "../integrations/mcp/handler.js";
import { ownedKey, ownerPrefix } from "../stores/owners.js";
import { checkChatId, type Store } from "../stores/store.js";
import { DEFAULT_REMINDER_TURNS, todoReminder } from "../chat/reminder.js";
import { listOwnedChats, listQuery } from "./chats.js";
import { admit, type Gate, type Need, type Principal } from "./gate.js";
import type { FetchHandler } from "./node-http.js";
import { chatPage, chatsPage, missingChatPage, PAGE_HEADERS, signInPage } from "./pages.js";
import { alive, Readiness } from "./probes.js";

/** Where `chatHandler` is mounted. */
export const API_BASE = "/api/oda";

/** What {@link serveApp} serves. */
export interface ServeAppOptions {
  store: Store;
  /** Who may do what: `openGate()`, `tokenGate(token)` or `jwtGate(…)`. */
  gate: Gate;
  /** The options of the MCP handler at /mcp, but its store and authorization (this app's). */
  mcp: Omit<McpHandlerOptions, "store" | "authorize">;
  /** The folder of the built package's JS (`dist/`), where /assets/ reads. */
  assets: URL;
  /** What `/readyz` answers: the store's probe, and 503 once draining (by default a `Readiness` of `store`). */
  readiness?: Readiness;
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
 * // As the CLI builds it: the gate from tokenGate(token) (or openGate(), jwtGate(…)).
 * declare const gate: ServeAppOptions["gate"];
 * const handler = serveApp({ store, gate, mcp: { suggestTask: true }, assets: new URL("file:///app/node_modules/oda-tasks/dist/") });
 */
export function serveApp({
  store,
  gate,
  mcp: mcpOptions,
  assets,
  readiness = new Readiness(store),
  onError,
}: ServeAppOptions): FetchHandler {
  /** Each request's verified principal, once the gate let it in: whose chats it touches comes from here alone. */
  const principals = new WeakMap<Request, Principal>();
  const ownerOf = (request: Request): string => {
    const principal = principals.get(request);
    if (principal === undefined) throw new Error("oda-tasks serve: a request reached the chats before the gate");
    return principal.owner;
  };
  // One cache of warm states for the chat API and the pages' titles.
  const cache = new ChatStateCache(store, { cards: true });
  const api = ownedChatHandler(
    {
      store,
      cache,
      basePath: API_BASE,
      // The page's own requests carry the cookie; a program's carry a bearer credential.
      authorize: async (request, { action }) => {
        const principal = await admit(gate, request, actionNeed(action));
        if (principal instanceof Response) return principal;
        principals.set(request, principal);
        return true;
      },
      ...(onError === undefined ? {} : { onError: (e: unknown) => onError(e) }),
    },
    ownerOf,
  );
  // The gate decided the request before it gets here; every message is let through.
  const mcp = ownedMcpHandler({ ...mcpOptions, store, authorize: () => true }, ownerOf);

  return async (request) => {
    const url = new URL(request.url);
    const path = url.pathname;
    const method = request.method.toUpperCase();
    try {
      const own = gate.route(request);
      if (own !== null) return own;
      if (path === "/health") return method === "GET" ? json(200, { ok: true }) : methodNotAllowed("GET");
      // The probes ask for no credential, as /health: a load balancer or a kubelet sends none.
      if (path === "/livez") return method === "GET" ? alive() : methodNotAllowed("GET");
      if (path === "/readyz") return method === "GET" ? await readiness.answer() : methodNotAllowed("GET");
      if (path === "/sign-in") return method === "POST" ? await signIn(request, gate) : methodNotAllowed("POST");
      if (path === "/mcp") {
        // Programs only: a cookie never calls a tool. Every tool writes.
        const principal = await admit(gate, request, "write", { cookie: false });
        if (principal instanceof Response) return principal;
        principals.set(request, principal);
        return await mcp(request);
      }
      if (path.startsWith("/api/") && !path.startsWith(`${API_BASE}/`)) {
        // Programs only: a cookie never writes a session or a turn (the page deletes through the chat API).
        const principal = await admit(gate, request, method === "GET" ? "read" : "write", { cookie: false });
        if (principal instanceof Response) return principal;
        const prefix = await ownerPrefix(principal.owner);
        const reminder = REMINDER.exec(path);
        if (reminder !== null) return await reminderRoute(request, cache, ownedKeyOf(prefix, reminder[1] ?? ""), method);
        return await chatRoutes(request, store, prefix, path, method);
      }
      if (path.startsWith(`${API_BASE}/`)) return await api(request);
      if (path === "/" || /^\/chats\/[^/]+\/?$/.test(path)) {
        if (method !== "GET") return methodNotAllowed("GET");
        const chatId = path === "/" ? "" : decodeSegment(path.slice("/chats/".length).replace(/\/$/, ""));
        if (chatId === null) return failure(400, "http/bad-request", "the chat id is not a well-formed URL segment");
        const verdict = await gate.check(request);
        if ("refused" in verdict) {
          // A browser without a (valid) cookie gets the form; a 503 stays a 503.
          if (verdict.refused.status !== 401) return verdict.refused;
          const notice = verdict.absent ? undefined : "ended";
          return new Response(signInPage(path, { mode: gate.mode, notice }), { status: 401, headers: PAGE_HEADERS });
        }
        if (!verdict.principal.read) return gate.forbidden("read");
        const prefix = await ownerPrefix(verdict.principal.owner);
        if (chatId === "") return await chatsHome(store, prefix, url.searchParams);
        return await chatPageOf(cache, prefix, chatId, verdict.principal.write);
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

/** What a chat API action needs: its reads `oda:read`, everything else (a person's edit, the suggestion actions, deletion) `oda:write`. */
function actionNeed(action: string): Need {
  return action === "read" || action === "cards" || action === "events" ? "read" : "write";
}

function methodNotAllowed(allow: string): Response {
  return failure(405, "http/method-not-allowed", `${allow.replace(/, /g, " or ")} only`, { allow });
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
 * The owner's chats and turns (store keys under `prefix`):
 * `GET /api/sessions?limit=&cursor=` (a page of the chats, newest first),
 * `PUT /api/sessions/:chatId` (create the chat, its session in the body),
 * `DELETE /api/sessions/:chatId`, `POST /api/turns/:chatId/begin`,
 * `POST /api/turns/:chatId/end` and `POST /api/turns/:chatId/context` (the
 * person's edit notice for the model's next step, recorded as told, or `null`).
 */
async function chatRoutes(request: Request, store: Store, prefix: string, path: string, method: string): Promise<Response> {
  if (path === "/api/sessions") {
    if (method !== "GET") return methodNotAllowed("GET");
    const query = listQuery(new URL(request.url).searchParams);
    if (typeof query === "string") return failure(400, "http/bad-request", query);
    return json(200, await listOwnedChats(store, prefix, query));
  }
  const match = /^\/api\/(sessions|turns)\/([^/]+)(?:\/(begin|end|context))?$/.exec(path);
  const [, kind, segment = "", step] = match ?? [];
  if (match === null || (kind === "sessions") !== (step === undefined)) return failure(404, "http/not-found", "no such route");
  const allowed = kind === "sessions" ? ["PUT", "DELETE"] : ["POST"];
  if (!allowed.includes(method)) return methodNotAllowed(allowed.join(", "));
  const chatId = decodeSegment(segment);
  if (chatId === null) return failure(400, "http/bad-request", "invalid chat id");
  const key = ownedKey(prefix, chatId); // an id too long for an owner: store/bad-chat-id, a 400
  if (method === "DELETE") {
    if (!(await deleteChat(store, key))) return failure(404, "store/missing-chat", "no such chat");
    return json(200, { ok: true, deleted: true });
  }
  const read = await readJsonBody(request, SMALL_BODY);
  if ("refused" in read) return read.refused;
  if (kind === "sessions") {
    let created: boolean;
    try {
      created = await createChatAt(store, key, chatId, read.body as ChatSession);
    } catch (e) {
      if (e instanceof TypeError) return failure(400, "http/bad-request", e.message.replace(/^oda-tasks: /, ""));
      throw e;
    }
    return json(created ? 201 : 200, { ok: true, created });
  }
  if (Object.keys(read.body).length > 0) return failure(400, "http/bad-request", `${step} takes no fields in its body`);
  if (step === "begin") return json(200, { ok: true, turn: await beginTurn(store, key) });
  if (step === "context") return json(200, { ok: true, text: await editNotice(store, key) });
  return json(200, { ok: true, ended: await endTurn(store, key) });
}

/** The path of a chat's reminder. */
const REMINDER = /^\/api\/sessions\/([^/]+)\/reminder$/;

/** The store key of the owner's chat named by path `segment`, or `null` for a segment that names no chat. */
function ownedKeyOf(prefix: string, segment: string): string | null {
  const chatId = decodeSegment(segment);
  return chatId === null ? null : ownedKey(prefix, chatId); // an id too long for an owner: store/bad-chat-id, a 400
}

/**
 * `GET /api/sessions/:chatId/reminder?always=&everyTurns=`: `{ text }`, the
 * list's text for the model's context when `todoReminder` says it is due (with
 * `always`, whenever the list has items), else `null`; 404 for a chat the owner
 * has not. For an agent that is not a TypeScript process (the Python package).
 */
async function reminderRoute(request: Request, cache: ChatStateCache, key: string | null, method: string): Promise<Response> {
  if (method !== "GET") return methodNotAllowed("GET");
  if (key === null) return failure(400, "http/bad-request", "invalid chat id");
  const query = reminderQuery(new URL(request.url).searchParams);
  if (typeof query === "string") return failure(400, "http/bad-request", query);
  const lease = await cache.lease(key);
  const exists = lease.state !== null;
  lease.release();
  if (!exists) return failure(404, "store/missing-chat", "no such chat");
  return json(200, { text: await todoReminder(cache.store, key, { ...query, cache }) });
}

/** The largest `everyTurns` the reminder route takes (the query numbers' bound, 2³¹ − 1). */
const MAX_EVERY_TURNS = 2 ** 31 - 1;

/** `always` and `everyTurns` of the reminder route (`todoReminder`'s options), or what is wrong with the query. */
function reminderQuery(query: URLSearchParams): { always: boolean; everyTurns: number } | string {
  for (const key of query.keys()) {
    if (key !== "always" && key !== "everyTurns") return `unknown query parameter \`${key}\` (the reminder takes always and everyTurns)`;
    if (query.getAll(key).length > 1) return `\`${key}\` is given more than once`;
  }
  const always = query.get("always");
  if (always !== null && always !== "true" && always !== "false") return "`always` must be true or false";
  const every = query.get("everyTurns");
  if (every !== null && (!/^[1-9]\d{0,9}$/.test(every) || Number(every) > MAX_EVERY_TURNS)) {
    return `\`everyTurns\` must be a whole number from 1 to ${MAX_EVERY_TURNS}`;
  }
  return { always: always === "true", everyTurns: every === null ? DEFAULT_REMINDER_TURNS : Number(every) };
}

/** `GET /`: the owner's chats, newest first, a page at a time (`?cursor=`). */
async function chatsHome(store: Store, prefix: string, query: URLSearchParams): Promise<Response> {
  const asked = listQuery(query);
  if (typeof asked === "string") return failure(400, "http/bad-request", asked);
  const { chats, next } = await listOwnedChats(store, prefix, asked);
  return new Response(chatsPage(chats, next), { headers: PAGE_HEADERS });
}

/** `GET /chats/:chatId`: the chat's page, headed with its title; 404 for a chat the owner has not. */
async function chatPageOf(cache: ChatStateCache, prefix: string, chatId: string, canWrite: boolean): Promise<Response> {
  const lease = await cache.lease(ownedKey(prefix, chatId));
  let title: string | null;
  try {
    if (lease.state === null) return new Response(missingChatPage(chatId), { status: 404, headers: PAGE_HEADERS });
    title = lease.state.session()?.title ?? null;
  } finally {
    lease.release();
  }
  return new Response(chatPage(chatId, API_BASE, { title, canWrite }), { headers: PAGE_HEADERS });
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
  // Only the list or a chat page of this server: no open redirect.
  const next = wanted === "/" || /^\/chats\/[^/?#\\]+$/.test(wanted) ? wanted : "/";
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
