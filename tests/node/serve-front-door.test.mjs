// `oda-tasks serve`'s Host and Origin checks, in every mode, as a browser
// after a DNS rebinding or a page of another site would meet them: a
// foreign Origin, and bound to loopback a foreign Host, get a fixed 403
// before anything else (no chat created, no token asked for); the server's
// own origins and a request with no Origin pass.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { COOKIE_SECRET, ISSUER, jwksServer, signingKey } from "./support/jwks.mjs";
import { startServe, TOKEN } from "./support/oda-serve.mjs";
import { rawRequest } from "./support/raw-http.mjs";

const FOREIGN_ORIGIN = '{"error":{"code":"http/forbidden","message":"requests from another origin are not allowed"}}';
const FOREIGN_HOST = '{"error":{"code":"http/forbidden","message":"the Host header names another server"}}';

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "oda-door-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Every route kind, with what a browser's request for it carries. */
const ROUTES = [
  ["GET", "/health"],
  ["POST", "/mcp", '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'],
  ["PUT", "/api/sessions/x", "{}"],
  ["POST", "/api/turns/x/begin", "{}"],
  ["GET", "/api/oda/chats/x"],
  ["POST", "/api/oda/chats/x/suggestions/s1/dismiss", "{}"],
  ["GET", "/chats/x"],
  ["POST", "/sign-in", "token=x"],
  ["GET", "/assets/serve/chat-page.js"],
  ["GET", "/.well-known/oauth-protected-resource/mcp"],
  ["GET", "/nowhere"],
];

/** The three modes, each started on 127.0.0.1 with `extra` flags; resolves to `{ url, store, auth }` (auth: the headers that let a program in). */
async function modes(t, extra = []) {
  const key = await signingKey("RS256", "k1");
  const jwks = await jwksServer(t, [key]);
  const out = [];
  for (const [mode, args, env, auth] of [
    ["--no-auth", ["--no-auth"], {}, {}],
    ["token", [], { ODA_TASKS_TOKEN: TOKEN }, { authorization: `Bearer ${TOKEN}` }],
    ["--auth jwt", ["--auth", "jwt", "--issuer", ISSUER, "--jwks", jwks.url], { ODA_TASKS_COOKIE_SECRET: COOKIE_SECRET }, {}],
  ]) {
    const store = tempDir(t);
    const { url } = await startServe(["--store", store, ...args, ...extra], { env, t });
    out.push({ mode, url, store, auth, port: new URL(url).port });
  }
  return out;
}

test("serve on loopback, in every mode: a foreign Host or Origin gets 403 before anything else, on every route", async (t) => {
  for (const { mode, url, store, port } of await modes(t)) {
    for (const [method, path, body] of ROUTES) {
      const type = path === "/sign-in" ? "application/x-www-form-urlencoded" : "application/json";
      const send = (headers) => rawRequest(url, { method, path, body, headers: { "content-type": type, ...headers } });
      for (const [headers, text] of [
        [{ host: "evil.example" }, FOREIGN_HOST],
        [{ host: `evil.example:${port}` }, FOREIGN_HOST],
        [{ host: "localhost.evil.example" }, FOREIGN_HOST],
        [{ host: `evil.example:${port}`, origin: `http://evil.example:${port}` }, FOREIGN_HOST],
        [{ host: `localhost:${port}`, origin: "https://evil.example" }, FOREIGN_ORIGIN],
        [{ host: `localhost:${port}`, origin: "null" }, FOREIGN_ORIGIN],
        [{ host: `localhost:${port}`, origin: `http://localhost:${Number(port) + 1}` }, FOREIGN_ORIGIN],
        [{ host: `localhost:${port}`, origin: `https://localhost:${port}` }, FOREIGN_ORIGIN],
        [{ host: `127.0.0.1:${port}`, origin: "http://127.0.0.1" }, FOREIGN_ORIGIN],
      ]) {
        const answer = await send(headers);
        const what = `${mode}: ${method} ${path} with ${JSON.stringify(headers)}`;
        assert.equal(answer.status, 403, what);
        assert.equal(answer.body, text, what);
        assert.equal(answer.headers["www-authenticate"], undefined, what);
      }
    }
    // Nothing was created: not even --no-auth's open door let a foreign request write.
    assert.deepEqual(readdirSync(store), [], mode);
  }
});

test("serve on loopback, in every mode: its own origins, the loopback names on any port, and no Origin pass", async (t) => {
  for (const { mode, url, store, auth, port } of await modes(t)) {
    for (const headers of [
      {},
      { host: `localhost:${port}` },
      { host: "localhost" },
      { host: "127.0.0.1:1" },
      { host: `[::1]:${port}` },
      { host: `LOCALHOST:${port}`, origin: `http://LOCALHOST:${port}` },
      { host: `localhost:${port}`, origin: `http://localhost:${port}` },
      { host: `localhost:${port}`, origin: `http://127.0.0.1:${port}` },
      { host: `localhost:${port}`, origin: `http://[::1]:${port}` },
    ]) {
      const answer = await rawRequest(url, { path: "/health", headers });
      assert.equal(answer.status, 200, `${mode} ${JSON.stringify(headers)}`);
      assert.equal(answer.body, '{"ok":true}');
    }
    // Past the front door, each mode's own rule: --no-auth and the token create the chat; jwt wants a token.
    const created = await rawRequest(url, {
      method: "PUT",
      path: "/api/sessions/c1",
      body: "{}",
      headers: { "content-type": "application/json", origin: `http://localhost:${port}`, ...auth },
    });
    assert.equal(created.status, mode === "--auth jwt" ? 401 : 201, mode);
    assert.equal(readdirSync(store).length, mode === "--auth jwt" ? 0 : 1, mode);
  }
});

test("serve --public-url: its origin and its host pass beside the loopback ones; another origin of the same host does not", async (t) => {
  for (const { mode, url, port } of await modes(t, ["--public-url", "https://tasks.example/oda"])) {
    for (const [headers, status] of [
      [{ host: "tasks.example", origin: "https://tasks.example" }, 200],
      [{ host: "tasks.example:443", origin: "https://tasks.example:443" }, 200],
      [{ host: `localhost:${port}`, origin: `http://localhost:${port}` }, 200],
      [{ host: "tasks.example", origin: "http://tasks.example" }, 403],
      [{ host: "tasks.example", origin: "https://tasks.example:8443" }, 403],
      [{ host: "other.example", origin: "https://tasks.example" }, 403],
    ]) {
      const answer = await rawRequest(url, { path: "/health", headers });
      assert.equal(answer.status, status, `${mode} ${JSON.stringify(headers)}`);
    }
  }
});

test("serve bound off loopback: any Host (a load balancer's), the --public-url's origin only", async (t) => {
  const { url } = await startServe(["--store", tempDir(t), "--host", "0.0.0.0", "--public-url", "https://tasks.example"], { t });
  const local = url.replace("0.0.0.0", "127.0.0.1");
  for (const [headers, status, body] of [
    [{ host: "tasks.example" }, 200, '{"ok":true}'],
    [{ host: "10.0.0.7:8765" }, 200, '{"ok":true}'],
    [{ host: "tasks.example", origin: "https://tasks.example" }, 200, '{"ok":true}'],
    [{ host: "tasks.example", origin: "https://evil.example" }, 403, FOREIGN_ORIGIN],
    [{ host: "tasks.example", origin: `http://localhost:${new URL(url).port}` }, 403, FOREIGN_ORIGIN],
  ]) {
    const answer = await rawRequest(local, { path: "/health", headers });
    assert.equal(answer.status, status, JSON.stringify(headers));
    assert.equal(answer.body, body);
  }
});
