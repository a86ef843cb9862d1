// A local OAuth 2.1 authorization server for `serve --auth jwt`, as an MCP
// host meets one: the SDK's own `mcpAuthRouter` (RFC 8414 metadata, dynamic
// client registration, the authorization and token endpoints) on express, on
// 127.0.0.1, over a small in-memory provider. The provider approves each
// authorization at once as the person the test says, checks the PKCE
// challenge itself, and issues access tokens that are JWTs (RFC 9068) signed
// with the key of the JSON Web Key Set it serves, bound to the resource the
// client asked for (RFC 8707). And the client's side: an `OAuthClientProvider`
// that keeps what the SDK gives it, and the person's browser, which follows
// the authorization URL back to the redirect URI.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { once } from "node:events";
import { createRequire } from "node:module";
import { mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import {
  InvalidGrantError,
  InvalidRequestError,
  InvalidScopeError,
  InvalidTargetError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT } from "jose";

// express as the SDK has it: its dependency (the router is made of it), not one of ours.
const express = createRequire(import.meta.resolve("@modelcontextprotocol/sdk/server/auth/router.js"))("express");

/** A cookie secret of 32+ characters, for `serve --auth jwt`. */
export const COOKIE_SECRET = "oauth-cookie-secret-0123456789abcdef-0123";

/** The scopes of `serve`. */
export const SCOPES = ["oda:read", "oda:write"];

/** Where the client says the person's browser comes back to (nothing listens there: the test plays the browser). */
export const REDIRECT_URL = "http://127.0.0.1:33418/callback";

/** How long an access token lasts (s). */
const TOKEN_SECONDS = 3600;

/**
 * Starts an authorization server on 127.0.0.1 (closed when `t` ends):
 * `{ issuer, jwksUrl, person, authorizations, issued, pkceChecks }`.
 * `issuer` is its issuer identifier as its metadata writes it (the URL with
 * its trailing `/`: `iss` of its tokens, and what `serve --issuer` takes);
 * `jwksUrl` its key set (for `serve --jwks`). `person` is who approves the
 * next authorization and the scopes they may have (`{ sub, scopes }`,
 * change it between flows); an authorization grants the scopes asked for
 * that the person may have. `authorizations` lists each authorization
 * request as the provider saw it, `issued` each access token's claims,
 * `pkceChecks` each code verifier checked against its challenge (`true`: it
 * matched).
 *
 * @example
 * const as = await authorizationServer(t);
 * as.person = { sub: "reader", scopes: ["oda:read"] };
 */
export async function authorizationServer(t) {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = "as-key-1";
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  const clients = new Map();
  /** Codes not yet exchanged: code → { clientId, challenge, redirectUri, resource, scopes, sub }. */
  const codes = new Map();
  const served = {
    issuer: "",
    jwksUrl: "",
    person: { sub: "alice", scopes: [...SCOPES] },
    authorizations: [],
    issued: [],
    pkceChecks: [],
  };

  /** @type {import("@modelcontextprotocol/sdk/server/auth/provider.js").OAuthServerProvider} */
  const provider = {
    clientsStore: {
      getClient: (id) => clients.get(id),
      registerClient: (client) => {
        clients.set(client.client_id, client);
        return client;
      },
    },
    // The provider checks the code verifier itself (below), and counts it.
    skipLocalPkceValidation: true,
    async authorize(client, params, res) {
      served.authorizations.push({ clientId: client.client_id, ...params, resource: params.resource?.href });
      if (params.resource === undefined) throw new InvalidTargetError("name the resource (RFC 8707): the token's audience");
      const { sub, scopes } = served.person;
      const granted = (params.scopes ?? []).filter((s) => scopes.includes(s));
      if (granted.length === 0) throw new InvalidScopeError(`${sub} may have none of the scopes asked for`);
      const code = randomBytes(24).toString("base64url");
      codes.set(code, {
        clientId: client.client_id,
        challenge: params.codeChallenge,
        redirectUri: params.redirectUri,
        resource: params.resource.href,
        scopes: granted,
        sub,
      });
      // Approved at once: back to the client with the code (and its state).
      const back = new URL(params.redirectUri);
      back.searchParams.set("code", code);
      if (params.state !== undefined) back.searchParams.set("state", params.state);
      res.redirect(302, back.href);
    },
    async challengeForAuthorizationCode(client, code) {
      const granted = codes.get(code);
      if (granted === undefined || granted.clientId !== client.client_id) throw new InvalidGrantError("unknown authorization code");
      return granted.challenge;
    },
    async exchangeAuthorizationCode(client, code, verifier, redirectUri, resource) {
      const granted = codes.get(code);
      // A code is used once, by the client it was given to.
      codes.delete(code);
      if (granted === undefined || granted.clientId !== client.client_id) throw new InvalidGrantError("unknown authorization code");
      if (redirectUri !== undefined && redirectUri !== granted.redirectUri) throw new InvalidGrantError("redirect_uri differs");
      if (resource !== undefined && resource.href !== granted.resource) throw new InvalidTargetError("resource differs");
      if (typeof verifier !== "string") throw new InvalidRequestError("code_verifier is required");
      // PKCE (S256): the verifier's SHA-256 is the challenge the authorization was asked with.
      const matches = createHash("sha256").update(verifier).digest("base64url") === granted.challenge;
      served.pkceChecks.push(matches);
      if (!matches) throw new InvalidGrantError("code_verifier does not match the challenge");
      const now = Math.floor(Date.now() / 1000);
      const claims = {
        iss: served.issuer,
        sub: granted.sub,
        aud: granted.resource,
        client_id: client.client_id,
        scope: granted.scopes.join(" "),
        iat: now,
        exp: now + TOKEN_SECONDS,
        jti: randomUUID(),
      };
      served.issued.push(claims);
      const accessToken = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid, typ: "at+jwt" }).sign(privateKey);
      return { access_token: accessToken, token_type: "Bearer", expires_in: TOKEN_SECONDS, scope: claims.scope };
    },
    async exchangeRefreshToken() {
      throw new InvalidGrantError("this server issues no refresh tokens");
    },
    async verifyAccessToken(token) {
      const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: [jwk] }), { issuer: served.issuer });
      return { token, clientId: payload.client_id, scopes: payload.scope.split(" "), expiresAt: payload.exp };
    },
  };

  const app = express();
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  const issuerUrl = new URL(`http://127.0.0.1:${port}`);
  served.issuer = issuerUrl.href;
  served.jwksUrl = `${issuerUrl.origin}/jwks.json`;
  app.use(mcpAuthRouter({ provider, issuerUrl, scopesSupported: SCOPES }));
  app.get("/jwks.json", (_req, res) => res.json({ keys: [jwk] }));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return served;
}

