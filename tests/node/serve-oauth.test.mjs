// `oda-tasks serve --auth jwt` the way MCP hosts use it: the MCP SDK's own
// OAuth client (`StreamableHTTPClientTransport` with an `authProvider`)
// against the built CLI in its own process and a local authorization server
// (the SDK's `mcpAuthRouter`, tests/node/support/oauth-server.mjs). The
// client gets serve's 401, follows its challenge to the Protected Resource
// Metadata and from there to the authorization server, registers, authorizes
// with PKCE and the resource (RFC 8707), and calls the tools with the JWT it
// gets. A person granted only `oda:read` is refused with 403
// insufficient_scope and the SDK asks for `oda:write`; a token issued for
// another server is refused for its audience. All on 127.0.0.1.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { approve, authorizationServer, COOKIE_SECRET, oauthClient, REDIRECT_URL } from "./support/oauth-server.mjs";
import { startServe } from "./support/oda-serve.mjs";

/** `serve --auth jwt` on a fresh folder, trusting `as`'s tokens (its key set fetched from its URL). */
async function serveFor(t, as) {
  const dir = mkdtempSync(join(tmpdir(), "oda-oauth-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return startServe(["--store", dir, "--auth", "jwt", "--issuer", as.issuer, "--jwks", as.jwksUrl], {
    env: { ODA_TASKS_COOKIE_SECRET: COOKIE_SECRET },
    t,
  });
}

/**
 * A `fetch` for the SDK that lists every request it made (`seen`:
 * `"METHOD url status"`) and keeps each answer (`answers`, read from a clone).
 * `firstPost(url)` is the first answer to a POST to `url` (the SDK opens its
 * GET stream after connecting without waiting for it, so that one comes at any time).
 */
function recordingFetch() {
  const seen = [];
  const answers = [];
  const recorded = async (url, init = {}) => {
    const answer = await fetch(url, init);
    const method = init.method ?? "GET";
    seen.push(`${method} ${url} ${answer.status}`);
    answers.push({ method, url: String(url), status: answer.status, headers: answer.headers, body: await answer.clone().text() });
    return answer;
  };
  const firstPost = (url) => answers.find((a) => a.method === "POST" && a.url === url);
  const clear = () => {
    seen.length = 0;
    answers.length = 0;
  };
  return { fetch: recorded, seen, answers, firstPost, clear };
}

/** An MCP client connected over `transport`; closed when `t` ends. */
async function connect(t, transport) {
  const client = new Client({ name: "oda-tasks test host", version: "1.0.0" });
  await client.connect(transport);
  t.after(() => client.close());
  return client;
}

/**
 * The first connection of a host: the SDK meets the 401, discovers, registers
 * and sends the person to authorize (`connect` rejects with
 * `UnauthorizedError`); the person approves and the SDK trades the code for a
 * token (`finishAuth`). Resolves to the connected client of a second
 * transport, as the SDK's own example does.
 */
async function signInAndConnect(t, url, oauth, recorder) {
  const options = { authProvider: oauth, fetch: recorder.fetch };
  const first = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), options);
  await assert.rejects(connect(t, first), UnauthorizedError);
  await first.finishAuth(await approve(oauth.redirects.at(-1), oauth.lastState));
  return connect(t, new StreamableHTTPClientTransport(new URL(`${url}/mcp`), options));
}

const text = (result) => result.content.map((part) => part.text).join("");
const metadataUrl = (url) => `${url}/.well-known/oauth-protected-resource/mcp`;

