// The one question `serve` asks of every request: who is it, and may it
// read or write? Three gates answer it the same way: the open gate of
// `--no-auth` (loopback only), the static token of `ODA_TASKS_TOKEN` (one
// person, auth.ts) and `--auth jwt`, an OAuth 2.1 resource server (jwt.ts).
// A program sends `Authorization: Bearer …`; a browser signs in once with a
// form and then holds the `oda_session` cookie (HttpOnly, SameSite=Strict).
import { failure } from "../integrations/http/replies.js";

/** The cookie a signed-in browser holds. */
export const SESSION_COOKIE = "oda_session";

/**
 * Who a request is, as its credential says.
 *
 * @example
 * const principal: Principal = { owner: "", read: true, write: true, via: "bearer" }; // the token's holder
 */
export interface Principal {
  /**
   * Whose chats the request touches: `""` with no authorization and with the
   * static token (one person: the chats keep their ids); under `--auth jwt`
   * a string made of the token's issuer and `sub` (or the `--tenant-claim`
   * value) alone, never of anything in the request's body, path or `_meta`.
   */
  readonly owner: string;
  /** May read: screens, cards, event streams, pages, assets, the list of chats. */
  readonly read: boolean;
  /** May write: `/mcp`, sessions and turns, suggestion actions, deletion (and read). */
  readonly write: boolean;
  /** How it came: a bearer credential (a program) or the sign-in cookie (a browser). */
  readonly via: "bearer" | "cookie";
}

/**
 * A gate's answer about a request: its principal, or the answer it gets
 * instead (`absent`: no credential was sent at all).
 *
 * @example
 * const verdict: Verdict = { refused: new Response(null, { status: 401 }), absent: true };
 */
export type Verdict = { principal: Principal } | { refused: Response; absent: boolean };

/**
 * What a route needs of a principal.
 *
 * @example
 * declare const request: Request;
 * const need: Need = request.method === "GET" ? "read" : "write";
 */
export type Need = "read" | "write";

/**
 * How `serve` lets requests in: one interface for its three modes.
 *
 * @example
 * declare const gate: Gate;
 * const principal = await admit(gate, new Request("http://localhost/chats/c1"), "read");
 * const answer = principal instanceof Response ? principal : new Response(`hello ${principal.owner}`);
 */
export interface Gate {
  /** `none` (`--no-auth`), `token` (`ODA_TASKS_TOKEN`) or `jwt` (`--auth jwt`). */
  readonly mode: "none" | "token" | "jwt";
  /** The largest sign-in form body taken, in bytes. */
  readonly signInBytes: number;
  /**
   * The principal of `request`, or the answer it gets: a 401 (no credential,
   * a bad one) or a 503 (the keys that verify tokens cannot be fetched).
   * With `cookie: false` the sign-in cookie counts for nothing (the routes
   * only a program calls).
   */
  check(request: Request, options?: { cookie?: boolean }): Promise<Verdict>;
  /** The 403 of a principal that lacks `need`. */
  forbidden(need: Need): Response;
  /** The `Set-Cookie` value for a browser that posted `token` to the sign-in form, or why not. */
  signIn(token: string): Promise<{ cookie: string } | { refused: "token" | "unavailable" }>;
  /** The answer to a route of the gate's own, served with no credential (the Protected Resource Metadata), or `null`. */
  route(request: Request): Response | null;
}

/**
 * The principal of `request` when it may do what `need` says, else the
 * answer it gets (401, 403 or 503). With `cookie: false` only a bearer
 * credential counts: a browser's cookie never calls a tool or writes a
 * session or a turn.
 *
 * @example
 * const gate = openGate();
 * const principal = await admit(gate, new Request("http://localhost/mcp", { method: "POST" }), "write", { cookie: false });
 * // A Response is the refusal, to send as it is; a principal says whose chats.
 * const owner = principal instanceof Response ? null : principal.owner;
 */
export async function admit(gate: Gate, request: Request, need: Need, options: { cookie?: boolean } = {}): Promise<Principal | Response> {
  const verdict = await gate.check(request, options);
  if ("refused" in verdict) return verdict.refused;
  return verdict.principal[need] ? verdict.principal : gate.forbidden(need);
}

/**
 * The credential `request` carries in `Authorization`: `undefined` when it
 * has no such header, `null` when the header is not `Bearer <token>` of at
 * most `max` visible ASCII characters, else the token.
 *
 * @example
 * bearerOf(new Request("http://localhost/mcp", { headers: { authorization: "Bearer abc" } }), 1024); // "abc"
 */
export function bearerOf(request: Request, max: number): string | null | undefined {
  const header = request.headers.get("authorization");
  if (header === null) return undefined;
  const match = /^Bearer +([\x21-\x7e]+)$/i.exec(header);
  return match?.[1] !== undefined && match[1].length <= max ? match[1] : null;
}

/**
 * The sign-in cookie's value in `request`, taken only from the same site: a
 * request a browser marks `Sec-Fetch-Site` other than `same-origin` or
 * `none` carries none (no cross-site request rides on it).
 *
 * @example
 * sessionCookieOf(new Request("http://localhost/chats/c1", { headers: { cookie: "oda_session=abc" } })); // "abc"
 */
export function sessionCookieOf(request: Request): string | undefined {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") return undefined;
  const header = request.headers.get("cookie") ?? "";
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === SESSION_COOKIE) return part.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * The `Set-Cookie` value of the sign-in cookie: `HttpOnly`, `SameSite=Strict`,
 * the whole site, `maxAge` seconds (none: until the browser closes), and
 * `Secure` when the server is reached over https.
 *
 * @example
 * sessionCookie("abc", { maxAge: 3600, secure: true }); // "oda_session=abc; HttpOnly; SameSite=Strict; Path=/; Max-Age=3600; Secure"
 */
export function sessionCookie(value: string, { maxAge, secure }: { maxAge?: number; secure: boolean }): string {
  return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/${maxAge === undefined ? "" : `; Max-Age=${maxAge}`}${secure ? "; Secure" : ""}`;
}

/** The principal of every request when there is no authorization. */
const EVERYONE: Principal = Object.freeze({ owner: "", read: true, write: true, via: "bearer" });

/**
 * The gate of a server without authorization (`--no-auth`, only ever on
 * loopback): every request is the one person, who may read and write.
 *
 * @example
 * const gate = openGate();
 * await gate.check(new Request("http://localhost/mcp")); // { principal: { owner: "", read: true, write: true, via: "bearer" } }
 */
export function openGate(): Gate {
  return {
    mode: "none",
    signInBytes: 4096,
    check: async () => ({ principal: EVERYONE }),
    forbidden: () => failure(403, "http/forbidden", "not allowed"),
    signIn: async () => ({ cookie: sessionCookie("open", { secure: false }) }),
    route: () => null,
  };
}
