// Chats held apart by owner in one store: an owner's chat `c1` is stored
// under the key `<prefix>c1`, the prefix a digest of the owner, so two owners'
// `c1` are two chats and no id of one owner can name another's. The logs
// themselves keep the ids their owner uses (a session entry names `c1`).
import { MAX_CHAT_ID_LENGTH, StoreError, checkChatId } from "./store.js";

/**
 * Length of an owner's key prefix: 24 base32 characters of the SHA-256 of
 * the owner (120 bits), and `.`.
 *
 * @example
 * (await ownerPrefix("alice")).length === OWNER_PREFIX_LENGTH; // true
 */
export const OWNER_PREFIX_LENGTH = 25;

/**
 * The longest chat id an owner may use: the key (prefix and id) stays within
 * {@link MAX_CHAT_ID_LENGTH}, as every store takes.
 *
 * @example
 * checkOwnedChatId("x".repeat(MAX_OWNED_CHAT_ID_LENGTH + 1), "a.");  // throws store/bad-chat-id
 */
export const MAX_OWNED_CHAT_ID_LENGTH = MAX_CHAT_ID_LENGTH - OWNER_PREFIX_LENGTH;

/** Lower-case RFC 4648 base32: every character plain in a file name, a key and a URL. */
const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** Prefixes already worked out, by owner (a digest per request would be wasted work). */
const known = new Map<string, string>();
/** Owners whose prefix is kept: an LRU bound, so a stream of one-time owners holds no memory. */
const KNOWN_MAX = 4096;

/**
 * The key prefix of `owner`'s chats: `""` for the owner `""` (one person's
 * server: the chats keep their ids as keys), else {@link OWNER_PREFIX_LENGTH}
 * characters of `[a-z2-7]` and a final `.`. The same owner gets the same prefix
 * in every process and on every machine.
 *
 * @example
 * await ownerPrefix(""); // ""
 * await ownerPrefix('["sub","https://issuer.example","alice"]'); // e.g. "mfrggzdfmztwq2lknnwg23tp."
 */
export async function ownerPrefix(owner: string): Promise<string> {
  if (owner === "") return "";
  const found = known.get(owner);
  if (found !== undefined) {
    known.delete(owner);
    known.set(owner, found);
    return found;
  }
  const bytes = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(`oda-tasks owner 1\n${owner}`)));
  let prefix = "";
  let value = 0;
  let bits = 0;
  // 5 bits a character, from the digest's first 15 bytes.
  for (let i = 0; prefix.length < 24; i++) {
    value = ((value << 8) | (bytes[i] ?? 0)) & 0xfff;
    bits += 8;
    while (bits >= 5 && prefix.length < 24) {
      bits -= 5;
      prefix += BASE32[(value >>> bits) & 31];
    }
  }
  prefix += ".";
  known.set(owner, prefix);
  if (known.size > KNOWN_MAX) known.delete(known.keys().next().value as string);
  return prefix;
}

/**
 * Checks `chatId` as an id of the owner whose prefix is `prefix` (the
 * stores' rule, and at most {@link MAX_OWNED_CHAT_ID_LENGTH} characters under
 * a prefix), and answers its store key. A refusal names `chatId`, never the key.
 *
 * @example
 * ownedKey("", "chat-1"); // "chat-1"
 * ownedKey("mfrggzdfmztwq2lknnwg23tp.", "chat-1"); // "mfrggzdfmztwq2lknnwg23tp.chat-1"
 */
export function ownedKey(prefix: string, chatId: string): string {
  checkOwnedChatId(chatId, prefix);
  return prefix + chatId;
}

/**
 * Refuses `chatId` as an id of the owner of `prefix` (see {@link ownedKey}).
 *
 * @example
 * checkOwnedChatId("chat-1", "mfrggzdfmztwq2lknnwg23tp."); // passes
 */
export function checkOwnedChatId(chatId: unknown, prefix: string): asserts chatId is string {
  checkChatId(chatId);
  if (prefix !== "" && chatId.length > MAX_OWNED_CHAT_ID_LENGTH) {
    throw new StoreError(
      "store/bad-chat-id",
      `invalid chat id ${JSON.stringify(chatId)}: it is longer than ${MAX_OWNED_CHAT_ID_LENGTH} characters`,
      chatId,
    );
  }
}
