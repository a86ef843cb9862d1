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

/** A screen's parts other than its cards, in the order a screen's JSON has them. */
export type ScreenParts = Omit<ChatScreen, "cards">;

/**
 * A chat as a feed reads it: the screen's parts and only the cards it lacks.
 * `cards` are the chat's cards from index `first` on; `state` is the warm
 * state they were read from (the same object while the log only grew).
 */
export interface ChatRead {
  parts: ScreenParts;
  cards: TodoCard[];
  first: number;
  state: object;
}

/** What a feed holds of a chat: the state it last read and that state's card count (`state: null`: nothing). */
export interface ReadPlace {
  state: object | null;
  cardCount: number;
}

/**
 * Reads chat `chatId`'s parts (the chat of store key `key`, `service` its
 * owner's) and, of its last `window` cards, those after `since` when the
 * state is the one `since` was read from, else all of them; `null` when the
 * chat does not exist. A card is made once per chat, not once per read.
 */
export async function readChat(
  cache: ChatStateCache,
  service: SuggestionService,
  key: string,
  chatId: string,
  window: number,
  since: ReadPlace,
): Promise<ChatRead | null> {
  const lease = await cache.lease(key);
  let view: ChatView;
  let length: number;
  let cards: TodoCard[];
  let first: number;
  let state: object;
  try {
    if (lease.state === null) return null;
    state = lease.state;
    view = lease.state.view({ cards: 0 });
    length = lease.state.length;
    const count = view.cardCount;
    first = Math.max(0, count - window);
    if (state === since.state && count >= since.cardCount) first = Math.max(first, since.cardCount);
    cards = first < count ? lease.state.cards(first, count) : [];
  } finally {
    lease.release();
  }
  let settled: ListedSuggestion[] = view.settled;
  if (settled.some((s) => s.outcome === "started")) {
    // The service's list, for its progress of started chats (one rule, the service's).
    const listed = await service.list(chatId, { progress: true });
    const progress = new Map(listed.settled.filter((s) => s.progress !== undefined).map((s) => [s.id, s.progress]));
    settled = settled.map((s) => {
      const started = progress.get(s.id);
      return started !== undefined ? { ...s, progress: started } : s;
    });
  }
  const { todos, plan, open, cardCount, skipped } = view;
  return { parts: { chatId, length, todos, plan, open, settled, cardCount, skipped }, cards, first, state };
}

/** The first screen of chat `chatId` (store key `key`, `service` its owner's); `null` when the chat does not exist. */
export async function readScreen(
  cache: ChatStateCache,
  service: SuggestionService,
  key: string,
  chatId: string,
  cards: number,
): Promise<ChatScreen | null> {
  const read = await readChat(cache, service, key, chatId, cards, { state: null, cardCount: 0 });
  if (read === null) return null;
  const { cardCount, skipped, ...rest } = read.parts;
  return { ...rest, cardCount, cards: read.cards, skipped };
}

/**
 * Cards `from..to` of the chat of store key `key` (slice semantics); `null` when the chat does
 * not exist, `"too-many"` when the page would hold more than `max` cards
 * (checked before any card is made).
 */
export async function readCards(
  cache: ChatStateCache,
  key: string,
  from: number,
  to: number | undefined,
  max: number,
): Promise<CardPage | null | "too-many"> {
  const lease = await cache.lease(key);
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
