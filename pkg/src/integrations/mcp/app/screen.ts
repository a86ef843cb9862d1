// What the widget's app-only tools answer: the part of a chat's screen the
// widget draws (plan, card count, suggestions with progress), read by the
// HTTP handler's one reader of a screen.
import type { ChatStateCache } from "../../../chat/state-cache.js";
import type { SuggestionService } from "../../../chat/service.js";
import { readScreen, type ChatScreen } from "../../http/screen.js";

/**
 * The chat as the widget draws it: `ChatState#view()`'s plan, list, card
 * count and suggestions (started ones with their chat's `progress`), and the
 * log's `length` (what a person's edit is made on).
 *
 * @example
 * const titles = (screen: AppScreen) => screen.open.map((s) => s.title); // the open offers, newest first
 */
export type AppScreen = Pick<ChatScreen, "chatId" | "length" | "plan" | "todos" | "cardCount" | "open" | "settled">;

/**
 * The `structuredContent` of every app-only tool's success: the chat's
 * screen after the action, for Start the chat it started, and with
 * `chatUrl` the started chats' pages.
 *
 * @example
 * const startedChat = (answer: AppToolAnswer) => answer.started?.chatId; // "chat-1.s1" after oda_start of offer s1
 */
export interface AppToolAnswer {
  screen: AppScreen;
  started?: { chatId: string };
  /** With `chatUrl`: each started chat's page, by chat id. */
  links?: Record<string, string>;
}

/** The widget's screen of `chatId` (the chat of store key `key`, `service` its owner's); `null` when the chat does not exist. */
export async function readAppScreen(
  cache: ChatStateCache,
  service: SuggestionService,
  key: string,
  chatId: string,
): Promise<AppScreen | null> {
  const screen = await readScreen(cache, service, key, chatId, 0);
  if (screen === null) return null;
  const { length, plan, todos, cardCount, open, settled } = screen;
  return { chatId, length, plan, todos, cardCount, open, settled };
}
