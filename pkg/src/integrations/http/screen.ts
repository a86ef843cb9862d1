// What the handler serves of a chat: its first screen (the view, with the
// progress of each started suggestion) and a page of cards, read through a
// warm-state cache that keeps cards, so a read costs only what is new.
import type { ChatStateCache } from "../../chat/state-cache.js";
import type { ListedSuggestion, SuggestionService } from "../../chat/service.js";
import type { ChatView, TodoCard } from "../../core/types.js";

/**
 * A chat's first screen as `GET chats/:chatId` and each event of
 * `GET chats/:chatId/events` carry it: `ChatState#view({ cards })`, each
 * started suggestion with its chat's `progress`, and `length`, the log's
 * length it was read at.
 *
 * @example
 * const screen: ChatScreen = await (await fetch("/api/oda/chats/chat-1")).json();
 * Object.assign(document.createElement("oda-plan"), { plan: screen.plan, cardCount: screen.cardCount });
 */
export interface ChatScreen extends Omit<ChatView, "settled"> {
  chatId: string;
  length: number;
  settled: ListedSuggestion[];
}

/**
 * An `event: change` of `GET chats/:chatId/events`: what changed since the
 * length the client had (the previous event's `id`): the new length, the
 * card count, the new cards, and each of the other parts only when it changed.
 *
 * @example
 * source.addEventListener("change", (e) => { const change: ChatChange = JSON.parse((e as MessageEvent<string>).data); console.log(change.cardCount); });
 */
export interface ChatChange {
  length: number;
  cardCount: number;
  /** The cards new since the client's length, oldest first. */
  cards: TodoCard[];
  /** How many of the last cards a screen holds (the handler's `cards`): keep that many. */
  window: number;
  todos?: ChatScreen["todos"];
  plan?: ChatScreen["plan"];
  open?: ChatScreen["open"];
  settled?: ChatScreen["settled"];
  skipped?: ChatScreen["skipped"];
}

/**
 * One page of cards as `GET chats/:chatId/cards?from=&to=` answers it
 * (`Array.prototype.slice` semantics over the chat's cards).
 *
 * @example
 * const { cards, cardCount }: CardPage = await (await fetch("/api/oda/chats/chat-1/cards?from=-100&to=-50")).json();
 */
export interface CardPage {
  cardCount: number;
  cards: TodoCard[];
}

/** The chat's first screen; `null` when the chat does not exist. */
export async function readScreen(
  cache: ChatStateCache,
  service: SuggestionService,
  chatId: string,
  cards: number,
): Promise<ChatScreen | null> {
  const lease = await cache.lease(chatId);
  let view: ChatView;
  let length: number;
  try {
    if (lease.state === null) return null;
    view = lease.state.view({ cards });
    length = lease.state.length;
  } finally {
    lease.release();
  }
  // The service's list, for its progress of started chats (one rule, the service's).
  const { settled } = await service.list(chatId, { progress: true });
  const progress = new Map(settled.filter((s) => s.progress !== undefined).map((s) => [s.id, s.progress]));
  return {
    chatId,
    length,
    ...view,
    settled: view.settled.map((s) => {
      const started = progress.get(s.id);
      return started !== undefined ? { ...s, progress: started } : s;
    }),
  };
}

/**
 * Cards `from..to` of the chat (slice semantics); `null` when the chat does
 * not exist, `"too-many"` when the page would hold more than `max` cards
 * (checked before any card is made).
 */
export async function readCards(
  cache: ChatStateCache,
  chatId: string,
  from: number,
  to: number | undefined,
  max: number,
): Promise<CardPage | null | "too-many"> {
  const lease = await cache.lease(chatId);
  try {
    if (lease.state === null) return null;
    const cardCount = lease.state.cardCount;
    // Where Array.prototype.slice would start and end, to bound the page before it is made.
    const at = (n: number) => (n < 0 ? Math.max(cardCount + n, 0) : Math.min(n, cardCount));
    if (at(to ?? cardCount) - at(from) > max) return "too-many";
    return { cardCount, cards: lease.state.cards(from, to) };
  } finally {
    lease.release();
  }
}
