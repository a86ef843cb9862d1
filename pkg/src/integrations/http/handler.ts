// `chatHandler`: one Fetch-API handler, `(request) => Promise<Response>`, that
// serves a chat's screen and its suggestion actions under the path it is
// mounted at, for Next.js route handlers, Hono, Bun.serve, Deno.serve and
// Workers alike. Secure by default: `authorize` is required, no CORS header
// is ever sent, a POST needs a JSON body of bounded size, and a failure says
// a code and a fixed or service text, never a stack or a path.
import { ANY, BOOLEAN, type OptionRules, readOptions, wholeBetween } from "../../core/options.js";
import { SuggestionService } from "../../chat/service.js";
import { ChatStateCache } from "../../chat/state-cache.js";
import { deleteChat } from "../../chat/lifecycle.js";
import { editTodos } from "../../chat/edit.js";
import { ownedKey, ownerPrefix } from "../../stores/owners.js";
import type { Store } from "../../stores/store.js";
import type { StartRequest, TodoItem } from "../../core/types.js";
import { readJsonBody } from "./body.js";
import { requestGuard } from "./guard.js";
import { EventStreams } from "./events.js";
import { ChatFeeds } from "./feeds.js";
import { failure, json, thrown } from "./replies.js";
import { matchRoute, type ChatAction } from "./routes.js";
import { readCards, readChat, readScreen } from "./screen.js";

/**
 * What `authorize` is told: the chat a request names and what it would do.
 *
 * @example
 * // This app offers no Restore; everything else is the chat owner's.
 * const authorize = (request: Request, { chatId, action }: AuthorizeContext) => action !== "restore" && ownsChat(request, chatId);
 */
export interface AuthorizeContext {
  chatId: string;
  /** `read` (the screen), `cards`, `events`, `edit` (the list), `delete` (the chat), or `start`, `draft`, `dismiss`, `restore` of `suggestionId`. */
  action: ChatAction;
  suggestionId?: string;
}

/**
 * Options of {@link chatHandler}.
 *
 * @example
 * const options: ChatHandlerOptions = { store, authorize: (request, { chatId }) => ownsChat(request, chatId), cards: 20 };
 */
