// The options of `odaMcpServer` (and of `mcpHandler`, which passes them on),
// read once and checked before any server exists or anything is written.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ANY, BOOLEAN, type OptionRule, type OptionRules, readOptions } from "../../core/options.js";
import { RUN_OPTION_RULES, type RunToolOptions } from "../../chat/run.js";
import { checkChatSession, type ChatSession } from "../../chat/lifecycle.js";
import { checkChatId, type Store } from "../../stores/store.js";

/**
 * Options of `odaMcpServer`: the store, where a call's chat comes from when
 * the call names none, and `runTool`'s options.
 *
 * @example
 * const options: OdaMcpServerOptions = { store, chatId: "chat-1", suggestTask: false };
 */
export interface OdaMcpServerOptions extends RunToolOptions {
  store: Store;
  /** The chat of every call that names none in `_meta["oda-tasks/chat"]`. */
  chatId?: string;
  /**
   * A chat per MCP session for calls that name none (and no `chatId`): on a
   * transport with session ids (stateful Streamable HTTP), chat
   * `mcp-session-<session id>`, created on its first call with these session
   * fields (`{}`: a top-level chat with no workspace).
   */
  sessionChat?: ChatSession;
  /** List `suggest_task` (default `true`); `false` for hosts that never send turns, where it could only be refused. */
  suggestTask?: boolean;
  /** The page of a chat in the app that shares the store: the MCP Apps widget opens a started chat there. */
  chatUrl?: (chatId: string) => string;
  /**
   * Registers the app's own tools on the same server beside ours (`mcpHandler`
   * builds a server per request, so this runs for each).
   */
  addTools?: (server: McpServer) => void;
  /** Told of a store's or other failure a call answered with a fixed text (the model never sees the error itself). */
  onError?: (error: unknown) => void;
}

const NON_EMPTY_STRING: OptionRule = { expected: "a non-empty string", check: (v) => typeof v === "string" && v.length > 0 };
const FUNCTION: OptionRule = { expected: "a function", check: (v) => typeof v === "function" };

/** Internal: the rules of {@link OdaMcpServerOptions}. */
export const SERVER_OPTION_RULES: OptionRules<OdaMcpServerOptions> = {
  ...RUN_OPTION_RULES,
  store: ANY,
  chatId: NON_EMPTY_STRING,
  sessionChat: ANY,
  suggestTask: BOOLEAN,
  chatUrl: FUNCTION,
  addTools: FUNCTION,
  onError: FUNCTION,
};

/** Internal: `options` read and checked for `call` (the store's shape, the session's fields). */
export function readServerOptions(call: string, options: unknown): Partial<OdaMcpServerOptions> & { store: Store } {
  const read = readOptions<OdaMcpServerOptions>(call, options, SERVER_OPTION_RULES);
  const { store } = read;
  if (store === null || typeof store !== "object" || typeof (store as { append?: unknown }).append !== "function") {
    throw new TypeError(`oda-tasks: invalid arguments of ${call}: \`store\` must be a store (MemoryStore, JsonlStore, ...)`);
  }
  if (read.chatId !== undefined) {
    try {
      checkChatId(read.chatId);
    } catch (e) {
      throw new TypeError(`oda-tasks: invalid arguments of ${call}: \`chatId\`: ${(e as Error).message}`);
    }
  }
  if (read.cache !== undefined && (read.cache as { store?: unknown } | null)?.store !== store) {
    throw new TypeError(`oda-tasks: invalid arguments of ${call}: \`cache\` must be a ChatStateCache of the same store`);
  }
  if (read.sessionChat !== undefined) checkChatSession(read.sessionChat);
  return read as Partial<OdaMcpServerOptions> & { store: Store };
}
