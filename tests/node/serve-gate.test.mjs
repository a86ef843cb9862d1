// serve's gates as modules of the build (pkg/dist/serve/): the principal each
// mode gives a request. Under --auth jwt the owner is made of the token's
// issuer and sub, or with a tenant claim of the issuer and that claim's value,
// and of nothing in the request's path, query or body; the token and no-auth
// modes are one person, owner "". `admit` asks the one question.
import assert from "node:assert/strict";
import { test } from "node:test";
import { admit, openGate } from "../../pkg/dist/serve/gate.js";
import { tokenGate } from "../../pkg/dist/serve/auth.js";
import { jwtGate, ownerOf } from "../../pkg/dist/serve/jwt.js";
import { claimsFor, COOKIE_SECRET, ISSUER, mint, signingKey } from "./support/jwks.mjs";

const PUBLIC = "https://tasks.example";
const AUDIENCE = `${PUBLIC}/mcp`;

/** A jwt gate over a key set of `key` read at start. */
const gateOf = (key, options = {}) =>
  jwtGate({ issuer: ISSUER, keys: { set: { keys: [key.jwk] } }, publicUrl: () => PUBLIC, cookieSecret: COOKIE_SECRET, ...options });

/** A request for `path` with `token`, a body of its own and chat names that must not count. */
const request = (token, path = "/mcp") =>
  new Request(`${PUBLIC}${path}?owner=someone-else`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ params: { _meta: { "oda-tasks/chat": "c1", owner: "someone-else" }, sub: "someone-else" } }),
  });

const principalOf = async (gate, req) => {
  const verdict = await gate.check(req);
  assert.ok("principal" in verdict, JSON.stringify(verdict));
  return verdict.principal;
};

test("jwt gate: the owner is the issuer and sub; two subs are two owners; nothing of the request counts", async () => {
  const key = await signingKey("ES256", "k1");
  const gate = gateOf(key);
  const one = await mint(key, claimsFor(AUDIENCE, { sub: "user-1" }));
  const two = await mint(key, claimsFor(AUDIENCE, { sub: "user-2", org: "acme" }));
  assert.deepEqual(await principalOf(gate, request(one)), {
    owner: '["sub","https://issuer.example","user-1"]',
    read: true,
    write: true,
    via: "bearer",
  });
  assert.equal((await principalOf(gate, request(two, "/api/oda/chats/user-1"))).owner, '["sub","https://issuer.example","user-2"]');
  assert.equal(ownerOf(ISSUER, "sub", "user-1"), '["sub","https://issuer.example","user-1"]');
  // A sub that looks like an owner string is still only a sub.
  const tricky = await mint(key, claimsFor(AUDIENCE, { sub: '["tenant","https://issuer.example","acme"]' }));
  assert.equal(
    (await principalOf(gate, request(tricky))).owner,
    JSON.stringify(["sub", ISSUER, '["tenant","https://issuer.example","acme"]']),
  );
});

test("jwt gate --tenant-claim: two subs of one tenant are one owner; two tenants are two; the tenant is not a sub", async () => {
  const key = await signingKey("RS256", "k1");
  const gate = gateOf(key, { tenantClaim: "org" });
  const owner = async (claims) => (await principalOf(gate, request(await mint(key, claimsFor(AUDIENCE, claims))))).owner;
  const alice = await owner({ sub: "alice", org: "acme" });
  const bob = await owner({ sub: "bob", org: "acme" });
  assert.equal(alice, '["tenant","https://issuer.example","acme"]');
  assert.equal(bob, alice);
  assert.notEqual(await owner({ sub: "alice", org: "globex" }), alice);
  // Without the claim, the sub "acme" is another owner than the tenant "acme".
  assert.notEqual(
    await owner({ sub: "acme", org: "acme" }),
    (await principalOf(gateOf(key), request(await mint(key, claimsFor(AUDIENCE, { sub: "acme" }))))).owner,
  );
  const missing = await gate.check(request(await mint(key, claimsFor(AUDIENCE, { org: undefined }))));
  assert.equal(missing.refused.status, 401);
  assert.equal(missing.absent, false);
});

