// The texts of a chat's event stream: a screen at a log length, and a change
// from a length a client has to the newest one (the list, the plan, the
// suggestions and what was skipped when they changed, the new cards, the card
// count), each built once as bytes and shared by every stream that needs it.
// A version is built from what changed: each card's JSON is made once per
// chat, kept by index for the last `window` cards, and each part's JSON once
// per version; the screen's bytes are made only when a client needs a screen.
import type { ChatRead } from "./screen.js";

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

/** The newest screen of a chat: its mark, its last cards' texts, with the events built to it. */
export interface Version {
  /** The one mark of this version, shared by every stream that was sent it. */
  readonly mark: Mark;
  readonly chatId: string;
  /** The texts of the last cards (at most `window`), oldest first; the last is card `mark.cardCount - 1`. */
  readonly cards: readonly string[];
  /** How many of the last cards a screen holds (the handler's `cards`). */
  readonly window: number;
  /** The warm state last read at this version: the next read asks it only for the cards after these. */
  state: object;
  /** The screen event, made when a client first needs it. */
  screen: Uint8Array | null;
  /** Change bytes built to this version, by the mark they start from (`null`: none can be, send the screen); made at the first. */
  changes: Map<Mark, Uint8Array | null> | null;
}

/** The parts a change carries when they differ, in this order. */
const PARTS = ["todos", "plan", "open", "settled", "skipped"] as const;

const encoder = new TextEncoder();

/** The bytes of one SSE event (`id` omitted when `null`). */
export function eventBytes(event: string, data: string, id: number | null): Uint8Array {
  return encoder.encode(`${id === null ? "" : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`);
}

/**
 * The version of what `read` found, after `before` (the previous version,
 * `null` for none): `before` itself when nothing moved; the same epoch when
 * the log only grew from it, the next one when it was cut or replaced (a
 * shorter log, fewer cards, or cards in both windows that differ).
 */
export function versionOf(read: ChatRead, window: number, before: Version | null, epoch: number): Version {
  const { parts } = read;
  const fresh = read.cards.map((card) => JSON.stringify(card));
  const cards = cardWindow(read, fresh, window, before);
  const grewFrom =
    before !== null &&
    before.mark.epoch === epoch &&
    parts.length >= before.mark.length &&
    parts.cardCount >= before.mark.cardCount &&
    cards !== null;
  // An unchanged part keeps the string it had, so marks of one chat share their texts.
  const text = (key: (typeof PARTS)[number]) => {
    const made = JSON.stringify(parts[key]);
    return before !== null && before.mark[key] === made ? before.mark[key] : made;
  };
  const mark: Mark = {
    epoch: grewFrom ? epoch : epoch + 1,
    length: parts.length,
    cardCount: parts.cardCount,
    todos: text("todos"),
    plan: text("plan"),
    open: text("open"),
    settled: text("settled"),
    skipped: text("skipped"),
  };
  if (
    grewFrom &&
    mark.length === before.mark.length &&
    mark.cardCount === before.mark.cardCount &&
    PARTS.every((key) => mark[key] === before.mark[key])
  ) {
    before.state = read.state; // nothing moved; the next read asks this state
    return before;
  }
  return {
    mark,
    chatId: parts.chatId,
    cards: grewFrom ? cards : last(fresh, window),
    window,
    state: read.state,
    screen: null,
    changes: null,
  };
}

/**
 * The last `window` card texts after `read`, when they continue `before`'s:
 * `before`'s kept texts followed by the fresh ones (read from the same state),
 * or the fresh window itself when every card both hold is the same text (a
 * state read again). `null` when they do not continue it.
 */
function cardWindow(read: ChatRead, fresh: readonly string[], window: number, before: Version | null): readonly string[] | null {
  if (before === null) return null;
  const count = read.parts.cardCount;
  const held = before.mark.cardCount;
  if (count < held) return null;
  const heldFirst = held - before.cards.length; // index of before.cards[0]
  if (read.state === before.state && read.first === Math.max(held, count - window)) {
    if (read.first === held) return last([...before.cards, ...fresh], window);
    return fresh; // more new cards than a window: none of before's is kept
  }
  // Another state (read again: evicted, replaced): the cards both windows hold must be the same.
  for (let i = Math.max(read.first, heldFirst); i < held; i++) {
    if (fresh[i - read.first] !== before.cards[i - heldFirst]) return null;
  }
  return last(fresh, window);
}

/** The last `n` of `texts` (none for 0). */
function last(texts: readonly string[], n: number): readonly string[] {
  return texts.length <= n ? texts : texts.slice(texts.length - n);
}

/** The screen event of `version`, made once, when a client first needs a screen. */
export function screenBytes(version: Version): Uint8Array {
  if (version.screen !== null) return version.screen;
  const m = version.mark;
  const data =
    `{"chatId":${JSON.stringify(version.chatId)},"length":${m.length},"todos":${m.todos},"plan":${m.plan},"open":${m.open},` +
    `"settled":${m.settled},"cardCount":${m.cardCount},"cards":[${version.cards.join(",")}],"skipped":${m.skipped}}`;
  version.screen = eventBytes("screen", data, m.length);
  return version.screen;
}

/**
 * The `change` event from `from` to `to`, built once per pair; `null` when
 * only a screen is right: another epoch, a length not before `to`'s, or more
 * new cards than `to`'s window holds (`cards` of the handler).
 */
export function changeBytes(from: Mark, to: Version): Uint8Array | null {
  const built = to.changes?.get(from);
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
  to.changes ??= new Map();
  to.changes.set(from, bytes);
  return bytes;
}
