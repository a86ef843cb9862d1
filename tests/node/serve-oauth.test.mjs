// `serve --auth jwt` the way an MCP host meets it: the MCP SDK's own client
// with its OAuth support (PKCE) gets the 401, reads the Protected Resource
// Metadata it names, finds the authorization server (the SDK's mcpAuthRouter
// over a small in-memory provider that mints JWTs with jose), registers
// itself, is sent through the authorization code flow with the resource
// parameter, and calls the tools with the token it got.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import express from "express";
import { COOKIE_SECRET, mint, signingKey } from "./support/jwks.mjs";
import { startServe } from "./support/oda-serve.mjs";

/**
 * An authorization server on 127.0.0.1: the SDK's router (metadata,
 * registration, authorize, token) over an in-memory provider that grants
 * what is asked and mints a JWT for the resource asked for; its keys at
 * /jwks.json. `seen` keeps what each authorization asked for.
 */
async function authorizationServer(t) {
  const key = await signingKey("ES256", "as-1");
  const clients = new Map();
  const codes = new Map();
  const seen = [];
  const server = { issuer: "", seen };
  const provider = {
    clientsStore: {
      getClient: async (id) => clients.get(id),
      registerClient: async (client) => (clients.set(client.client_id, client), client),
    },
    // The person consents at once: back to the client with a code.
    async authorize(client, params, res) {
      const code = randomUUID();
      codes.set(code, { client: client.client_id, ...params });
      seen.push({ scopes: params.scopes, resource: params.resource?.href, challenge: params.codeChallenge });
      const back = new URL(params.redirectUri);
      back.searchParams.set("code", code);
      if (params.state !== undefined) back.searchParams.set("state", params.state);
      res.redirect(302, back.href);
    },
    challengeForAuthorizationCode: async (_client, code) => codes.get(code).codeChallenge,
    async exchangeAuthorizationCode(client, code, _verifier, _redirectUri, resource) {
      const grant = codes.get(code);
      codes.delete(code);
      if (grant === undefined || grant.client !== client.client_id) throw new Error("unknown code");
      const now = Math.floor(Date.now() / 1000);
      const claims = {
        iss: server.issuer,
        aud: (resource ?? grant.resource).href,
        sub: "person-1",
        iat: now,
        exp: now + 600,
        scope: grant.scopes.join(" "),
      };
      return { access_token: await mint(key, claims), token_type: "Bearer", expires_in: 600, scope: claims.scope };
    },
    exchangeRefreshToken: async () => {
      throw new Error("no refresh tokens here");
    },
    verifyAccessToken: async () => {
      throw new Error("this server only issues tokens");
    },
  };
  const app = express();
  const listener = app.listen(0, "127.0.0.1");
  await once(listener, "listening");
  t.after(() => listener.close());
  const issuerUrl = new URL(`http://127.0.0.1:${listener.address().port}/`);
  server.issuer = issuerUrl.href;
  app.get("/jwks.json", (_req, res) => res.json({ keys: [key.jwk] }));
  app.use(mcpAuthRouter({ provider, issuerUrl, scopesSupported: ["oda:read", "oda:write"] }));
  return server;
}

/** The SDK's OAuth client side, as a host keeps it: the registration, the tokens, the verifier; the "browser" follows the redirect. */
function hostProvider() {
  const kept = { client: undefined, tokens: undefined, verifier: "", code: "", asked: undefined };
  return {
    kept,
    redirectUrl: "http://127.0.0.1:9/callback",
    clientMetadata: {
      client_name: "a test host",
      redirect_uris: ["http://127.0.0.1:9/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    },
    clientInformation: () => kept.client,
    saveClientInformation: (client) => {
      kept.client = client;
    },
    tokens: () => kept.tokens,
    saveTokens: (tokens) => {
      kept.tokens = tokens;
    },
    saveCodeVerifier: (verifier) => {
      kept.verifier = verifier;
    },
    codeVerifier: () => kept.verifier,
    // The person's browser: the authorization server answers with a redirect back, holding the code.
    async redirectToAuthorization(url) {
      kept.asked = url;
      const answer = await fetch(url, { redirect: "manual" });
      kept.code = new URL(answer.headers.get("location")).searchParams.get("code") ?? "";
    },
  };
}

test("an MCP client with the SDK's OAuth discovers the metadata from the 401, gets a token with PKCE, and calls the tools", async (t) => {
  const as = await authorizationServer(t);
  const dir = mkdtempSync(join(tmpdir(), "oda-oauth-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { url, output } = await startServe(["--store", dir, "--auth", "jwt", "--issuer", as.issuer, "--jwks", `${as.issuer}jwks.json`], {
    env: { ODA_TASKS_COOKIE_SECRET: COOKIE_SECRET },
    t,
  });
  const mcp = new URL(`${url}/mcp`);
  const host = hostProvider();

  // First contact: the 401 sends the client through discovery, registration and authorization.
  const first = new Client({ name: "host", version: "1.0.0" });
  await assert.rejects(first.connect(new StreamableHTTPClientTransport(mcp, { authProvider: host })), UnauthorizedError);
  assert.ok(host.kept.client?.client_id, "the client registered itself");
  const asked = host.kept.asked;
  assert.equal(asked.origin + asked.pathname, `${as.issuer}authorize`);
  assert.equal(asked.searchParams.get("code_challenge_method"), "S256");
  assert.equal(asked.searchParams.get("resource"), mcp.href);
  assert.deepEqual(as.seen, [
    { scopes: ["oda:read", "oda:write"], resource: mcp.href, challenge: asked.searchParams.get("code_challenge") },
  ]);

  // Back from the browser with the code: the token exchange (with the verifier), then the tools.
  const transport = new StreamableHTTPClientTransport(mcp, { authProvider: host });
  await transport.finishAuth(host.kept.code);
  assert.equal(host.kept.tokens?.token_type, "Bearer");
  const client = new Client({ name: "host", version: "1.0.0" });
  await client.connect(transport);
  t.after(() => client.close());
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((tool) => tool.name),
    ["todo_write", "suggest_task"],
  );
  // The chat's session comes first (a program's route, with the same token), then the tool writes in it.
  const session = await fetch(`${url}/api/sessions/c1`, {
    method: "PUT",
    headers: { authorization: `Bearer ${host.kept.tokens.access_token}`, "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(session.status, 201);
  const result = await client.callTool({
    name: "todo_write",
    arguments: { todos: [{ content: "Ship it", status: "in_progress" }] },
    _meta: { "oda-tasks/chat": "c1" },
  });
  assert.deepEqual(result.content, [{ type: "text", text: "Updated todo list: 0 pending, 1 in progress, 0 completed" }]);
  assert.ok(!output().includes(host.kept.tokens.access_token), "no token in the log");
});