test("serve --auth jwt with the SDK's OAuth client: the 401's metadata, dynamic registration, PKCE at a local authorization server, then the tools with its JWT", async (t) => {
  const as = await authorizationServer(t);
  const { url, output } = await serveFor(t, as);
  const oauth = oauthClient();
  const recorder = recordingFetch();
  const origin = new URL(as.issuer).origin;

  // The first try: serve's challenge sends the SDK to the metadata it names, and on to the authorization server.
  const first = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: oauth, fetch: recorder.fetch });
  await assert.rejects(connect(t, first), UnauthorizedError);
  assert.deepEqual(recorder.seen, [
    `POST ${url}/mcp 401`,
    `GET ${metadataUrl(url)} 200`,
    `GET ${origin}/.well-known/oauth-authorization-server 200`,
    `POST ${origin}/register 201`,
  ]);
  const [refused] = recorder.answers;
  assert.equal(refused.headers.get("www-authenticate"), `Bearer resource_metadata="${metadataUrl(url)}", scope="oda:read oda:write"`);
  assert.equal(refused.body, '{"error":{"code":"http/unauthorized","message":"send an access token as Authorization: Bearer"}}');
  assert.deepEqual(JSON.parse(recorder.answers[1].body), {
    resource: `${url}/mcp`,
    authorization_servers: [as.issuer],
    scopes_supported: ["oda:read", "oda:write"],
    bearer_methods_supported: ["header"],
  });

  // It sent the person to authorize: a public client, PKCE with S256, the scopes of the challenge, serve's resource.
  assert.equal(oauth.redirects.length, 1);
  const asked = oauth.redirects[0];
  assert.equal(`${asked.origin}${asked.pathname}`, `${origin}/authorize`);
  const clientId = oauth.clientInformation().client_id;
  assert.equal(oauth.clientInformation().client_secret, undefined);
  assert.deepEqual(Object.fromEntries([...asked.searchParams].filter(([k]) => k !== "code_challenge" && k !== "state")), {
    response_type: "code",
    client_id: clientId,
    code_challenge_method: "S256",
    redirect_uri: REDIRECT_URL,
    scope: "oda:read oda:write",
    resource: `${url}/mcp`,
  });
  assert.match(asked.searchParams.get("code_challenge"), /^[A-Za-z0-9_-]{43}$/);

  // The person approves; the authorization server sees what the URL asked; the SDK trades the code and its verifier for a JWT bound to serve.
  await first.finishAuth(await approve(asked, oauth.lastState));
  assert.deepEqual(
    as.authorizations.map(({ clientId, scopes, resource, codeChallenge }) => ({ clientId, scopes, resource, codeChallenge })),
    [{ clientId, scopes: ["oda:read", "oda:write"], resource: `${url}/mcp`, codeChallenge: asked.searchParams.get("code_challenge") }],
  );
  assert.equal(recorder.seen.at(-1), `POST ${origin}/token 200`);
  assert.deepEqual(as.pkceChecks, [true]);
  const token = oauth.tokens().access_token;
  assert.deepEqual(decodeProtectedHeader(token), { alg: "RS256", kid: "as-key-1", typ: "at+jwt" });
  const claims = decodeJwt(token);
  assert.equal(claims.iss, as.issuer);
  assert.equal(claims.aud, `${url}/mcp`);
  assert.equal(claims.sub, "alice");
  assert.equal(claims.scope, "oda:read oda:write");
  assert.equal(claims.client_id, clientId);
  assert.ok(claims.exp > Date.now() / 1000 + 3000);

  // Connected with it: the tools, each request's token verified.
  recorder.clear();
  const client = await connect(t, new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: oauth, fetch: recorder.fetch }));
  assert.deepEqual(
    (await client.listTools()).tools.map((tool) => tool.name),
    ["todo_write", "suggest_task"],
  );
  const meta = { "oda-tasks/chat": "plan-1", "oda-tasks/turn": "turn-1" };
  const todos = { todos: [{ content: "Draft the release notes", status: "pending" }] };
  // No chat yet: the tool answers as the core does for a call with no owning session.
  const early = await client.callTool({ name: "todo_write", arguments: todos, _meta: meta });
  assert.equal(early.isError, true);
  assert.equal(text(early), "Error: todo_write requires an owning agent session");

  // The host's app creates the chat with the same token (serve's session route), then the calls land.
  const created = await fetch(`${url}/api/sessions/plan-1`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ title: "Release", workspace: "/w" }),
  });
  assert.equal(created.status, 201);
  assert.equal(await created.text(), '{"ok":true,"created":true}');
  const wrote = await client.callTool({ name: "todo_write", arguments: todos, _meta: meta });
  assert.equal(wrote.isError, undefined);
  assert.equal(text(wrote), "Updated todo list: 1 pending, 0 in progress, 0 completed");
  const offer = {
    title: "Automate the changelog",
    tldr: "Release notes by hand miss changes.",
    brief: "Generate the changelog from commits.",
  };
  const offered = await client.callTool({ name: "suggest_task", arguments: offer, _meta: meta });
  assert.equal(offered.isError, undefined);
  assert.equal(text(offered), 'Suggested "Automate the changelog". The user decides whether to start it; do not start it yourself.');
  // The chat holds them, read back with the token.
  const screen = await (await fetch(`${url}/api/oda/chats/plan-1`, { headers: { authorization: `Bearer ${token}` } })).json();
  assert.deepEqual(
    screen.todos.map((todo) => todo.content),
    ["Draft the release notes"],
  );
  assert.deepEqual(
    screen.open.map((s) => s.title),
    ["Automate the changelog"],
  );
  // Every MCP request went through with the token: no second authorization, no 401 or 403 (the GET stream is 405: stateless).
  for (const line of recorder.seen) assert.match(line, /^(POST \S+\/mcp 20[02]|GET \S+\/mcp 405)$/);
  assert.ok(recorder.seen.every((line) => line.includes(` ${url}/mcp `)));
  assert.equal(oauth.redirects.length, 1);
  assert.ok(!output().includes(token), "the token is in no log line");
});

