// SqliteStore's change feed, one per database in this process: writes through
// any SqliteStore of it (the same connection object, another connection to
// the same file, the same D1 binding or Durable Object) are told at once.
// Other connections: a file is asked `PRAGMA data_version` when one fs.watch
// on its folder says the file, its WAL or its journal changed, then per
// interval for a second (the commit shows after the event), and once a second
// otherwise (for an event the kernel dropped); per interval where fs.watch
// fails or with `watchMode: "poll"`; only when it moved, the watched chats'
// lengths in one query. D1 (no data_version) is asked the lengths per
// interval; a Durable Object has no other writer, so no timer. Nothing runs
// per chat, and nothing at all while no other connection writes. A chat
// whose row is gone is told 0; one whose epoch changed between two looks
// (deleted and made again) is told 0, then its length.
import type { FSWatcher } from "node:fs";
import { nextTold, type Told } from "../sql-store.js";
import { ChangeListeners, type ChangeListener } from "../watchers.js";
import type { Row, SqlDriver } from "./drivers.js";
import { DATABASE_FILE, DATA_VERSION, lengthOf, lengthsOf } from "./sql.js";

/** How a database file's feed hears other connections: `fs-watch` (the default) or `poll`. */
export type WatchMode = "fs-watch" | "poll";

/** How often (ms) a file heard through fs.watch is asked all the same, for an event the kernel dropped. */
export const SAFETY_POLL_MS = 1_000;

/**
 * After a file event, how long (ms) the file is asked every `pollMs`: the
 * event comes when a writer writes its WAL frames, before its commit is
 * synced and shown (no event follows that), so the poll runs on a while.
 */
export const ACTIVE_MS = 1_000;

/** How a feed asks: its interval (ms) and, for a file, whether fs.watch tells it when to. */
export interface FeedTiming {
  pollMs: number;
  mode: WatchMode;
}

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
 * Tells the database's listeners in this process a write that committed
 * (`epoch`: the chat's, when known; null: the chat was deleted); a no-op
 * while nothing watches any database.
 *
 * @example
 * announce(() => key, "chat-1", 3, undefined); // a length of 3, the epoch not known
 */
export function announce(key: () => unknown, chatId: string, length: number, epoch: string | null | undefined): void {
  if (feeds.size === 0) return;
  feeds.get(key())?.announce(chatId, length, epoch);
}

/**
 * Adds a listener of chat `chatId` to the feed of database `key`, made when
 * first watched; it asks `driver` when fs.watch says the file changed, or
 * every `timing.pollMs`.
 *
 * @example
 * const stop = watchDatabase(key, driver, { pollMs: 100, mode: "fs-watch" }, "chat-1", (length) => console.log(length));
 */
export function watchDatabase(key: unknown, driver: SqlDriver, timing: FeedTiming, chatId: string, onChange: ChangeListener): () => void {
  let feed = feeds.get(key);
  const made = feed === undefined;
  feed ??= new DatabaseFeed(driver, typeof key === "string" && key.startsWith("file:") ? key.slice(5) : null, timing, () => {
    if (feeds.get(key) === feed) feeds.delete(key);
  });
  const stop = feed.watch(chatId, onChange); // checks the id first: a refused watch leaves no feed
  if (made) feeds.set(key, feed);
  return stop;
}

/** node:fs where the runtime has it, found without an import a Worker's bundler would have to resolve. */
function nodeFs(): typeof import("node:fs") | undefined {
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    return process?.getBuiltinModule?.("node:fs") as typeof import("node:fs") | undefined;
  } catch {
    return undefined;
  }
}

class DatabaseFeed {
  readonly #listeners = new ChangeListeners();
  /** The watched chats, and what was last told of each (undefined: nothing yet). */
  readonly #told = new Map<string, Told | undefined>();
  readonly #driver: SqlDriver;
  /** The database file's path (`null`: not a file, or a database in memory). */
  readonly #file: string | null;
  readonly #timing: FeedTiming;
  readonly #ended: () => void;
  #timer: ReturnType<typeof setInterval> | undefined;
  #watcher: FSWatcher | undefined;
  #dataVersion: unknown;
  /** Bumped by every write this process tells: a poll answer read meanwhile may be older. */
  #version = 0;
  #polling = false;
  #again = false;
  #kicked = false;
  /** Until when (ms) the file is asked every `pollMs` after an event; 0: at the safety interval. */
  #activeUntil = 0;

