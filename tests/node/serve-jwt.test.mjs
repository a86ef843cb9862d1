// `oda-tasks serve --auth jwt` as a user runs it: the built CLI in its own
// process, tokens minted with `jose` against a key set the test serves on
// 127.0.0.1 (or a file), each answer checked byte for byte: the challenges,
// the scopes, the Protected Resource Metadata, the sign-in cookie, a key set
// that cannot be fetched, the flags' checks; and no token or cookie in any
// answer, log line or URL.
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { claimsFor, COOKIE_SECRET, hmacWithPublicKey, ISSUER, jwksServer, mint, signingKey, unsigned } from "./support/jwks.mjs";
import { CLI, runServe, startServe } from "./support/oda-serve.mjs";

function tempDir(t, prefix = "oda-jwt-") {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** `serve --auth jwt` on `store` (a fresh folder), with the key set at `jwks`; `audience` is its default audience. */
async function serveJwt(t, jwks, extra = [], env = {}, store = tempDir(t)) {
  const started = await startServe(["--store", store, "--auth", "jwt", "--issuer", ISSUER, "--jwks", jwks, ...extra], {
    env: { ODA_TASKS_COOKIE_SECRET: COOKIE_SECRET, ...env },
    t,
  });
  return { ...started, audience: `${started.url}/mcp` };
}

/**
 * `fetch` against `url` that keeps every answer's status, headers (but a
 * sign-in's Set-Cookie, which carries the cookie by design) and body, and
 * every URL asked for, for the search for tokens and cookies at the end.
 */
function recorder(url) {
  const seen = [];
  const call = async (path, init = {}) => {
    const response = await fetch(`${url}${path}`, { redirect: "manual", ...init });
    const body = (response.headers.get("content-type") ?? "").startsWith("text/event-stream") ? "" : await response.text();
    if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) await response.body?.cancel();
    const headers = [...response.headers].filter(([k]) => k !== "set-cookie");
    seen.push(`${path} ${response.status} ${JSON.stringify(headers)} ${body}`);
    return { status: response.status, headers: response.headers, body, json: () => JSON.parse(body) };
  };
  return { call, seen };
}

