// `oda-tasks serve`: one process that serves the tools over MCP, the chat
// API, a page per chat and the elements, for an agent in any language.
// Secure by default: the token from ODA_TASKS_TOKEN is required, unless the
// server is bound to loopback and told `--no-auth` outright, or takes OAuth
// access tokens (`--auth jwt`). In every mode a request from another origin,
// and on loopback one whose Host names another server, is refused first.
import { readFileSync } from "node:fs";
import { serveApp } from "../serve/app.js";
import { MIN_TOKEN_LENGTH, tokenGate } from "../serve/auth.js";
import { type Gate, openGate } from "../serve/gate.js";
import type { JwtKeys } from "../serve/jwt.js";
import { jsonLogger, LOG_LEVELS, type Logger } from "../serve/log.js";
import { PROMETHEUS_TYPE, ServeMetrics } from "../serve/metrics.js";
import { type FetchHandler, type FetchServer, listenFetch } from "../serve/node-http.js";
import { currentRequest, observedHandler } from "../serve/observe.js";
import { Readiness } from "../serve/probes.js";
import { requestGuard, type RequestGuard } from "../integrations/http/guard.js";
import { failure } from "../integrations/http/replies.js";
import { observe } from "../telemetry/observe.js";
import { errorTypeOf, meter, traceOf } from "../telemetry/otel.js";
import { storeKind } from "../telemetry/store-ops.js";
import { openStoreOr } from "./open-store.js";
import { startSdk, wantsSdk } from "./otel.js";

/** The shortest cookie secret taken under `--auth jwt`. */
const MIN_COOKIE_SECRET_LENGTH = 32;

export const SERVE_USAGE = `usage: oda-tasks serve --store <folder | postgres://… | file.db> [--port N] [--host H]
       oda-tasks serve --store S --auth jwt --issuer <URL> --jwks <URL | file> [--audience <URL>] [--tenant-claim <name>]

Serves one store to agents and people over HTTP:
  /mcp                 the two tools over MCP (Streamable HTTP)
  /api/oda             the chat API (chatHandler): screens, cards, events, suggestion actions
  /api/sessions/:id    PUT: create a chat;  /api/turns/:id/begin|end  POST: a model turn
  /chats/:id           a page per chat: the live plan, suggestions and cards
  /health              GET: {"ok":true}
  /livez, /readyz      GET: alive; ready (the store answers, not draining)

Every route but /health needs the token in ODA_TASKS_TOKEN (at least ${MIN_TOKEN_LENGTH} characters):
programs send "Authorization: Bearer <token>", a browser signs in once on the page.
With --auth jwt, OAuth access tokens instead: scope oda:read reads, oda:write writes;
the browsers' sign-in cookies are signed with ODA_TASKS_COOKIE_SECRET (at least ${MIN_COOKIE_SECRET_LENGTH} characters).
A request from another origin gets 403; bound to loopback, so does one whose Host is
not localhost, 127.0.0.1 or [::1] (or the --public-url's host).

  --store S           a folder (JSONL files), a postgres:// URL, or a .db/.sqlite file
  --port N            the port (default 8765; 0 picks a free one)
  --host H            the address to bind (default 127.0.0.1)
  --public-url U      where people reach this server (behind a proxy or load balancer),
                      for the links to a started chat's page, the origin browsers send
                      and the tokens' audience; default the bound address
  --no-auth           no token: only with a loopback --host
  --auth jwt          take OAuth access tokens (JWT) of --issuer, verified with --jwks
  --issuer URL        the authorization server: the tokens' iss
  --jwks URL|FILE     its signing keys: an https:// URL (http:// on a loopback host),
                      or a JSON Web Key Set file read at start
  --audience URL      the tokens' aud (default <public-url>/mcp)
  --tenant-claim C    the claim whose value owns the chats in place of sub, so that
                      people of one tenant share them
  --no-suggest-task   list only todo_write (for hosts that never send turns)
  --metrics-port N    serve /metrics (Prometheus) on a listener of its own, no token
  --metrics-host H    the metrics listener's address (default 127.0.0.1)
  --log-level L       debug, info, warn, error or silent (default info): JSON lines on stderr
  --drain-ms N        after SIGTERM, how long /readyz answers 503 while the rest is
                      served before the server stops (default 2000)
  -h, --help          print this help

With OTEL_EXPORTER_OTLP_ENDPOINT set, traces and metrics go out over OTLP
(the @opentelemetry/sdk-node package; the standard OTEL_* variables apply).
`;