export interface ChatHandlerOptions {
  store: Store;
  /**
   * Decides every request before anything is read or written: `true` lets it
   * through; a `Response` is sent as it is (a 401 with your own headers);
   * anything else is a 403.
   */
  authorize: (request: Request, context: AuthorizeContext) => boolean | Response | Promise<boolean | Response>;
  /** The path the handler is mounted at (`"/api/oda"`); default `""`: the routes follow the first `chats` segment. */
  basePath?: string;
  /** Cards in the first screen (default 50). */
  cards?: number;
  /** Most cards one `cards` page may hold (default 200). */
  maxPageCards?: number;
  /** Largest POST body of a suggestion action in bytes (default 4096). */
  maxBodyBytes?: number;
  /** Largest body of a person's edit of the list (`POST chats/:chatId/todos`) in bytes (default 1 MiB, as a model's `todo_write` input). */
  maxEditBytes?: number;
  /**
   * The display name of the person whose edit `request` carries (from the
   * app's session), for the card: "Edited by Ada". Default: none, "Edited by you".
   */
  by?: (request: Request, context: { chatId: string }) => string | null | undefined | Promise<string | null | undefined>;
  /** Open event streams per chat (default 100) and in all (default 10,000). */
  maxStreamsPerChat?: number;
  maxStreams?: number;
  /** For a store without `watch`: how often the watched chats are read again (what is new only), in ms (default 1000, 100 to 60000). */
  pollMs?: number;
  /** An event stream whose client has not read its event for this long is closed; it reconnects and resumes by id (ms, default 30000). */
  staleMs?: number;
  /**
   * A stream written nothing for this long gets a `: keep-alive` comment, so
   * proxies keep it open (ms, default 25000, 1000 to 300000): below the 30 s
   * idle timeout of the strictest common proxies; lower it behind a stricter one.
   */
  keepAliveMs?: number;
  /** The suggestion service's permission order, lowest first. */
  permissions?: readonly string[];
  /** The suggestion actions' OpenTelemetry spans (`oda_tasks.suggestion.start`, …): `false` makes none. */
  telemetry?: boolean;
  /** The warm states to read and write through (`cards: true`); by default one of the handler's own. */
  cache?: ChatStateCache;
  /** Told of every failure answered with a 500 or a 503, for the app's logs (the client never sees it). */
  onError?: (error: unknown, request: Request) => void;
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
 * A chat's handler: `(request: Request) => Promise<Response>`.
 *
 * @example
 * const handler: ChatHandler = chatHandler({ store, authorize: (request, { chatId }) => ownsChat(request, chatId) });
 * const response = await handler(new Request("https://app.example/api/oda/chats/chat-1"));
 */
export type ChatHandler = (request: Request) => Promise<Response>;

/** The rules of chatHandler's options (store, authorize, cache and onError are checked where they are used). */
const RULES: OptionRules<ChatHandlerOptions> = {
  store: ANY,
  authorize: ANY,
  basePath: ANY,
  cards: wholeBetween(0, 10_000),
  maxPageCards: wholeBetween(1, 10_000),
  maxBodyBytes: wholeBetween(2, 1 << 20),
  maxEditBytes: wholeBetween(2, 1 << 24),
  by: ANY,
  maxStreamsPerChat: wholeBetween(1, 100_000),
  maxStreams: wholeBetween(1, 1_000_000),
  pollMs: wholeBetween(100, 60_000),
  staleMs: wholeBetween(1000, 600_000),
  keepAliveMs: wholeBetween(1000, 300_000),
  permissions: ANY,
  telemetry: BOOLEAN,
  cache: ANY,
  onError: ANY,
  allowedOrigins: ANY,
  allowedHosts: ANY,
};

/** Largest query number taken for `from` and `to`. */
const MAX_QUERY_NUMBER = 2 ** 31;

/**
 * The chat's HTTP handler over `store`:
 * `GET chats/:chatId` (the first screen), `GET chats/:chatId/cards?from=&to=`,
 * `POST chats/:chatId/todos` (a person's edit of the list: `{ todos, basedOn }`),
 * `POST chats/:chatId/suggestions/:id/(start|draft|dismiss|restore)`,
 * `GET chats/:chatId/events` (SSE) and `DELETE chats/:chatId`, each decided
 * by `authorize` first. Throws a TypeError at once without `authorize` or
 * with a bad option.
 *
 * @example
 * // app/api/oda/[...path]/route.ts (Next.js)
 * import { chatHandler } from "oda-tasks/http";
 * const handler = chatHandler({ store, authorize: (request, { chatId }) => ownsChat(request, chatId) }); // your session check
 * export { handler as GET, handler as POST };
 */
export function chatHandler(options: ChatHandlerOptions): ChatHandler {
  return ownedChatHandler(options, undefined);
}

/**
 * Internal: {@link chatHandler} over the chats of each request's owner
 * (`owner(request)`, asked once `authorize` let the request in; `""`: the
 * store's own ids), so that two owners' chats of one id are two chats
 * (stores/owners.ts). `serve` gives it its verified credential's owner.
 *
 * @internal
 */
export function ownedChatHandler(
  options: ChatHandlerOptions,
  owner: ((request: Request) => string | Promise<string>) | undefined,
): ChatHandler {
  const o = readOptions<ChatHandlerOptions>("chatHandler", options, RULES);
  const guard = requestGuard("chatHandler", o);
  const { store, authorize, onError } = o;
  if (store === null || typeof store !== "object" || typeof (store as { append?: unknown }).append !== "function") {
    throw new TypeError("oda-tasks: invalid arguments of chatHandler: `store` must be a store (MemoryStore, JsonlStore, ...)");
  }
  if (typeof authorize !== "function") {
    throw new TypeError(
      "oda-tasks: invalid arguments of chatHandler: `authorize(request, { chatId, action })` is required; it decides who may read and act on each chat",
    );
  }
  if (onError !== undefined && typeof onError !== "function")
    throw new TypeError("oda-tasks: invalid arguments of chatHandler: `onError` must be a function");
  const { by } = o;
  if (by !== undefined && typeof by !== "function")
    throw new TypeError("oda-tasks: invalid arguments of chatHandler: `by` must be a function");
  const basePath = o.basePath ?? "";
  if (typeof basePath !== "string" || (basePath !== "" && (!basePath.startsWith("/") || basePath.endsWith("/")))) {
    throw new TypeError('oda-tasks: invalid arguments of chatHandler: `basePath` must be "" or a path like "/api/oda" (no trailing slash)');
  }
  const { cards = 50, maxPageCards = 200, maxBodyBytes = 4096, pollMs = 1000, staleMs = 30_000, keepAliveMs = 25_000 } = o;
  const { maxEditBytes = 1 << 20 } = o;
  const { maxStreamsPerChat: perChat = 100, maxStreams: total = 10_000 } = o;
  const cache = o.cache ?? new ChatStateCache(store, { cards: true });
  if (!(cache instanceof ChatStateCache) || cache.store !== store || !cache.cards) {
    throw new TypeError(
      "oda-tasks: invalid arguments of chatHandler: `cache` must be a ChatStateCache of the same store with `cards: true`",
    );
  }
  const service = new SuggestionService({
    store,
    cache,
    ...(o.permissions === undefined ? {} : { permissions: o.permissions }),
    ...(o.telemetry === undefined ? {} : { telemetry: o.telemetry }),
  });
  /** A store without `delete` (an app's own) serves no DELETE: the route answers 405. */
  const canDelete = typeof store.delete === "function";

  const report = (e: unknown, request: Request) => {
    try {
      onError?.(e, request);
    } catch {
      // the app's logger failing changes no answer
    }
  };
  // A failure's `error` event data: the code and the fixed text the same failure gets as an answer.
  const failureData = async (e: unknown) => JSON.stringify(((await thrown(e).json()) as { error: unknown }).error);
  const feeds: ChatFeeds = new ChatFeeds(
    store,
    (feed, since) => readChat(cache, service.owned(feed.prefix), feed.chatId, feed.chatId.slice(feed.prefix.length), cards, since),
    cards,
    failureData,
    (feed) => streams.changed(feed),
  );
  const streams = new EventStreams(feeds, { pollMs, keepAliveMs, staleMs, perChat, total });

  return async function handle(request: Request): Promise<Response> {
    // Host and Origin first: a request from another site is told nothing else.
    const foreign = guard?.(request);
    if (foreign) return foreign;
    try {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        return failure(400, "http/bad-request", "the request's URL cannot be read");
      }
      const route = matchRoute(url.pathname, basePath);
      if ("miss" in route) {
        return route.miss === "not-found"
          ? failure(404, "http/not-found", "no such route")
          : failure(400, "http/bad-request", route.message);
      }
      const action = route.action === "start" || route.action === "draft" || route.action === "dismiss" || route.action === "restore";
      const post = action || route.action === "edit";
      const method = request.method.toUpperCase();
      // The chat's own path reads it (GET) or deletes it (DELETE).
      const deleting = route.action === "read" && method === "DELETE" && canDelete;
      if (!deleting && method !== (post ? "POST" : "GET")) {
        const allow = post ? "POST" : route.action === "read" && canDelete ? "GET, DELETE" : "GET";
        return failure(405, "http/method-not-allowed", `${allow.replace(", ", " or ")} only`, { allow });
      }
      // Query numbers are checked before authorize, so it is told of well-formed requests only.
      let page: { from: number; to: number | undefined } | undefined;
      if (route.action === "cards") {
        const read = pageQuery(url.searchParams);
        if (typeof read === "string") return failure(400, "http/bad-request", read);
        page = read;
      }
      const context: AuthorizeContext = action
        ? { chatId: route.chatId, action: route.action, suggestionId: (route as { suggestionId: string }).suggestionId }
        : { chatId: route.chatId, action: deleting ? "delete" : route.action };
      const verdict = await authorize(request, context);
      if (verdict instanceof Response) return verdict;
      if (verdict !== true) return failure(403, "http/forbidden", "not allowed");
      // The chat's store key: its owner's prefix and its id (an id too long for an owner is a 400).
      const prefix = owner === undefined ? "" : await ownerPrefix(await owner(request));
      const key = ownedKey(prefix, route.chatId);
      const owned = service.owned(prefix);
      if (deleting) {
        if (!(await deleteChat(store, key))) return failure(404, "store/missing-chat", "no such chat");
        return json(200, { ok: true, deleted: true });
      }

      if (route.action === "edit") {
        const read = await readJsonBody(request, maxEditBytes);
        if ("refused" in read) return read.refused;
        const edit = editBody(read.body);
        if (typeof edit === "string") return failure(400, "http/bad-request", edit);
        const name = by === undefined ? undefined : await by(request, { chatId: route.chatId });
        const done = await editTodos(store, key, edit.todos, { basedOn: edit.basedOn, cache, ...(name ? { by: name } : {}) });
        return done.ok ? json(200, done) : failure(400, "todos/invalid", done.error);
      }
      if (action) {
        const read = await readJsonBody(request, maxBodyBytes);
        if ("refused" in read) return read.refused;
        const id = (route as { suggestionId: string }).suggestionId;
        if (route.action === "start") {
          const startRequest = startBody(read.body);
          if (typeof startRequest === "string") return failure(400, "http/bad-request", startRequest);
          const { chatId } = await owned.start(route.chatId, id, startRequest);
          return json(200, { ok: true, chatId });
        }
        if (Object.keys(read.body).length > 0) return failure(400, "http/bad-request", `${route.action} takes no fields in its body`);
        await owned[route.action](route.chatId, id);
        return json(200, { ok: true });
      }
      if (route.action === "events") return streams.stream(key, prefix, request);
      if (route.action === "cards" && page !== undefined) {
        const found = await readCards(cache, key, page.from, page.to, maxPageCards);
        if (found === null) return failure(404, "store/missing-chat", "no such chat");
        if (found === "too-many") return failure(400, "http/bad-request", `a page holds at most ${maxPageCards} cards`);
        return json(200, found);
      }
      const screen = await readScreen(cache, owned, key, route.chatId, cards);
      if (screen === null) return failure(404, "store/missing-chat", "no such chat");
      return json(200, screen);
    } catch (e) {
      const answer = thrown(e);
      if (answer.status >= 500) report(e, request);
      return answer;
    }
  };
}

