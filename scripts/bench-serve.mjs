// npm run bench:serve: MCP tool calls per second and their p95 latency over
// Streamable HTTP on one server process (serve's /mcp: mcpHandler on node:http;
// one chat per calling loop), `todo_write` against a no-op tool of the same
// server, in rounds that alternate, the load from a second process. The tool
// runs twice: on a MemoryStore (the tool's own cost: the target,
// serve_todo_write_vs_noop_tool >= 0.8, at most a quarter more than MCP
// itself) and on a JsonlStore (with a durable store's file operations and
// fsync per write: reported). And on a second server in the same process,
// `serve --auth jwt` as the CLI builds it (serveApp over jwtGate, a
// MemoryStore, the owner's chats): an RS256 access token verified on every
// request, the key set fetched once from a URL and cached; the tool against
// the no-op tool of that server (the target,
// serve_todo_write_jwt_vs_noop_tool >= 0.8), and that no-op against the first
// (the gate's own cost: reported). And three more servers, each a process of
// its own, serve's app as the CLI builds it (serveApp behind observedHandler,
// the token, a MemoryStore, its log silent): untraced (`@opentelemetry/api`
// not to be found, as when it is not installed), with the API loaded and no
// SDK, and traced by an SDK that records every span in memory; todo_write on
// each against the untraced one (the targets serve_todo_write_traced_vs_untraced
// >= 0.85 and serve_todo_write_api_only_vs_untraced >= 0.97), and each
// server's CPU per call beside them (the same comparison, less moved by the
// machine's other work: reported). The last line is the JSON.
import { fork } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

const TOKEN = "bench-token-0123456789abcdef";
/** The issuer of the `--auth jwt` server's tokens. */
const ISSUER = "https://issuer.example";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

