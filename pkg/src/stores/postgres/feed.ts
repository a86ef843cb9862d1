// PostgresStore's change feed: one LISTEN connection per store (opened by the
// first watch, closed when the last stops), a probe proving that notices are
// heard, one query for every watched chat's length after each (re)connect,
// and, where LISTEN does not work, one such query per interval. A notice is a
// hint ("this chat may have changed"): its length is never told, only the
// length read back from the table. A chat read back without a row is told 0
// (it was deleted); one read back under another epoch (deleted and made
// again since the last read) is told 0, then its length.
import { backoffDelay, type Backoff } from "../backoff.js";
import { nextTold, type Told } from "../sql-store.js";
import { StoreError } from "../store.js";
import { ChangeListeners, type ChangeListener } from "../watchers.js";
import type { Database, Listening } from "./drivers.js";
import { asError, withCause } from "./errors.js";
import { CHANNEL, LENGTHS, TABLE_OID } from "./sql.js";
import { tell } from "../../telemetry/observe.js";

/** Tries to listen again: 1 s, doubling, at most 30 s, spread so stores do not reconnect in step. */
export const LISTEN_BACKOFF: Backoff = { first: 1000, factor: 2, max: 30_000, jitter: true };

/** Notices heard within this long (ms) are read back in one query: a burst of writes costs one read, not one per notice. */
export const HINT_BATCH_MS = 25;

/** How the feed is set up: the poll's interval, how long a probe notice may take, where failures are said. */
export interface FeedOptions {
  /** Whether to LISTEN (the store's writes notify); false: the watched chats' lengths are read in one query every `pollMs`. */
  listen: boolean;
  pollMs: number;
  probeMs: number;
  onError: (error: Error) => void;
}

type State = "idle" | "connecting" | "listening" | "polling";

let probes = 0;

/**
 * Per watched chat: what was told last (undefined: nothing yet), a count of
 * this process's tells, so a read taken meanwhile is read again, and whether
 * a notice said it was deleted before anything was told of it.
 */
interface Known {
  told: Told | undefined;
  version: number;
  deleted?: boolean;
}

/**
 * The watchers of one PostgresStore. Writes of this process are told at once
 * ({@link told}); other processes' through the notices, each a hint: the
 * chats they name are read back in one query, and a length is told when it
 * differs from the last one told (a restore may make it smaller).
 */
export class ChangeFeed {
  readonly #listeners = new ChangeListeners();
  readonly #known = new Map<string, Known>();
  /** Chats a notice named since the last read-back, and whether one is scheduled or under way. */
  readonly #hinted = new Set<string>();
  #hintTimer: ReturnType<typeof setTimeout> | null = null;
  #readingBack = false;
  readonly #db: Promise<Database>;
  readonly #options: FeedOptions;
  #state: State = "idle";
  /** Bumped by every open and close: work of an older one finds it changed and stops. */
  #generation = 0;
  #listening: Listening | null = null;
  #oid: string | null = null;
  #failures = 0;
  #pollTimer: ReturnType<typeof setTimeout> | null = null;
  #retryTimer: ReturnType<typeof setTimeout> | null = null;
  #probe: { token: string; heard: () => void } | null = null;

  constructor(db: Promise<Database>, options: FeedOptions) {
    this.#db = db;
    this.#options = options;
  }