/** What the command line asked for. */
interface ServeArgs {
  store: string;
  port: number;
  host: string;
  /** The pages' base address without a trailing slash, or undefined: the bound address. */
  publicUrl: string | undefined;
  auth: "none" | "token" | "jwt";
  /** `--auth jwt`'s: the issuer, where its keys are, the audience and the tenant claim. */
  issuer: string | undefined;
  jwks: string | undefined;
  audience: string | undefined;
  tenantClaim: string | undefined;
  suggestTask: boolean;
  /** `--metrics-port`, or undefined: no metrics listener. */
  metricsPort: number | undefined;
  metricsHost: string;
  logLevel: (typeof LOG_LEVELS)[number];
  drainMs: number;
}

/** The flags only `--auth jwt` takes. */
const JWT_FLAGS = { "--issuer": "issuer", "--jwks": "jwks", "--audience": "audience", "--tenant-claim": "tenantClaim" } as const;

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** Fails the command with `message` and the usage, exit code 2, no stack. */
function usageError(message: string): never {
  process.stderr.write(`oda-tasks serve: ${message}\n\n${SERVE_USAGE}`);
  process.exit(2);
}

function parseArgs(args: string[]): ServeArgs {
  const out: Partial<ServeArgs> = {
    port: 8765,
    host: "127.0.0.1",
    publicUrl: undefined,
    auth: "token",
    suggestTask: true,
    metricsHost: "127.0.0.1",
    logLevel: "info",
    drainMs: 2000,
  };
  let metricsHostGiven = false;
  let noAuth = false;
  let authGiven = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = () => {
      const v = args[++i];
      if (v === undefined || v.startsWith("--")) usageError(`${arg} needs a value`);
      return v;
    };
    if (arg === "--store") out.store = value();
    else if (arg === "--host") out.host = value();
    else if (arg === "--public-url") out.publicUrl = publicBase(value());
    else if (arg === "--port") out.port = portOf("--port", value());
    else if (arg === "--metrics-port") out.metricsPort = portOf("--metrics-port", value());
    else if (arg === "--metrics-host") {
      out.metricsHost = value();
      metricsHostGiven = true;
    } else if (arg === "--log-level") {
      const level = value();
      if (!(LOG_LEVELS as readonly string[]).includes(level))
        usageError(`--log-level must be debug, info, warn, error or silent (got ${JSON.stringify(level.slice(0, 200))})`);
      out.logLevel = level as ServeArgs["logLevel"];
    } else if (arg === "--drain-ms") {
      const text = value();
      if (!/^\d{1,6}$/.test(text) || Number(text) > 600_000)
        usageError(`--drain-ms must be a whole number from 0 to 600000 (got ${JSON.stringify(text.slice(0, 200))})`);
      out.drainMs = Number(text);
    } else if (arg === "--no-auth") noAuth = true;
    else if (arg === "--auth") {
      const mode = value();
      if (mode !== "token" && mode !== "jwt") usageError(`--auth must be token or jwt (got ${JSON.stringify(mode.slice(0, 200))})`);
      out.auth = mode;
      authGiven = true;
    } else if (arg === "--issuer") out.issuer = httpUrl("--issuer", value());
    else if (arg === "--audience") out.audience = httpUrl("--audience", value());
    else if (arg === "--jwks") out.jwks = value();
    else if (arg === "--tenant-claim") {
      const name = value();
      if (!/^[\x21-\x7e]{1,100}$/.test(name))
        usageError(`--tenant-claim must be a claim name of 1 to 100 visible ASCII characters (got ${JSON.stringify(name.slice(0, 200))})`);
      out.tenantClaim = name;
    } else if (arg === "--no-suggest-task") out.suggestTask = false;
    else usageError(`unknown argument ${JSON.stringify(arg)}`);
  }
  if (out.store === undefined) usageError("--store is required");
  if (metricsHostGiven && out.metricsPort === undefined) usageError("--metrics-host is only taken with --metrics-port");
  if (noAuth && authGiven) usageError(`--no-auth and --auth ${out.auth} exclude each other`);
  if (noAuth) out.auth = "none";
  if (out.auth !== "jwt") {
    for (const [flag, key] of Object.entries(JWT_FLAGS)) if (out[key] !== undefined) usageError(`${flag} is only taken with --auth jwt`);
  } else {
    if (out.issuer === undefined) usageError("--auth jwt needs --issuer <URL> (the authorization server whose tokens it takes)");
    if (out.jwks === undefined) usageError("--auth jwt needs --jwks <URL | file> (the issuer's signing keys)");
  }
  return out as ServeArgs;
}

