// `serve --auth jwt`: an OAuth 2.1 resource server, as MCP authorization
// (revision 2026-07-28) specifies. Each request's access token is verified
// with `jose` (an optional peer, loaded only in this mode) against the
// issuer's keys: asymmetric algorithms only, the issuer, the audience (this
// server's MCP resource), the expiry; its `sub` (or a tenant claim) is the
// owner, its scopes say what it may do. A browser signs in once with a token
// and gets a cookie signed with ODA_TASKS_COOKIE_SECRET that carries the
// owner and the scopes until the token's expiry. The Protected Resource
// Metadata (RFC 9728) tells clients where to get a token.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createLocalJWKSet, createRemoteJWKSet, type JSONWebKeySet, type JWTPayload, jwtVerify } from "jose";
import { failure, json } from "../integrations/http/replies.js";
import { bearerOf, type Gate, type Need, type Principal, sessionCookie, sessionCookieOf } from "./gate.js";

/** The scopes of `serve`: `oda:read` reads, `oda:write` does everything (and reads). */
export const SCOPES = ["oda:read", "oda:write"] as const;

/** The algorithms taken: asymmetric only (never `none`, never HMAC, whose key a public key set would hand out). */
export const ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"];

/** Clock skew allowed on `exp`, `nbf` and `iat`, in seconds. */
const LEEWAY_SECONDS = 60;

/** The longest access token read (header or form); a longer one is not a token of ours. */
const MAX_TOKEN_LENGTH = 16384;

/** The longest `sub` (or tenant value) taken. */
const MAX_OWNER_VALUE = 1024;

/** The longest sign-in cookie made: browsers keep a cookie of at most 4096 bytes, its name and attributes included. */
const MAX_COOKIE_VALUE = 3800;

/** How long a JWKS fetch may take, in ms. */
const JWKS_TIMEOUT_MS = 5000;

/** A token naming a key the cached set lacks sends the set to be fetched again, at most this often (ms). */
const JWKS_COOLDOWN_MS = 30_000;

/** What a client waits before trying again while the keys cannot be fetched (s). */
const RETRY_AFTER_SECONDS = "5";

/** The paths of the Protected Resource Metadata. */
const METADATA_PATHS = ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"];

/** What the cookie's signature covers besides its payload, so no other cookie of the secret's passes for it. */
const COOKIE_CONTEXT = "oda-tasks serve session 2";

/**
 * Where the issuer's keys come from: a URL (`https://`, or `http://` on a
 * loopback host), fetched at first use and cached; or a key set read at start.
 *
 * @example
 * const keys: JwtKeys = { url: new URL("https://issuer.example/.well-known/jwks.json") };
 */
export type JwtKeys = { url: URL } | { set: JSONWebKeySet };

/**
 * What {@link jwtGate} checks tokens against.
 *
 * @example
 * const options: JwtGateOptions = {
 *   issuer: "https://issuer.example",
 *   keys: { url: new URL("https://issuer.example/.well-known/jwks.json") },
 *   publicUrl: () => "https://tasks.example",
 *   cookieSecret: process.env.ODA_TASKS_COOKIE_SECRET ?? "",
 * };
 */
export interface JwtGateOptions {
  /** `iss` must equal it. */
  issuer: string;
  keys: JwtKeys;
  /** Where clients reach this server (no trailing slash); asked at each use (the port is known once it listens). */
  publicUrl: () => string;
  /** What `aud` must contain; default `<publicUrl>/mcp`, the MCP resource's canonical URL. */
  audience?: string;
  /** A claim whose value (a non-empty string) is the owner in place of `sub`: people of one tenant share their chats. */
  tenantClaim?: string;
  /** Signs the browsers' cookies (at least 32 characters; the same on every instance). */
  cookieSecret: string;
  /** Told when the keys cannot be fetched, and when they can again (one line, no token in it). */
  onKeys?: (event: { available: boolean; reason?: string }) => void;
}

/** A verified token: its owner, scopes and expiry; or why it is refused. */
type Checked = { owner: string; read: boolean; write: boolean; exp: number } | { invalid: string } | { unavailable: true };

/**
 * The owner of a verified token's claims: the issuer and `sub`, or, with a
 * tenant claim, the issuer and that claim's value. A string such as
 * `["sub","https://issuer.example","user-1"]`, made of nothing else.
 *
 * @example
 * ownerOf("https://issuer.example", "sub", "user-1"); // '["sub","https://issuer.example","user-1"]'
 */
export function ownerOf(issuer: string, kind: "sub" | "tenant", value: string): string {
  return JSON.stringify([kind, issuer, value]);
}

