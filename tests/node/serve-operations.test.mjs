// `oda-tasks serve` as operators see it, the built CLI in its own process:
// `/metrics` on a listener of its own, scraped and parsed (a stream opened and
// closed moves the gauge up and back down; no chat id or token in it); the
// JSON log lines, parsed and searched for the token and a todo's text;
// `--log-level`; `X-Request-Id`; `/livez` and `/readyz`, the drain after
// SIGTERM, and a PostgreSQL server stopped and started again under it; the
// metrics' series bounded however many kinds of request come.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { startServe, TOKEN } from "./support/oda-serve.mjs";
import { startServer } from "./support/postgres.mjs";
import { sse } from "./support/sse.mjs";
import { until } from "./support/until.mjs";

const SECRET_TODO = "Rotate the payroll keys of 2026";
const CHAT = "ops-chat-31";

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "oda-ops-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The JSON lines of `output` (serve's stderr); every line must parse. */
function logLines(output) {
  return output
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const parsed = JSON.parse(line);
      assert.equal(typeof parsed.time, "string", line);
      assert.ok(!Number.isNaN(Date.parse(parsed.time)), line);
      assert.ok(["debug", "info", "warn", "error"].includes(parsed.level), line);
      assert.equal(typeof parsed.msg, "string", line);
      return parsed;
    });
}

/** The metrics listener's URL, from its log line. */
const metricsUrl = (output) => logLines(output).find((l) => l.msg === "metrics").url;