/** A port flag's value: a whole number from 0 to 65535. */
function portOf(flag: string, text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535)
    usageError(`${flag} must be a whole number from 0 to 65535 (got ${JSON.stringify(text)})`);
  return Number(text);
}

/** A flag's value as an http(s) URL with no credentials or fragment, kept as written (`iss` and `aud` are compared exactly). */
function httpUrl(flag: string, text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || !/^https?:$/.test(url.protocol) || url.username !== "" || url.password !== "" || text.includes("#")) {
    usageError(`${flag} must be an http(s) URL with no credentials or fragment (got ${JSON.stringify(text.slice(0, 200))})`);
  }
  return text;
}

/** Whether `hostname` (as a URL writes it) is this machine's loopback. */
function loopbackName(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * `--jwks`: a URL (https, or http on a loopback host), fetched at first use;
 * else a file holding a JSON Web Key Set, read now.
 */
function readJwks(text: string): JwtKeys {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let url: URL | undefined;
    try {
      url = new URL(text);
    } catch {
      url = undefined;
    }
    const fits = url !== undefined && (url.protocol === "https:" || (url.protocol === "http:" && loopbackName(url.hostname)));
    if (url === undefined || !fits || url.username !== "" || url.password !== "") {
      usageError(
        `--jwks must be an https:// URL, an http:// URL on a loopback host, or a file (got ${JSON.stringify(text.slice(0, 200))})`,
      );
    }
    return { url };
  }
  let body: string;
  try {
    body = readFileSync(text, "utf8");
  } catch (e) {
    return usageError(`--jwks ${text}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? "failed"})`);
  }
  let set: unknown;
  try {
    set = JSON.parse(body);
  } catch {
    set = undefined;
  }
  const keys = (set as { keys?: unknown } | undefined)?.keys;
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => k !== null && typeof k === "object" && !Array.isArray(k))) {
    usageError(`--jwks ${text} is not a JSON Web Key Set (a JSON object {"keys": [...]} with at least one key)`);
  }
  return { set: set as { keys: [] } };
}