/** The load: `CONCURRENCY` loops calling `tool` for `SECONDS`; reports calls/s and p95 in ms. */
async function client({ url, tool, prefix, token = TOKEN }) {
  const body = (i, chat) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: i,
      method: "tools/call",
      params:
        tool === "noop"
          ? { name: "noop", arguments: {} }
          : {
              name: "todo_write",
              // A real update each time: five items, one moving on.
              arguments: {
                todos: Array.from({ length: 5 }, (_, k) => ({
                  content: `Item ${k + 1}`,
                  status: k === i % 5 ? "in_progress" : k < i % 5 ? "completed" : "pending",
                })),
              },
              _meta: { "oda-tasks/chat": chat },
            },
    });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
  const latencies = [];
  let next = 0;
  const end = performance.now() + SECONDS * 1000;
  // One agent per chat, as a server of many chats sees them: each loop writes its own chat.
  const loop = async (_, k) => {
    while (performance.now() < end) {
      const i = next++;
      const start = performance.now();
      const r = await fetch(url, { method: "POST", headers, body: body(i, `${prefix}-${k}`) });
      const answer = await r.json();
      if (r.status !== 200 || answer.result?.isError) throw new Error(`call failed: ${r.status} ${JSON.stringify(answer).slice(0, 300)}`);
      latencies.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  latencies.sort((a, b) => a - b);
  return { perSecond: latencies.length / SECONDS, p95: latencies[Math.floor(latencies.length * 0.95)] };
}

/**
 * A server child: serve's app as the CLI builds it, on a MemoryStore, with
 * `mode`'s tracing: `untraced` (the API cannot be found), `api` (the API, no
 * SDK) or `traced` (an SDK recording every span in memory, emptied between
 * runs). Sends its port once its chats are made; answers `spans` with how
 * many spans it recorded.
 */
async function server(mode) {
  if (mode === "untraced") {
    // As if @opentelemetry/api were not installed: the package's require of it fails.
    const { default: Module } = await import("node:module");
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      if (request === "@opentelemetry/api")
        throw Object.assign(new Error("Cannot find module '@opentelemetry/api'"), { code: "MODULE_NOT_FOUND" });
      return resolve.call(this, request, ...rest);
    };
  }
  let recorded = 0;
  let exporter = null;
  if (mode === "traced") {
    const { context, propagation, trace } = await import("@opentelemetry/api");
    const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import("@opentelemetry/sdk-trace-base");
    const { AsyncLocalStorageContextManager } = await import("@opentelemetry/context-async-hooks");
    const { W3CTraceContextPropagator } = await import("@opentelemetry/core");
    exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  }
  const { MemoryStore } = await import("../pkg/dist/entrypoints/index.node.js");
  const { listenFetch } = await import("../pkg/dist/serve/node-http.js");
  const { serveApp } = await import("../pkg/dist/serve/app.js");
  const { tokenGate } = await import("../pkg/dist/serve/auth.js");
  const { observedHandler } = await import("../pkg/dist/serve/observe.js");
  const { jsonLogger } = await import("../pkg/dist/serve/log.js");
  const app = serveApp({
    store: new MemoryStore(),
    gate: tokenGate(TOKEN, { secure: false }),
    mcp: {},
    assets: new URL("../pkg/dist/", import.meta.url),
  });
  const listening = await listenFetch(observedHandler(app, { log: jsonLogger("silent"), metrics: null }), { host: "127.0.0.1", port: 0 });
  const base = `http://127.0.0.1:${listening.port}`;
  const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
  for (let k = 0; k < CONCURRENCY; k++) {
    const made = [
      await fetch(`${base}/api/sessions/${mode}-${k}`, { method: "PUT", headers, body: "{}" }),
      await fetch(`${base}/api/turns/${mode}-${k}/begin`, { method: "POST", headers, body: "{}" }),
    ];
    if (made.some((r) => r.status >= 300)) throw new Error(`making the chat ${mode}-${k} failed: ${made.map((r) => r.status)}`);
  }
  process.on("message", (message) => {
    // The CPU this process has used, in µs: its cost per call, whatever else the machine runs meanwhile.
    if (message === "cpu") {
      const { user, system } = process.cpuUsage();
      process.send({ cpu: user + system });
      return;
    }
    if (message !== "spans") return;
    // Every span was recorded (kept in memory); emptied so that a long run holds one run's spans.
    recorded += exporter?.getFinishedSpans().length ?? 0;
    exporter?.reset();
    process.send({ spans: recorded });
  });
  process.send({ port: listening.port });
}

