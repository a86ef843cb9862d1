// The browser's store: chats in IndexedDB, safe across tabs. Exported as
// `oda-tasks/browser`; it needs nothing but an IndexedDB factory, so Node
// tests run it over fake-indexeddb.
import type { LogEntry } from "../core/types.js";
import { stringifyJson } from "../core/entry-text.js";
import { ANY, OBJECT, readOptions, wholeNumber, type OptionRule } from "../core/options.js";
import {
  ConflictError,
  StoreError,
  checkChatId,
  checkFrom,
  checkMark,
  copyEntries,
  epochRead,
  missingChat,
  textsOf,
  truncated,
  replaced,
  type LogRead,
  type Store,
  type StoreListOptions,
  type StoredChat,
  type StoredChatPage,
} from "./store.js";
import { queued } from "./queue.js";
import { cursorPosition, listOptions, makeCursor } from "./list.js";
import { announce, watchDatabase, type ChatNow } from "./indexeddb-watch.js";
import { STORE_KIND } from "../telemetry/store-ops.js";

/**
 * The database layout's version; an upgrade adds to it. 1: "chats" and
 * "entries"; 2: each chat's creation number (`created`) and its index, for `list`.
 */
const DB_VERSION = 2;
const CHATS = "chats";
const ENTRIES = "entries";
/** The index of "chats" on `created`: the chats newest first, a page at a time. */
const CREATED = "created";

/** What the "chats" object store keeps per chat (key: the chat id). */
interface ChatRecord {
  length: number;
  /** Random, set when the chat is created: a chat deleted and created again (an import) has another. */
  epoch?: string;
  /** The chat's place in the order of creation: above every chat's there when it was made (version 2 on). */
  created?: number;
}

/**
 * The part of the Web Locks API the store uses (`navigator.locks`).
 *
 * @example
 * const locks: LockRequester = navigator.locks; // what the store takes by default where Web Locks exist
 */
export interface LockRequester {
  /** Runs `callback` while holding the lock `name`, and resolves to what it resolves to. */
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
}

/**
 * Options of an {@link IndexedDbStore}.
 *
 * @example
 * new IndexedDbStore("my-chat-app", { locks: null }); // writes queue within this page only
 */
export interface IndexedDbStoreOptions {
  /** The IndexedDB to use; default `globalThis.indexedDB`. */
  indexedDB?: IDBFactory;
  /** Its key range class; default `globalThis.IDBKeyRange` (pass fake-indexeddb's with its factory). */
  IDBKeyRange?: typeof IDBKeyRange;
  /**
   * Serialises writes to a chat across tabs; default `navigator.locks` when
   * present. `null`, or no Web Locks, queues writes within this page only.
   */
  locks?: LockRequester | null;
  /**
   * How long opening the database may wait, in ms, while another tab holds
   * it open through a deletion or an upgrade (default 5 000); then the call
   * fails with `store/blocked` and the next call tries again.
   */
  openTimeout?: number;
}

/** The `locks` option: `navigator.locks` or another requester, or `null` for none. */
const LOCKS: OptionRule = {
  expected: "a lock requester (with a request() method, as navigator.locks) or null",
  check: (v) => v === null || (typeof v === "object" && typeof (v as { request?: unknown }).request === "function"),
};

/** The default of {@link IndexedDbStoreOptions.openTimeout}: as long as PostgresStore's lock wait. */
const OPEN_TIMEOUT = 5_000;

/** Why the database could not be opened, before it is told which chat's call it failed. */
class OpenFailure {
  constructor(
    readonly code: "store/blocked" | "store/incompatible" | "store/database",
    readonly message: string,
  ) {}
}

/**
 * A {@link Store} in an IndexedDB database `name`, with two object stores:
 * "chats" (chat id → `{ length }`) and "entries" (`[chatId, index]` → entry).
 * `append` and `create` each run in one readwrite transaction over both, so
 * a conditional append compares the length and writes in one atomic step,
 * also when several tabs share the database; writes to a chat additionally
 * take the Web Lock `oda-tasks:<name>:<chatId>` so tabs take turns instead of
 * failing.
 *
 * @example
 * import { IndexedDbStore } from "oda-tasks/browser";
 * const store = new IndexedDbStore("my-chat-app");
 * await store.create("chat-1", [{ type: "session", workspace: null }]);
 * const log = (await store.read("chat-1")) ?? [];
 * await store.append("chat-1", [{ type: "turn_started" }], log.length);
 */
