// An owner's chats as `serve` lists them: a page at a time, newest first,
// each with the title and workspace its session entry names (the core reads
// it), by the ids the owner uses (their keys less the owner's prefix).
import { ChatState } from "../core/chat-state.js";
import { StoreError, type Store } from "../stores/store.js";
import { storeOperation } from "../telemetry/store-ops.js";

/**
 * One chat of a listing: its id, and its title and workspace when its
 * session entry names them.
 *
 * @example
 * const { chats } = await listOwnedChats(store, "", { limit: 20, cursor: null });
 * chats[0]; // { chatId: "chat-1", title: "Fix the upload", workspace: "/repos/app" }
 */
export interface ChatSummary {
  chatId: string;
  title?: string;
  workspace?: string;
}

/** Most chats a page of the list holds; `DEFAULT_LIST_LIMIT` when the request says none. */
export const MAX_LIST_LIMIT = 100;
export const DEFAULT_LIST_LIMIT = 50;

/**
 * The chats of the owner whose key prefix is `prefix`, newest first, `limit`
 * a page from `cursor` (the page before's `next`). A store that cannot list
 * answers `store/unavailable`.
 *
 * @example
 * const first = await listOwnedChats(store, "", { limit: 50, cursor: null }); // one person's server: no prefix
 * const second = first.next === null ? null : await listOwnedChats(store, "", { limit: 50, cursor: first.next });
 */
export async function listOwnedChats(
  store: Store,
  prefix: string,
  { limit, cursor }: { limit: number; cursor: string | null },
): Promise<{ chats: ChatSummary[]; next: string | null }> {
  if (typeof store.list !== "function") throw new StoreError("store/unavailable", "this store cannot list its chats", "");
  const list = store.list;
  const page = await storeOperation(store, "list", () => list.call(store, { prefix, limit, cursor }));
  const chats = page.chats.map(({ chatId, first }) => {
    const summary: ChatSummary = { chatId: chatId.slice(prefix.length) };
    const session = first === null ? null : sessionOf(first);
    if (session?.title) summary.title = session.title;
    if (session?.workspace) summary.workspace = session.workspace;
    return summary;
  });
  return { chats, next: page.next };
}

/** What `first` (a chat's first entry) names of its chat, as the core reads a session. */
function sessionOf(first: object): { title: string | null; workspace: string | null } | null {
  const state = ChatState.fromLog([first as never], { cards: false });
  try {
    return state.session();
  } finally {
    state.free();
  }
}

/**
 * `limit` and `cursor` of `GET /api/sessions` (and of the home page), or
 * what is wrong with the query.
 *
 * @example
 * listQuery(new URLSearchParams("limit=20")); // { limit: 20, cursor: null }
 * listQuery(new URLSearchParams("limit=0")); // "`limit` must be a whole number from 1 to 100"
 */
export function listQuery(query: URLSearchParams): { limit: number; cursor: string | null } | string {
  for (const key of query.keys()) {
    if (key !== "limit" && key !== "cursor") return `unknown query parameter \`${key}\` (the list takes limit and cursor)`;
    if (query.getAll(key).length > 1) return `\`${key}\` is given more than once`;
  }
  const limitText = query.get("limit");
  let limit = DEFAULT_LIST_LIMIT;
  if (limitText !== null) {
    if (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_LIST_LIMIT) {
      return `\`limit\` must be a whole number from 1 to ${MAX_LIST_LIMIT}`;
    }
    limit = Number(limitText);
  }
  const cursor = query.get("cursor");
  if (cursor !== null && (cursor.length === 0 || cursor.length > 1000)) return "`cursor` must be the `next` of the page before";
  return { limit, cursor };
}
