// Which route a request asks for: `chats/:chatId` (read, or delete),
// `chats/:chatId/cards`, `chats/:chatId/events`, `chats/:chatId/todos` (a person's edit) and
// `chats/:chatId/suggestions/:id/(start|draft|dismiss|restore)`, found after the path the handler is mounted at, with every id checked.
import { checkChatId } from "../../stores/store.js";

/**
 * What a request would do, as `authorize` is told: read the screen, a page
 * of cards or the event stream, edit the list, act on one suggestion, or delete the chat.
 *
 * @example
 * const writes: ChatAction[] = ["edit", "start", "draft", "dismiss", "restore", "delete"];
 */
export type ChatAction = "read" | "cards" | "events" | "edit" | "start" | "draft" | "dismiss" | "restore" | "delete";

/** The four actions on a suggestion. */
export type SuggestionAction = "start" | "draft" | "dismiss" | "restore";

/** A matched route: its action, the chat, and the suggestion for the actions on one. */
export type Route =
  | { action: "read" | "cards" | "events" | "edit"; chatId: string }
  | { action: SuggestionAction; chatId: string; suggestionId: string };

/** Why no route was matched: no such path, or a path segment that is no id. */
export type RouteMiss = { miss: "not-found" } | { miss: "bad-id"; message: string };

/** Longest suggestion id taken (the core's ids are short: `s1`, `s2`, ...). */
export const MAX_SUGGESTION_ID_LENGTH = 200;

const ACTIONS = new Set<string>(["start", "draft", "dismiss", "restore"]);

/**
 * The route of `pathname`: the segments after the first `chats` segment past
 * `basePath` (every path when `basePath` is `""`), decoded and checked.
 */
export function matchRoute(pathname: string, basePath: string): Route | RouteMiss {
  if (!pathname.startsWith(basePath) || (basePath !== "" && pathname.length > basePath.length && pathname[basePath.length] !== "/")) {
    return { miss: "not-found" };
  }
  const raw = pathname.slice(basePath.length).split("/");
  // One leading and one trailing slash are no segments; an empty one between two slashes is (and no id).
  if (raw[0] === "") raw.shift();
  if (raw.at(-1) === "") raw.pop();
  const at = raw.indexOf("chats");
  if (at < 0) return { miss: "not-found" };
  const rest = raw.slice(at + 1);
  if (rest.length === 0 || rest.length === 3 || rest.length > 4) return { miss: "not-found" };
  const [chatSegment = "", kind, idSegment = "", action = ""] = rest;
  if (rest.length === 2 && kind !== "cards" && kind !== "events" && kind !== "todos") return { miss: "not-found" };
  if (rest.length === 4 && (kind !== "suggestions" || !ACTIONS.has(action))) return { miss: "not-found" };
  const chatId = decoded(chatSegment);
  if (chatId === null) return { miss: "bad-id", message: "the chat id is not a well-formed URL segment" };
  try {
    checkChatId(chatId); // the stores' own rule
  } catch (e) {
    return { miss: "bad-id", message: e instanceof Error ? e.message : "invalid chat id" };
  }
  if (rest.length === 1) return { action: "read", chatId };
  if (rest.length === 2) return { action: kind === "todos" ? "edit" : (kind as "cards" | "events"), chatId };
  const suggestionId = decoded(idSegment);
  const problem = suggestionId === null ? "it is not a well-formed URL segment" : suggestionIdProblem(suggestionId);
  if (suggestionId === null || problem !== null) return { miss: "bad-id", message: `invalid suggestion id: ${problem}` };
  return { action: action as SuggestionAction, chatId, suggestionId };
}

function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** Why `id` is no suggestion id: empty, too long, a control character or a lone surrogate; `null` when it is one. */
function suggestionIdProblem(id: string): string | null {
  if (id.length === 0) return "it is empty";
  if (id.length > MAX_SUGGESTION_ID_LENGTH) return `it is longer than ${MAX_SUGGESTION_ID_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(id)) return "it holds a control character";
  // With the `u` flag a surrogate range matches only a surrogate without its pair.
  if (/[\uD800-\uDFFF]/u.test(id)) return "it is not well-formed Unicode (a lone surrogate)";
  return null;
}
