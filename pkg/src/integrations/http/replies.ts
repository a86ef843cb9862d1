// The handler's answers: JSON with `Cache-Control: no-store` and no CORS
// header, and every failure as `{ error: { code, message, payload? } }` with
// its HTTP status. A failure that is not the service's own says only its
// code and a fixed text: no message of a store (a file path), no stack.
import { SuggestionError } from "../../chat/service.js";
import { ChatChangedError } from "../../chat/edit.js";
import type { TodoItem } from "../../core/types.js";

/**
 * The `code` of a failure the handler answers with itself (the service's
 * `task-suggestion/…` and the stores' `store/…` codes pass through).
 *
 * @example
 * const response = await fetch("/api/oda/chats/chat-1");
 * const { error }: { error: { code: HttpErrorCode; message: string } } = await response.json(); // { code: "http/forbidden", … }
 */
export type HttpErrorCode =
  | "http/not-found"
  | "http/method-not-allowed"
  | "http/bad-request"
  | "http/unauthorized"
  | "http/forbidden"
  | "http/unsupported-media-type"
  | "http/payload-too-large"
  | "http/too-many-streams"
  | "http/unavailable"
  | "http/internal";

/** A JSON answer. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      ...headers,
    },
  });
}

/** A failure the handler itself decided on. */
export function failure(
  status: number,
  code: HttpErrorCode | "store/missing-chat" | "todos/invalid",
  message: string,
  headers?: Record<string, string>,
): Response {
  return json(status, { error: { code, message } }, headers);
}

/** HTTP statuses of the service's failures. */
const SERVICE_STATUS: Record<string, number> = {
  "task-suggestion/not-found": 404,
  "task-suggestion/not-open": 409,
  "task-suggestion/open-limit": 409,
  "task-suggestion/workspace-missing": 422,
};

/** HTTP statuses of the stores' failures, and the fixed text each is answered with. */
const STORE_STATUS: Record<string, [number, string]> = {
  "store/bad-chat-id": [400, "invalid chat id"],
  "store/bad-cursor": [400, "invalid cursor"],
  "store/missing-chat": [404, "no such chat"],
  "store/conflict": [409, "another writer changed the chat; try again"],
  "store/unavailable": [503, "the store is unavailable; try again"],
  "store/locked": [503, "the chat is locked by another writer; try again"],
  "store/read-only": [503, "the store is read-only"],
  "store/no-access": [503, "the store may not be read"],
  "store/not-migrated": [503, "the store's tables are not migrated"],
  "store/outcome-unknown": [503, "the store did not say whether the write landed; read the chat again"],
};

/**
 * A thrown failure as it may be told to a client: the service's with its
 * code, message and payload; a store's with its code and a fixed text;
 * anything else `http/internal` that says nothing of the error. `status` is
 * its HTTP status.
 *
 * @example
 * const { status, error } = failureOf(e); // 409, { code: "task-suggestion/not-open", message: 'suggestion "s1" is dismissed', payload: "dismissed" }
 */
export function failureOf(e: unknown): {
  status: number;
  error: { code: string; message: string; payload?: string | number | TodoItem[]; length?: number };
} {
  // The list changed under a person's edit: the list as it stands and the length to edit it at.
  if (e instanceof ChatChangedError)
    return { status: 409, error: { code: e.code, message: e.message, payload: e.payload, length: e.length } };
  if (e instanceof SuggestionError) {
    const status = Object.hasOwn(SERVICE_STATUS, e.code) ? SERVICE_STATUS[e.code] : undefined;
    if (status !== undefined) return { status, error: { code: e.code, message: e.message, payload: e.payload } };
  }
  // By its code: a store's error need not be this module's StoreError class (a scanner's, an app's own store).
  const code = typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
  if (typeof code === "string" && /^store\/[a-z-]{1,40}$/.test(code)) {
    const [status, message] = STORE_STATUS[code] ?? [500, "the store failed"];
    return { status, error: { code, message } };
  }
  return { status: 500, error: { code: "http/internal", message: "internal error" } };
}

/** The answer to a thrown failure: {@link failureOf} as JSON, with `retry-after` on a 503. */
export function thrown(e: unknown): Response {
  const { status, error } = failureOf(e);
  return json(status, { error }, status === 503 ? { "retry-after": "1" } : {});
}