export class IndexedDbStore implements Store {
  /** Internal: the kind its operations' spans and metrics name. */
  get [STORE_KIND](): string {
    return "indexeddb";
  }

  /** The database's name. */
  readonly name: string;
  readonly #factory: IDBFactory;
  readonly #keyRange: typeof IDBKeyRange;
  readonly #locks: LockRequester | null;
  readonly #openTimeout: number;
  #db: Promise<IDBDatabase> | undefined;

  constructor(name: string, options: IndexedDbStoreOptions = {}) {
    const own = readOptions<IndexedDbStoreOptions>("IndexedDbStore", options, {
      indexedDB: OBJECT,
      IDBKeyRange: ANY,
      locks: LOCKS,
      openTimeout: wholeNumber(1),
    });
    const factory = own.indexedDB ?? globalThis.indexedDB;
    const keyRange = own.IDBKeyRange ?? globalThis.IDBKeyRange;
    if (factory === undefined || keyRange === undefined) {
      throw new Error("oda-tasks: no IndexedDB here; pass options.indexedDB and options.IDBKeyRange");
    }
    this.name = name;
    this.#factory = factory;
    this.#keyRange = keyRange;
    this.#locks = Object.hasOwn(own, "locks") ? (own.locks ?? null) : webLocks();
    this.#openTimeout = own.openTimeout ?? OPEN_TIMEOUT;
  }

  /**
   * The change feed: `onChange(length)` after each write to chat `chatId`
   * commits. Writes through any IndexedDbStore of this database in this tab
   * are heard at once; other tabs' through one `BroadcastChannel` per
   * database name. Returns the function that stops it.
   *
   * @example
   * const stop = new IndexedDbStore("my-chat-app").watch("chat-1", (length) => console.log("now", length));
   * stop();
   */
  watch(chatId: string, onChange: (length: number) => void): () => void {
    return watchDatabase(this.#factory, this.name, chatId, onChange, (id) => this.#lengthOf(id));
  }

  /** The chat's length and epoch as the database holds them now (`null`: no such chat), to read back what another tab's message hints at. */
  async #lengthOf(chatId: string): Promise<ChatNow | null> {
    const db = await this.#open(chatId);
    return transaction<ChatNow | null>(db, "readonly", (tx, settle) => {
      const chat = tx.objectStore(CHATS).get(chatId);
      tx.oncomplete = () => {
        const record = chat.result as ChatRecord | undefined;
        settle(record === undefined ? null : { length: record.length, epoch: epochOf(record) });
      };
    });
  }

