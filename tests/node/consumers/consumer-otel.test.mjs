// OpenTelemetry and operations from the packed tarball, in a fresh project as a
// user installs it: the package byte for byte the same without
// `@opentelemetry/api` installed, with it and no SDK, and with an SDK
// recording spans; then docs/operations.md's recipes as printed: `serve`
// sending traces and metrics to an OTLP collector (a receiver in this test,
// `http/protobuf` and `http/json`), and the systemd unit's command scraped as
// prometheus.yml says and probed as probes.yaml says, drained and stopped as
// the unit stops it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { root } from "../support/browser.mjs";
import { consumer, fileCleanup, packTarball, sh } from "../support/consumer.mjs";
import { startCommand, TOKEN } from "../support/oda-serve.mjs";
import { printed, recipes } from "../support/recipes.mjs";
import { freePort } from "../support/serve.mjs";
import { until } from "../support/until.mjs";

/** The exact version the repository tests with (root package.json). */
const pinned = (name) => JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies[name];

/**
 * Every answer of a fixed run, and every byte it stored: tool calls (accepted,
 * refused, a suggestion), a Start, a dismissal refused, the chat's file. With
 * `--sdk`, an SDK records spans first and their count goes to stderr.
 */
const SCENARIO = `
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
if (process.argv.includes("--sdk")) {
  const { trace, context } = await import("@opentelemetry/api");
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import("@opentelemetry/sdk-trace-base");
  const { AsyncLocalStorageContextManager } = await import("@opentelemetry/context-async-hooks");
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  process.on("exit", () => process.stderr.write(exporter.getFinishedSpans().map((s) => s.name).join("\\n")));
}
const { beginTurn, createChat, runTool, SuggestionService, toolHandlers } = await import("oda-tasks");
const { JsonlStore } = await import("oda-tasks/node");
const dir = mkdtempSync(join(tmpdir(), "oda-scenario-"));
const store = new JsonlStore(dir);
const out = [];
out.push(await createChat(store, "c1", { workspace: "/w", settings: { permission: "ask" } }));
out.push(await beginTurn(store, "c1"));
const tools = toolHandlers({ store, chatId: "c1", telemetry: { recordContent: true } });
out.push(await tools.todo_write({ todos: [{ content: "Write the tests", status: "in_progress" }] }, "call-1"));
out.push(await tools.todo_write({ todos: [{ content: "Write the tests", status: "in_progres" }] }));
out.push(await runTool(store, "c1", { name: "suggest_task", input: { title: "Add retries", tldr: "Uploads fail.", brief: "Retry." } }));
out.push(await runTool(store, "nope", { name: "todo_write", input: { todos: [] } }));
const service = new SuggestionService({ store });
out.push(await service.start("c1", "s1"));
out.push(await service.dismiss("c1", "s1").catch((e) => [e.code, e.message]));
for (const file of readdirSync(dir).sort()) out.push([file, readFileSync(join(dir, file), "utf8")]);
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(out));
`;

const cleanup = fileCleanup();
const { tarball } = packTarball(cleanup);
const dir = consumer(cleanup, tarball, {
  deps: { "@modelcontextprotocol/sdk": pinned("@modelcontextprotocol/sdk"), zod: pinned("zod") },
  files: { "scenario.mjs": SCENARIO, ...recipes("prometheus.yml", "probes.yaml", "oda-tasks.service") },
});
const scenario = (...args) => sh(dir, process.execPath, ["scenario.mjs", ...args], { timeout: 60_000 });
let absent;

