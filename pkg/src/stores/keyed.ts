// The one value kept per key (a folder's feed, a store's cache, a chat's
// listeners), made the first time the key is asked for.

/**
 * The value `map` holds for `key`; when it holds none, `make()`'s, kept there.
 *
 * @example
 * const lists = new Map<string, string[]>();
 * keyed(lists, "chat-1", () => []).push("a"); // the list made once, then the same one
 */
export function keyed<K, V>(map: { get(key: K): V | undefined; set(key: K, value: V): unknown }, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}