  async read(chatId: string): Promise<LogEntry[] | null> {
    checkChatId(chatId);
    const db = await this.#open(chatId);
    // One readonly transaction: the length and the entries are one snapshot.
    return transaction<LogEntry[] | null>(db, "readonly", (tx, settle) => {
      const chat = tx.objectStore(CHATS).get(chatId);
      const entries = tx.objectStore(ENTRIES).getAll(this.#range(chatId));
      tx.oncomplete = () => {
        const record = chat.result as ChatRecord | undefined;
        settle(record === undefined ? null : (entries.result as LogEntry[]));
      };
    });
  }

  async readFrom(chatId: string, from: number): Promise<LogEntry[] | null> {
    checkChatId(chatId);
    checkFrom(from);
    const result = await this.#readRecord(chatId, from);
    if (result === null) return null;
    if (result.length < from) throw truncated(chatId, from, result.length);
    return result.entries;
  }

  /**
   * As `readFrom`, the entries as JSON texts (serialised from what the database holds).
   *
   * @example
   * const texts = await new IndexedDbStore("my-chat-app").readTextFrom("chat-1", 0);
   */
  async readTextFrom(chatId: string, from: number): Promise<string[] | null> {
    return textsOf(this.readFrom(chatId, from));
  }

  /**
   * For warm readers: the texts from `from` on and the chat's mark (its
   * epoch, new whenever the chat is created again, in this tab or another);
   * rejects `store/replaced` when `mark` is not the chat's any more (it was
   * deleted, or deleted and made again: whatever its length now).
   *
   * @example
   * const { texts, mark } = (await new IndexedDbStore("my-chat-app").readSince("chat-1", 0, null)) ?? { texts: [], mark: null };
   */
  async readSince(chatId: string, from: number, mark: string | null): Promise<LogRead | null> {
    checkChatId(chatId);
    checkFrom(from);
    checkMark(mark);
    const result = await this.#readRecord(chatId, from);
    // The mark first: a chat made again is another log, whatever its length.
    if (result !== null && mark !== null && mark !== `i1:${result.epoch}`) throw replaced(chatId);
    if (result !== null && result.length < from) throw truncated(chatId, from, result.length);
    const now = result && { texts: result.entries.map((entry) => stringifyJson(entry)), mark: `i1:${result.epoch}` };
    return epochRead(chatId, mark, now);
  }

  async #readRecord(chatId: string, from: number): Promise<{ length: number; entries: LogEntry[]; epoch: string } | null> {
    const db = await this.#open(chatId);
    // Only the keys [chatId, from] and up are read; the length comes from the same snapshot.
    return transaction<{ length: number; entries: LogEntry[]; epoch: string } | null>(db, "readonly", (tx, settle) => {
      const chat = tx.objectStore(CHATS).get(chatId);
      const entries = tx.objectStore(ENTRIES).getAll(this.#range(chatId, from));
      tx.oncomplete = () => {
        const record = chat.result as ChatRecord | undefined;
        settle(record === undefined ? null : { length: record.length, entries: entries.result as LogEntry[], epoch: epochOf(record) });
      };
    });
  }

  async append(chatId: string, entries: readonly LogEntry[], expectedLength?: number): Promise<number> {
    checkChatId(chatId);
    const copies = copyEntries(entries);
    return this.#write<number>(chatId, (tx, chats, settle, fail) => {
      const request = chats.get(chatId);
      request.onsuccess = guarded(fail, () => {
        const record = request.result as ChatRecord | undefined;
        if (record === undefined) return fail(missingChat(chatId));
        if (expectedLength !== undefined && expectedLength !== record.length) {
          return fail(new ConflictError(chatId, expectedLength, record.length));
        }
        const store = tx.objectStore(ENTRIES);
        copies.forEach((entry, i) => store.put(entry, [chatId, record.length + i]));
        const length = record.length + copies.length;
        chats.put({ ...record, length } satisfies ChatRecord, chatId);
        tx.oncomplete = () => {
          if (copies.length > 0) announce(this.#factory, this.name, chatId, { length, epoch: epochOf(record) });
          settle(length);
        };
      });
    });
  }