  constructor(driver: SqlDriver, file: string | null, timing: FeedTiming, ended: () => void) {
    this.#driver = driver;
    this.#file = file;
    this.#timing = timing;
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
          if (row !== undefined) this.#told.set(chatId, { length: Number(row.length), epoch: String(row.epoch) });
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
      this.#watcher?.close();
      this.#watcher = undefined;
      this.#ended();
    };
  }

  announce(chatId: string, length: number, epoch: string | null | undefined): void {
    if (!this.#told.has(chatId)) return;
    this.#version++;
    this.#tell(chatId, epoch === null ? null : { length, epoch }, epoch === null);
  }

  /** Tells what changed since the last told of chat `chatId`, now found as `now` (null: not there; `existed`: this process deleted it). */
  #tell(chatId: string, now: Told | null, existed = false): void {
    const { tell, told } = nextTold(this.#told.get(chatId), now, existed);
    this.#told.set(chatId, told);
    for (const length of tell) this.#listeners.notify(chatId, length);
  }

  #start(): void {
    if (this.#timer !== undefined || this.#watcher !== undefined || this.#driver.kind === "durable-object") return;
    if (this.#driver.kind === "file") {
      try {
        this.#dataVersion = (this.#driver.query(DATA_VERSION) as Row[])[0]?.data_version;
      } catch {
        this.#dataVersion = undefined; // the first poll reads the lengths
      }
      if (this.#file !== null && this.#timing.mode === "fs-watch" && this.#watchFile(this.#file)) {
        this.#every(this.#safetyMs());
        return;
      }
    }
    this.#every(this.#timing.pollMs);
  }

  #safetyMs(): number {
    return Math.max(this.#timing.pollMs, SAFETY_POLL_MS);
  }

  #every(ms: number): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = setInterval(() => this.#tick(), ms);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** One interval: a poll; back to the safety interval once a file event's while has passed. */
  #tick(): void {
    if (this.#activeUntil !== 0 && Date.now() >= this.#activeUntil && this.#watcher !== undefined) {
      this.#activeUntil = 0;
      this.#every(this.#safetyMs());
    }
    void this.#poll();
  }

  /** One fs.watch on the file's folder: a change of the file, its WAL or its journal asks data_version. False where it cannot start. */
  #watchFile(file: string): boolean {
    const fs = nodeFs();
    if (fs === undefined) return false;
    const slash = Math.max(file.lastIndexOf("/"), file.lastIndexOf("\\"));
    const base = file.slice(slash + 1);
    const names = new Set([base, `${base}-wal`, `${base}-journal`]);
    try {
      const watcher = fs.watch(file.slice(0, slash) || "/", { persistent: false }, (_event, name) => {
        if (name === null || names.has(String(name))) this.#kick();
      });
      watcher.on("error", () => {
        // The folder went away, or the watch broke: the interval takes over.
        watcher.close();
        if (this.#watcher !== watcher) return;
        this.#watcher = undefined;
        if (this.#told.size > 0) this.#every(this.#timing.pollMs);
      });
      this.#watcher = watcher;
      return true;
    } catch {
      return false; // EMFILE, ENOSPC (out of watches), a file system fs.watch does not serve: poll instead
    }
  }

  /** A file event: one poll soon, however many events came meanwhile, and polls every `pollMs` for a while (its commit may not show yet). */
  #kick(): void {
    if (this.#activeUntil === 0 && this.#told.size > 0) this.#every(this.#timing.pollMs);
    this.#activeUntil = Date.now() + ACTIVE_MS;
    if (this.#kicked) return;
    this.#kicked = true;
    setTimeout(() => {
      this.#kicked = false;
      void this.#poll();
    }, 0);
  }

  /** Polls, and again when asked while it ran. */
  async #poll(): Promise<void> {
    if (this.#polling) {
      this.#again = true;
      return;
    }
    this.#polling = true;
    try {
      do {
        this.#again = false;
        if (this.#told.size > 0) await this.#pollOnce();
      } while (this.#again);
    } finally {
      this.#polling = false;
    }
  }

  /** A file's data_version first (one query), then, when it moved (or always on D1), the lengths in one query. */
  async #pollOnce(): Promise<void> {
    try {
      if (this.#driver.kind === "file") {
        const now = (this.#driver.query(DATA_VERSION) as Row[])[0]?.data_version;
        if (now !== undefined && now === this.#dataVersion) return;
        this.#dataVersion = now;
      }
      const version = this.#version;
      const chats = [...this.#told.keys()];
      const rows = await this.#driver.query(lengthsOf(JSON.stringify(chats)));
      if (version !== this.#version) {
        // This process wrote meanwhile: what was read may be older than what it told; read the lengths again.
        this.#dataVersion = undefined;
        this.#again = this.#watcher !== undefined;
        return;
      }
      const found = new Map(rows.map((row) => [String(row.chat_id), row]));
      for (const chatId of chats) {
        if (!this.#told.has(chatId)) continue; // no longer watched
        const row = found.get(chatId);
        // No row: the chat is not there (deleted, or not made yet).
        this.#tell(chatId, row === undefined ? null : { length: Number(row.length), epoch: String(row.epoch) });
      }
    } catch {
      // Locked, overloaded, or not migrated yet: the next interval asks again.
      this.#dataVersion = undefined;
    }
  }
}
