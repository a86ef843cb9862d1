// How the store sorts a database failure: try again, refuse with a store/* code, or pass a bug on.
import { StoreError } from "../store.js";

/** SQLSTATEs after which the transaction rolled back and trying again is safe. */
export const RETRYABLE = new Set(["40001", "40P01", "53300", "57P01", "57P02", "57P03"]);
/** lock_not_available: lock_timeout passed waiting for a row another session holds. */
export const LOCK_TIMEOUT = "55P03";
/** query_canceled: statement_timeout passed (or an operator cancelled the statement). */
export const STATEMENT_TIMEOUT = "57014";
/** SQLSTATEs of a schema that is not there: the tables were never migrated. */
export const NOT_MIGRATED = new Set(["42P01", "3F000", "42703"]);

/** An error the server sent (it has a SQLSTATE), as opposed to a lost or refused connection. */
export function isServerError(e: unknown): e is Error & { code: string; severity?: string } {
  const code = (e as { code?: unknown } | null)?.code;
  return (
    e instanceof Error &&
    typeof code === "string" &&
    /^[0-9A-Z]{5}$/.test(code) &&
    typeof (e as { severity?: unknown }).severity === "string"
  );
}

/** A server error after which the server closes the connection. */
export function isFatal(e: unknown): boolean {
  const severity = (e as { severity?: unknown }).severity;
  const code = (e as { code?: unknown }).code;
  return severity === "FATAL" || severity === "PANIC" || (typeof code === "string" && code.startsWith("08"));
}

/** A mistake in code (ours or a pool's), not a database's or a network's failure: passed on as it is. */
export function isBug(e: unknown): boolean {
  return e instanceof TypeError || e instanceof RangeError || e instanceof ReferenceError || e instanceof SyntaxError;
}

/** Whether the failure left nothing done and may pass: a lost connection, a serialization failure, a deadlock, a restart. */
export function retryable(e: unknown): boolean {
  if (!isServerError(e)) return e instanceof Error && !isBug(e); // the connection failed or broke
  return RETRYABLE.has(e.code) || e.code.startsWith("08");
}

/** The StoreError for a failure that will not pass by trying again (a bug is passed on unchanged). */
export function databaseError(chatId: string, e: unknown, what = "write"): Error {
  if (isBug(e)) return e as Error;
  if (isServerError(e) && e.code === "23505" && chatId !== "") {
    return withCause(
      new StoreError(
        "store/corrupt",
        `chat "${chatId}" is damaged in the database: an entry already sits past its length (${e.message})`,
        chatId,
      ),
      e,
    );
  }
  if (isServerError(e) && NOT_MIGRATED.has(e.code)) {
    return withCause(
      new StoreError("store/not-migrated", `the oda-tasks tables are missing or old: run await store.migrate() (${e.message})`, chatId),
      e,
    );
  }
  const code = isServerError(e) ? ` (SQLSTATE ${e.code})` : "";
  const target = chatId === "" ? "" : ` for chat "${chatId}"`;
  return withCause(new StoreError("store/database", `the database refused the ${what}${target}: ${asError(e).message}${code}`, chatId), e);
}

export function unavailable(chatId: string, e: unknown, attempts: number): StoreError {
  return withCause(
    new StoreError(
      "store/unavailable",
      `the database is unavailable${chatId === "" ? "" : ` for chat "${chatId}"`} after ${attempts} attempt${attempts === 1 ? "" : "s"}; nothing was written (${asError(e).message})`,
      chatId,
    ),
    e,
  );
}

export function withCause<E extends Error>(error: E, cause: unknown): E {
  error.cause = cause;
  return error;
}

export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