if (process.argv[2] === "--client") {
  process.on("message", async (job) => process.send(await client(job)));
} else if (process.argv[2] === "--server") {
  await server(process.argv[3]);
} else {
  const { JsonlStore } = await import("../pkg/dist/entrypoints/node.js");
  const { createChat, beginTurn, MemoryStore } = await import("../pkg/dist/entrypoints/index.node.js");
  const { mcpHandler } = await import("../pkg/dist/entrypoints/mcp.js");
  const { listenFetch } = await import("../pkg/dist/serve/node-http.js");
  const { jwtGate } = await import("../pkg/dist/serve/jwt.js");
  const { serveApp } = await import("../pkg/dist/serve/app.js");
  const { exportJWK, generateKeyPair, SignJWT } = await import("jose");
  const dir = mkdtempSync(join(tmpdir(), "oda-bench-serve-"));
  const noop = (server) =>
    server.registerTool("noop", { description: "Does nothing." }, async () => ({ content: [{ type: "text", text: "ok" }] }));
  // One server, two stores: /mcp on the JsonlStore, /memory/mcp on the MemoryStore.
  const stores = { jsonl: new JsonlStore(dir), memory: new MemoryStore() };
  const handlers = {};
  for (const [name, store] of Object.entries(stores)) {
    for (let k = 0; k < CONCURRENCY; k++) {
      await createChat(store, `${name}-${k}`, {});
      await beginTurn(store, `${name}-${k}`);
    }
    handlers[name] = mcpHandler({
      store,
      // serve's check: the bearer token, compared before the handler runs.
      authorize: (request) => request.headers.get("authorization") === `Bearer ${TOKEN}`,
      addTools: noop,
    });
  }
  const server = await listenFetch(
    (request) => (new URL(request.url).pathname === "/memory/mcp" ? handlers.memory : handlers.jsonl)(request),
    {
      host: "127.0.0.1",
      port: 0,
    },
  );
  const base = `http://127.0.0.1:${server.port}`;

  // And in the same process, `serve --auth jwt` as the CLI builds it (serveApp over jwtGate) on a MemoryStore, the no-op
  // tool added to its /mcp. The issuer's key set is at a URL on 127.0.0.1 (`--jwks http://127.0.0.1:…`): fetched at the
  // first token, then cached; each request's token is verified.
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "bench-1", alg: "RS256", use: "sig" };
  let jwksFetches = 0;
  const jwks = createServer((_req, res) => {
    jwksFetches++;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] }));
  }).listen(0, "127.0.0.1");
  await once(jwks, "listening");
  let jwtBase = "";
  const app = serveApp({
    store: new MemoryStore(),
    gate: jwtGate({
      issuer: ISSUER,
      keys: { url: new URL(`http://127.0.0.1:${jwks.address().port}/jwks.json`) },
      publicUrl: () => jwtBase,
      cookieSecret: "bench-cookie-secret-0123456789abcdef-0123",
    }),
    mcp: { addTools: noop },
    assets: new URL("../pkg/dist/", import.meta.url),
  });
  const jwtServer = await listenFetch(app, { host: "127.0.0.1", port: 0 });
  jwtBase = `http://127.0.0.1:${jwtServer.port}`;
  // A long-lived access token for the whole run, as an authorization server issues one to a host.
  const now = Math.floor(Date.now() / 1000);
  const accessToken = await new SignJWT({
    iss: ISSUER,
    aud: `${jwtBase}/mcp`,
    sub: "bench-user",
    scope: "oda:read oda:write",
    iat: now,
    exp: now + 86400,
  })
    .setProtectedHeader({ alg: "RS256", kid: "bench-1", typ: "at+jwt" })
    .sign(privateKey);
  // The token's owner's chats, made through serve's own routes; and a token the gate cannot verify is refused.
  const post = (path, token, method = "POST") =>
    fetch(`${jwtBase}${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: "{}" });
  for (let k = 0; k < CONCURRENCY; k++) {
    const made = [await post(`/api/sessions/jwt-${k}`, accessToken, "PUT"), await post(`/api/turns/jwt-${k}/begin`, accessToken)];
    if (made.some((r) => r.status >= 300)) throw new Error(`making the chat jwt-${k} failed: ${made.map((r) => r.status)}`);
  }
  const forged = await post("/mcp", `${accessToken.slice(0, -4)}AAAA`);
  if (forged.status !== 401) throw new Error(`a forged token got ${forged.status}`);
  // The three servers of tracing, each in a process of its own (an SDK is one per process).
  const tracing = {};
  for (const mode of ["untraced", "api", "traced"]) {
    const child = fork(new URL(import.meta.url).pathname, ["--server", mode]);
    const [{ port }] = await once(child, "message");
    tracing[mode] = { child, url: `http://127.0.0.1:${port}/mcp` };
  }
  /** The CPU (µs) a server of tracing has used so far. */
  const cpuOf = async (mode) => {
    tracing[mode].child.send("cpu");
    return (await once(tracing[mode].child, "message"))[0].cpu;
  };
  /** How many spans the traced server recorded so far (and its memory emptied). */
  const spansRecorded = async () => {
    tracing.traced.child.send("spans");
    return (await once(tracing.traced.child, "message"))[0].spans;
  };
  const load = fork(new URL(import.meta.url).pathname, ["--client"]);
  const runs = {
    noop: { url: `${base}/mcp`, tool: "noop", prefix: "jsonl" },
    memory: { url: `${base}/memory/mcp`, tool: "todo_write", prefix: "memory" },
    jsonl: { url: `${base}/mcp`, tool: "todo_write", prefix: "jsonl" },
    jwtNoop: { url: `${jwtBase}/mcp`, tool: "noop", prefix: "jwt", token: accessToken },
    jwt: { url: `${jwtBase}/mcp`, tool: "todo_write", prefix: "jwt", token: accessToken },
    untraced: { url: tracing.untraced.url, tool: "todo_write", prefix: "untraced" },
    apiOnly: { url: tracing.api.url, tool: "todo_write", prefix: "api" },
    traced: { url: tracing.traced.url, tool: "todo_write", prefix: "traced" },
  };
  const run = (job) =>
    new Promise((resolve) => {
      load.once("message", resolve);
      load.send(job);
    });
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const job of Object.values(runs)) await run(job); // warm-up of every path
  const warmUpSpans = await spansRecorded();
  const rows = Object.fromEntries(Object.keys(runs).map((name) => [name, []]));
  const order = Object.keys(runs);
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts one further along, so that no run always follows the same one.
    for (let j = 0; j < order.length; j++) {
      const name = order[(round + j) % order.length];
      const mode = { untraced: "untraced", apiOnly: "api", traced: "traced" }[name];
      const before = mode === undefined ? 0 : await cpuOf(mode);
      const result = await run(runs[name]);
      // A server of tracing: its CPU per call in this run.
      if (mode !== undefined) result.cpuPerCall = ((await cpuOf(mode)) - before) / (result.perSecond * SECONDS);
      rows[name].push(result);
      if (name === "traced") await spansRecorded();
    }
  }
  const spans = (await spansRecorded()) - warmUpSpans;
  // The traced server made every call's spans: the MCP span, the tool's and the store's below it.
  const tracedCalls = rows.traced.reduce((n, r) => n + r.perSecond * SECONDS, 0);
  if (spans < 3 * tracedCalls) throw new Error(`the traced server recorded ${spans} spans for ${tracedCalls} calls`);
  for (const { child } of Object.values(tracing)) child.kill();
  load.kill();
  await server.close();
  await jwtServer.close();
  jwks.close();
  rmSync(dir, { recursive: true, force: true });
  if (jwksFetches !== 1) throw new Error(`the key set was fetched ${jwksFetches} times, not once`);
  /** The median of the rounds' ratios of `name`'s calls/s to `against`'s in the same round. */
  const ratio = (name, against = "noop") => Number(median(rows[against].map((n, i) => rows[name][i].perSecond / n.perSecond)).toFixed(3));
  const calls = (name) => Math.round(median(rows[name].map((r) => r.perSecond)));
  const p95 = (name) => Number(median(rows[name].map((r) => r.p95)).toFixed(2));
  const cpu = (name) => Math.round(median(rows[name].map((r) => r.cpuPerCall)));
  /** The median of the rounds' ratios of calls per CPU-second: `against`'s CPU per call over `name`'s. */
  const cpuRatio = (name, against) => Number(median(rows[against].map((n, i) => n.cpuPerCall / rows[name][i].cpuPerCall)).toFixed(3));
  const result = {
    serve_noop_calls_per_s: calls("noop"),
    serve_noop_p95_ms: p95("noop"),
    serve_todo_write_calls_per_s: calls("memory"),
    serve_todo_write_p95_ms: p95("memory"),
    serve_todo_write_vs_noop_tool: ratio("memory"),
    serve_todo_write_jsonl_calls_per_s: calls("jsonl"),
    serve_todo_write_jsonl_p95_ms: p95("jsonl"),
    serve_todo_write_jsonl_vs_noop_tool: ratio("jsonl"),
    serve_noop_jwt_calls_per_s: calls("jwtNoop"),
    serve_noop_jwt_p95_ms: p95("jwtNoop"),
    serve_noop_jwt_vs_noop_tool: ratio("jwtNoop"),
    serve_todo_write_jwt_calls_per_s: calls("jwt"),
    serve_todo_write_jwt_p95_ms: p95("jwt"),
    serve_todo_write_jwt_vs_noop_tool: ratio("jwt", "jwtNoop"),
    serve_todo_write_untraced_calls_per_s: calls("untraced"),
    serve_todo_write_untraced_p95_ms: p95("untraced"),
    serve_todo_write_api_only_calls_per_s: calls("apiOnly"),
    serve_todo_write_api_only_p95_ms: p95("apiOnly"),
    serve_todo_write_traced_calls_per_s: calls("traced"),
    serve_todo_write_traced_p95_ms: p95("traced"),
    serve_todo_write_api_only_vs_untraced: ratio("apiOnly", "untraced"),
    serve_todo_write_traced_vs_untraced: ratio("traced", "untraced"),
    serve_traced_spans_per_call: Number((spans / tracedCalls).toFixed(2)),
    serve_todo_write_untraced_cpu_us_per_call: cpu("untraced"),
    serve_todo_write_api_only_cpu_us_per_call: cpu("apiOnly"),
    serve_todo_write_traced_cpu_us_per_call: cpu("traced"),
    serve_todo_write_api_only_vs_untraced_cpu: cpuRatio("apiOnly", "untraced"),
    serve_todo_write_traced_vs_untraced_cpu: cpuRatio("traced", "untraced"),
  };
  console.log(`rounds: ${ROUNDS} x ${SECONDS} s per run, ${CONCURRENCY} calls in flight, load from a second process`);
  console.log(`noop                    ${result.serve_noop_calls_per_s} calls/s, p95 ${result.serve_noop_p95_ms} ms`);
  console.log(`todo_write, MemoryStore ${result.serve_todo_write_calls_per_s} calls/s, p95 ${result.serve_todo_write_p95_ms} ms`);
  console.log(
    `todo_write, JsonlStore  ${result.serve_todo_write_jsonl_calls_per_s} calls/s, p95 ${result.serve_todo_write_jsonl_p95_ms} ms (an fsync'd append per call): ${result.serve_todo_write_jsonl_vs_noop_tool} of the no-op`,
  );
  console.log(
    `noop, --auth jwt        ${result.serve_noop_jwt_calls_per_s} calls/s, p95 ${result.serve_noop_jwt_p95_ms} ms (serve's app, an RS256 token verified per call): ${result.serve_noop_jwt_vs_noop_tool} of the no-op`,
  );
  console.log(
    `todo_write, --auth jwt  ${result.serve_todo_write_jwt_calls_per_s} calls/s, p95 ${result.serve_todo_write_jwt_p95_ms} ms (MemoryStore)`,
  );
  console.log(
    `todo_write, serve's app  untraced ${result.serve_todo_write_untraced_calls_per_s} calls/s (p95 ${result.serve_todo_write_untraced_p95_ms} ms), ` +
      `API without SDK ${result.serve_todo_write_api_only_calls_per_s} (p95 ${result.serve_todo_write_api_only_p95_ms} ms), ` +
      `traced in memory ${result.serve_todo_write_traced_calls_per_s} (p95 ${result.serve_todo_write_traced_p95_ms} ms, ${result.serve_traced_spans_per_call} spans a call)`,
  );
  console.log(
    `  the server's CPU per call: untraced ${result.serve_todo_write_untraced_cpu_us_per_call} µs, API without SDK ` +
      `${result.serve_todo_write_api_only_cpu_us_per_call} µs (${result.serve_todo_write_api_only_vs_untraced_cpu} of the calls per CPU-second), ` +
      `traced ${result.serve_todo_write_traced_cpu_us_per_call} µs (${result.serve_todo_write_traced_vs_untraced_cpu})`,
  );
  for (const [target, floor] of [
    ["serve_todo_write_vs_noop_tool", 0.8],
    ["serve_todo_write_jwt_vs_noop_tool", 0.8],
    ["serve_todo_write_traced_vs_untraced", 0.85],
    ["serve_todo_write_api_only_vs_untraced", 0.97],
  ]) {
    console.log(
      `target ${target} >= ${floor}: ${result[target]} (median of ${ROUNDS} rounds' ratios) ${result[target] >= floor ? "met" : "NOT met"}`,
    );
  }
  console.log(JSON.stringify(result));
}