test("jwt gate: scopes give read and write; admit answers the principal or the refusal; a cookie only where cookies count", async () => {
  const key = await signingKey("RS256", "k1");
  const gate = gateOf(key);
  const reader = await mint(key, claimsFor(AUDIENCE, { scope: "oda:read" }));
  const writerScp = await mint(key, claimsFor(AUDIENCE, { scope: undefined, scp: ["oda:write"] }));
  assert.deepEqual(
    { ...(await principalOf(gate, request(reader))) },
    { owner: '["sub","https://issuer.example","user-1"]', read: true, write: false, via: "bearer" },
  );
  assert.deepEqual(
    { ...(await principalOf(gate, request(writerScp))) },
    { owner: '["sub","https://issuer.example","user-1"]', read: true, write: true, via: "bearer" },
  );
  const refused = await admit(gate, request(reader), "write");
  assert.ok(refused instanceof Response);
  assert.equal(refused.status, 403);
  assert.equal((await admit(gate, request(reader), "read")).owner, '["sub","https://issuer.example","user-1"]');

  // The cookie a sign-in makes carries the same owner and scopes.
  const signedIn = await gate.signIn(reader);
  const value = /^oda_session=([^;]+);/.exec(signedIn.cookie)[1];
  const withCookie = (headers = {}) =>
    new Request(`${PUBLIC}/api/oda/chats/c1`, { headers: { cookie: `oda_session=${value}`, ...headers } });
  assert.deepEqual(
    { ...(await principalOf(gate, withCookie())) },
    { owner: '["sub","https://issuer.example","user-1"]', read: true, write: false, via: "cookie" },
  );
  const programsOnly = await gate.check(withCookie(), { cookie: false });
  assert.equal(programsOnly.refused.status, 401);
  assert.equal(programsOnly.absent, true);
  const crossSite = await gate.check(withCookie({ "sec-fetch-site": "cross-site" }));
  assert.equal(crossSite.absent, true);
  // Another gate (another secret) does not take it.
  const other = jwtGate({ issuer: ISSUER, keys: { set: { keys: [key.jwk] } }, publicUrl: () => PUBLIC, cookieSecret: `${COOKIE_SECRET}!` });
  const foreign = await other.check(withCookie());
  assert.equal(foreign.refused.status, 401);
  assert.equal(foreign.absent, false);
  // Nor does a gate of the same secret for another audience (another deployment).
  const elsewhere = jwtGate({
    issuer: ISSUER,
    keys: { set: { keys: [key.jwk] } },
    publicUrl: () => "https://other.example",
    cookieSecret: COOKIE_SECRET,
  });
  assert.equal((await elsewhere.check(withCookie())).refused.status, 401);
  // The same secret and audience take it (another instance).
  const twin = gateOf(key);
  assert.equal((await principalOf(twin, withCookie())).via, "cookie");
});

test("the token gate and the open gate: one person, owner empty, every right", async () => {
  const token = "test-token-0123456789abcdef";
  const gate = tokenGate(token, { secure: false });
  assert.equal(gate.mode, "token");
  const bearer = await gate.check(new Request("http://localhost/mcp", { headers: { authorization: `Bearer ${token}` } }));
  assert.deepEqual({ ...bearer.principal }, { owner: "", read: true, write: true, via: "bearer" });
  const { cookie } = await gate.signIn(token);
  const session = cookie.split(";")[0];
  const viaCookie = await gate.check(new Request("http://localhost/chats/c1", { headers: { cookie: session } }));
  assert.deepEqual({ ...viaCookie.principal }, { owner: "", read: true, write: true, via: "cookie" });
  assert.equal((await gate.check(new Request("http://localhost/mcp", { headers: { cookie: session } }), { cookie: false })).absent, true);
  const wrong = await gate.check(new Request("http://localhost/mcp", { headers: { authorization: "Bearer not-the-token-at-all" } }));
  assert.equal(wrong.refused.status, 401);
  assert.equal(wrong.absent, false);
  assert.deepEqual(await gate.signIn("nope"), { refused: "token" });

  const open = openGate();
  assert.equal(open.mode, "none");
  assert.deepEqual(
    { ...(await admit(open, new Request("http://localhost/mcp"), "write")) },
    { owner: "", read: true, write: true, via: "bearer" },
  );
});