const bearer = (token, init = {}) => ({ ...init, headers: { ...(init.headers ?? {}), authorization: `Bearer ${token}` } });
const jsonBody = (body, method = "POST") => ({ method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const mcpBody = (method, params = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
});
const form = (fields) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

const metadataUrl = (url) => `${url}/.well-known/oauth-protected-resource/mcp`;
const challenge = (url) => `Bearer resource_metadata="${metadataUrl(url)}", scope="oda:read oda:write"`;
const invalidChallenge = (url) => `Bearer error="invalid_token", resource_metadata="${metadataUrl(url)}", scope="oda:read oda:write"`;
const NO_TOKEN = '{"error":{"code":"http/unauthorized","message":"send an access token as Authorization: Bearer"}}';
const invalid = (reason) => `{"error":{"code":"http/unauthorized","message":"the access token is not valid: ${reason}"}}`;
const BAD_COOKIE = '{"error":{"code":"http/unauthorized","message":"the sign-in cookie is not valid or has expired; sign in again"}}';
const needs = (scope) => `{"error":{"code":"http/forbidden","message":"this needs the scope ${scope}"}}`;
const UNAVAILABLE = '{"error":{"code":"http/unavailable","message":"the keys that verify access tokens cannot be fetched; try again"}}';

/** Asserts an answer is the 401 of a refused token, byte for byte. */
function assertInvalid(answer, url, reason, what) {
  assert.equal(answer.status, 401, what);
  assert.equal(answer.headers.get("www-authenticate"), invalidChallenge(url), what);
  assert.equal(answer.body, invalid(reason), what);
}

/** Asserts none of `secrets` appears in any of `texts`. */
function assertNowhere(secrets, texts) {
  for (const secret of secrets) {
    for (const text of texts) assert.ok(!text.includes(secret), `a token or cookie leaked into: ${text.slice(0, 300)}`);
  }
}

test("serve --auth jwt: a good token reads and writes everywhere; no token and every bad token get the 401 challenge, byte for byte", async (t) => {
  const rs = await signingKey("RS256", "rs-1");
  const keys = [rs, await signingKey("ES256", "es-1"), await signingKey("PS256", "ps-1"), await signingKey("EdDSA", "ed-1")];
  const jwks = await jwksServer(t, keys);
  const { url, audience, output } = await serveJwt(t, jwks.url);
  const { call, seen } = recorder(url);
  const tokens = [];
  const token = async (claims = {}, key = rs, header = {}) => {
    const minted = await mint(key, claimsFor(audience, claims), header);
    tokens.push(minted);
    return minted;
  };
  const good = await token();

  // No token: the challenge without an error, on every route that needs one.
  for (const [path, init] of [
    ["/mcp", mcpBody("tools/list")],
    ["/api/sessions/c1", jsonBody({}, "PUT")],
    ["/api/turns/c1/begin", jsonBody({})],
    ["/api/oda/chats/c1", {}],
    ["/api/oda/chats/c1/events", {}],
    ["/assets/serve/chat-page.js", {}],
    // Another scheme is no bearer token.
    ["/api/oda/chats/c1", { headers: { authorization: `Basic ${good}` } }],
    // Never from a query string.
    [`/api/oda/chats/c1?access_token=${good}`, {}],
  ]) {
    const answer = await call(path, init);
    assert.equal(answer.status, 401, path);
    assert.equal(answer.headers.get("www-authenticate"), challenge(url), path);
    assert.equal(answer.body, NO_TOKEN, path);
  }

  // A good token, read and write: every kind of route.
  const created = await call("/api/sessions/c1", bearer(good, jsonBody({ workspace: "/w" }, "PUT")));
  assert.equal(created.status, 201);
  assert.equal(created.body, '{"ok":true,"created":true}');
  assert.equal((await call("/api/turns/c1/begin", bearer(good, jsonBody({})))).body, '{"ok":true,"turn":1}');
  const tools = await call("/mcp", bearer(good, mcpBody("tools/list")));
  assert.equal(tools.status, 200);
  assert.deepEqual(
    tools.json().result.tools.map((tool) => tool.name),
    ["todo_write", "suggest_task"],
  );
  const callTool = (name, args) =>
    call("/mcp", bearer(good, mcpBody("tools/call", { name, arguments: args, _meta: { "oda-tasks/chat": "c1" } })));
  const wrote = await callTool("todo_write", { todos: [{ content: "Ship it", status: "in_progress" }] });
  assert.equal(wrote.json().result.content[0].text, "Updated todo list: 0 pending, 1 in progress, 0 completed");
  const offered = await callTool("suggest_task", { title: "Add retries", tldr: "Flaky uploads.", brief: "Retry." });
  assert.equal(offered.json().result.isError, undefined, offered.body);
  assert.equal((await call("/api/oda/chats/c1", bearer(good))).json().todos[0].content, "Ship it");
  assert.equal((await call("/api/oda/chats/c1/cards?from=0", bearer(good))).status, 200);
  const events = await call("/api/oda/chats/c1/events", bearer(good));
  assert.equal(events.status, 200);
  assert.equal(events.headers.get("content-type"), "text/event-stream; charset=utf-8");
  const dismissed = await call("/api/oda/chats/c1/suggestions/s1/dismiss", bearer(good, jsonBody({})));
  assert.equal(dismissed.body, '{"ok":true}');
  assert.equal((await call("/chats/c1", bearer(good))).status, 200);
  assert.equal((await call("/assets/serve/chat-page.js", bearer(good))).status, 200);
  assert.equal((await call("/api/turns/c1/end", bearer(good, jsonBody({})))).body, '{"ok":true,"ended":true}');

  // Each algorithm taken, with a key of the set.
  for (const key of keys.slice(1)) {
    const answer = await call("/api/oda/chats/c1", bearer(await token({}, key)));
    assert.equal(answer.status, 200, key.alg);
  }
  // scp (an array, or space-separated) in place of scope.
  for (const scp of [["oda:write"], "oda:read oda:write"]) {
    const answer = await call("/mcp", bearer(await token({ scope: undefined, scp }), mcpBody("tools/list")));
    assert.equal(answer.status, 200, JSON.stringify(scp));
  }

  // Every bad token: 401 with error="invalid_token" and why, whatever the route.
  const now = Math.floor(Date.now() / 1000);
  const stranger = await signingKey("RS256", "rs-1");
  const cases = [
    ["expired", await token({ exp: now - 120, iat: now - 3720 }), "it has expired"],
    ["nbf in the future", await token({ nbf: now + 300 }), "it is not valid yet (nbf)"],
    ["iat in the future", await token({ iat: now + 300 }), "it was issued in the future (iat)"],
    ["a wrong audience", await token({ aud: "https://other.example/mcp" }), "it is meant for another audience"],
    [
      "the audience among others, wrong",
      await token({ aud: ["https://other.example/mcp", `${url}/`] }),
      "it is meant for another audience",
    ],
    ["no audience", await token({ aud: undefined }), "it has no aud claim"],
    ["a wrong issuer", await token({ iss: "https://evil.example" }), "it was issued by another issuer"],
    ["no issuer", await token({ iss: undefined }), "it has no iss claim"],
    ["no exp", await token({ exp: undefined }), "it has no exp claim"],
    ["exp not a number", await token({ exp: "tomorrow" }), "its exp claim is not valid"],
    ["no sub", await token({ sub: undefined }), "its sub claim must be a non-empty string of at most 1024 characters"],
    ["an empty sub", await token({ sub: "" }), "its sub claim must be a non-empty string of at most 1024 characters"],
    ["a sub that is no string", await token({ sub: 42 }), "its sub claim must be a non-empty string of at most 1024 characters"],
    ["alg none", unsigned(claimsFor(audience)), "its algorithm is not one of RS256, PS256, ES256, EdDSA"],
    [
      "HMAC with the public key",
      await hmacWithPublicKey(rs, claimsFor(audience)),
      "its algorithm is not one of RS256, PS256, ES256, EdDSA",
    ],
    ["RS384", await token({}, await signingKey("RS384", "rs-1")), "its algorithm is not one of RS256, PS256, ES256, EdDSA"],
    ["another key under a kid of the set", await token({}, stranger), "its signature does not verify"],
    ["a kid the set lacks", await token({}, { ...rs, kid: "nope" }), "no key of the issuer's key set matches it"],
    ["not a JWT", "not.a.jwt", "it is not a signed JWT this server reads"],
  ];
  for (const [what, bad, reason] of cases) {
    tokens.push(bad);
    for (const [path, init] of [
      ["/mcp", mcpBody("tools/list")],
      ["/api/oda/chats/c1", {}],
    ]) {
      assertInvalid(await call(path, bearer(bad, init)), url, reason, `${what} on ${path}`);
    }
  }
  // The key set was fetched once: at the first token (a kid it lacks within 30 s of a fetch is not fetched again).
  assert.equal(jwks.fetches.length, 1);

  // Nothing of a token in any answer, URL asked for or log line.
  assertNowhere(
    tokens.filter((x) => x.length > 20),
    [...seen.map((s) => s.replace(/^\/api\/oda\/chats\/c1\?access_token=\S+/, "")), output()],
  );
});

test("serve --auth jwt: scopes: a read-only token reads and gets 403 insufficient_scope on writes; a token of neither scope reads nothing", async (t) => {
  const key = await signingKey("ES256", "k1");
  const jwks = await jwksServer(t, [key]);
  const { url, audience } = await serveJwt(t, jwks.url);
  const { call } = recorder(url);
  const writer = await mint(key, claimsFor(audience));
  const reader = await mint(key, claimsFor(audience, { scope: "oda:read" }));
  const readerScp = await mint(key, claimsFor(audience, { scope: undefined, scp: ["oda:read"] }));
  const nothing = await mint(key, claimsFor(audience, { scope: "openid profile" }));
  await call("/api/sessions/c1", bearer(writer, jsonBody({ workspace: "/w" }, "PUT")));
  await call("/api/turns/c1/begin", bearer(writer, jsonBody({})));
  await call(
    "/mcp",
    bearer(
      writer,
      mcpBody("tools/call", {
        name: "suggest_task",
        arguments: { title: "T", tldr: "W.", brief: "B." },
        _meta: { "oda-tasks/chat": "c1" },
      }),
    ),
  );
  const forbidden = (answer, scope, what) => {
    assert.equal(answer.status, 403, what);
    assert.equal(
      answer.headers.get("www-authenticate"),
      `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadataUrl(url)}"`,
      what,
    );
    assert.equal(answer.body, needs(scope), what);
  };
  for (const token of [reader, readerScp]) {
    forbidden(await call("/mcp", bearer(token, mcpBody("tools/list"))), "oda:write", "/mcp");
    forbidden(await call("/api/sessions/c2", bearer(token, jsonBody({}, "PUT"))), "oda:write", "a session");
    forbidden(await call("/api/turns/c1/end", bearer(token, jsonBody({}))), "oda:write", "a turn");
    forbidden(await call("/api/oda/chats/c1/suggestions/s1/dismiss", bearer(token, jsonBody({}))), "oda:write", "a suggestion action");
    assert.equal((await call("/api/oda/chats/c1", bearer(token))).status, 200);
    assert.equal((await call("/api/oda/chats/c1/cards", bearer(token))).status, 200);
    assert.equal((await call("/api/oda/chats/c1/events", bearer(token))).status, 200);
    assert.equal((await call("/chats/c1", bearer(token))).status, 200);
    assert.equal((await call("/assets/serve/chat-page.js", bearer(token))).status, 200);
    assert.equal((await call("/api/sessions/c1/reminder", bearer(token))).body, '{"text":null}');
  }
  forbidden(await call("/api/oda/chats/c1", bearer(nothing)), "oda:read", "a read with no oda scope");
  forbidden(await call("/api/sessions/c1/reminder", bearer(nothing)), "oda:read", "the reminder with no oda scope");
  forbidden(await call("/chats/c1", bearer(nothing)), "oda:read", "a page with no oda scope");
  forbidden(await call("/assets/serve/chat-page.js", bearer(nothing)), "oda:read", "an asset with no oda scope");
  forbidden(await call("/mcp", bearer(nothing, mcpBody("tools/list"))), "oda:write", "/mcp with no oda scope");
  // The write token's scope holds: the offer is still open.
  assert.equal((await call("/api/oda/chats/c1", bearer(writer))).json().open.length, 1);
});

test("serve --auth jwt: the Protected Resource Metadata at both paths with no token; the challenge names it; --audience sets its resource", async (t) => {
  const key = await signingKey("RS256", "k1");
  const jwks = await jwksServer(t, [key]);
  const { url } = await serveJwt(t, jwks.url);
  const { call } = recorder(url);
  const document = (resource) =>
    `{"resource":"${resource}","authorization_servers":["${ISSUER}"],"scopes_supported":["oda:read","oda:write"],"bearer_methods_supported":["header"]}`;
  for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
    const answer = await call(path);
    assert.equal(answer.status, 200, path);
    assert.equal(answer.headers.get("content-type"), "application/json; charset=utf-8");
    assert.equal(answer.body, document(`${url}/mcp`), path);
    const posted = await call(path, { method: "POST" });
    assert.equal(posted.status, 405);
    assert.equal(posted.headers.get("allow"), "GET");
  }
  // A client follows the challenge's resource_metadata to it.
  const refused = await call("/mcp", mcpBody("initialize"));
  const named = /resource_metadata="([^"]+)"/.exec(refused.headers.get("www-authenticate"))?.[1];
  assert.equal(named, `${url}/.well-known/oauth-protected-resource/mcp`);
  assert.equal(await (await fetch(named)).text(), document(`${url}/mcp`));
  // The metadata is fetched before any token: the key set is not.
  assert.equal(jwks.fetches.length, 0);

  const other = await serveJwt(t, jwks.url, ["--audience", "https://tasks.example/mcp"]);
  assert.equal(await (await fetch(`${other.url}/.well-known/oauth-protected-resource`)).text(), document("https://tasks.example/mcp"));
  // The audience given is the one tokens must name.
  const forOther = await mint(key, claimsFor("https://tasks.example/mcp"));
  assert.equal((await fetch(`${other.url}/mcp`, bearer(forOther, mcpBody("tools/list")))).status, 200);
  const forDefault = await mint(key, claimsFor(other.audience));
  assert.equal((await fetch(`${other.url}/mcp`, bearer(forDefault, mcpBody("tools/list")))).status, 401);

  // The other modes serve no metadata.
  const plain = await startServe(["--store", tempDir(t)], { t });
  const none = await fetch(`${plain.url}/.well-known/oauth-protected-resource/mcp`);
  assert.equal(none.status, 404);
  assert.equal(await none.text(), '{"error":{"code":"http/not-found","message":"no such route"}}');
});

