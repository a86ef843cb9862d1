// The texts of a chat's event stream: a screen at a log length, and a change
// from a length a client has to the newest one (the list, the plan, the
// suggestions and what was skipped when they changed, the new cards, the card
// count), each built once as bytes and shared by every stream that needs it.
import type { ChatScreen } from "./screen.js";

/**
 * What a client holds after an event, enough to say what changed since:
 * the log length, the card count and each part of the screen as its JSON
 * text (the same string object while a part does not change).
 */
export interface Mark {
  /** Bumped when the log was replaced or cut: no change spans two epochs. */
  readonly epoch: number;
  readonly length: number;
  readonly cardCount: number;
  readonly todos: string;
  readonly plan: string;
  readonly open: string;
  readonly settled: string;
  readonly skipped: string;
}

/** The newest screen of a chat: its mark, its last cards' texts and its event bytes, with the changes built to it. */
export interface Version {
  /** The one mark of this version, shared by every stream that was sent it. */
  readonly mark: Mark;
  readonly cards: readonly string[];
  /** How many of the last cards a screen holds (the handler's `cards`). */
  readonly window: number;
  readonly screenJson: string;
  readonly screenBytes: Uint8Array;
  /** Change bytes built to this version, by the mark they start from (`null`: none can be, send the screen). */
  readonly changes: Map<Mark, Uint8Array | null>;
}

/** The parts a change carries when they differ, in this order. */
const PARTS = ["todos", "plan", "open", "settled", "skipped"] as const;

const encoder = new TextEncoder();

/** The bytes of one SSE event (`id` omitted when `null`). */
export function eventBytes(event: string, data: string, id: number | null): Uint8Array {
  return encoder.encode(`${id === null ? "" : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`);
}

/**
 * The version of `screen`, after `before` (the previous version, `null` for
 * none): the same epoch when the log only grew from it, the next one when it
 * was cut or replaced (a shorter log, fewer cards, or older cards that differ).
 */
export function versionOf(screen: ChatScreen, window: number, before: Version | null, epoch: number): Version {
  const json = JSON.stringify(screen);
  const cards = screen.cards.map((card) => JSON.stringify(card));
  // An unchanged part keeps the string it had, so marks of one chat share their texts.
  const same = (key: (typeof PARTS)[number], text: string) => (before !== null && before.mark[key] === text ? before.mark[key] : text);
  const grewFrom = before !== null && before.mark.epoch === epoch && continues(before, screen.length, screen.cardCount, cards);
  return {
    mark: {
      epoch: grewFrom ? epoch : epoch + 1,
      length: screen.length,
      cardCount: screen.cardCount,
      todos: same("todos", JSON.stringify(screen.todos)),
      plan: same("plan", JSON.stringify(screen.plan)),
      open: same("open", JSON.stringify(screen.open)),
      settled: same("settled", JSON.stringify(screen.settled)),
      skipped: same("skipped", JSON.stringify(screen.skipped)),
    },
    cards,
    window,
    screenJson: json,
    screenBytes: eventBytes("screen", json, screen.length),
    changes: new Map(),
  };
}

/** Whether a log of `length` with `cardCount` cards (the last ones `cards`) grew from `before` without replacing it. */
function continues(before: Version, length: number, cardCount: number, cards: readonly string[]): boolean {
  if (length < before.mark.length || cardCount < before.mark.cardCount) return false;
  // The cards both windows hold must be the same cards.
  const fresh = cardCount - before.mark.cardCount;
  const kept = Math.min(cards.length - fresh, before.cards.length);
  for (let i = 1; i <= kept; i++) {
    if (cards[cards.length - fresh - i] !== before.cards[before.cards.length - i]) return false;
  }
  return true;
}

/**
 * The `change` event from `from` to `to`, built once per pair; `null` when
 * only a screen is right: another epoch, a length not before `to`'s, or more
 * new cards than `to`'s window holds (`cards` of the handler).
 */
export function changeBytes(from: Mark, to: Version): Uint8Array | null {
  const built = to.changes.get(from);
  if (built !== undefined) return built;
  const m = to.mark;
  const fresh = m.cardCount - from.cardCount;
  let bytes: Uint8Array | null = null;
  if (from.epoch === m.epoch && from.length <= m.length && fresh >= 0 && fresh <= to.cards.length) {
    const cards = to.cards.slice(to.cards.length - fresh).join(",");
    let data = `{"length":${m.length},"cardCount":${m.cardCount},"cards":[${cards}],"window":${to.window}`;
    for (const part of PARTS) if (from[part] !== m[part]) data += `,"${part}":${m[part]}`;
    bytes = eventBytes("change", `${data}}`, m.length);
  }
  // Bounded: one entry per distinct mark a stream of this chat stands at.
  to.changes.set(from, bytes);
  return bytes;
}
