// An OAuth issuer's side for `serve --auth jwt`, made with `jose`: signing
// keys, access tokens minted with them, and a JSON Web Key Set served on
// 127.0.0.1 that counts its fetches and can go down and come back.
import { once } from "node:events";
import { createServer } from "node:http";
import { base64url, exportJWK, exportSPKI, generateKeyPair, SignJWT } from "jose";

export const ISSUER = "https://issuer.example";
/** A cookie secret of 32+ characters. */
export const COOKIE_SECRET = "cookie-secret-0123456789abcdef-0123456789";

/**
 * A signing key pair for `alg` named `kid`: `{ alg, kid, privateKey, publicKey, jwk }`
 * (`jwk`: the public key as its key set lists it).
 */
export async function signingKey(alg, kid) {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, kid, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

/** The claims of a good token for `audience`, one hour long, with `claims` over them (`undefined` drops one). */
export function claimsFor(audience, claims = {}) {
  const now = Math.floor(Date.now() / 1000);
  const all = { iss: ISSUER, aud: audience, sub: "user-1", iat: now, exp: now + 3600, scope: "oda:read oda:write", ...claims };
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined));
}

/** A JWT of `claims` signed with `key` (its alg and kid in the header unless `header` says otherwise). */
export function mint(key, claims, header = {}) {
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT", ...header }).sign(key.privateKey);
}

/** An unsigned token (`alg: none`), as an attacker writes it. */
export function unsigned(claims) {
  const part = (value) => base64url.encode(JSON.stringify(value));
  return `${part({ alg: "none", typ: "JWT" })}.${part(claims)}.`;
}

/** A token signed with HS256 whose secret is `key`'s public key (its PEM): the key-confusion attack. */
export async function hmacWithPublicKey(key, claims) {
  const pem = await exportSPKI(key.publicKey);
  return new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: key.kid, typ: "JWT" }).sign(new TextEncoder().encode(pem));
}

/**
 * A key set served at `http://127.0.0.1:<port>/jwks.json` holding `keys`
 * (changed through `serve.keys`); `fetches` lists when each fetch came (ms).
 * `down()` stops listening (connections refused), `up()` listens on the same
 * port again. Closed when `t` ends.
 */
export async function jwksServer(t, keys) {
  const served = {
    keys: [...keys],
    fetches: [],
    url: "",
    async down() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
    async up() {
      server.listen(port, "127.0.0.1");
      await once(server, "listening");
    },
  };
  const server = createServer((req, res) => {
    if (req.url !== "/jwks.json") {
      res.writeHead(404).end();
      return;
    }
    served.fetches.push(Date.now());
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: served.keys.map((k) => k.jwk) }));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  served.url = `http://127.0.0.1:${port}/jwks.json`;
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return served;
}
