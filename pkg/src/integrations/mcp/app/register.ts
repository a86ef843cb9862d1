// The MCP Apps widget on an McpServer: the one `ui://` resource the tools
// link to (a self-contained HTML file that may connect nowhere) and the
// app-only tools it calls, each one SuggestionService operation (or the
// person's edit of the list) on the chat the widget names, answering the chat's screen.
import type { McpServer, RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod/v4";
import { SuggestionService } from "../../../chat/service.js";
import { editTodos } from "../../../chat/edit.js";
import type { TodoItem } from "../../../core/types.js";
import { ChatStateCache } from "../../../chat/state-cache.js";
import { ANY, oneOf, type OptionRule, readOptions } from "../../../core/options.js";
import { APP_HTML } from "../../../gen/mcp-app.js";
import { keyed } from "../../../stores/keyed.js";
import { ownedKey } from "../../../stores/owners.js";
import { MAX_CHAT_ID_LENGTH, type Store } from "../../../stores/store.js";
import { failureOf } from "../../http/replies.js";
import { APP_RESOURCE_URI } from "../keys.js";
import { type AppScreen, type AppToolAnswer, readAppScreen } from "./screen.js";

/**
 * The MIME type of an MCP Apps view, and the extension a client declares
 * at initialize to show one (`@modelcontextprotocol/ext-apps`'
 * `RESOURCE_MIME_TYPE` and `EXTENSION_ID`; named here so the server needs
 * no ext-apps at run time).
 */
const MCP_APP_MIME_TYPE = "text/html;profile=mcp-app";
const MCP_APPS_EXTENSION = "io.modelcontextprotocol/ui";

/**
 * Options of {@link registerOdaApp}.
 *
 * @example
 * const options: OdaAppOptions = { store, service: new SuggestionService({ store }), appTools: "always" };
 */
export interface OdaAppOptions {
  /** Where the chats live: the store of the server's `todo_write` and `suggest_task`. */
  store: Store;
  /** The service the widget's actions run on (over `store`); by default one per store, shared by every server of the process. */
  service?: SuggestionService;
  /** The warm states the screen is read through (`cards: true`, e.g. a `chatHandler`'s); by default one per store, shared likewise. */
  cache?: ChatStateCache;
  /**
   * Which clients list the app-only tools: `"declared"` (default) only those
   * that declared MCP Apps (`io.modelcontextprotocol/ui`) at initialize, so a
   * host without widgets never shows Start to its model; `"always"` every
   * client (a stateless server, which sees no initialize).
   */
  appTools?: "declared" | "always";
  /**
   * The page of a chat in the app that shares the store (`oda-tasks serve`'s
   * `/chats/:id`), an http(s) URL: the widget asks the host to open it after
   * Start and on Open chat. Without it the widget names the chat instead.
   */
  chatUrl?: (chatId: string) => string;
  /** Told of a failure that is neither the service's nor a store's (the widget reads only "internal error"). */
  onError?: (error: unknown) => void;
}

const FUNCTION: OptionRule = { expected: "a function", check: (v) => typeof v === "function" };

/** The resource's `_meta.ui`: no origin to connect to or load from, drawn inside the host's own frame. */
const RESOURCE_UI = { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: false };

/** What each action's description tells a model that is shown it all the same (a client listing app-only tools to it). */
const PERSON_ONLY = "Only the oda-tasks widget calls it, when the person presses the button; never call it yourself.";

/**
 * The app-only tools' names: each takes the chat it acts on as its
 * `arguments.chat` (see {@link appToolChat}).
 *
 * @example
 * APP_TOOLS.includes("oda_start"); // true
 */
export const APP_TOOLS: readonly string[] = ["oda_screen", "oda_start", "oda_draft", "oda_dismiss", "oda_restore", "oda_edit"];

/**
 * The chat a `tools/call` of an app-only tool acts on (its `arguments.chat`),
 * else `undefined`: what an authorization check of the call must see, as it
 * sees `_meta["oda-tasks/chat"]` of the model's calls (this one first: it is
 * the chat the tool acts on, whatever the `_meta` says).
 *
 * @example
 * appToolChat("oda_start", { chat: "chat-1", id: "s1" }); // "chat-1": the chat to authorize the call for
 */
export function appToolChat(name: unknown, args: unknown): string | undefined {
  if (typeof name !== "string" || !APP_TOOLS.includes(name) || args === null || typeof args !== "object") return undefined;
  const chat = Object.hasOwn(args, "chat") ? (args as { chat?: unknown }).chat : undefined;
  return typeof chat === "string" ? chat : undefined;
}

/** An app-only tool's input: the chat the widget shows, and the offer acted on. */
const CHAT = z.string().min(1).max(MAX_CHAT_ID_LENGTH).describe("The chat the widget shows (the tool result's _meta oda-tasks/chat).");
const OFFER = z.string().min(1).max(MAX_CHAT_ID_LENGTH).describe("The suggestion's id.");

/**
 * Registers the MCP Apps widget of `todo_write` and `suggest_task` on
 * `server` (before it connects): the resource `ui://oda-tasks/chat.html`
 * and the app-only tools `oda_screen`, `oda_start`, `oda_draft`,
 * `oda_dismiss`, `oda_restore` and `oda_edit` (the person's edit of the
 * list, `{ chat, todos, basedOn }`), which the widget calls with the chat named
 * in the tool result's `_meta["oda-tasks/chat"]`. A host cannot open a new
 * chat, so Start creates it in the store and the widget names it.
 *
 * @example
 * import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
 * import { MemoryStore } from "oda-tasks";
 * const server = new McpServer({ name: "chat", version: "1.0.0" });
 * registerOdaApp(server, { store: new MemoryStore() });
 */
export function registerOdaApp(server: McpServer, options: OdaAppOptions): void {
  registerOwnedApp(server, options, "");
}

/**
 * Internal: {@link registerOdaApp} acting on the chats of the owner whose
 * store key prefix is `prefix` (stores/owners.ts); the widget names chats by
 * their ids, never their keys.
 *
 * @internal
 */
export function registerOwnedApp(server: McpServer, options: OdaAppOptions, prefix: string): void {
  const call = "registerOdaApp";
  const read = readOptions<OdaAppOptions>(call, options, {
    store: ANY,
    service: ANY,
    cache: ANY,
    appTools: oneOf("declared", "always"),
    chatUrl: FUNCTION,
    onError: FUNCTION,
  });
  const { store, chatUrl } = read;
  const report = (e: unknown) => {
    try {
      read.onError?.(e);
    } catch {
      // the app's logger failing changes no answer
    }
  };
  if (store === null || typeof store !== "object" || typeof (store as { append?: unknown }).append !== "function") {
    throw new TypeError(`oda-tasks: invalid arguments of ${call}: \`store\` must be a store (MemoryStore, JsonlStore, ...)`);
  }
  if (read.service !== undefined && !(read.service instanceof SuggestionService)) {
    throw new TypeError(`oda-tasks: invalid arguments of ${call}: \`service\` must be a SuggestionService`);
  }
  if (server === null || typeof server !== "object" || typeof server.registerTool !== "function" || typeof server.server !== "object") {
    throw new TypeError(`oda-tasks: invalid arguments of ${call}: \`server\` must be an McpServer of @modelcontextprotocol/sdk`);
  }
  if (read.cache !== undefined && (!(read.cache instanceof ChatStateCache) || read.cache.store !== store || !read.cache.cards)) {
    throw new TypeError(
      `oda-tasks: invalid arguments of ${call}: \`cache\` must be a ChatStateCache of the same store with \`cards: true\``,
    );
  }
  const parts = read.cache === undefined ? perStore(store) : { cache: read.cache, service: undefined };
  const cache = parts.cache;
  const service = (read.service ?? parts.service ?? new SuggestionService({ store, cache })).owned(prefix);

  server.registerResource(
    "oda-tasks chat",
    APP_RESOURCE_URI,
    {
      mimeType: MCP_APP_MIME_TYPE,
      description: "The to-do card of a call, the chat's plan and its suggestions.",
      _meta: { ui: RESOURCE_UI },
    },
    async () => ({ contents: [{ uri: APP_RESOURCE_URI, mimeType: MCP_APP_MIME_TYPE, text: APP_HTML, _meta: { ui: RESOURCE_UI } }] }),
  );

  /** The chat's screen after `act`, or the failure's code and message (never a stack). */
  const answer = async (
    chat: string,
    text: string,
    act: () => Promise<Omit<AppToolAnswer, "screen"> | undefined>,
  ): Promise<CallToolResult> => {
    try {
      const key = ownedKey(prefix, chat); // an id too long for an owner is refused before anything is done
      const extra = await act();
      const screen = await readAppScreen(cache, service, key, chat);
      if (screen === null) return refusal(failureOf({ code: "store/missing-chat" }).error);
      const links = chatUrl === undefined ? undefined : startedLinks(screen, chatUrl, report);
      const structuredContent: AppToolAnswer = { screen, ...extra, ...(links === undefined ? {} : { links }) };
      return { content: [{ type: "text", text }], structuredContent: { ...structuredContent } };
    } catch (e) {
      const { error } = failureOf(e);
      if (error.code === "http/internal") report(e);
      return refusal(error);
    }
  };

  const tool = (name: string, title: string, description: string, run: (chat: string, id: string) => Promise<CallToolResult>) =>
    server.registerTool(
      name,
      {
        title,
        description,
        inputSchema: { chat: CHAT, id: OFFER },
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        _meta: { ui: { visibility: ["app"] } },
      },
      ({ chat, id }) => run(chat, id),
    );
  const tools: RegisteredTool[] = [
    server.registerTool(
      "oda_screen",
      {
        title: "Read the chat's plan and suggestions",
        description: "The widget's screen of a chat: its plan and suggestions.",
        inputSchema: { chat: CHAT },
        annotations: { readOnlyHint: true, openWorldHint: false },
        _meta: { ui: { visibility: ["app"] } },
      },
      ({ chat }) => answer(chat, `The plan and suggestions of chat "${chat}".`, async () => undefined),
    ),
    tool("oda_start", "Start a suggestion", `Starts a suggestion of the chat in a new chat, once. ${PERSON_ONLY}`, (chat, id) =>
      answer(chat, `Started suggestion "${id}" of chat "${chat}".`, async () => ({ started: await service.start(chat, id) })),
    ),
    tool("oda_draft", "Draft a suggestion", `Settles a suggestion of the chat as drafted. ${PERSON_ONLY}`, (chat, id) =>
      answer(chat, `Drafted suggestion "${id}" of chat "${chat}".`, async () => void (await service.draft(chat, id))),
    ),
    tool("oda_dismiss", "Dismiss a suggestion", `Dismisses a suggestion of the chat. ${PERSON_ONLY}`, (chat, id) =>
      answer(chat, `Dismissed suggestion "${id}" of chat "${chat}".`, async () => void (await service.dismiss(chat, id))),
    ),
    tool("oda_restore", "Restore a suggestion", `Restores a dismissed suggestion of the chat. ${PERSON_ONLY}`, (chat, id) =>
      answer(chat, `Restored suggestion "${id}" of chat "${chat}".`, async () => void (await service.restore(chat, id))),
    ),
  ];

  tools.push(
    server.registerTool(
      "oda_edit",
      {
        title: "Edit the to-do list",
        description: `Records the person's edit of the chat's whole to-do list, made on the log length their screen showed. ${PERSON_ONLY}`,
        inputSchema: {
          chat: CHAT,
          todos: z.array(z.unknown()).max(100_000).describe("The whole list as the person left it: { content, status } items."),
          basedOn: z.number().int().min(0).describe("The log length the widget's screen showed (its screen's `length`)."),
        },
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
        _meta: { ui: { visibility: ["app"] } },
      },
      async ({ chat, todos, basedOn }) => {
        // The core's refusal of the list is the widget's to show, with its text.
        let refused: string | undefined;
        const done = await answer(chat, `Saved the person's edit of chat "${chat}"'s list.`, async () => {
          const r = await editTodos(store, ownedKey(prefix, chat), todos as TodoItem[], { basedOn, cache });
          if (!r.ok) refused = r.error;
          return undefined;
        });
        return refused === undefined ? done : refusal({ code: "todos/invalid", message: refused });
      },
    ),
  );

  if (read.appTools !== "always") listForAppsHosts(server, tools);
}

const stores = new WeakMap<Store, { cache: ChatStateCache; service: SuggestionService }>();
/** The warm states (with cards, for the screen) and the service of `store`: one per store in the process, however many sessions' servers. */
function perStore(store: Store): { cache: ChatStateCache; service: SuggestionService } {
  return keyed(stores, store, () => {
    const cache = new ChatStateCache(store, { cards: true });
    return { cache, service: new SuggestionService({ store, cache }) };
  });
}

/** Each started chat's page by `chatUrl`; one it gives no http(s) URL for is left out and told to `onError`. */
function startedLinks(screen: AppScreen, chatUrl: (chatId: string) => string, report: (e: unknown) => void) {
  const links: Record<string, string> = {};
  for (const { chatId } of screen.settled) {
    if (chatId === undefined) continue;
    try {
      const url = chatUrl(chatId);
      if (typeof url !== "string" || !/^https?:\/\/[^\s]{1,2040}$/i.test(url)) {
        throw new TypeError(`oda-tasks: registerOdaApp's chatUrl gave no http(s) URL for chat "${chatId}"`);
      }
      links[chatId] = url;
    } catch (e) {
      report(e);
    }
  }
  return links;
}

/** A refusal of an app-only tool: `code: message` as text, the failure as `structuredContent.error`. */
function refusal(error: ReturnType<typeof failureOf>["error"]): CallToolResult {
  return { content: [{ type: "text", text: `${error.code}: ${error.message}` }], structuredContent: { error }, isError: true };
}

/** Lists (and lets call) `tools` only once the client has declared MCP Apps at initialize. */
function listForAppsHosts(server: McpServer, tools: RegisteredTool[]): void {
  const inner = server.server;
  const apply = () => {
    const extensions = (inner.getClientCapabilities() as { extensions?: Record<string, { mimeTypes?: unknown }> } | undefined)?.extensions;
    const mimeTypes = extensions?.[MCP_APPS_EXTENSION]?.mimeTypes;
    const declared = Array.isArray(mimeTypes) && mimeTypes.includes(MCP_APP_MIME_TYPE);
    for (const t of tools) if (t.enabled !== declared) t.update({ enabled: declared });
  };
  apply();
  const before = inner.oninitialized;
  inner.oninitialized = () => {
    apply();
    before?.();
  };
}