  watch(chatId: string, onChange: ChangeListener): () => void {
    const stop = this.#listeners.watch(chatId, onChange);
    const fresh = !this.#known.has(chatId);
    if (fresh) this.#known.set(chatId, { told: undefined, version: 0 });
    if (this.#state === "idle") this.#open();
    // Listening already: no resync will read it, so read where it stands now, as a resync would
    // (else a deletion of it, which reads back as no row, would tell nothing: nothing was told before).
    else if (fresh && this.#state === "listening") this.#hint(chatId);
    return () => {
      stop();
      if (!this.#listeners.has(chatId)) {
        this.#known.delete(chatId);
        this.#hinted.delete(chatId);
      }
      if (this.#listeners.chats().length === 0 && this.#state !== "idle") void this.close();
    };
  }

  /**
   * A write of this process committed (its length is the database's answer;
   * `epoch` the chat's when known, null when it deleted the chat): its
   * watchers hear it now, not when the notice comes back.
   */
  told(chatId: string, length: number, epoch: string | null | undefined): void {
    const known = this.#known.get(chatId);
    if (known === undefined) return;
    known.version++;
    this.#tell(chatId, known, epoch === null ? null : { length, epoch }, epoch === null);
  }

  /** Stops listening and polling; watchers added later open it again. */
  async close(): Promise<void> {
    this.#generation++;
    this.#state = "idle";
    this.#clearTimers();
    this.#probe = null;
    this.#hinted.clear();
    const listening = this.#listening;
    this.#listening = null;
    if (listening !== null) await listening.stop().catch(() => undefined);
  }

  #open(): void {
    this.#failures = 0;
    const generation = ++this.#generation;
    if (!this.#options.listen) {
      // Notices are off: the batched poll serves, from the first read on.
      this.#state = "polling";
      this.#schedulePoll(generation);
      void this.#resync(generation, false).catch(() => undefined);
      return;
    }
    this.#state = "connecting";
    void this.#connect(generation);
  }

  async #connect(generation: number): Promise<void> {
    let step = "could not open the LISTEN connection";
    try {
      const db = await this.#db;
      this.#oid ??= await this.#tableOid(db);
      if (generation !== this.#generation) return;
      let listening: Listening | null = null;
      listening = await db.listen(
        CHANNEL,
        (payload) => this.#onNotice(payload),
        (error) => {
          if (listening !== null) this.#lost(generation, listening, error);
        },
        () => void this.#resync(generation),
      );
      if (generation !== this.#generation) {
        await listening.stop().catch(() => undefined);
        return;
      }
      this.#listening = listening;
      step = `did not hear its probe notice within ${this.#options.probeMs} ms (LISTEN does not work through a PgBouncer in transaction mode; a role may not be allowed to run pg_notify)`;
      await this.#probeOnce(db);
      if (generation !== this.#generation || this.#listening !== listening) return;
      this.#state = "listening";
      this.#failures = 0;
      this.#clearTimers();
      // Notices sent while nobody listened are lost: read what they said.
      await this.#resync(generation);
    } catch (e) {
      if (generation !== this.#generation) return;
      await this.#fail(generation, `PostgresStore.watch ${step}`, e);
    }
  }

  #lost(generation: number, listening: Listening, error: Error): void {
    if (generation !== this.#generation || this.#listening !== listening) return;
    void this.#fail(generation, "PostgresStore.watch lost its LISTEN connection", error);
  }

  /** Says why, polls until LISTEN works again, and tries again after the backoff. */
  async #fail(generation: number, why: string, cause: unknown): Promise<void> {
    const listening = this.#listening;
    this.#listening = null;
    this.#probe = null;
    if (listening !== null) await listening.stop().catch(() => undefined);
    if (generation !== this.#generation) return;
    this.#state = "polling";
    const retry = backoffDelay(LISTEN_BACKOFF, this.#failures++);
    this.#report(
      withCause(
        new StoreError(
          "store/unavailable",
          `${why} (${asError(cause).message}); the watched chats are read in one query every ${this.#options.pollMs} ms until it listens again (next try in ${Math.round(retry)} ms)`,
          "",
        ),
        cause,
      ),
    );
    if (this.#pollTimer === null) this.#schedulePoll(generation);
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      if (generation !== this.#generation) return;
      tell("feedReconnect", "postgresql");
      void this.#connect(generation);
    }, retry);
  }

  #schedulePoll(generation: number): void {
    this.#pollTimer = setTimeout(async () => {
      this.#pollTimer = null;
      if (generation !== this.#generation || this.#state !== "polling") return;
      try {
        await this.#resync(generation, false);
      } catch (e) {
        this.#readFailed(generation, "read the watched chats' lengths", e);
      }
      if (generation === this.#generation && this.#state === "polling" && this.#pollTimer === null) this.#schedulePoll(generation);
    }, this.#options.pollMs);
  }

  /**
   * Reads every watched chat's length in one query and tells the ones that
   * moved. A chat with no length known yet (watched before the feed heard
   * notices) is told the length read: a write may have landed between its
   * viewer's read and this one, unheard. Failures while listening turn to polling.
   */
  async #resync(generation: number, fallBack = true): Promise<void> {
    try {
      await this.#readBack(generation, this.#listeners.chats());
    } catch (e) {
      if (!fallBack) throw e;
      if (generation === this.#generation && this.#state === "listening") {
        await this.#fail(generation, "PostgresStore.watch could not read the watched chats' lengths after listening", e);
      }
    }
  }

  /** Reads the lengths of `chats` in one query and tells each that differs from the last told; a chat this process told meanwhile is read again. */
  async #readBack(generation: number, chats: string[]): Promise<void> {
    if (chats.length === 0) return;
    const versions = chats.map((chatId) => this.#known.get(chatId)?.version);
    const db = await this.#db;
    const rows = (await db.query(LENGTHS, [chats])) as { chat_id: string; length: string; epoch: string | null }[];
    if (generation !== this.#generation) return;
    const found = new Map(rows.map((row) => [row.chat_id, row]));
    chats.forEach((chatId, i) => {
      const known = this.#known.get(chatId);
      if (known === undefined) return;
      const row = found.get(chatId);
      const length = row === undefined ? 0 : Number(row.length);
      if (!Number.isSafeInteger(length)) return;
      if (known.version !== versions[i]) {
        this.#hint(chatId); // told by a write of this process meanwhile: this read may be older
        return;
      }
      // No row: the chat is not there (deleted, or not made yet). No epoch: a chat of no entries yet.
      const now = row === undefined ? null : { length, epoch: row.epoch ?? undefined };
      // Deleted (its notice said so) before this feed's first read of it, which its watcher may have read
      // before: the read back confirms it gone, or made again under another epoch, so it is told 0 (then its length).
      const deletedFirst = known.deleted === true && known.told === undefined;
      known.deleted = false;
      if (deletedFirst && now !== null) this.#tell(chatId, known, { length: 0, epoch: null });
      this.#tell(chatId, known, now, deletedFirst);
    });
  }

  /** Tells what changed since `known` was told, the chat now found as `now` (null: not there; `existed`: this process deleted it). */
  #tell(chatId: string, known: Known, now: Told | null, existed = false): void {
    const { tell, told } = nextTold(known.told, now, existed);
    known.told = told;
    for (const length of tell) this.#listeners.notify(chatId, length);
  }

  /**
   * A notice: "<table oid> <length> <chat id>", or "<table oid> probe <token>".
   * Only a hint: the chat it names is read back, unless the length it says is
   * the one told last of a chat that is there (this process's own write
   * coming back) and not 0 (a delete says 0, whatever was told). A notice of
   * another table (another schema's store) is not ours; any other payload
   * (another version's format, garbled) may be a write too, so every watched
   * chat is read back.
   */
  #onNotice(payload: string): void {
    const a = payload.indexOf(" ");
    const b = payload.indexOf(" ", a + 1);
    const oid = a < 0 ? "" : payload.slice(0, a);
    if (/^\d+$/.test(oid) && oid !== this.#oid) return;
    if (oid !== this.#oid || b < 0) {
      for (const chatId of this.#known.keys()) this.#hint(chatId);
      return;
    }
    const middle = payload.slice(a + 1, b);
    const rest = payload.slice(b + 1);
    if (middle === "probe") {
      if (this.#probe?.token === rest) this.#probe.heard();
      return;
    }
    const known = this.#known.get(rest);
    if (known === undefined) return;
    // A deletion's notice before anything was told of the chat: the read back says whether it stands.
    if (middle === "0" && known.told === undefined) known.deleted = true;
    // A 0 may be a deletion of a chat whose length was 0 too: always read back.
    const told = known.told;
    if (told !== undefined && told.epoch !== null && middle !== "0" && middle === String(told.length)) return;
    this.#hint(rest);
  }

  /** Schedules a read-back of `chatId`, batched with the other chats heard within {@link HINT_BATCH_MS}. */
  #hint(chatId: string): void {
    this.#hinted.add(chatId);
    this.#scheduleHints();
  }

  #scheduleHints(): void {
    if (this.#hintTimer !== null || this.#readingBack || this.#hinted.size === 0) return;
    const generation = this.#generation;
    this.#hintTimer = setTimeout(() => {
      this.#hintTimer = null;
      void this.#readHinted(generation);
    }, HINT_BATCH_MS);
  }

  /** Says a failed read of the lengths (`what` it could not do), unless the feed moved on since. */
  #readFailed(generation: number, what: string, e: unknown): void {
    if (generation !== this.#generation) return;
    this.#report(withCause(new StoreError("store/unavailable", `PostgresStore.watch could not ${what} (${asError(e).message})`, ""), e));
  }

  /** Reads back the hinted chats, one query at a time; a failure is said and the poll or the next notice tries again. */
  async #readHinted(generation: number): Promise<void> {
    if (generation !== this.#generation || this.#hinted.size === 0) return;
    const chats = [...this.#hinted];
    this.#hinted.clear();
    this.#readingBack = true;
    try {
      await this.#readBack(generation, chats);
    } catch (e) {
      this.#readFailed(generation, "read back the chats a notice named", e);
    } finally {
      this.#readingBack = false;
    }
    if (generation === this.#generation) this.#scheduleHints();
  }

  /** Sends a notice through the pool and waits for the LISTEN to hear it. */
  async #probeOnce(db: Database): Promise<void> {
    const token = `${Date.now().toString(36)}.${++probes}`;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("no notice heard")), this.#options.probeMs);
    });
    const heard = new Promise<void>((resolve) => {
      this.#probe = { token, heard: resolve };
    });
    const send = async () => {
      await db.query("SELECT pg_notify($1, $2)", [CHANNEL, `${this.#oid} probe ${token}`]);
      await heard;
    };
    try {
      await Promise.race([send(), late]);
    } finally {
      clearTimeout(timer);
      if (this.#probe?.token === token) this.#probe = null;
    }
  }

  async #tableOid(db: Database): Promise<string> {
    const rows = await db.query(TABLE_OID);
    return (rows[0] as { oid: string }).oid;
  }

  #report(error: Error): void {
    try {
      this.#options.onError(error);
    } catch {
      // The app's handler failing changes nothing here.
    }
  }

  #clearTimers(): void {
    if (this.#pollTimer !== null) clearTimeout(this.#pollTimer);
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer);
    if (this.#hintTimer !== null) clearTimeout(this.#hintTimer);
    this.#pollTimer = null;
    this.#retryTimer = null;
    this.#hintTimer = null;
  }
}
