// The host's id of a chat's open turn: the `turn` field of its latest
// `turn_started` entry. The core folds turn markers but keeps no host field,
// so the id is read back from the log, remembered per warm state, and read
// again only from where the remembered one stood.
import type { ChatState } from "../core/chat-state.js";
import { readFrom, type Store } from "../stores/store.js";

/** What is known of a state: the latest turn's id as of `turns` turns and a log `length` long. */
interface Known {
  turns: number;
  length: number;
  id: string | null;
}

/** Per warm state: a state replaced (a log read whole again) or freed starts afresh. */
const known = new WeakMap<ChatState, Known>();

/** The longest turn id kept, in UTF-16 code units. */
export const MAX_TURN_ID_LENGTH = 200;

/**
 * Internal: the `turn` id of the latest `turn_started` entry in the first
 * `state.length` entries of chat `chatId`, or `null` (no turn yet, or one
 * begun without an id). Reads only the entries after the last answer for
 * this state; the first answer reads the log once.
 */
export async function latestTurnId(store: Store, chatId: string, state: ChatState): Promise<string | null> {
  const { turns } = state.listState();
  const length = state.length;
  const before = known.get(state);
  if (before !== undefined && before.turns === turns && before.length <= length) return before.id;
  if (turns === 0) return remember(state, { turns, length, id: null });
  // A turn begun since `before` sits after where `before` was read.
  const from = before !== undefined && before.turns < turns && before.length <= length ? before.length : 0;
  const entries = (await readFrom(store, chatId, from)) ?? [];
  for (let i = Math.min(entries.length, length - from) - 1; i >= 0; i--) {
    const entry = entries[i] as { type?: unknown; v?: unknown; turn?: unknown } | null;
    if (entry !== null && typeof entry === "object" && entry.type === "turn_started") {
      // A newer format's `turn` may mean something else: such a turn has no id this version reads.
      return remember(state, { turns, length, id: entry.v === undefined || entry.v === 1 ? turnIdOf(entry.turn) : null });
    }
  }
  return remember(state, { turns, length, id: null });
}

function remember(state: ChatState, what: Known): string | null {
  known.set(state, what);
  return what.id;
}

/** A stored `turn` as an id: a string of 1 to {@link MAX_TURN_ID_LENGTH} code units; anything else is no id. */
function turnIdOf(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 && value.length <= MAX_TURN_ID_LENGTH ? value : null;
}
