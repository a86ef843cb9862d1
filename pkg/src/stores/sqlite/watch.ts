// SqliteStore's change feed, one per database in this process: writes through
// any SqliteStore of it (the same connection object, another connection to
// the same file, the same D1 binding or Durable Object) are told at once.
// Other connections: a file is asked `PRAGMA data_version` per interval and,
// only when it moved, the watched chats' lengths in one query; D1 (no
// data_version) is asked the lengths per interval; a Durable Object has no
// other writer, so no timer.
import { ChangeListeners, type ChangeListener } from "../watchers.js";
import type { Row, SqlDriver } from "./drivers.js";
import { DATABASE_FILE, DATA_VERSION, lengthOf, lengthsOf } from "./sql.js";

/** The feeds being watched, by database: a file's path, else the database object. */
const feeds = new Map<unknown, DatabaseFeed>();

/**
 * The key of the database `db` runs on, which every SqliteStore over it
 * shares: a file's path (connections to one file meet), else the object
 * itself (a D1 binding, a Durable Object's SQL, a database in memory).
 *
 * @example
 * const key = databaseKey(driver, db); // "file:/srv/chats.db"
 */
export function databaseKey(driver: SqlDriver, db: object): unknown {
  if (driver.kind === "durable-object") return (db as { sql?: unknown }).sql ?? db; // ctx.storage and ctx.storage.sql are one database
  if (driver.kind !== "file") return db;
  const rows = driver.query(DATABASE_FILE) as Row[];
  const file = rows[0]?.file;
  return typeof file === "string" && file !== "" ? `file:${file}` : db;
}

/**
 * Tells the database's listeners in this process a write that committed (a
 * no-op while nothing watches any database).
 *
 * @example
 * announce(() => key, "chat-1", 3);
 */
export function announce(key: () => unknown, chatId: string, length: number): void {
  if (feeds.size === 0) return;
  feeds.get(key())?.announce(chatId, length);
}

/**
 * Adds a listener of chat `chatId` to the feed of database `key`, made when
 * first watched; its timer (if any) runs `driver`'s queries every `pollMs`.
 *
 * @example
 * const stop = watchDatabase(key, driver, 100, "chat-1", (length) => console.log(length));
 */
export function watchDatabase(key: unknown, driver: SqlDriver, pollMs: number, chatId: string, onChange: ChangeListener): () => void {
  let feed = feeds.get(key);
  const made = feed === undefined;
  feed ??= new DatabaseFeed(driver, pollMs, () => {
    if (feeds.get(key) === feed) feeds.delete(key);
  });
  const stop = feed.watch(chatId, onChange); // checks the id first: a refused watch leaves no feed
  if (made) feeds.set(key, feed);
  return stop;
}

/** What the feed last told of a chat (undefined: nothing yet). */
type Told = number | undefined;

class DatabaseFeed {
  readonly #listeners = new ChangeListeners();
  readonly #told = new Map<string, Told>();
  readonly #driver: SqlDriver;
  readonly #pollMs: number;
  readonly #ended: () => void;
  #timer: ReturnType<typeof setInterval> | undefined;
  #dataVersion: unknown;
  /** Bumped by every write this process tells: a poll answer read meanwhile may be older. */
  #version = 0;
  #polling = false;

  constructor(driver: SqlDriver, pollMs: number, ended: () => void) {
    this.#driver = driver;
    this.#pollMs = pollMs;
    this.#ended = ended;
  }

  watch(chatId: string, onChange: ChangeListener): () => void {
    const stop = this.#listeners.watch(chatId, onChange);
    if (!this.#told.has(chatId)) {
      this.#told.set(chatId, undefined);
      if (this.#driver.kind === "file") {
        // A file answers at once: what the chat is now, so that only a change from here on is told.
        try {
          const row = (this.#driver.query(lengthOf(chatId)) as Row[])[0];
          if (row !== undefined) this.#told.set(chatId, Number(row.length));
        } catch {
          // Not migrated yet, or locked: the first poll that reads it tells it.
        }
      }
    }
    this.#start();
    return () => {
      stop();
      if (this.#listeners.has(chatId)) return;
      this.#told.delete(chatId);
      if (this.#told.size > 0) return;
      if (this.#timer !== undefined) clearInterval(this.#timer);
      this.#timer = undefined;
      this.#ended();
    };
  }

  announce(chatId: string, length: number): void {
    if (!this.#told.has(chatId)) return;
    this.#version++;
    this.#tell(chatId, length);
  }

  #tell(chatId: string, length: number): void {
    if (this.#told.get(chatId) === length) return;
    this.#told.set(chatId, length);
    this.#listeners.notify(chatId, length);
  }

  #start(): void {
    if (this.#timer !== undefined || this.#driver.kind === "durable-object") return;
    if (this.#driver.kind === "file") {
      try {
        this.#dataVersion = (this.#driver.query(DATA_VERSION) as Row[])[0]?.data_version;
      } catch {
        this.#dataVersion = undefined; // the first poll reads the lengths
      }
    }
    this.#timer = setInterval(() => void this.#poll(), this.#pollMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** One interval: a file's data_version first (one query), then, when it moved (or always on D1), the lengths in one query. */
  async #poll(): Promise<void> {
    if (this.#polling || this.#told.size === 0) return;
    this.#polling = true;
    try {
      if (this.#driver.kind === "file") {
        const now = (this.#driver.query(DATA_VERSION) as Row[])[0]?.data_version;
        if (now !== undefined && now === this.#dataVersion) return;
        this.#dataVersion = now;
      }
      const version = this.#version;
      const rows = await this.#driver.query(lengthsOf(JSON.stringify([...this.#told.keys()])));
      if (version !== this.#version) {
        this.#dataVersion = undefined; // this process wrote meanwhile: read the lengths again next time
        return;
      }
      for (const row of rows) {
        const chatId = String(row.chat_id);
        if (this.#told.has(chatId)) this.#tell(chatId, Number(row.length));
      }
    } catch {
      // Locked, overloaded, or not migrated yet: the next interval asks again.
      this.#dataVersion = undefined;
    } finally {
      this.#polling = false;
    }
  }
}