test("serve --auth jwt: a key set that cannot be fetched refuses with 503 and Retry-After, never lets a token through, and recovers", async (t) => {
  const key = await signingKey("RS256", "k1");
  const jwks = await jwksServer(t, [key]);
  await jwks.down();
  const { url, audience, output } = await serveJwt(t, jwks.url);
  const { call, seen } = recorder(url);
  const good = await mint(key, claimsFor(audience));
  for (const [path, init] of [
    ["/mcp", mcpBody("tools/list")],
    ["/api/sessions/c1", jsonBody({}, "PUT")],
    ["/api/oda/chats/c1", {}],
  ]) {
    const answer = await call(path, bearer(good, init));
    assert.equal(answer.status, 503, path);
    assert.equal(answer.headers.get("retry-after"), "5");
    assert.equal(answer.body, UNAVAILABLE);
  }
  // The sign-in form says so too, and sets no cookie.
  const signIn = await fetch(`${url}/sign-in`, { ...form({ token: good, next: "/chats/c1" }), redirect: "manual" });
  assert.equal(signIn.status, 503);
  assert.equal(signIn.headers.get("retry-after"), "5");
  assert.equal(signIn.headers.get("set-cookie"), null);
  assert.match(await signIn.text(), /<p role="alert">This server cannot check access tokens right now; try again in a moment\.<\/p>/);
  // No request got through: nothing was written.
  await jwks.up();
  const created = await call("/api/sessions/c1", bearer(good, jsonBody({}, "PUT")));
  assert.equal(created.status, 201, "the chat did not exist before");
  assert.equal((await call("/mcp", bearer(good, mcpBody("tools/list")))).status, 200);
  // Log lines on stderr, one JSON object each: the outage a warning, its end news.
  const lines = output()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
  const said = (msg) => lines.find((l) => l.msg === msg);
  assert.equal(said("the JWKS cannot be fetched (ECONNREFUSED): requests with a token get 503 until it can")?.level, "warn");
  assert.equal(said("the JWKS can be fetched again")?.level, "info");
  assert.equal(output().match(/cannot be fetched/g).length, 1, "one line per outage");
  assertNowhere([good], [...seen, output()]);
});