/**
 * An MCP client's OAuth side, as the SDK asks for it (`OAuthClientProvider`):
 * a public client (no secret, PKCE) registered dynamically, everything kept
 * in memory; `redirects` lists each authorization URL the SDK sent the person
 * to.
 *
 * @example
 * const oauth = oauthClient();
 * const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: oauth });
 */
export function oauthClient() {
  const kept = { client: undefined, tokens: undefined, verifier: undefined, state: undefined };
  return {
    redirects: [],
    get redirectUrl() {
      return REDIRECT_URL;
    },
    get clientMetadata() {
      return {
        client_name: "oda-tasks test host",
        redirect_uris: [REDIRECT_URL],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },
    state() {
      kept.state = randomBytes(16).toString("base64url");
      return kept.state;
    },
    /** The state of the last authorization URL (the browser's callback must bring it back). */
    get lastState() {
      return kept.state;
    },
    clientInformation: () => kept.client,
    saveClientInformation: (information) => {
      kept.client = information;
    },
    tokens: () => kept.tokens,
    saveTokens: (tokens) => {
      kept.tokens = tokens;
    },
    redirectToAuthorization(url) {
      this.redirects.push(url);
    },
    saveCodeVerifier: (verifier) => {
      kept.verifier = verifier;
    },
    codeVerifier: () => {
      if (kept.verifier === undefined) throw new Error("no code verifier saved");
      return kept.verifier;
    },
  };
}

/**
 * The person's browser: opens the authorization URL (the server approves at
 * once) and follows it back to the redirect URI, whose `code` it resolves to
 * once the `state` is the one the client sent.
 *
 * @example
 * await transport.finishAuth(await approve(oauth.redirects.at(-1), oauth.lastState));
 */
export async function approve(authorizationUrl, state) {
  const answer = await fetch(authorizationUrl, { redirect: "manual" });
  const location = answer.headers.get("location");
  if (answer.status !== 302 || location === null) throw new Error(`the authorization answered ${answer.status}: ${await answer.text()}`);
  const back = new URL(location);
  if (`${back.origin}${back.pathname}` !== REDIRECT_URL) throw new Error(`redirected to ${location}`);
  if (back.searchParams.get("state") !== state) throw new Error("the state came back changed");
  const code = back.searchParams.get("code");
  if (code === null) throw new Error(`no code: ${back.searchParams.get("error")} ${back.searchParams.get("error_description")}`);
  return code;
}