/** `--public-url`'s value as a base for page links: an http(s) URL with no query, fragment or credentials, its trailing slashes dropped. */
function publicBase(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (
    url === undefined ||
    !/^https?:$/.test(url.protocol) ||
    url.search !== "" ||
    url.hash !== "" ||
    url.username !== "" ||
    url.password !== "" ||
    /[?#]/.test(text)
  ) {
    usageError(`--public-url must be an http(s) URL with no query, fragment or credentials (got ${JSON.stringify(text.slice(0, 200))})`);
  }
  return url.href.replace(/\/+$/, "");
}

/**
 * Runs `oda-tasks serve` with `args` (after `serve`) until SIGTERM or SIGINT.
 *
 * @example
 * await serveCommand(["--store", "./chats", "--port", "8765"]);
 */
export async function serveCommand(args: string[]): Promise<void> {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(SERVE_USAGE);
    return;
  }
  const options = parseArgs(args);
  const loopback = LOOPBACK.has(options.host);
  const log = jsonLogger(options.logLevel);
  // First, so that the spans and metrics of everything after go to the SDK's providers.
  const sdk = wantsSdk(process.env) ? await startSdk(process.env, usageError) : null;
  // This server's address, known once it listens: the MCP Apps widget opens a started chat's page there.
  let where = "";
  const publicUrl = () => options.publicUrl ?? where;
  const gate = await gateOf(options, loopback, publicUrl, log);
  // A store's own warnings (PostgreSQL's feed falling back to polling) as log lines.
  const opened = await openStoreOr(options.store, usageError, (e) => log.write("warn", e.message));
  // An error's type and the request it broke, never its message (it can name a chat or a file).
  const onError = (e: unknown) => {
    const request = currentRequest();
    log.write("error", "request failed", {
      errorType: errorTypeOf(e),
      reqId: request?.reqId,
      traceId: request === undefined ? undefined : traceOf(request.request) || undefined,
    });
  };
  const metrics =
    options.metricsPort === undefined && sdk === null
      ? null
      : new ServeMetrics({
          prometheus: options.metricsPort !== undefined,
          meter: sdk === null ? null : meter(),
          storeKind: storeKind(opened.store),
        });
  if (metrics !== null) observe(metrics.observer);
  const readiness = new Readiness(opened.store);
  const app = serveApp({
    store: opened.store,
    gate,
    // The app authorizes /mcp (a bearer credential that may write) and gives it the credential's owner.
    mcp: {
      suggestTask: options.suggestTask,
      onError,
      chatUrl: (id) => `${publicUrl()}/chats/${encodeURIComponent(id)}`,
    },
    // dist/ (the build rewrites the inner URL for where this code lands, and maps folders of src/ only)
    assets: new URL("../", new URL("../entrypoints/", import.meta.url)),
    readiness,
    onError,
  });
  // Host and Origin before anything else is read; set once the port is known (no request comes before).
  let guard: RequestGuard = () => failure(503, "http/unavailable", "the server is starting");
  // Every request seen: its span, its duration, its log line (the front door's refusals too).
  const handler: FetchHandler = observedHandler(async (request) => guard(request) ?? app(request), { log, metrics });
  const listen = async (what: string, serve: FetchHandler, host: string, port: number): Promise<FetchServer> => {
    try {
      return await listenFetch(serve, { host, port, onError });
    } catch (e) {
      await opened.close();
      const code = (e as { code?: string }).code;
      log.write("error", `cannot listen on ${host}:${port}${code ? ` (${code})` : ""}`, { listener: what });
      process.exit(1);
    }
  };
  const server = await listen("serve", handler, options.host, options.port);
  where = `http://${bracketed(options.host)}:${server.port}`;
  guard = frontDoor(options.publicUrl, loopback, server.port, where);
  process.stdout.write(`oda-tasks serve: listening on ${where}\n`);
  log.write("info", "listening", { url: where, auth: options.auth, store: storeKind(opened.store), otlp: sdk !== null });
  const metricsServer =
    options.metricsPort === undefined || metrics === null
      ? null
      : await listen("metrics", metricsHandler(metrics, options.metricsHost), options.metricsHost, options.metricsPort);
  if (metricsServer !== null)
    log.write("info", "metrics", { url: `http://${bracketed(options.metricsHost)}:${metricsServer.port}/metrics` });
  if (options.auth === "none") log.write("warn", "no authorization (--no-auth): anyone on this machine can use it");
  if (options.auth === "jwt") {
    log.write("info", "OAuth access tokens (--auth jwt)", { issuer: options.issuer, audience: options.audience ?? `${publicUrl()}/mcp` });
  }
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close();
    await metricsServer?.close();
    // What the SDK holds goes out before the process does.
    await sdk?.shutdown().catch((e: unknown) => log.write("warn", "the OpenTelemetry SDK could not flush", { errorType: errorTypeOf(e) }));
    await opened.close();
    log.write("info", "stopped");
    process.exit(0);
  };
  // SIGTERM drains first: /readyz answers 503 for --drain-ms while the rest is served, so a
  // load balancer takes the instance out before it stops. A second signal, or SIGINT, stops at once.
  let drainTimer: ReturnType<typeof setTimeout> | undefined;
  process.on("SIGTERM", () => {
    if (readiness.draining || options.drainMs === 0) {
      clearTimeout(drainTimer);
      void stop();
      return;
    }
    readiness.drain();
    log.write("info", "draining", { drainMs: options.drainMs });
    drainTimer = setTimeout(() => void stop(), options.drainMs);
  });
  process.on("SIGINT", () => {
    clearTimeout(drainTimer);
    void stop();
  });
}

/** A host as a URL writes it: an IPv6 address in brackets. */
function bracketed(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * The metrics listener's one route, `GET /metrics`, with no token (as
 * exporters are scraped); bound to loopback, a foreign Host gets 403, and
 * a browser's request (any `Origin`) always does.
 */