test("serve --auth jwt --jwks <file>: the key set read at start; a key it lacks is refused", async (t) => {
  const key = await signingKey("EdDSA", "file-1");
  const dir = tempDir(t);
  const file = join(dir, "jwks.json");
  writeFileSync(file, JSON.stringify({ keys: [key.jwk] }));
  const { url, audience } = await serveJwt(t, file);
  const { call } = recorder(url);
  assert.equal((await call("/mcp", bearer(await mint(key, claimsFor(audience)), mcpBody("tools/list")))).status, 200);
  const other = await signingKey("EdDSA", "file-2");
  assertInvalid(
    await call("/mcp", bearer(await mint(other, claimsFor(audience)), mcpBody("tools/list"))),
    url,
    "no key of the issuer's key set matches it",
    "a kid the file lacks",
  );
});

test("serve --auth jwt --tenant-claim: the claim must be a non-empty string; its holder reads and writes", async (t) => {
  const key = await signingKey("RS256", "k1");
  const jwks = await jwksServer(t, [key]);
  const { url, audience } = await serveJwt(t, jwks.url, ["--tenant-claim", "org"]);
  const { call } = recorder(url);
  assert.equal(
    (await call("/api/sessions/c1", bearer(await mint(key, claimsFor(audience, { org: "acme" })), jsonBody({}, "PUT")))).status,
    201,
  );
  for (const org of [undefined, "", 7]) {
    assertInvalid(
      await call("/api/oda/chats/c1", bearer(await mint(key, claimsFor(audience, { org })))),
      url,
      "its org claim must be a non-empty string of at most 1024 characters",
      JSON.stringify(org),
    );
  }
});

