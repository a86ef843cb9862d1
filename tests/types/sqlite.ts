// Type tests for oda-tasks/sqlite and oda-tasks/testing: the store takes the
// drivers' shapes, and storeContract takes node:test's own test and describe.
import { describe, test } from "node:test";
import { MemoryStore, type Store } from "oda-tasks";
import { SqliteStore, type D1Like, type DurableObjectStorageLike, type SqliteConnection } from "oda-tasks/sqlite";
import { storeContract, HOSTILE_CHAT_IDS } from "oda-tasks/testing";

declare const file: SqliteConnection;
declare const d1: D1Like;
declare const storage: DurableObjectStorageLike;
const stores: Store[] = [
  new SqliteStore(file),
  new SqliteStore(d1, { busyTimeout: 100, attempts: 3 }),
  new SqliteStore(storage),
  new SqliteStore(storage.sql),
];
export const applied: Promise<number[]> = new SqliteStore(file).migrate();
export const stopWatching: () => void = new SqliteStore(d1, { watchPollMs: 2_000 }).watch("c", (length: number) => void length);
// @ts-expect-error lockTimeout is PostgreSQL's option
void new SqliteStore(file, { lockTimeout: 5 });
// @ts-expect-error a file name is not a connection
void new SqliteStore("chats.db");

storeContract({ makeStore: () => new MemoryStore(), test, describe });
storeContract({ name: "async", makeStore: async () => stores[0]!, reopen: (store) => store, cleanup: async () => {}, test });
// @ts-expect-error makeStore is required
storeContract({ test });
export const ids: readonly unknown[] = HOSTILE_CHAT_IDS;