/** Prometheus' text format, parsed: `name{labels} value` lines (comments checked for HELP and TYPE). */
function parseMetrics(text) {
  const samples = [];
  const types = {};
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line);
    if (comment) {
      if (comment[1] === "TYPE") types[comment[2]] = comment[3];
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|NaN|\+Inf)$/.exec(line);
    assert.ok(m, `a sample line: ${line}`);
    const labels = Object.fromEntries([...(m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return { samples, types };
}
const sample = (metrics, name, labels = {}) =>
  metrics.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

const bearer = { authorization: `Bearer ${TOKEN}` };
const json = (method, body) => ({ method, headers: { ...bearer, "content-type": "application/json" }, body: JSON.stringify(body) });
const mcpCall = (todos) =>
  json("POST", {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "todo_write", arguments: { todos }, _meta: { "oda-tasks/chat": CHAT } },
  });
const mcpInit = { ...mcpCall([]), headers: { ...mcpCall([]).headers, accept: "application/json, text/event-stream" } };

/** The chat, its turn, and one todo_write through /mcp. */
async function oneCall(url) {
  assert.equal((await fetch(`${url}/api/sessions/${CHAT}`, json("PUT", {}))).status, 201);
  assert.equal((await fetch(`${url}/api/turns/${CHAT}/begin`, json("POST", {}))).status, 200);
  const call = mcpCall([{ content: SECRET_TODO, status: "in_progress" }]);
  const answer = await fetch(`${url}/mcp`, { ...call, headers: { ...mcpInit.headers } });
  assert.equal(answer.status, 200);
  assert.equal((await answer.json()).result.content[0].text, "Updated todo list: 0 pending, 1 in progress, 0 completed");
}

test("serve --metrics-port: /metrics on its own listener, no token, parsed; a tool call counted; a stream opened and closed moves the gauge up and down; no chat id or token in it", async (t) => {
  const { url, output } = await startServe(["--store", tempDir(t), "--metrics-port", "0"], { t });
  await until("the metrics listener's line", () => output().includes('"msg":"metrics"'));
  const metrics = metricsUrl(output());
  assert.match(metrics, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  const scrape = async () => {
    const r = await fetch(metrics);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    return parseMetrics(await r.text());
  };
  await oneCall(url);
  let m = await scrape();
  assert.deepEqual(m.types, {
    http_server_request_duration_seconds: "histogram",
    mcp_server_operation_duration_seconds: "histogram",
    oda_tasks_tool_calls_total: "counter",
    oda_tasks_event_streams: "gauge",
    oda_tasks_store_operation_duration_seconds: "histogram",
    oda_tasks_change_feed_reconnects_total: "counter",
  });
  assert.equal(sample(m, "oda_tasks_tool_calls_total", { gen_ai_tool_name: "todo_write", oda_tasks_outcome: "recorded" }), 1);
  assert.equal(
    sample(m, "mcp_server_operation_duration_seconds_count", { mcp_method_name: "tools/call", gen_ai_tool_name: "todo_write" }),
    1,
  );
  assert.equal(
    sample(m, "http_server_request_duration_seconds_count", {
      http_request_method: "PUT",
      http_route: "/api/sessions/:chatId",
      http_response_status_code: "201",
    }),
    1,
  );
  assert.equal(
    sample(m, "oda_tasks_store_operation_duration_seconds_count", {
      oda_tasks_store_kind: "jsonl",
      oda_tasks_store_operation: "append",
      oda_tasks_outcome: "ok",
    }),
    2,
  );
  assert.equal(sample(m, "oda_tasks_event_streams"), 0);
  // A refusal and a call a tool of no chat: counted by outcome.
  await fetch(`${url}/mcp`, { ...mcpCall([{ content: "x", status: "done" }]), headers: mcpInit.headers });
  m = await scrape();
  assert.equal(sample(m, "oda_tasks_tool_calls_total", { gen_ai_tool_name: "todo_write", oda_tasks_outcome: "refused" }), 1);
  assert.equal(sample(m, "mcp_server_operation_duration_seconds_count", { mcp_method_name: "tools/call", error_type: "tool_error" }), 1);

  // An event stream: the gauge counts it while it is open, not after.
  const aborted = new AbortController();
  const stream = await fetch(`${url}/api/oda/chats/${CHAT}/events`, { headers: bearer, signal: aborted.signal });
  assert.equal(stream.status, 200);
  assert.equal((await sse(stream).next()).event, "screen");
  assert.equal(sample(await scrape(), "oda_tasks_event_streams"), 1);
  aborted.abort();
  await until("the gauge back at 0", async () => sample(await scrape(), "oda_tasks_event_streams") === 0);
  m = await scrape();
  // The stream's request is no request duration.
  assert.equal(m.samples.filter((s) => s.labels.http_route === "/api/oda/chats/:chatId/events").length, 0);
  const text = await (await fetch(metrics)).text();
  assert.ok(!text.includes(CHAT) && !text.includes(TOKEN) && !text.includes(SECRET_TODO), text);

  // Never on the public port; on its own listener only /metrics, and no browser's or foreign Host's request.
  assert.equal((await fetch(`${url}/metrics`, { headers: bearer })).status, 404);
  assert.equal((await fetch(metrics.replace(/\/metrics$/, "/health"))).status, 404);
  assert.equal((await fetch(metrics, { headers: { origin: "https://evil.example" } })).status, 403);
  const { request } = await import("node:http");
  const foreignHost = await new Promise((resolve, reject) => {
    request(metrics, { headers: { host: "evil.example" } }, (res) => resolve(res.statusCode))
      .on("error", reject)
      .end();
  });
  assert.equal(foreignHost, 403);
});

test("serve's log: one JSON object a line on stderr; a request's line with its id (an incoming X-Request-Id reused), method, route, status and time; no token, cookie, todo text or chat id", async (t) => {
  const { url, output, stop } = await startServe(["--store", tempDir(t), "--log-level", "debug"], { t });
  await oneCall(url);
  const tagged = await fetch(`${url}/api/oda/chats/${CHAT}`, { headers: { ...bearer, "x-request-id": "lb-4711" } });
  assert.equal(tagged.headers.get("x-request-id"), "lb-4711");
  const fresh = await fetch(`${url}/livez`);
  assert.match(fresh.headers.get("x-request-id"), /^[0-9a-f-]{36}$/);
  // A browser signs in: its cookie is in no line either.
  const signIn = await fetch(`${url}/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: TOKEN, next: `/chats/${CHAT}` }),
    redirect: "manual",
  });
  const cookie = signIn.headers.get("set-cookie").split(";")[0];
  assert.equal((await fetch(`${url}/chats/${CHAT}`, { headers: { cookie } })).status, 200);
  assert.equal((await fetch(`${url}/api/oda/chats/${CHAT}`, { headers: { authorization: "Bearer wrong-token-0123456789" } })).status, 401);
  // The routes an agent in another language calls each step: named by their templates too.
  assert.equal(
    (
      await fetch(`${url}/api/turns/${CHAT}/context`, {
        method: "POST",
        headers: { ...bearer, "content-type": "application/json" },
        body: "{}",
      })
    ).status,
    200,
  );
  assert.equal((await fetch(`${url}/api/sessions/${CHAT}/reminder?always=true`, { headers: bearer })).status, 200);
  assert.equal(await stop(), 0);
  const lines = logLines(output());
  assert.equal(lines[0].msg, "listening");
  assert.equal(lines.at(-1).msg, "stopped");
  const requests = lines.filter((l) => l.msg === "request");
  assert.ok(requests.length >= 7, JSON.stringify(requests));
  for (const line of requests) {
    assert.deepEqual(Object.keys(line), ["time", "level", "msg", "reqId", "method", "route", "status", "ms"], JSON.stringify(line));
    assert.equal(typeof line.ms, "number");
  }
  assert.deepEqual(
    requests.find((l) => l.reqId === "lb-4711"),
    { ...requests.find((l) => l.reqId === "lb-4711"), level: "info", method: "GET", route: "/api/oda/chats/:chatId", status: 200 },
  );
  assert.equal(requests.find((l) => l.route === "/livez").level, "debug", "a probe's success is debug");
  const routes = requests.map((l) => l.route);
  for (const route of ["/api/turns/:chatId/context", "/api/sessions/:chatId/reminder"])
    assert.ok(routes.includes(route), `${route} in ${routes}`);
  assert.equal(requests.find((l) => l.status === 401).level, "warn");
  for (const secret of [TOKEN, cookie.split("=")[1], SECRET_TODO, CHAT]) assert.ok(!output().includes(secret), `the log names ${secret}`);
});

test("serve --log-level warn writes only warnings and errors; a bad level, --drain-ms, --metrics-port or a lone --metrics-host is one line and exit 2", async (t) => {
  const { url, output, stop } = await startServe(["--store", tempDir(t), "--log-level", "warn"], { t });
  await fetch(`${url}/health`);
  await fetch(`${url}/api/oda/chats/${CHAT}`);
  assert.equal(await stop(), 0);
  assert.deepEqual(
    logLines(output()).map((l) => [l.level, l.msg, l.status]),
    [["warn", "request", 401]],
  );
  const { execFileSync } = await import("node:child_process");
  const { CLI } = await import("./support/oda-serve.mjs");
  for (const [args, message] of [
    [["--log-level", "loud"], '--log-level must be debug, info, warn, error or silent (got "loud")'],
    [["--drain-ms", "-1"], '--drain-ms must be a whole number from 0 to 600000 (got "-1")'],
    [["--drain-ms", "600001"], '--drain-ms must be a whole number from 0 to 600000 (got "600001")'],
    [["--metrics-port", "70000"], '--metrics-port must be a whole number from 0 to 65535 (got "70000")'],
    [["--metrics-host", "0.0.0.0"], "--metrics-host is only taken with --metrics-port"],
  ]) {
    let failed;
    try {
      execFileSync(process.execPath, [CLI, "serve", "--store", tempDir(t), ...args], { env: { ODA_TASKS_TOKEN: TOKEN }, stdio: "pipe" });
    } catch (e) {
      failed = e;
    }
    assert.equal(failed?.status, 2, args.join(" "));
    assert.ok(failed.stderr.toString().startsWith(`oda-tasks serve: ${message}\n`), failed.stderr.toString());
  }
});

test("after SIGTERM serve drains: /readyz answers 503 for --drain-ms while /livez, /health and the tools answer as before; then it stops", async (t) => {
  const { url, child, output, exited } = await startServe(["--store", tempDir(t), "--drain-ms", "3000"], { t });
  assert.deepEqual([(await fetch(`${url}/livez`)).status, (await fetch(`${url}/readyz`)).status], [200, 200]);
  assert.equal((await fetch(`${url}/livez`, { method: "POST" })).status, 405);
  const started = Date.now();
  child.kill("SIGTERM");
  await until("draining", () => output().includes('"msg":"draining"'));
  const ready = await fetch(`${url}/readyz`);
  assert.equal(ready.status, 503);
  assert.equal(ready.headers.get("retry-after"), "1");
  assert.deepEqual(await ready.json(), { error: { code: "http/unavailable", message: "the server is stopping" } });
  assert.equal((await fetch(`${url}/livez`)).status, 200);
  assert.equal((await fetch(`${url}/health`)).status, 200);
  await oneCall(url);
  assert.equal(await exited, 0);
  assert.ok(Date.now() - started >= 2900, `stopped after ${Date.now() - started} ms`);
  assert.deepEqual(
    logLines(output())
      .filter((l) => l.msg !== "request")
      .slice(-2)
      .map((l) => [l.msg, l.drainMs]),
    [
      ["draining", 3000],
      ["stopped", undefined],
    ],
  );
});

test("serve over PostgreSQL: the server stopped turns /readyz to 503 within its bound while /livez stays 200; started again, /readyz is 200", async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const { url } = await startServe(["--store", server.url], { t });
  assert.equal((await fetch(`${url}/readyz`)).status, 200);
  server.halt();
  const asked = Date.now();
  const down = await fetch(`${url}/readyz`);
  assert.equal(down.status, 503);
  assert.deepEqual(await down.json(), { error: { code: "http/unavailable", message: "the store does not answer" } });
  assert.ok(Date.now() - asked < 2500, `answered after ${Date.now() - asked} ms`);
  assert.equal((await fetch(`${url}/livez`)).status, 200);
  await server.start();
  await until("ready again", async () => (await fetch(`${url}/readyz`)).status === 200, 30_000, 200);
});

test("the metrics hold a bounded number of series however many kinds of request come (methods, paths, tools and methods of MCP of a client's choosing); recording keeps nothing per request", async () => {
  const { ServeMetrics, MAX_SERIES } = await import("../../pkg/dist/serve/metrics.js");
  const metrics = new ServeMetrics({ prometheus: true, meter: null, storeKind: "memory" });
  const traffic = (n, seed) => {
    for (let i = 0; i < n; i++) {
      metrics.httpRequest(`M${(i * seed) % 997}`, i % 2 === 0 ? "" : "/api/oda/chats/:chatId", 100 + (i % 700), 0.001 * (i % 50));
      metrics.observer.mcpOperation("tools/call", "todo_write", i % 3 === 0 ? "tool_error" : undefined, 0.002);
      metrics.observer.toolCall("todo_write", i % 2 === 0 ? "recorded" : "refused");
      metrics.observer.storeOperation("memory", i % 2 === 0 ? "read" : "append", "ok", 0.0005);
    }
  };
  traffic(2000, 7);
  const after = metrics.series;
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc");
  const heap = () => {
    gc();
    return process.memoryUsage().heapUsed;
  };
  const before = heap();
  traffic(100_000, 13);
  assert.ok(metrics.series <= 4 * MAX_SERIES + 10, `${metrics.series} series`);
  assert.ok(metrics.series - after <= MAX_SERIES, `${metrics.series - after} more series`);
  // Every method not HTTP's is one label, `_OTHER`; past the bound, one overflow series.
  const text = metrics.text();
  assert.ok(!/http_request_method="M\d+"/.test(text));
  assert.ok(text.includes('otel_metric_overflow="true"') || metrics.series < MAX_SERIES);
  assert.ok(heap() - before < 8 << 20, `the heap grew ${heap() - before} bytes`);
});