test("serve --auth jwt: the sign-in cookie carries the owner and scopes, ends at the token's exp, holds on every instance with the secret, and a changed one is 401", async (t) => {
  const key = await signingKey("RS256", "k1");
  const jwks = await jwksServer(t, [key]);
  // Two instances with one audience and one secret (as behind a load balancer), and one with another secret.
  const audience = "https://tasks.example/mcp";
  const store = tempDir(t);
  const a = await serveJwt(t, jwks.url, ["--audience", audience], {}, store);
  const b = await serveJwt(t, jwks.url, ["--audience", audience], {}, store);
  const c = await serveJwt(t, jwks.url, ["--audience", audience], { ODA_TASKS_COOKIE_SECRET: `${COOKIE_SECRET}-other` }, store);
  const { call, seen } = recorder(a.url);
  const writer = await mint(key, claimsFor(audience));
  await call("/api/sessions/c1", bearer(writer, jsonBody({ workspace: "/w" }, "PUT")));
  await call("/api/turns/c1/begin", bearer(writer, jsonBody({})));
  await call(
    "/mcp",
    bearer(
      writer,
      mcpBody("tools/call", {
        name: "suggest_task",
        arguments: { title: "T", tldr: "W.", brief: "B." },
        _meta: { "oda-tasks/chat": "c1" },
      }),
    ),
  );

  // The page asks to sign in, saying what to paste.
  const page = await call("/chats/c1");
  assert.equal(page.status, 401);
  assert.match(
    page.body,
    /<label for="token">Access token \(an OAuth access token for this server, with the scope oda:read or oda:write\)<\/label>/,
  );
  assert.doesNotMatch(page.body, /role="alert"/);
  const wrong = await call("/sign-in", form({ token: await mint(key, claimsFor("https://other.example/mcp")), next: "/chats/c1" }));
  assert.equal(wrong.status, 401);
  assert.equal(wrong.headers.get("set-cookie"), null);
  assert.match(wrong.body, /<p role="alert">That access token is not valid here, or it has expired\.<\/p>/);
  // A token whose exp has passed (within the 60 s leeway a bearer gets) makes no cookie: a cookie takes no leeway.
  const now = Math.floor(Date.now() / 1000);
  const lapsed = await mint(key, claimsFor(audience, { exp: now - 5 }));
  assert.equal((await call("/api/oda/chats/c1", bearer(lapsed))).status, 200, "a bearer within the leeway");
  assert.equal((await call("/sign-in", form({ token: lapsed, next: "/chats/c1" }))).status, 401);
  // A token of no oda scope makes none either.
  assert.equal((await call("/sign-in", form({ token: await mint(key, claimsFor(audience, { scope: "openid" })), next: "/" }))).status, 401);

  // A read-only token for four seconds more.
  const exp = Math.floor(Date.now() / 1000) + 4;
  const reader = await mint(key, claimsFor(audience, { scope: "oda:read", exp }));
  const signedIn = await call("/sign-in", form({ token: reader, next: "/chats/c1" }));
  assert.equal(signedIn.status, 303);
  assert.equal(signedIn.headers.get("location"), "/chats/c1");
  const setCookie = signedIn.headers.get("set-cookie");
  const m = /^oda_session=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}); HttpOnly; SameSite=Strict; Path=\/; Max-Age=(\d)$/.exec(setCookie);
  assert.ok(m, setCookie);
  assert.ok(Number(m[2]) >= 2 && Number(m[2]) <= 4, setCookie);
  const value = m[1];
  const cookie = { cookie: `oda_session=${value}` };
  assert.ok(!value.includes(reader.split(".")[1]), "the cookie is not the token");
  // It reads, on this instance and on another with the same secret.
  for (const server of [a, b]) {
    assert.equal((await fetch(`${server.url}/api/oda/chats/c1`, { headers: cookie })).status, 200);
    assert.equal((await fetch(`${server.url}/chats/c1`, { headers: cookie })).status, 200);
  }
  // It carries the scopes: read-only, so no suggestion action.
  const action = await call("/api/oda/chats/c1/suggestions/s1/dismiss", {
    ...jsonBody({}),
    headers: { ...jsonBody({}).headers, ...cookie },
  });
  assert.equal(action.status, 403);
  assert.equal(action.body, needs("oda:write"));
  // A cookie never calls a tool or writes a session or a turn: for those it is no credential.
  for (const [path, init] of [
    ["/mcp", mcpBody("tools/list")],
    ["/api/sessions/c2", jsonBody({}, "PUT")],
  ]) {
    const answer = await call(path, { ...init, headers: { ...init.headers, ...cookie } });
    assert.equal(answer.status, 401, path);
    assert.equal(answer.body, NO_TOKEN, path);
  }
  // From another site it counts for nothing.
  assert.equal((await call("/api/oda/chats/c1", { headers: { ...cookie, "sec-fetch-site": "cross-site" } })).body, NO_TOKEN);
  // Another secret, or one changed character: 401.
  const other = await fetch(`${c.url}/api/oda/chats/c1`, { headers: cookie });
  assert.equal(other.status, 401);
  assert.equal(await other.text(), BAD_COOKIE);
  const [payload, signature] = value.split(".");
  const flip = (text, at) => text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1);
  for (const changed of [`${flip(payload, 3)}.${signature}`, `${payload}.${flip(signature, 5)}`, `${payload}x.${signature}`, "open"]) {
    const answer = await call("/api/oda/chats/c1", { headers: { cookie: `oda_session=${changed}` } });
    assert.equal(answer.status, 401, changed);
    assert.equal(answer.headers.get("www-authenticate"), challenge(a.url));
    assert.equal(answer.body, BAD_COOKIE);
    const refusedPage = await call("/chats/c1", { headers: { cookie: `oda_session=${changed}` } });
    assert.equal(refusedPage.status, 401);
    assert.match(refusedPage.body, /<p role="alert">Your sign-in has ended; sign in again\.<\/p>/);
  }
  // At the token's exp, the cookie ends with it, with no leeway.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now() + 50)));
  const ended = await call("/api/oda/chats/c1", { headers: cookie });
  assert.equal(ended.status, 401);
  assert.equal(ended.body, BAD_COOKIE);

  assertNowhere([reader, writer, lapsed, value], [...seen, a.output(), b.output(), c.output()]);
});