function metricsHandler(metrics: ServeMetrics, host: string): FetchHandler {
  const guard = requestGuard("serve", {
    allowedOrigins: [],
    ...(LOOPBACK.has(host) ? { allowedHosts: ["localhost", "127.0.0.1", "[::1]"] } : {}),
  });
  return async (request) => {
    const foreign = guard?.(request);
    if (foreign) return foreign;
    if (new URL(request.url).pathname !== "/metrics") return failure(404, "http/not-found", "no such route");
    if (request.method !== "GET") return failure(405, "http/method-not-allowed", "GET only", { allow: "GET" });
    return new Response(metrics.text(), { headers: { "content-type": PROMETHEUS_TYPE, "cache-control": "no-store" } });
  };
}

/**
 * The gate of the mode asked for, once its settings are checked (a bad one
 * is a usage error): `--no-auth` on loopback, the token of ODA_TASKS_TOKEN,
 * or `--auth jwt` with ODA_TASKS_COOKIE_SECRET and `jose` installed.
 */
async function gateOf(options: ServeArgs, loopback: boolean, publicUrl: () => string, log: Logger): Promise<Gate> {
  const secure = options.publicUrl?.startsWith("https:") === true;
  if (options.auth === "none") {
    if (!loopback) usageError(`--no-auth is only taken with a loopback --host (127.0.0.1, ::1, localhost), not ${options.host}`);
    return openGate();
  }
  if (options.auth === "token") {
    const token = process.env.ODA_TASKS_TOKEN ?? "";
    if (token.length < MIN_TOKEN_LENGTH) {
      usageError(
        token === ""
          ? "set ODA_TASKS_TOKEN to a secret of at least 16 characters (or bind to loopback with --no-auth)"
          : `ODA_TASKS_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters (got ${token.length})`,
      );
    }
    return tokenGate(token, { secure });
  }
  const secret = process.env.ODA_TASKS_COOKIE_SECRET ?? "";
  if (secret.length < MIN_COOKIE_SECRET_LENGTH) {
    usageError(
      secret === ""
        ? `set ODA_TASKS_COOKIE_SECRET to a secret of at least ${MIN_COOKIE_SECRET_LENGTH} characters, the same on every instance (it signs the browsers' sign-in cookies)`
        : `ODA_TASKS_COOKIE_SECRET must be at least ${MIN_COOKIE_SECRET_LENGTH} characters (got ${secret.length})`,
    );
  }
  if (!loopback && options.publicUrl === undefined) {
    usageError("--auth jwt off loopback needs --public-url: the address clients reach, which the tokens' audience and the metadata name");
  }
  const keys = readJwks(options.jwks ?? "");
  let jwt: typeof import("../serve/jwt.js");
  try {
    jwt = await import("../serve/jwt.js");
  } catch (e) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code === "ERR_MODULE_NOT_FOUND" && String(message).includes("'jose'"))
      usageError("--auth jwt needs the `jose` package: npm install jose");
    throw e;
  }
  try {
    return jwt.jwtGate({
      issuer: options.issuer ?? "",
      keys,
      publicUrl,
      cookieSecret: secret,
      ...(options.audience === undefined ? {} : { audience: options.audience }),
      ...(options.tenantClaim === undefined ? {} : { tenantClaim: options.tenantClaim }),
      onKeys: ({ available, reason }) =>
        available
          ? log.write("info", "the JWKS can be fetched again")
          : log.write("warn", `the JWKS cannot be fetched (${reason}): requests with a token get 503 until it can`),
    });
  } catch {
    // jose refused the key set read from the file.
    return usageError(`--jwks ${options.jwks} is not a JSON Web Key Set (a JSON object {"keys": [...]} with at least one key)`);
  }
}

/**
 * The Host and Origin checks of every request: the origins of this server
 * are the `--public-url`'s (else the bound address's) and, bound to
 * loopback, http://localhost, 127.0.0.1 and [::1] on the bound port; bound
 * to loopback, the Host must be localhost, 127.0.0.1 or [::1] (any port),
 * or the `--public-url`'s host (a proxy on this machine that forwards it).
 */
function frontDoor(publicUrl: string | undefined, loopback: boolean, port: number, where: string): RequestGuard {
  const origins = [new URL(publicUrl ?? where).origin];
  const hosts = ["localhost", "127.0.0.1", "[::1]"];
  if (loopback) origins.push(...hosts.map((h) => `http://${h}:${port}`));
  if (publicUrl !== undefined) hosts.push(new URL(publicUrl).hostname);
  const guard = requestGuard("serve", { allowedOrigins: origins, ...(loopback ? { allowedHosts: hosts } : {}) });
  return guard ?? (() => null);
}