test("without @opentelemetry/api installed: the package loads, answers and stores as ever (the answers recorded here)", () => {
  assert.throws(() => createRequire(join(dir, "scenario.mjs")).resolve("@opentelemetry/api"), { code: "MODULE_NOT_FOUND" });
  absent = scenario();
  const out = JSON.parse(absent);
  assert.equal(out[2], "Updated todo list: 0 pending, 1 in progress, 0 completed");
  assert.match(out[3], /^Error: invalid todo at index 0: `status` must be/);
  assert.deepEqual(out[6], { chatId: "c1.s1" });
  assert.deepEqual(out[7], ["task-suggestion/not-open", 'suggestion "s1" is started']);
  // serve asked for OTLP without the SDK: one line saying what to install, exit 2.
  const { spawnSync } = createRequire(import.meta.url)("node:child_process");
  const r = spawnSync(join(dir, "node_modules/.bin/oda-tasks"), ["serve", "--store", "./chats", "--port", "0"], {
    cwd: dir,
    encoding: "utf8",
    env: { PATH: process.env.PATH, ODA_TASKS_TOKEN: TOKEN, OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" },
    timeout: 30_000,
  });
  assert.equal(r.status, 2, r.stderr);
  assert.ok(
    r.stderr.startsWith(
      "oda-tasks serve: OTEL_EXPORTER_OTLP_ENDPOINT needs the `@opentelemetry/sdk-node` package: npm install @opentelemetry/sdk-node @opentelemetry/api\n",
    ),
    r.stderr,
  );
});

test("with @opentelemetry/api and no SDK, and with an SDK recording spans: byte for byte the same answers and stored bytes", () => {
  assert.ok(absent, "the run without the API came first");
  const packages = ["@opentelemetry/api", "@opentelemetry/sdk-trace-base", "@opentelemetry/context-async-hooks", "@opentelemetry/sdk-node"];
  sh(dir, "npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
    "--loglevel=error",
    ...packages.map((p) => `${p}@${pinned(p)}`),
  ]);
  assert.equal(scenario(), absent);
  const r = (() => {
    const { spawnSync } = createRequire(import.meta.url)("node:child_process");
    return spawnSync(process.execPath, ["scenario.mjs", "--sdk"], { cwd: dir, encoding: "utf8", timeout: 60_000 });
  })();
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, absent);
  const names = r.stderr.split("\n");
  for (const name of ["execute_tool todo_write", "execute_tool suggest_task", "oda_tasks.store.append", "oda_tasks.suggestion.start"]) {
    assert.ok(names.includes(name), `${name} among ${names.join(", ")}`);
  }
});

/** An OTLP/HTTP receiver on 127.0.0.1: every POST's path, content type and body. */
async function receiver(t) {
  const got = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      got.push({ path: req.url, type: req.headers["content-type"], body: Buffer.concat(chunks) });
      const json = (req.headers["content-type"] ?? "").includes("json");
      res.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" }).end(json ? "{}" : "");
    });
  }).listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => server.close());
  return { url: `http://127.0.0.1:${server.address().port}`, got };
}

/** Makes chat `chat` and calls todo_write over MCP with a client's traceparent; resolves to the client's trace id. */
async function traffic(url, chat) {
  const bearer = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
  const post = (path, body, method = "POST") => fetch(`${url}${path}`, { method, headers: bearer, body: JSON.stringify(body) });
  assert.equal((await post(`/api/sessions/${chat}`, {}, "PUT")).status, 201);
  assert.equal((await post(`/api/turns/${chat}/begin`, {})).status, 200);
  const traceId = "0af7651916cd43dd8448eb211c80319c";
  const call = await post("/mcp", {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "todo_write",
      arguments: { todos: [{ content: "Ship it", status: "in_progress" }] },
      _meta: { "oda-tasks/chat": chat, traceparent: `00-${traceId}-b7ad6b7169203331-01` },
    },
  });
  assert.equal(call.status, 200);
  return traceId;
}

test("docs/operations.md: serve sends its traces and metrics to an OTLP collector, as printed (http/protobuf, the default, and http/json)", {
  timeout: 180_000,
}, async (t) => {
  printed("npm install oda-tasks @modelcontextprotocol/sdk zod @opentelemetry/sdk-node @opentelemetry/api");
  const command = printed(
    'OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 node_modules/.bin/oda-tasks serve --store ./chats --port "$PORT"',
  );
  for (const protocol of ["http/protobuf", "http/json"]) {
    const collector = await receiver(t);
    const serve = await startCommand(command.replace("http://127.0.0.1:4318", collector.url), {
      cwd: dir,
      env: {
        ODA_TASKS_TOKEN: TOKEN,
        PORT: "0",
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_BSP_SCHEDULE_DELAY: "100",
        OTEL_METRIC_EXPORT_INTERVAL: "500",
      },
      t,
    });
    const traceId = await traffic(serve.url, `otlp-${protocol.replace("/", "-")}`);
    const bodies = (path) => collector.got.filter((g) => g.path === path);
    await until(
      `${protocol}: the spans and the metrics`,
      () => bodies("/v1/traces").length > 0 && bodies("/v1/metrics").length > 0,
      30_000,
    );
    await serve.stop();
    const traces = bodies("/v1/traces");
    if (protocol === "http/protobuf") {
      assert.ok(traces.every((g) => g.type === "application/x-protobuf"));
      const bytes = Buffer.concat(traces.map((g) => g.body));
      for (const text of ["tools/call todo_write", "execute_tool todo_write", "oda_tasks.store.append", "oda-tasks"]) {
        assert.ok(bytes.includes(Buffer.from(text)), text);
      }
      assert.ok(bytes.includes(Buffer.from(traceId, "hex")), "the client's trace id");
      assert.ok(Buffer.concat(bodies("/v1/metrics").map((g) => g.body)).includes(Buffer.from("oda_tasks.tool.calls")));
      continue;
    }
    assert.ok(traces.every((g) => g.type === "application/json"));
    const resourceSpans = traces.flatMap((g) => JSON.parse(g.body).resourceSpans);
    const service = resourceSpans[0].resource.attributes.find((a) => a.key === "service.name");
    assert.equal(service.value.stringValue, "oda-tasks");
    const spans = resourceSpans.flatMap((r) => r.scopeSpans).flatMap((s) => s.spans);
    const [server] = spans.filter((s) => s.name === "tools/call todo_write");
    assert.equal(server.traceId, traceId);
    assert.equal(server.parentSpanId, "b7ad6b7169203331");
    const [tool] = spans.filter((s) => s.name === "execute_tool todo_write");
    assert.equal(tool.parentSpanId, server.spanId);
    assert.ok(spans.some((s) => s.name === "oda_tasks.store.append" && s.parentSpanId === tool.spanId));
    assert.ok(spans.some((s) => s.name === "PUT /api/sessions/:chatId"));
    const metrics = bodies("/v1/metrics")
      .flatMap((g) => JSON.parse(g.body).resourceMetrics)
      .flatMap((r) => r.scopeMetrics)
      .flatMap((s) => s.metrics.map((m) => m.name));
    for (const name of [
      "http.server.request.duration",
      "mcp.server.operation.duration",
      "oda_tasks.tool.calls",
      "oda_tasks.store.operation.duration",
    ]) {
      assert.ok(metrics.includes(name), `${name} among ${[...new Set(metrics)].join(", ")}`);
    }
  }
});