test("serve --auth jwt --public-url https://…: the cookie is Secure; the challenge and metadata name the public address", async (t) => {
  const key = await signingKey("RS256", "k1");
  const jwks = await jwksServer(t, [key]);
  const { url } = await serveJwt(t, jwks.url, ["--public-url", "https://tasks.example/oda"]);
  const token = await mint(key, claimsFor("https://tasks.example/oda/mcp"));
  const signedIn = await fetch(`${url}/sign-in`, { ...form({ token, next: "/chats/c1" }), redirect: "manual" });
  assert.match(signedIn.headers.get("set-cookie"), /^oda_session=[^;]+; HttpOnly; SameSite=Strict; Path=\/; Max-Age=\d+; Secure$/);
  const refused = await fetch(`${url}/mcp`, mcpBody("tools/list"));
  assert.equal(
    refused.headers.get("www-authenticate"),
    'Bearer resource_metadata="https://tasks.example/oda/.well-known/oauth-protected-resource/mcp", scope="oda:read oda:write"',
  );
  const metadata = await (await fetch(`${url}/.well-known/oauth-protected-resource/mcp`)).json();
  assert.equal(metadata.resource, "https://tasks.example/oda/mcp");
  // The token mode's cookie is Secure behind https too.
  const plain = await startServe(["--store", tempDir(t), "--public-url", "https://tasks.example"], { t });
  const tokenCookie = await fetch(`${plain.url}/sign-in`, {
    ...form({ token: "test-token-0123456789abcdef", next: "/chats/c1" }),
    redirect: "manual",
  });
  assert.match(
    tokenCookie.headers.get("set-cookie"),
    /^oda_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=2592000; Secure$/,
  );
});