/**
 * The gate of `--auth jwt`. Verifies each bearer token (and the sign-in
 * form's) with `jose`; answers 401 with the MCP challenge, 403
 * `insufficient_scope`, or 503 while the keys cannot be fetched (never lets
 * a request through then); serves the Protected Resource Metadata.
 *
 * @example
 * const gate = jwtGate({
 *   issuer: "https://issuer.example",
 *   keys: { url: new URL("https://issuer.example/.well-known/jwks.json") },
 *   publicUrl: () => "https://tasks.example",
 *   cookieSecret: process.env.ODA_TASKS_COOKIE_SECRET ?? "",
 * });
 * const verdict = await gate.check(new Request("https://tasks.example/mcp")); // { principal: { owner, read, write, via } } or { refused, absent }
 */
export function jwtGate(options: JwtGateOptions): Gate {
  const { issuer, keys, publicUrl, tenantClaim, cookieSecret, onKeys } = options;
  const audience = () => options.audience ?? `${publicUrl()}/mcp`;
  const getKey =
    "url" in keys
      ? createRemoteJWKSet(keys.url, { timeoutDuration: JWKS_TIMEOUT_MS, cooldownDuration: JWKS_COOLDOWN_MS })
      : createLocalJWKSet(keys.set);
  let keysDown = false;
  const metadataUrl = () => `${publicUrl()}/.well-known/oauth-protected-resource/mcp`;
  const scopeList = SCOPES.join(" ");

  /** The 401 of a request with no usable credential (`reason`: the token sent was refused). */
  const unauthorized = (reason?: string): Response => {
    const challenge = `Bearer ${reason === undefined ? "" : 'error="invalid_token", '}resource_metadata="${metadataUrl()}", scope="${scopeList}"`;
    const message = reason === undefined ? "send an access token as Authorization: Bearer" : `the access token is not valid: ${reason}`;
    return failure(401, "http/unauthorized", message, { "www-authenticate": challenge });
  };
  const unavailable = (): Response =>
    failure(503, "http/unavailable", "the keys that verify access tokens cannot be fetched; try again", {
      "retry-after": RETRY_AFTER_SECONDS,
    });

  /** Verifies `token`: its signature, issuer, audience, times, owner and scopes. */
  const verify = async (token: string): Promise<Checked> => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, getKey, {
        algorithms: ALGORITHMS,
        issuer,
        audience: audience(),
        requiredClaims: ["exp"],
        clockTolerance: LEEWAY_SECONDS,
      }));
    } catch (e) {
      const reason = refusal(e);
      if (reason === null) {
        if (!keysDown) onKeys?.({ available: false, reason: keysFailure(e) });
        keysDown = true;
        return { unavailable: true };
      }
      return { invalid: reason };
    }
    if (keysDown) onKeys?.({ available: true });
    keysDown = false;
    if (typeof payload.iat === "number" && payload.iat > Date.now() / 1000 + LEEWAY_SECONDS)
      return { invalid: "it was issued in the future (iat)" };
    let owner: string;
    if (tenantClaim === undefined) {
      if (!ownerValue(payload.sub)) return { invalid: `its sub claim must be a non-empty string of at most ${MAX_OWNER_VALUE} characters` };
      owner = ownerOf(issuer, "sub", payload.sub);
    } else {
      const value = payload[tenantClaim];
      if (!ownerValue(value))
        return { invalid: `its ${tenantClaim} claim must be a non-empty string of at most ${MAX_OWNER_VALUE} characters` };
      owner = ownerOf(issuer, "tenant", value);
    }
    const scopes = scopesOf(payload);
    const write = scopes.has("oda:write");
    return { owner, read: write || scopes.has("oda:read"), write, exp: payload.exp as number };
  };

  /** The cookie's signature over its payload, for this audience. */
  const mac = (payload: string) => createHmac("sha256", cookieSecret).update(`${COOKIE_CONTEXT}\n${audience()}\n${payload}`).digest();

  /** The principal a cookie carries, or `null` when it was changed, made for another server, or has expired. */
  const fromCookie = (value: string): Principal | null => {
    const match = /^([A-Za-z0-9_-]{1,3800})\.([A-Za-z0-9_-]{43})$/.exec(value);
    if (match === null) return null;
    const [, payload = "", signature = ""] = match;
    const given = Buffer.from(signature, "base64url");
    if (given.length !== 32 || !timingSafeEqual(given, mac(payload))) return null;
    let claims: unknown;
    try {
      claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      return null;
    }
    const { o, r, w, e } = (claims ?? {}) as { o?: unknown; r?: unknown; w?: unknown; e?: unknown };
    if (typeof o !== "string" || typeof r !== "boolean" || typeof w !== "boolean" || typeof e !== "number" || !Number.isFinite(e))
      return null;
    // No leeway: the cookie ends when the token it was made of ends.
    if (Date.now() >= e * 1000) return null;
    return { owner: o, read: r, write: w, via: "cookie" };
  };

  return {
    mode: "jwt",
    signInBytes: MAX_TOKEN_LENGTH + 1024,
    async check(request, { cookie = true } = {}) {
      const bearer = bearerOf(request, MAX_TOKEN_LENGTH);
      // Another scheme (Basic) or a malformed header: no token was sent.
      if (bearer === null) return { refused: unauthorized(), absent: false };
      if (bearer !== undefined) {
        const checked = await verify(bearer);
        if ("unavailable" in checked) return { refused: unavailable(), absent: false };
        if ("invalid" in checked) return { refused: unauthorized(checked.invalid), absent: false };
        return { principal: { owner: checked.owner, read: checked.read, write: checked.write, via: "bearer" } };
      }
      const value = cookie ? sessionCookieOf(request) : undefined;
      if (value === undefined) return { refused: unauthorized(), absent: true };
      const principal = fromCookie(value);
      if (principal === null) {
        const challenge = `Bearer resource_metadata="${metadataUrl()}", scope="${scopeList}"`;
        return {
          refused: failure(401, "http/unauthorized", "the sign-in cookie is not valid or has expired; sign in again", {
            "www-authenticate": challenge,
          }),
          absent: false,
        };
      }
      return { principal };
    },
    forbidden(need: Need) {
      const scope = need === "read" ? "oda:read" : "oda:write";
      return failure(403, "http/forbidden", `this needs the scope ${scope}`, {
        "www-authenticate": `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadataUrl()}"`,
      });
    },
    async signIn(token) {
      if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return { refused: "token" };
      const checked = await verify(token);
      if ("unavailable" in checked) return { refused: "unavailable" };
      // A token that reads nothing, or whose expiry is past (taken within the leeway), makes no cookie.
      const maxAge = "invalid" in checked ? 0 : Math.floor(checked.exp - Date.now() / 1000);
      if ("invalid" in checked || !checked.read || maxAge <= 0) return { refused: "token" };
      const payload = Buffer.from(JSON.stringify({ o: checked.owner, r: checked.read, w: checked.write, e: checked.exp })).toString(
        "base64url",
      );
      const value = `${payload}.${mac(payload).toString("base64url")}`;
      // An owner too long for a browser to keep (a sub of many escaped characters) signs in programs only.
      if (value.length > MAX_COOKIE_VALUE) return { refused: "token" };
      return { cookie: sessionCookie(value, { maxAge, secure: publicUrl().startsWith("https:") }) };
    },
    route(request) {
      const path = new URL(request.url).pathname;
      if (!METADATA_PATHS.includes(path)) return null;
      if (request.method.toUpperCase() !== "GET") return failure(405, "http/method-not-allowed", "GET only", { allow: "GET" });
      return json(200, {
        resource: audience(),
        authorization_servers: [issuer],
        scopes_supported: [...SCOPES],
        bearer_methods_supported: ["header"],
      });
    },
  };
}