  async create(chatId: string, entries: readonly LogEntry[]): Promise<boolean> {
    checkChatId(chatId);
    const copies = copyEntries(entries);
    return this.#write<boolean>(chatId, (tx, chats, settle, fail) => {
      const request = chats.getKey(chatId);
      request.onsuccess = guarded(fail, () => {
        if (request.result !== undefined) {
          tx.oncomplete = () => settle(false);
          return;
        }
        // Above the newest chat there: the last one made comes first in a listing.
        const newest = chats.index(CREATED).openCursor(null, "prev");
        newest.onsuccess = guarded(fail, () => {
          const created = Number(newest.result?.key ?? 0) + 1;
          const store = tx.objectStore(ENTRIES);
          copies.forEach((entry, i) => store.put(entry, [chatId, i]));
          const epoch = newEpoch();
          chats.put({ length: copies.length, epoch, created } satisfies ChatRecord, chatId);
          tx.oncomplete = () => {
            announce(this.#factory, this.name, chatId, { length: copies.length, epoch });
            settle(true);
          };
        });
      });
    });
  }

  /**
   * Removes the chat's record and every entry in one read-write transaction
   * (under the chat's Web Lock), and resolves to whether it existed. An
   * append after it finds no record and is refused with `store/missing-chat`;
   * one before it goes with the chat. Watchers hear 0, in this tab at once
   * and in other tabs through the channel; a chat created later under the id
   * has a new epoch, so a mark taken of the old one answers `store/replaced`.
   *
   * @example
   * const store = new IndexedDbStore("my-chat-app");
   * await store.delete("chat-1"); // true: its record and entries are gone
   */
  async delete(chatId: string): Promise<boolean> {
    checkChatId(chatId);
    return this.#write<boolean>(chatId, (tx, chats, settle, fail) => {
      const request = chats.getKey(chatId);
      request.onsuccess = guarded(fail, () => {
        if (request.result === undefined) {
          tx.oncomplete = () => settle(false);
          return;
        }
        chats.delete(chatId);
        tx.objectStore(ENTRIES).delete(this.#range(chatId));
        tx.oncomplete = () => {
          announce(this.#factory, this.name, chatId, null);
          settle(true);
        };
      });
    });
  }

  /**
   * The chats whose ids start with `prefix`, newest first by creation (each
   * chat's `created` number, kept in an index), `limit` (default 50, at most
   * 1000) a page; `next` is the cursor of the next page, `null` after the
   * last. One readonly transaction: without a prefix, the page is read from
   * the index; with one, the chats' records of the prefix (a key range) are
   * sorted, never their entries. Each chat's first entry is one `get`.
   *
   * @example
   * const page = await new IndexedDbStore("my-chat-app").list({ limit: 20 });
   * for (const { chatId, first } of page.chats) console.log(chatId, first?.type); // "chat-1" "session"
   */
  async list(options?: StoreListOptions): Promise<StoredChatPage> {
    const { prefix, limit, cursor } = listOptions(options);
    const before = cursor === null ? undefined : (cursorPosition("i1", prefix, cursor, ["count"])[0] as number);
    const db = await this.#open("");
    const page = await transaction<{ chats: StoredChat[]; last: number | undefined; more: boolean }>(db, "readonly", (tx, settle, fail) => {
      const chats = tx.objectStore(CHATS);
      const entries = tx.objectStore(ENTRIES);
      const found: { chatId: string; record: ChatRecord }[] = [];
      // The page found: each chat's first entry, in the same snapshot.
      const finish = () => {
        const shown = found.slice(0, limit);
        const listed: StoredChat[] = shown.map(({ chatId }) => ({ chatId, first: null }));
        shown.forEach(({ chatId, record }, i) => {
          if (record.length === 0) return;
          const first = entries.get([chatId, 0]);
          first.onsuccess = () => {
            (listed[i] as StoredChat).first = (first.result as LogEntry | undefined) ?? null;
          };
        });
        tx.oncomplete = () => settle({ chats: listed, last: shown[shown.length - 1]?.record.created, more: found.length > limit });
      };
      if (prefix === "") {
        // Newest first straight from the index: a page costs its page.
        const range = before === undefined ? null : this.#keyRange.upperBound(before, true);
        const walk = chats.index(CREATED).openCursor(range, "prev");
        walk.onsuccess = guarded(fail, () => {
          const at = walk.result;
          if (at === null) return finish();
          found.push({ chatId: String(at.primaryKey), record: at.value as ChatRecord });
          if (found.length > limit) return finish(); // one past the page: there is a next one
          at.continue();
        });
        return;
      }
      // The prefix's records (a key range), sorted here: its chats' records, none of their entries.
      const range = prefixRange(this.#keyRange, prefix);
      const keys = chats.getAllKeys(range);
      const records = chats.getAll(range);
      records.onsuccess = guarded(fail, () => {
        (records.result as ChatRecord[]).forEach((record, i) => {
          const created = record.created ?? 0;
          if (before === undefined || created < before) found.push({ chatId: String((keys.result as IDBValidKey[])[i]), record });
        });
        found.sort((a, b) => (b.record.created ?? 0) - (a.record.created ?? 0));
        finish();
      });
    });
    const { chats, last, more } = page;
    return { chats, next: more && last !== undefined ? makeCursor("i1", prefix, [last]) : null };
  }

  /** Closes the connection; a later call opens it again. */
  close(): void {
    const db = this.#db;
    this.#db = undefined;
    void db?.then(
      (d) => d.close(),
      () => undefined,
    );
  }

  /** The entry keys of one chat from index `from` on: `[chatId, from]` up to `[chatId, Infinity]`. */
  #range(chatId: string, from = 0): IDBKeyRange {
    return this.#keyRange.bound([chatId, from], [chatId, Infinity]);
  }

  /** The shared connection; a failure is this call's `StoreError`, and is not kept (the next call tries again). */
  async #open(chatId: string): Promise<IDBDatabase> {
    this.#db ??= this.#connect();
    const opened = this.#db;
    try {
      return await opened;
    } catch (e) {
      if (this.#db === opened) this.#db = undefined;
      if (e instanceof OpenFailure) throw new StoreError(e.code, e.message, chatId);
      throw e;
    }
  }

  /**
   * Opens the database, bounded by `openTimeout`: a request queued behind
   * another tab's blocked deletion or upgrade would otherwise wait for as
   * long as that tab stays open. A database of this name that is not this
   * store's (another app's, a newer version's) is refused with what was found.
   */
  #connect(): Promise<IDBDatabase> {
    const name = this.name;
    const factory = this.#factory;
    return new Promise<IDBDatabase>((resolve, reject) => {
      let settled = false;
      let blocked = false;
      const fail = (failure: OpenFailure) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(failure);
      };
      const timer = setTimeout(
        () =>
          fail(
            new OpenFailure(
              "store/blocked",
              `IndexedDB "${name}" did not open within ${this.#openTimeout} ms: ` +
                (blocked
                  ? "another tab holds an older connection open and lets no upgrade through"
                  : "another tab holds it open while it is being deleted or upgraded") +
                "; close the app's other tabs (or have that connection close on its versionchange event), then try again",
            ),
          ),
        this.#openTimeout,
      );
      /** The object stores of another app's database that an upgrade found (and left as they were). */
      let foreign: string[] | undefined;
      const request = factory.open(name, DB_VERSION);
      request.onupgradeneeded = (event) => {
        const db = request.result;
        const tx = request.transaction as IDBTransaction;
        const stores = Array.from(db.objectStoreNames);
        if (event.oldVersion > 0 && !(stores.includes(CHATS) && stores.includes(ENTRIES))) {
          // Another app's database of this name: not even its version changes.
          foreign = stores;
          tx.abort();
          return;
        }
        const chats = stores.includes(CHATS) ? tx.objectStore(CHATS) : db.createObjectStore(CHATS);
        if (!stores.includes(ENTRIES)) db.createObjectStore(ENTRIES);
        if (!chats.indexNames.contains(CREATED)) chats.createIndex(CREATED, CREATED);
        // Version 1's chats get their creation numbers, in the order of their ids (when each was made is not known).
        let created = 0;
        const walk = chats.openCursor();
        walk.onsuccess = () => {
          const at = walk.result;
          if (at === null) return;
          const record = at.value as ChatRecord;
          if (record.created === undefined) at.update({ ...record, created: ++created } satisfies ChatRecord);
          at.continue();
        };
      };
      request.onsuccess = () => {
        const db = request.result;
        if (settled) return db.close(); // timed out meanwhile: nobody holds this connection
        const found = Array.from(db.objectStoreNames);
        if (!found.includes(CHATS) || !found.includes(ENTRIES)) {
          db.close();
          return fail(notThisStores(name, found));
        }
        if (!hasIndex(db, CHATS, CREATED)) {
          db.close();
          return fail(
            new OpenFailure(
              "store/incompatible",
              `IndexedDB "${name}" is at version ${db.version} without the index "${CREATED}" of "${CHATS}" that this store makes ` +
                "(another app made it at that version); give IndexedDbStore another name",
            ),
          );
        }
        settled = true;
        clearTimeout(timer);
        const opened = this.#db;
        // Another tab upgrading or deleting the database: let it, and reopen on next use.
        db.onversionchange = () => {
          db.close();
          if (this.#db === opened) this.#db = undefined;
        };
        db.onclose = () => {
          if (this.#db === opened) this.#db = undefined;
        };
        resolve(db);
      };
      request.onerror = () => {
        const error = request.error;
        if (foreign !== undefined) return fail(notThisStores(name, foreign));
        if (error?.name === "VersionError") {
          newerVersion(factory, name).then((found) =>
            fail(
              new OpenFailure(
                "store/incompatible",
                `IndexedDB "${name}" is at version ${found.version}, newer than the version ${DB_VERSION} this store writes ` +
                  `(object stores ${storeList(found.stores)}): a newer oda-tasks or another app made it; use that version of the package, or give IndexedDbStore another name`,
              ),
            ),
          );
          return;
        }
        fail(
          new OpenFailure(
            "store/database",
            `IndexedDB "${name}" could not be opened (${error?.name ?? "Error"}: ${error?.message ?? "no reason given"})`,
          ),
        );
      };
      request.onblocked = () => {
        blocked = true; // waits, up to openTimeout, for older connections to close
      };
    });
  }

  /** One readwrite transaction (see `transaction`) holding the chat's lock; `chats` is its chats object store. */
  #write<T>(
    chatId: string,
    body: (tx: IDBTransaction, chats: IDBObjectStore, settle: (value: T) => void, fail: (error: Error) => void) => void,
  ): Promise<T> {
    return this.#exclusive(chatId, async () => {
      const db = await this.#open(chatId);
      return transaction<T>(db, "readwrite", (tx, settle, fail) => body(tx, tx.objectStore(CHATS), settle, fail));
    });
  }

  /** Runs a write holding the chat's lock: a Web Lock across tabs, else a queue in this page. */
  #exclusive<T>(chatId: string, fn: () => Promise<T>): Promise<T> {
    const name = `oda-tasks:${this.name}:${chatId}`;
    if (this.#locks !== null) return this.#locks.request(name, fn);
    return queued(name, fn);
  }
}