test("serve --auth jwt refuses to start with a flag or setting it cannot use: one line, exit 2, no stack", async (t) => {
  const dir = tempDir(t);
  const file = (name, text) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const empty = file("empty.json", "{}");
  const notJson = file("bad.json", "{keys");
  const good = file("good.json", JSON.stringify({ keys: [(await signingKey("ES256", "k")).jwk] }));
  const store = join(dir, "store");
  const jwt = ["--auth", "jwt", "--issuer", ISSUER, "--jwks", good];
  const secret = { ODA_TASKS_COOKIE_SECRET: COOKIE_SECRET };
  const cases = [
    [["--auth", "oauth"], secret, '--auth must be token or jwt (got "oauth")'],
    [[...jwt, "--no-auth"], secret, "--no-auth and --auth jwt exclude each other"],
    [["--no-auth", "--auth", "token"], {}, "--no-auth and --auth token exclude each other"],
    [["--issuer", ISSUER], { ODA_TASKS_TOKEN: "test-token-0123456789abcdef" }, "--issuer is only taken with --auth jwt"],
    [["--jwks", good], {}, "--jwks is only taken with --auth jwt"],
    [["--no-auth", "--audience", "https://a.example/mcp"], {}, "--audience is only taken with --auth jwt"],
    [["--tenant-claim", "org"], {}, "--tenant-claim is only taken with --auth jwt"],
    [["--auth", "jwt", "--jwks", good], secret, "--auth jwt needs --issuer <URL> (the authorization server whose tokens it takes)"],
    [["--auth", "jwt", "--issuer", ISSUER], secret, "--auth jwt needs --jwks <URL | file> (the issuer's signing keys)"],
    [
      ["--auth", "jwt", "--issuer", "issuer.example"],
      secret,
      '--issuer must be an http(s) URL with no credentials or fragment (got "issuer.example")',
    ],
    [[...jwt, "--audience", "urn:oda"], secret, '--audience must be an http(s) URL with no credentials or fragment (got "urn:oda")'],
    [
      [...jwt, "--tenant-claim", "an org"],
      secret,
      '--tenant-claim must be a claim name of 1 to 100 visible ASCII characters (got "an org")',
    ],
    [
      jwt,
      {},
      "set ODA_TASKS_COOKIE_SECRET to a secret of at least 32 characters, the same on every instance (it signs the browsers' sign-in cookies)",
    ],
    [jwt, { ODA_TASKS_COOKIE_SECRET: "short" }, "ODA_TASKS_COOKIE_SECRET must be at least 32 characters (got 5)"],
    [
      [...jwt, "--host", "0.0.0.0"],
      secret,
      "--auth jwt off loopback needs --public-url: the address clients reach, which the tokens' audience and the metadata name",
    ],
    ...["http://keys.example/jwks.json", "ftp://127.0.0.1/jwks.json", "https://user:pw@keys.example/jwks.json"].map((url) => [
      ["--auth", "jwt", "--issuer", ISSUER, "--jwks", url],
      secret,
      `--jwks must be an https:// URL, an http:// URL on a loopback host, or a file (got ${JSON.stringify(url)})`,
    ]),
    [
      ["--auth", "jwt", "--issuer", ISSUER, "--jwks", join(dir, "missing.json")],
      secret,
      `--jwks ${join(dir, "missing.json")}: cannot read the file (ENOENT)`,
    ],
    ...[empty, notJson].map((path) => [
      ["--auth", "jwt", "--issuer", ISSUER, "--jwks", path],
      secret,
      `--jwks ${path} is not a JSON Web Key Set (a JSON object {"keys": [...]} with at least one key)`,
    ]),
  ];
  for (const [args, env, message] of cases) {
    const { code, stdout, stderr } = await runServe(["--store", store, ...args], env);
    assert.equal(code, 2, `${message}\n${stderr}`);
    assert.equal(stdout, "");
    assert.ok(stderr.startsWith(`oda-tasks serve: ${message}\n\n`), stderr);
    assert.doesNotMatch(stderr, /\n\s+at /, "no stack");
  }
});