/** Whether `value` may name an owner: a non-empty, well-formed string of at most {@link MAX_OWNER_VALUE} characters. */
function ownerValue(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= MAX_OWNER_VALUE && !/[\uD800-\uDFFF]/u.test(value);
}

/** The scopes a token grants: `scope` (space-separated), else `scp` (an array, or space-separated). */
function scopesOf(payload: JWTPayload): Set<string> {
  const { scope, scp } = payload as { scope?: unknown; scp?: unknown };
  const list = typeof scope === "string" ? scope.split(" ") : typeof scp === "string" ? scp.split(" ") : Array.isArray(scp) ? scp : [];
  return new Set(list.filter((s): s is string => typeof s === "string"));
}

/**
 * Why `jose` refused a token, as the 401 says it; `null` when the failure is
 * the keys' (they cannot be fetched or read): the request is refused with a
 * 503, never let through.
 */
function refusal(e: unknown): string | null {
  const { code, claim, reason } = (e ?? {}) as { code?: unknown; claim?: unknown; reason?: unknown };
  switch (code) {
    case "ERR_JWT_EXPIRED":
      return "it has expired";
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      if (reason === "missing") return `it has no ${String(claim)} claim`;
      if (claim === "nbf" && reason === "check_failed") return "it is not valid yet (nbf)";
      if (claim === "iss" && reason === "check_failed") return "it was issued by another issuer";
      if (claim === "aud" && reason === "check_failed") return "it is meant for another audience";
      return `its ${String(claim)} claim is not valid`;
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return `its algorithm is not one of ${ALGORITHMS.join(", ")}`;
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return "its signature does not verify";
    case "ERR_JWKS_NO_MATCHING_KEY":
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
      return "no key of the issuer's key set matches it";
    case "ERR_JWS_INVALID":
    case "ERR_JWT_INVALID":
    case "ERR_JOSE_NOT_SUPPORTED":
      return "it is not a signed JWT this server reads";
    default:
      return null;
  }
}

/** What went wrong with the keys, in a few words for the log (a code or a class name, never a token). */
function keysFailure(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (typeof cause === "string") return cause;
  const { code, name } = (e ?? {}) as { code?: unknown; name?: unknown };
  return typeof code === "string" ? code : typeof name === "string" ? name : "failed";
}
