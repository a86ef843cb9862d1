// Who may use `serve`: the holder of one bearer token (`ODA_TASKS_TOKEN`).
// A program sends it as `Authorization: Bearer …`; a browser signs in once
// with a form and then holds a cookie derived from the token (HttpOnly,
// SameSite=Strict), so the token never lands in a URL, a log or page script.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** The cookie a signed-in browser holds. */
export const SESSION_COOKIE = "oda_session";

/** The shortest token taken: a guessable token protects nothing. */
export const MIN_TOKEN_LENGTH = 16;

/** How a request is allowed in: by the bearer token, by the session cookie, or not at all. */
export type Credential = "bearer" | "cookie" | null;

/**
 * The token's checks: what a request carries, compared in constant time.
 *
 * @example
 * const gate = tokenGate("correct-horse-battery-staple");
 * gate.credential(new Request("http://localhost/mcp", { headers: { authorization: "Bearer correct-horse-battery-staple" } })); // "bearer"
 */
export function tokenGate(token: string) {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  const expected = digest(token);
  const cookieValue = createHmac("sha256", token).update("oda-tasks serve session 1").digest("base64url");
  const expectedCookie = digest(cookieValue);
  const same = (a: Buffer, b: Buffer) => timingSafeEqual(a, b);
  return {
    /** Whether `candidate` is the token. */
    matches: (candidate: string) => same(digest(candidate), expected),
    /** The `Set-Cookie` value that signs a browser in. */
    cookie: () => `${SESSION_COOKIE}=${cookieValue}; HttpOnly; SameSite=Strict; Path=/; Max-Age=2592000`,
    /** How `request` is allowed in. A cookie is taken only from the same site (no cross-site request rides on it). */
    credential(request: Request): Credential {
      const header = request.headers.get("authorization") ?? "";
      const bearer = /^Bearer ([\x21-\x7e]{1,1024})$/.exec(header);
      if (bearer?.[1] !== undefined && same(digest(bearer[1]), expected)) return "bearer";
      const site = request.headers.get("sec-fetch-site");
      if (site !== null && site !== "same-origin" && site !== "none") return null;
      const cookie = readCookie(request.headers.get("cookie") ?? "", SESSION_COOKIE);
      return cookie !== undefined && same(digest(cookie), expectedCookie) ? "cookie" : null;
    },
  };
}

/** The gate of a server without authorization: everything is let in (only ever on loopback). */
export const OPEN_GATE: ReturnType<typeof tokenGate> = {
  matches: () => true,
  cookie: () => `${SESSION_COOKIE}=open; HttpOnly; SameSite=Strict; Path=/`,
  credential: () => "bearer",
};

/** One cookie's value out of a `Cookie` header. */
function readCookie(header: string, name: string): string | undefined {
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
