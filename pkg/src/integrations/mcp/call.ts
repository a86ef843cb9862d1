// One `tools/call` of the two tools: the chat and turn it names, the turn
// begun or continued, the core's decision recorded, and the answer shaped
// for MCP: the exact text as the only content, `isError` on a refusal, the
// card or offer in `_meta` where the model does not read it.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { suggestTask, todoWrite } from "../../core/functions.js";
import { beginTurn } from "../../chat/lifecycle.js";
import { runToolWithParts, type RunToolOptions, type ToolCall } from "../../chat/run.js";
import { MAX_TURN_ID_LENGTH } from "../../chat/turn-id.js";
import { checkOwnedChatId } from "../../stores/owners.js";
import type { Store } from "../../stores/store.js";
import { CARD_META, CHAT_META, OFFER_META, TURN_META, VSCODE_CONVERSATION_META, VSCODE_REQUEST_META } from "./keys.js";

/** What a call needs from its server: the store, run options, how to find a chat the call does not name. */
export interface CallScope {
  store: Store;
  /** The store key prefix of the caller's chats (stores/owners.ts; `""`: the ids are the keys). */
  prefix: string;
  run: RunToolOptions;
  /**
   * The chat of a call that names none (its id, not its key), from the host's conversation id (VS Code's) or
   * the MCP session, or `null` (the core then refuses: no owning session).
   */
  defaultChat(sessionId: string | undefined, conversationId: string | undefined): Promise<string | null>;
  onError: ((error: unknown) => void) | undefined;
}

/**
 * Internal: runs tool `name` with the model's `args` and the call's `_meta`;
 * resolves to the MCP result. A failure of the store is a fixed text with
 * `isError` (reported to `onError`), never the error's own message.
 */
export async function callTool(
  scope: CallScope,
  name: ToolCall["name"],
  args: unknown,
  meta: Record<string, unknown> | undefined,
  sessionId: string | undefined,
): Promise<CallToolResult> {
  const named = meta?.[CHAT_META];
  const turn = meta?.[TURN_META];
  if (named !== undefined && (typeof named !== "string" || named.length === 0)) {
    return refused(`oda-tasks: _meta["${CHAT_META}"] must be a non-empty string`);
  }
  if (named !== undefined) {
    try {
      checkOwnedChatId(named, scope.prefix);
    } catch (e) {
      return refused(`oda-tasks: _meta["${CHAT_META}"]: ${(e as Error).message}`);
    }
  }
  const ownTurn = turnIdOf(turn);
  if (turn !== undefined && ownTurn === undefined) {
    return refused(`oda-tasks: _meta["${TURN_META}"] must be a string of 1 to ${MAX_TURN_ID_LENGTH} characters`);
  }
  // What VS Code sends is a hint of its own: used when well formed, else left aside.
  const turnId = ownTurn ?? turnIdOf(meta?.[VSCODE_REQUEST_META]);
  try {
    const chatId = named ?? (await scope.defaultChat(sessionId, turnIdOf(meta?.[VSCODE_CONVERSATION_META])));
    // No chat: the core answers with its own refusal for a call with no owning session.
    if (chatId === null) return answer(withoutChat(name, args));
    const key = scope.prefix + chatId;
    if (turnId !== undefined) {
      try {
        await beginTurn(scope.store, key, { turn: turnId, ...(scope.run.cache === undefined ? {} : { cache: scope.run.cache }) });
      } catch (e) {
        // A chat that does not exist: the tool call below gets the core's refusal.
        if (codeOf(e) !== "store/missing-chat") throw e;
      }
    }
    // The span names the chat as the caller does: its own id, never an owner's store key.
    return answer(await runToolWithParts(scope.store, key, { name, input: args }, scope.run, chatId), chatId);
  } catch (e) {
    try {
      scope.onError?.(e);
    } catch {
      // the app's logger failing changes no answer
    }
    const code = codeOf(e);
    return refused(/^store\/[a-z-]{1,40}$/.test(code) ? `oda-tasks: the store failed (${code}); try again` : "oda-tasks: internal error");
  }
}

/** `value` as an id of the host's (a turn, VS Code's conversation): a string of 1 to MAX_TURN_ID_LENGTH characters, else `undefined`. */
function turnIdOf(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 && value.length <= MAX_TURN_ID_LENGTH ? value : undefined;
}

/** The core's answer to a call with no owning session (a null log, as `runTool` gives for a chat that does not exist). */
function withoutChat(name: ToolCall["name"], args: unknown): { ok: boolean; text: string } {
  const r = name === "todo_write" ? todoWrite(null, args) : suggestTask(null, args);
  return r.ok ? { ok: true, text: r.output } : { ok: false, text: r.error };
}

/** The MCP result; `_meta` names the chat (the widget reads its screen by it), and carries the card or the offer. */
function answer(r: { ok: boolean; text: string; card?: unknown; offer?: unknown }, chatId?: string): CallToolResult {
  const meta: Record<string, unknown> = chatId === undefined ? {} : { [CHAT_META]: chatId };
  if (!r.ok) return { ...refused(r.text), ...(chatId === undefined ? {} : { _meta: meta }) };
  if (r.card !== undefined) meta[CARD_META] = r.card;
  if (r.offer !== undefined) meta[OFFER_META] = r.offer;
  return { content: [{ type: "text", text: r.text }], ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) };
}

function refused(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function codeOf(e: unknown): string {
  const code = typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : "";
}