test("docs/operations.md: the systemd unit's command, scraped as prometheus.yml says, probed as probes.yaml says, drained and stopped as the unit stops it", {
  timeout: 120_000,
}, async (t) => {
  const files = recipes("prometheus.yml", "probes.yaml", "oda-tasks.service");
  const unit = Object.fromEntries(
    [...files["oda-tasks.service"].matchAll(/^(\w+)=(.*)$/gm)].filter(([, k]) => k !== "Environment").map(([, k, v]) => [k, v]),
  );
  const environment = Object.fromEntries([...files["oda-tasks.service"].matchAll(/^Environment=(\w+)=(.*)$/gm)].map(([, k, v]) => [k, v]));
  const prometheus = parseYaml(files["prometheus.yml"]).scrape_configs[0];
  const probes = parseYaml(files["probes.yaml"]);
  const [container] = probes.containers;
  // The ports the recipes agree on, each replaced by a free one (as printed otherwise).
  const port = Number(/--port (\d+)/.exec(unit.ExecStart)[1]);
  const metricsPort = Number(/--metrics-port (\d+)/.exec(unit.ExecStart)[1]);
  const drainMs = Number(/--drain-ms (\d+)/.exec(unit.ExecStart)[1]);
  assert.equal(container.livenessProbe.httpGet.port, port);
  assert.equal(container.readinessProbe.httpGet.port, port);
  assert.deepEqual(prometheus.static_configs[0].targets, [`127.0.0.1:${metricsPort}`]);
  assert.ok(container.readinessProbe.periodSeconds * 1000 <= drainMs, "the kubelet sees the 503 before the stop");
  assert.ok(probes.terminationGracePeriodSeconds * 1000 >= drainMs + 10_000, "the grace period covers the drain and the stop");
  assert.ok(Number.parseInt(unit.TimeoutStopSec, 10) * 1000 >= drainMs + 10_000);
  assert.equal(unit.KillSignal, "SIGTERM");
  const [free, freeMetrics] = [await freePort(), await freePort()];
  const command = unit.ExecStart.replaceAll(unit.WorkingDirectory, dir)
    .replace(`--port ${port}`, `--port ${free}`)
    .replace(`--metrics-port ${metricsPort}`, `--metrics-port ${freeMetrics}`);
  const serve = await startCommand(command, { cwd: dir, env: { ...environment }, t });
  await until("the metrics listener", () => serve.output().includes('"msg":"metrics"'));
  const metricsUrl = `http://${prometheus.static_configs[0].targets[0].replace(String(metricsPort), String(freeMetrics))}${prometheus.metrics_path}`;
  const scraped = await fetch(metricsUrl);
  assert.equal(scraped.status, 200);
  assert.match(await scraped.text(), /^# TYPE oda_tasks_event_streams gauge\noda_tasks_event_streams 0$/m);
  const probe = (which) => fetch(`http://127.0.0.1:${free}${container[which].httpGet.path}`).then((r) => r.status);
  assert.deepEqual([await probe("livenessProbe"), await probe("readinessProbe")], [200, 200]);
  const stopped = serve.stop();
  await until("draining", async () => (await probe("readinessProbe")) === 503, 5000, 50);
  assert.equal(await probe("livenessProbe"), 200);
  await stopped;
  assert.match(serve.output(), /"msg":"stopped"/);
});
