// The SQL stores' prefixes are ranges of ids (chat_id >= prefix AND chat_id <
// the least string above every id that starts with it), so an index serves
// them: checked here against JavaScript's own startsWith, code unit for code
// unit, on the ids a range could get wrong: LIKE's wildcards, characters past
// U+FFFF (a prefix may end between the two halves of one), the last code
// point below the surrogates and the very last one, and prefixes no id can
// start with (a control character, a path separator, half a pair before the end).
import assert from "node:assert/strict";

const IDS = [
  "a_b",
  "axb",
  "a%c",
  "a%",
  "a\u{1F600}x", // 😀 (\uD83D\uDE00)
  "a\u{1F680}", // 🚀 (\uD83D\uDE80)
  "a\u{1F300}", // 🌀 (\uD83C\uDF00)
  "a\u{10FFFF}z",
  "a\u{10FFFF}",
  "a\uD7FFb",
  "a\uE000",
  "a\uFFFF",
  "a\u{10000}",
  "ab",
  "b",
  "\u{1F600}",
];

const PREFIXES = [
  "",
  "a",
  "a_",
  "a%",
  "a%c",
  "a\uD83D",
  "a\uD83C",
  "\uD83D",
  "a\uDBFF",
  "a\uD800",
  "a\u{10FFFF}",
  "a\uD7FF",
  "a\uFFFF",
  "a\u{1F600}",
  "b",
  "c",
  "a\uDE00",
  "\uDE00",
  "a\uD83Dx",
  "a\u0000",
  "a/",
  "a\\",
  "a\u007f",
  "x".repeat(201),
];

/** Creates the ids in `store` (newest last) and checks every prefix's listing against startsWith. */
export async function listsPrefixes(store) {
  for (const id of IDS) assert.equal(await store.create(id, [{ type: "session", chatId: id }]), true, JSON.stringify(id));
  for (const prefix of PREFIXES) {
    const expected = IDS.filter((id) => id.startsWith(prefix)).reverse();
    const page = await store.list({ prefix, limit: 1000 });
    assert.deepEqual(
      page.chats.map((chat) => chat.chatId),
      expected,
      `prefix ${JSON.stringify(prefix)}`,
    );
    assert.equal(page.next, null);
    for (const chat of page.chats) assert.deepEqual(chat.first, { type: "session", chatId: chat.chatId });
  }
  // Paging a prefix that ends in half a pair: its cursor holds that prefix as it is.
  const first = await store.list({ prefix: "a\uD83D", limit: 1 });
  assert.equal(first.chats[0].chatId, "a\u{1F680}");
  const second = await store.list({ prefix: "a\uD83D", limit: 1, cursor: first.next });
  assert.deepEqual(second, { chats: [{ chatId: "a\u{1F600}x", first: { type: "session", chatId: "a\u{1F600}x" } }], next: null });
}
