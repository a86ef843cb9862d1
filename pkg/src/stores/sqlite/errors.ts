// What a SQLite driver's failure means for the store: the store/* code of the
// same failure model as PostgreSQL's (locked, not migrated, corrupt,
// read-only, unavailable, outcome unknown, or the database's own refusal),
// built by the database stores' shared helpers.
import { entryPastLength, notMigrated } from "../database-failures.js";
import { asError, isBug, withCause } from "../postgres/errors.js";
import { StoreError } from "../store.js";

/**
 * The SQLite result name of a driver's error (`SQLITE_BUSY`...), from
 * better-sqlite3's and bun:sqlite's `code`, node:sqlite's `errcode`, or D1's message.
 */
export function sqliteCode(e: unknown): string | null {
  const err = e as { code?: unknown; errcode?: unknown; errno?: unknown; message?: unknown } | null;
  if (typeof err?.code === "string" && err.code.startsWith("SQLITE_")) return err.code;
  const number = typeof err?.errcode === "number" ? err.errcode : typeof err?.errno === "number" ? err.errno : null;
  const primary = number === null ? undefined : PRIMARY[number & 0xff];
  if (primary !== undefined) return primary;
  const named = typeof err?.message === "string" ? /\bSQLITE_[A-Z_]+/.exec(err.message) : null;
  return named === null ? null : named[0];
}

const PRIMARY: Record<number, string> = {
  1: "SQLITE_ERROR",
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  8: "SQLITE_READONLY",
  10: "SQLITE_IOERR",
  11: "SQLITE_CORRUPT",
  13: "SQLITE_FULL",
  14: "SQLITE_CANTOPEN",
  19: "SQLITE_CONSTRAINT",
  26: "SQLITE_NOTADB",
};

/** Another connection held the lock for the whole busy timeout. */
export function isBusy(e: unknown): boolean {
  const code = sqliteCode(e);
  return code !== null && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED") || /database is locked/.test(messageOf(e)));
}

/** D1's failures that passed before the batch ran (an overloaded database): trying again is safe for any operation. */
export function isRefusedBeforeRunning(e: unknown): boolean {
  return /D1 DB is overloaded|Too many requests queued/i.test(messageOf(e));
}

/** D1's failures of the connection (the answer was lost): a read may be tried again; a write may or may not have committed. */
export function isConnectionLost(e: unknown): boolean {
  return /Network connection lost|storage caused object to be reset|reset because its code was updated|internal error/i.test(messageOf(e));
}

/** The StoreError for a driver's failure of a `what` on chat `chatId` ("" for none), or the error itself for a bug. */
export function storeRefusal(chatId: string, e: unknown, what: string, busyTimeout: number): Error {
  if (e instanceof StoreError || isBug(e)) return e as Error;
  const message = messageOf(e);
  const target = chatId === "" ? "" : ` for chat "${chatId}"`;
  if (isBusy(e)) {
    return withCause(
      new StoreError(
        "store/locked",
        `another connection held the database's write lock for the whole busy timeout (${busyTimeout} ms), so the ${what}${target} was refused; nothing was written`,
        chatId,
      ),
      e,
    );
  }
  if (/no such table: oda_tasks_|no such column/.test(message)) return notMigrated(chatId, e);
  const code = sqliteCode(e);
  if (code?.startsWith("SQLITE_CONSTRAINT") && /oda_tasks_entries/.test(message) && chatId !== "") return entryPastLength(chatId, e);
  if (code?.startsWith("SQLITE_READONLY")) {
    return withCause(
      new StoreError(
        "store/read-only",
        `the database may be read but not written by this process: the ${what}${target} was refused (${message})`,
        chatId,
      ),
      e,
    );
  }
  return withCause(
    new StoreError("store/database", `the database refused the ${what}${target}: ${message}${code === null ? "" : ` (${code})`}`, chatId),
    e,
  );
}

/** A write whose answer was lost with the connection: it may or may not be recorded. */
export function outcomeUnknown(chatId: string, e: unknown): StoreError {
  return withCause(
    new StoreError(
      "store/outcome-unknown",
      `chat "${chatId}": the connection was lost while the write ran, so it may or may not be recorded; read the chat to see`,
      chatId,
    ),
    e,
  );
}

function messageOf(e: unknown): string {
  return asError(e).message;
}
