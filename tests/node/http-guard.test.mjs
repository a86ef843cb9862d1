// chatHandler's and mcpHandler's Host and Origin checks (`allowedHosts`,
// `allowedOrigins`) against the built package: each list checked when the
// handler is built; a foreign Host or Origin refused with a fixed 403 before
// the route, authorize or the body; origins compared as serialized origins;
// no check by default.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createChat, MemoryStore } from "oda-tasks";
import { chatHandler } from "oda-tasks/http";
import { mcpHandler } from "oda-tasks/mcp";

const FOREIGN_ORIGIN = '{"error":{"code":"http/forbidden","message":"requests from another origin are not allowed"}}';
const FOREIGN_HOST = '{"error":{"code":"http/forbidden","message":"the Host header names another server"}}';

/** A POST body that records whether anything read it. */
function watchedBody(text) {
  const seen = { read: false };
  const body = new ReadableStream(
    {
      pull(controller) {
        seen.read = true;
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
      // Nothing is pulled until something reads.
    },
    { highWaterMark: 0 },
  );
  return { body, seen };
}

test("allowedOrigins and allowedHosts are checked when the handler is built: clear oda-tasks TypeErrors", () => {
  const store = new MemoryStore();
  const cases = [
    [{ allowedOrigins: "https://app.example" }, '`allowedOrigins` must be an array of origins like "https://app.example"'],
    [{ allowedOrigins: [42] }, '`allowedOrigins` must be an array of origins like "https://app.example"'],
    ...["https://app.example/path", "ftp://app.example", "null", "https://u:p@app.example", "https://app.example?x", "app.example"].map(
      (origin) => [
        { allowedOrigins: [origin] },
        `\`allowedOrigins\` holds ${JSON.stringify(origin)}, which is not an origin (http or https, a host, an optional port; no path)`,
      ],
    ),
    [{ allowedHosts: "localhost" }, '`allowedHosts` must be an array of hosts like "localhost" or "app.example:8443"'],
    [{ allowedHosts: [] }, "`allowedHosts` must hold at least one host"],
    ...["app example", "app.example/x", "app.example:99999", "user@app.example", "", "[::1"].map((host) => [
      { allowedHosts: [host] },
      `\`allowedHosts\` holds ${JSON.stringify(host)}, which is not a host (a name, an IPv4 address or a bracketed IPv6 address, and an optional :port)`,
    ]),
  ];
  for (const [options, message] of cases) {
    assert.throws(
      () => chatHandler({ store, authorize: () => true, ...options }),
      { name: "TypeError", message: `oda-tasks: invalid arguments of chatHandler: ${message}` },
      JSON.stringify(options),
    );
    assert.throws(
      () => mcpHandler({ store, authorize: () => true, ...options }),
      { name: "TypeError", message: `oda-tasks: invalid arguments of mcpHandler: ${message}` },
      JSON.stringify(options),
    );
  }
  // Well-formed lists build.
  chatHandler({ store, authorize: () => true, allowedOrigins: [], allowedHosts: ["[::1]:8080", "APP.example", "127.0.0.1"] });
  mcpHandler({ store, authorize: () => true, allowedOrigins: ["http://[::1]:8080", "https://app.example/"] });
});

test("chatHandler: a foreign Origin or Host is a 403 before the route, authorize and the body; its own pass", async () => {
  const store = new MemoryStore();
  await createChat(store, "c1", { workspace: "/w" });
  const asked = [];
  const handler = chatHandler({
    store,
    basePath: "/api/oda",
    authorize: (request) => (asked.push(request.headers.get("origin")), true),
    allowedOrigins: ["https://app.example", "http://localhost:3000"],
    allowedHosts: ["app.example", "localhost:3000"],
  });
  const send = (headers, path = "chats/c1", init = {}) =>
    handler(new Request(`https://app.example/api/oda/${path}`, { ...init, headers: { host: "app.example", ...headers } }));

  const refused = [
    [{ origin: "https://evil.example" }, FOREIGN_ORIGIN],
    [{ origin: "null" }, FOREIGN_ORIGIN],
    [{ origin: "https://app.example:8443" }, FOREIGN_ORIGIN],
    [{ origin: "http://app.example" }, FOREIGN_ORIGIN],
    [{ origin: "https://app.example/x" }, FOREIGN_ORIGIN],
    [{ origin: "not an origin" }, FOREIGN_ORIGIN],
    [{ host: "evil.example" }, FOREIGN_HOST],
    [{ host: "app.example.evil.example" }, FOREIGN_HOST],
    [{ host: "localhost:3001" }, FOREIGN_HOST],
    [{ host: "localhost" }, FOREIGN_HOST],
    [{ host: "app.example@evil.example" }, FOREIGN_HOST],
    // The Host is judged first: a rebound name is told nothing of its origin.
    [{ host: "evil.example", origin: "https://evil.example" }, FOREIGN_HOST],
  ];
  for (const [headers, body] of refused) {
    // Even a route that does not exist is refused for its Host or Origin first.
    for (const path of ["chats/c1", "nowhere"]) {
      const response = await send(headers, path);
      assert.equal(response.status, 403, JSON.stringify(headers));
      assert.equal(await response.text(), body, JSON.stringify(headers));
      assert.equal(response.headers.get("content-type"), "application/json; charset=utf-8");
      assert.equal(response.headers.get("access-control-allow-origin"), null);
    }
  }
  // A POST from another origin: its body is never read, authorize never asked.
  const { body, seen } = watchedBody("{}");
  const post = await send({ origin: "https://evil.example", "content-type": "application/json" }, "chats/c1/suggestions/s1/dismiss", {
    method: "POST",
    body,
    duplex: "half",
  });
  assert.equal(post.status, 403);
  assert.equal(await post.text(), FOREIGN_ORIGIN);
  assert.equal(seen.read, false, "the body was not read");
  assert.deepEqual(asked, [], "authorize was never asked");

  // The handler's own: an allowed origin in any case and with its default port, any port of a bare host, no Origin at all.
  for (const headers of [
    {},
    { origin: "https://app.example" },
    { origin: "HTTPS://APP.EXAMPLE:443" },
    { origin: "http://localhost:3000", host: "localhost:3000" },
    { host: "APP.EXAMPLE:8080" },
  ]) {
    const response = await send(headers);
    assert.equal(response.status, 200, JSON.stringify(headers));
    assert.equal((await response.json()).chatId, "c1");
  }
  // A runtime that hands over no Host header: the URL's host is judged.
  assert.equal((await handler(new Request("https://app.example/api/oda/chats/c1"))).status, 200);
  assert.equal((await handler(new Request("https://evil.example/api/oda/chats/c1"))).status, 403);
});

test("chatHandler: an empty allowedOrigins lets in requests with no Origin only; no options check nothing", async () => {
  const store = new MemoryStore();
  await createChat(store, "c1", {});
  const none = chatHandler({ store, authorize: () => true, allowedOrigins: [] });
  assert.equal((await none(new Request("http://a.test/chats/c1"))).status, 200);
  const browser = await none(new Request("http://a.test/chats/c1", { headers: { origin: "http://a.test" } }));
  assert.equal(browser.status, 403);
  assert.equal(await browser.text(), FOREIGN_ORIGIN);
  // The default is today's behaviour: no Host or Origin check.
  const open = chatHandler({ store, authorize: () => true });
  const foreign = await open(new Request("http://a.test/chats/c1", { headers: { origin: "https://evil.example", host: "evil.example" } }));
  assert.equal(foreign.status, 200);
});

test("mcpHandler: a foreign Origin or Host is a 403 before the method, authorize and the body; its own pass", async () => {
  const store = new MemoryStore();
  const asked = [];
  const handler = mcpHandler({
    store,
    authorize: (_request, context) => (asked.push(context.method), true),
    allowedOrigins: ["http://localhost:8765"],
    allowedHosts: ["localhost", "127.0.0.1", "[::1]"],
  });
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  const send = (headers, method = "POST") => {
    const { body, seen } = watchedBody(initialize);
    const request = new Request("http://localhost:8765/mcp", {
      method,
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      ...(method === "POST" ? { body, duplex: "half" } : {}),
    });
    return { response: handler(request), seen };
  };
  for (const [headers, text] of [
    [{ host: "evil.example:8765" }, FOREIGN_HOST],
    [{ host: "localhost:8765", origin: "http://evil.example" }, FOREIGN_ORIGIN],
    [{ host: "localhost:8765", origin: "null" }, FOREIGN_ORIGIN],
    [{ host: "localhost:8765", origin: "http://localhost:8766" }, FOREIGN_ORIGIN],
  ]) {
    for (const method of ["POST", "GET"]) {
      const { response, seen } = send(headers, method);
      const answer = await response;
      assert.equal(answer.status, 403, `${method} ${JSON.stringify(headers)}`);
      assert.equal(await answer.text(), text);
      assert.equal(seen.read, false);
    }
  }
  assert.deepEqual(asked, []);
  for (const headers of [
    { host: "localhost:8765" },
    { host: "127.0.0.1:8765", origin: "http://localhost:8765" },
    { host: "[::1]:8765" },
    { host: "[0:0::1]" },
  ]) {
    const { response } = send(headers);
    const answer = await response;
    assert.equal(answer.status, 200, JSON.stringify(headers));
    assert.equal((await answer.json()).result.serverInfo.name, "oda-tasks");
  }
  assert.deepEqual(asked, ["initialize", "initialize", "initialize", "initialize"]);
});