/**
 * Runs one transaction. `body` issues the requests (only IDB requests, never
 * another promise: a transaction commits as soon as it has nothing pending)
 * and calls `settle` from a completion handler or `fail` to abort with an error.
 */
function transaction<T>(
  db: IDBDatabase,
  mode: IDBTransactionMode,
  body: (tx: IDBTransaction, settle: (value: T) => void, fail: (error: Error) => void) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const tx = db.transaction([CHATS, ENTRIES], mode);
    let refusal: Error | undefined;
    tx.onabort = () => reject(refusal ?? tx.error ?? new Error("oda-tasks: IndexedDB transaction aborted"));
    tx.oncomplete = () => reject(new Error("oda-tasks: IndexedDB transaction completed without a result"));
    try {
      body(tx, resolve, (error) => {
        try {
          tx.abort();
          refusal = error;
        } catch {
          // Already aborting (a quota error, a closing page): its own error says why.
        }
      });
    } catch (e) {
      refusal = e instanceof Error ? e : new Error(String(e));
      tx.abort();
    }
  });
}

/**
 * A request handler that turns an exception into a refusal: a `put` into a
 * transaction that is already aborting throws, and must not escape as an
 * uncaught error.
 */
function guarded(fail: (error: Error) => void, handler: () => void): () => void {
  return () => {
    try {
      handler();
    } catch (e) {
      fail(e instanceof Error ? e : new Error(String(e)));
    }
  };
}