/** `from` and `to` of a cards page: whole numbers, negative counting from the end; a string says what is wrong. */
function pageQuery(query: URLSearchParams): { from: number; to: number | undefined } | string {
  for (const key of query.keys()) {
    if (key !== "from" && key !== "to") return `unknown query parameter \`${key}\` (cards takes from and to)`;
  }
  const number = (name: string): number | undefined | string => {
    const all = query.getAll(name);
    if (all.length === 0) return undefined;
    if (all.length > 1) return `\`${name}\` is given more than once`;
    const [text = ""] = all;
    if (!/^-?\d{1,10}$/.test(text)) return `\`${name}\` must be a whole number`;
    const n = Number(text);
    return Math.abs(n) > MAX_QUERY_NUMBER ? `\`${name}\` must be within ±${MAX_QUERY_NUMBER}` : n;
  };
  const from = number("from") ?? 0;
  const to = number("to");
  if (typeof from === "string") return from;
  if (typeof to === "string") return to;
  return { from, to };
}

/** An edit's body: `{ todos, basedOn }` (the list is the core's to judge); a string says what is wrong. */
function editBody(body: Record<string, unknown>): { todos: TodoItem[]; basedOn: number } | string {
  for (const key of Object.keys(body))
    if (key !== "todos" && key !== "basedOn") return `unknown field \`${key}\` (an edit takes todos and basedOn)`;
  const { todos, basedOn } = body;
  if (!Object.hasOwn(body, "todos")) return "an edit needs `todos`, the whole list";
  if (typeof basedOn !== "number" || !Number.isSafeInteger(basedOn) || basedOn < 0) {
    return "`basedOn` must be the log length the screen showed (a whole number >= 0)";
  }
  return { todos: todos as TodoItem[], basedOn };
}

/** A Start's body: `{ model?, permission? }`, strings; a string says what is wrong. */
function startBody(body: Record<string, unknown>): StartRequest | undefined | string {
  const request: StartRequest = {};
  for (const [key, value] of Object.entries(body)) {
    if (key !== "model" && key !== "permission") return `unknown field \`${key}\` (start takes model and permission)`;
    if (typeof value !== "string" || value.length === 0 || value.length > 200) return `\`${key}\` must be a string of 1 to 200 characters`;
    request[key] = value;
  }
  return Object.keys(request).length === 0 ? undefined : request;
}