test("serve --auth jwt with the SDK's OAuth client: a person granted only oda:read gets 403 insufficient_scope on /mcp, and the SDK asks for oda:write", async (t) => {
  const as = await authorizationServer(t);
  as.person = { sub: "reader", scopes: ["oda:read"] };
  const { url } = await serveFor(t, as);
  const oauth = oauthClient();
  const recorder = recordingFetch();
  const options = { authProvider: oauth, fetch: recorder.fetch };
  const first = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), options);
  await assert.rejects(connect(t, first), UnauthorizedError);
  await first.finishAuth(await approve(oauth.redirects[0], oauth.lastState));
  const readOnly = oauth.tokens().access_token;
  assert.equal(decodeJwt(readOnly).scope, "oda:read");

  // The token reads (a chat that does not exist is a 404, not a 403)...
  const read = await fetch(`${url}/api/oda/chats/plan-1`, { headers: { authorization: `Bearer ${readOnly}` } });
  assert.equal(read.status, 404);
  // ...but /mcp needs oda:write: serve's 403 challenge, and the SDK asks the person for that scope (step-up).
  recorder.clear();
  const second = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), options);
  await assert.rejects(connect(t, second), UnauthorizedError);
  const forbidden = recorder.firstPost(`${url}/mcp`);
  assert.equal(forbidden.status, 403);
  assert.equal(
    forbidden.headers.get("www-authenticate"),
    `Bearer error="insufficient_scope", scope="oda:write", resource_metadata="${metadataUrl(url)}"`,
  );
  assert.equal(forbidden.body, '{"error":{"code":"http/forbidden","message":"this needs the scope oda:write"}}');
  assert.equal(oauth.redirects.length, 2);
  assert.equal(oauth.redirects[1].searchParams.get("scope"), "oda:write");
  assert.equal(oauth.redirects[1].searchParams.get("resource"), `${url}/mcp`);
  // The client it registered is kept: no second registration.
  assert.equal(recorder.seen.filter((line) => line.includes("/register")).length, 0);

  // While the person may not write, the step-up grants nothing.
  await assert.rejects(approve(oauth.redirects[1], oauth.lastState), /no code: invalid_scope reader may have none of the scopes asked for/);
  // Once they may, it is granted, and the same host calls the tools.
  as.person = { sub: "reader", scopes: ["oda:read", "oda:write"] };
  const third = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), options);
  await assert.rejects(connect(t, third), UnauthorizedError);
  await third.finishAuth(await approve(oauth.redirects.at(-1), oauth.lastState));
  assert.equal(decodeJwt(oauth.tokens().access_token).scope, "oda:write");
  const client = await connect(t, new StreamableHTTPClientTransport(new URL(`${url}/mcp`), options));
  assert.equal((await client.listTools()).tools.length, 2);
});

test("serve --auth jwt with the SDK's OAuth client: a token the authorization server issued for another server is refused for its audience", async (t) => {
  const as = await authorizationServer(t);
  const a = await serveFor(t, as);
  const b = await serveFor(t, as);
  const oauth = oauthClient();
  const recorder = recordingFetch();
  await signInAndConnect(t, a.url, oauth, recorder);
  const forA = oauth.tokens().access_token;
  assert.equal(decodeJwt(forA).aud, `${a.url}/mcp`);

  // The same host takes its token (kept per authorization server, as the SDK keeps it) to another serve of the same issuer.
  recorder.clear();
  const options = { authProvider: oauth, fetch: recorder.fetch };
  const toB = new StreamableHTTPClientTransport(new URL(`${b.url}/mcp`), options);
  await assert.rejects(connect(t, toB), UnauthorizedError);
  const refused = recorder.firstPost(`${b.url}/mcp`);
  assert.equal(refused.status, 401);
  assert.equal(
    refused.headers.get("www-authenticate"),
    `Bearer error="invalid_token", resource_metadata="${metadataUrl(b.url)}", scope="oda:read oda:write"`,
  );
  assert.equal(
    refused.body,
    '{"error":{"code":"http/unauthorized","message":"the access token is not valid: it is meant for another audience"}}',
  );
  // The SDK asks the person again, for B's resource this time.
  assert.equal(oauth.redirects.at(-1).searchParams.get("resource"), `${b.url}/mcp`);
  await toB.finishAuth(await approve(oauth.redirects.at(-1), oauth.lastState));
  const forB = oauth.tokens().access_token;
  assert.equal(decodeJwt(forB).aud, `${b.url}/mcp`);
  const client = await connect(t, new StreamableHTTPClientTransport(new URL(`${b.url}/mcp`), options));
  assert.equal((await client.listTools()).tools.length, 2);
  // And B's token is no key to A.
  const back = await fetch(`${a.url}/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${forB}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  assert.equal(back.status, 401);
  assert.equal(
    await back.text(),
    '{"error":{"code":"http/unauthorized","message":"the access token is not valid: it is meant for another audience"}}',
  );
});