test("serve --auth jwt without jose installed: one line saying what to install, exit 2", async (t) => {
  // The built package alone, its MCP SDK linked in, and no jose anywhere above it.
  const root = tempDir(t, "oda-nojose-");
  const repo = fileURLToPath(new URL("../../", import.meta.url));
  for (const part of ["dist", "wasm", "example", "package.json"])
    cpSync(join(repo, "pkg", part), join(root, "pkg", part), { recursive: true });
  mkdirSync(join(root, "node_modules", "@modelcontextprotocol"), { recursive: true });
  for (const name of ["@modelcontextprotocol/sdk", "zod"]) symlinkSync(join(repo, "node_modules", name), join(root, "node_modules", name));
  const cli = join(root, "pkg", CLI.slice(CLI.indexOf("/dist/") + 1));
  const child = spawn(
    process.execPath,
    [cli, "serve", "--store", join(root, "store"), "--auth", "jwt", "--issuer", ISSUER, "--jwks", "https://issuer.example/jwks.json"],
    {
      env: { PATH: process.env.PATH, ODA_TASKS_COOKIE_SECRET: COOKIE_SECRET },
    },
  );
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c));
  const code = await new Promise((resolve) => child.once("exit", resolve));
  assert.equal(code, 2, stderr);
  assert.ok(stderr.startsWith("oda-tasks serve: --auth jwt needs the `jose` package: npm install jose\n\n"), stderr);
});

test("serve --auth jwt: the sign-in form takes a long access token (17 KiB of form); a larger body is a 413", async (t) => {
  const key = await signingKey("RS256", "k1");
  const jwks = await jwksServer(t, [key]);
  const { url, audience } = await serveJwt(t, jwks.url);
  // A token of some 8 KiB, as identity providers that pack groups into it make them: over the token mode's 4 KiB form.
  const long = await mint(key, claimsFor(audience, { groups: Array.from({ length: 400 }, (_, i) => `group-${i}`) }));
  assert.ok(long.length > 6000, `${long.length}`);
  const signedIn = await fetch(`${url}/sign-in`, { ...form({ token: long, next: "/chats/c1" }), redirect: "manual" });
  assert.equal(signedIn.status, 303);
  const big = await fetch(`${url}/sign-in`, { ...form({ token: "x".repeat(17_500), next: "/chats/c1" }), redirect: "manual" });
  assert.equal(big.status, 413);
  assert.equal(await big.text(), '{"error":{"code":"http/payload-too-large","message":"the body is larger than 17408 bytes"}}');
});