/** The `store/incompatible` refusal of another app's database: what it holds. */
function notThisStores(name: string, found: string[]): OpenFailure {
  return new OpenFailure(
    "store/incompatible",
    `IndexedDB "${name}" was not made by this store: it holds the object stores ${storeList(found)}, not "${CHATS}" and "${ENTRIES}" ` +
      "(another app uses that name); give IndexedDbStore another name",
  );
}

/** `"a", "b"` (or "none") for an error message. */
function storeList(names: string[]): string {
  return names.length === 0 ? "none" : names.map((n) => JSON.stringify(n)).join(", ");
}

/** The version and object stores of a database that exists at a newer version than this store's. */
function newerVersion(factory: IDBFactory, name: string): Promise<{ version: number | string; stores: string[] }> {
  return new Promise((resolve) => {
    const unknown = { version: "unknown", stores: [] as string[] };
    try {
      const probe = factory.open(name);
      probe.onsuccess = () => {
        const db = probe.result;
        const found = { version: db.version, stores: Array.from(db.objectStoreNames) };
        db.close();
        resolve(found);
      };
      probe.onerror = () => resolve(unknown);
      probe.onupgradeneeded = () => probe.transaction?.abort(); // deleted meanwhile: create nothing
    } catch {
      resolve(unknown);
    }
  });
}

/** A chat's epoch as a mark names it ("": a chat made before epochs). */
function epochOf(record: ChatRecord): string {
  return typeof record.epoch === "string" ? record.epoch : "";
}

/** Whether object store `store` of `db` has index `index`. */
function hasIndex(db: IDBDatabase, store: string, index: string): boolean {
  try {
    return db.transaction(store, "readonly").objectStore(store).indexNames.contains(index);
  } catch {
    return false;
  }
}

/**
 * The keys that start with `prefix` (not empty): from `prefix` up to, not
 * including, the least string above all of them (its last code unit that
 * can grow, grown by one; none when every one is U+FFFF).
 */
function prefixRange(keyRange: typeof IDBKeyRange, prefix: string): IDBKeyRange {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const unit = prefix.charCodeAt(i);
    if (unit < 0xffff) return keyRange.bound(prefix, prefix.slice(0, i) + String.fromCharCode(unit + 1), false, true);
  }
  return keyRange.lowerBound(prefix);
}

/** 96 random bits as hex: a chat's epoch. */
function newEpoch(): string {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function webLocks(): LockRequester | null {
  const nav = (globalThis as { navigator?: { locks?: LockRequester } }).navigator;
  return nav?.locks ?? null;
}
