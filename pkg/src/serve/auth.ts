// Who may use `serve` in its default mode: the holder of one bearer token
// (`ODA_TASKS_TOKEN`), one person. A program sends it as `Authorization:
// Bearer …`; a browser signs in once with a form and then holds a cookie
// derived from the token (HttpOnly, SameSite=Strict), so the token never
// lands in a URL, a log or page script.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { failure } from "../integrations/http/replies.js";
import { bearerOf, type Gate, type Principal, sessionCookie, sessionCookieOf } from "./gate.js";

export { SESSION_COOKIE } from "./gate.js";

/** The shortest token taken: a guessable token protects nothing. */
export const MIN_TOKEN_LENGTH = 16;

/** The longest bearer token read. */
const MAX_TOKEN_LENGTH = 1024;

/** The token's holder: one person, who may read and write, as a program or as a browser. */
const HOLDER: Record<Principal["via"], Principal> = {
  bearer: Object.freeze({ owner: "", read: true, write: true, via: "bearer" }),
  cookie: Object.freeze({ owner: "", read: true, write: true, via: "cookie" }),
};

/**
 * The gate of the static token: a request carries the token, or the cookie
 * a browser got for it; both compared in constant time. `secure`: the
 * server is reached over https (the cookie gets `Secure`).
 *
 * @example
 * const gate = tokenGate("correct-horse-battery-staple", { secure: false });
 * await gate.check(new Request("http://localhost/mcp", { headers: { authorization: "Bearer correct-horse-battery-staple" } })); // { principal: … }
 */
export function tokenGate(token: string, { secure }: { secure: boolean }): Gate {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  const expected = digest(token);
  const cookieValue = createHmac("sha256", token).update("oda-tasks serve session 1").digest("base64url");
  const expectedCookie = digest(cookieValue);
  const unauthorized = (absent: boolean) => ({
    refused: failure(401, "http/unauthorized", "send the server's token as Authorization: Bearer", {
      "www-authenticate": 'Bearer realm="oda-tasks"',
    }),
    absent,
  });
  return {
    mode: "token",
    signInBytes: 4096,
    async check(request, { cookie = true } = {}) {
      const bearer = bearerOf(request, MAX_TOKEN_LENGTH);
      if (bearer !== undefined) {
        return bearer !== null && timingSafeEqual(digest(bearer), expected) ? { principal: HOLDER.bearer } : unauthorized(false);
      }
      const value = cookie ? sessionCookieOf(request) : undefined;
      if (value === undefined) return unauthorized(true);
      return timingSafeEqual(digest(value), expectedCookie) ? { principal: HOLDER.cookie } : unauthorized(false);
    },
    // The token's holder may do everything: nothing is ever forbidden for want of a scope.
    forbidden: () => failure(403, "http/forbidden", "not allowed"),
    signIn: async (candidate) =>
      timingSafeEqual(digest(candidate), expected)
        ? { cookie: sessionCookie(cookieValue, { maxAge: 2592000, secure }) }
        : { refused: "token" },
    route: () => null,
  };
}
