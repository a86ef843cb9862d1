// `serve --auth jwt` through a key rotation, against a key set the test
// serves on 127.0.0.1: the set is fetched at the first token and cached; a
// token naming a key the cache lacks sends the server back to the set at
// most once every 30 s; a key added later is taken once that cooldown has
// passed. (A file of its own: it waits out one cooldown, beside the others.)
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { claimsFor, COOKIE_SECRET, ISSUER, jwksServer, mint, signingKey } from "./support/jwks.mjs";
import { startServe } from "./support/oda-serve.mjs";

const COOLDOWN_MS = 30_000;

test("serve --auth jwt: a rotated-in key is picked up after the 30 s cooldown, and the key set is fetched at most once per cooldown", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "oda-rotation-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const old = await signingKey("RS256", "2026-11");
  const next = await signingKey("ES256", "2026-12");
  const jwks = await jwksServer(t, [old]);
  const { url, output } = await startServe(["--store", dir, "--auth", "jwt", "--issuer", ISSUER, "--jwks", jwks.url], {
    env: { ODA_TASKS_COOKIE_SECRET: COOKIE_SECRET },
    t,
  });
  const audience = `${url}/mcp`;
  const read = async (key, kid = key.kid) => {
    const answer = await fetch(`${url}/api/oda/chats/c1`, {
      headers: { authorization: `Bearer ${await mint(key, claimsFor(audience), { kid })}` },
    });
    return { status: answer.status, body: await answer.text() };
  };
  const NO_KEY =
    '{"error":{"code":"http/unauthorized","message":"the access token is not valid: no key of the issuer\'s key set matches it"}}';
  const MISSING = '{"error":{"code":"store/missing-chat","message":"no such chat"}}';

  // Nothing is fetched before the first token; the first fetches the set.
  assert.equal(jwks.fetches.length, 0);
  assert.deepEqual(await read(old), { status: 404, body: MISSING });
  assert.equal(jwks.fetches.length, 1);
  const first = jwks.fetches[0];

  // The issuer rotates the new key in. Within the cooldown a token of it is refused, and the set is not fetched again,
  // however many such tokens come (nor for a kid no set will ever hold).
  jwks.keys.push(next);
  for (let i = 0; i < 5; i++) {
    assert.deepEqual(await read(next), { status: 401, body: NO_KEY });
    assert.deepEqual(await read(old, "forged-kid"), { status: 401, body: NO_KEY });
  }
  assert.equal(jwks.fetches.length, 1, "no fetch within the cooldown");
  // The cached key still verifies meanwhile.
  assert.equal((await read(old)).status, 404);

  // Once the cooldown has passed, the next token of the new key fetches the set once more, and is taken.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, first + COOLDOWN_MS + 250 - Date.now())));
  assert.deepEqual(await read(next), { status: 404, body: MISSING });
  assert.equal(jwks.fetches.length, 2);
  assert.ok(jwks.fetches[1] - first >= COOLDOWN_MS, `the second fetch came ${jwks.fetches[1] - first} ms after the first`);
  // And a new cooldown starts: an unknown kid right after is refused without a fetch.
  assert.deepEqual(await read(next, "2027-01"), { status: 401, body: NO_KEY });
  assert.equal((await read(old)).status, 404, "the old key stays while the set lists it");
  assert.equal(jwks.fetches.length, 2);
  assert.doesNotMatch(output(), /JWKS/, "no outage was logged");
});
