// `oda-tasks serve`: one process that serves the tools over MCP, the chat
// API, a page per chat and the elements, for an agent in any language.
// Secure by default: the token from ODA_TASKS_TOKEN is required, unless the
// server is bound to loopback and told `--no-auth` outright.
import { serveApp } from "../serve/app.js";
import { MIN_TOKEN_LENGTH, OPEN_GATE, tokenGate } from "../serve/auth.js";
import { listenFetch } from "../serve/node-http.js";
import { mcpHandler } from "../integrations/mcp/handler.js";
import { openStoreOr } from "./open-store.js";

export const SERVE_USAGE = `usage: oda-tasks serve --store <folder | postgres://… | file.db> [--port N] [--host H]

Serves one store to agents and people over HTTP:
  /mcp                 the two tools over MCP (Streamable HTTP)
  /api/oda             the chat API (chatHandler): screens, cards, events, suggestion actions
  /api/sessions/:id    PUT: create a chat;  /api/turns/:id/begin|end  POST: a model turn
  /chats/:id           a page per chat: the live plan, suggestions and cards
  /health              GET: {"ok":true}

Every route but /health needs the token in ODA_TASKS_TOKEN (at least ${MIN_TOKEN_LENGTH} characters):
programs send "Authorization: Bearer <token>", a browser signs in once on the page.

  --store S           a folder (JSONL files), a postgres:// URL, or a .db/.sqlite file
  --port N            the port (default 8765; 0 picks a free one)
  --host H            the address to bind (default 127.0.0.1)
  --public-url U      where people reach this server (behind a proxy or load balancer),
                      for the links to a started chat's page; default the bound address
  --no-auth           no token: only with a loopback --host
  --no-suggest-task   list only todo_write (for hosts that never send turns)
  -h, --help          print this help
`;

/** What the command line asked for. */
interface ServeArgs {
  store: string;
  port: number;
  host: string;
  /** The pages' base address without a trailing slash, or undefined: the bound address. */
  publicUrl: string | undefined;
  auth: boolean;
  suggestTask: boolean;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** Fails the command with `message` and the usage, exit code 2, no stack. */
function usageError(message: string): never {
  process.stderr.write(`oda-tasks serve: ${message}\n\n${SERVE_USAGE}`);
  process.exit(2);
}

function parseArgs(args: string[]): ServeArgs {
  const out: Partial<ServeArgs> = { port: 8765, host: "127.0.0.1", publicUrl: undefined, auth: true, suggestTask: true };
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
    else if (arg === "--port") {
      const text = value();
      if (!/^\d{1,5}$/.test(text) || Number(text) > 65535)
        usageError(`--port must be a whole number from 0 to 65535 (got ${JSON.stringify(text)})`);
      out.port = Number(text);
    } else if (arg === "--no-auth") out.auth = false;
    else if (arg === "--no-suggest-task") out.suggestTask = false;
    else usageError(`unknown argument ${JSON.stringify(arg)}`);
  }
  if (out.store === undefined) usageError("--store is required");
  return out as ServeArgs;
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
  const token = process.env.ODA_TASKS_TOKEN ?? "";
  if (!options.auth && !LOOPBACK.has(options.host))
    usageError(`--no-auth is only taken with a loopback --host (127.0.0.1, ::1, localhost), not ${options.host}`);
  if (options.auth && token.length < MIN_TOKEN_LENGTH) {
    usageError(
      token === ""
        ? "set ODA_TASKS_TOKEN to a secret of at least 16 characters (or bind to loopback with --no-auth)"
        : `ODA_TASKS_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters (got ${token.length})`,
    );
  }
  const opened = await openStoreOr(options.store, usageError);
  const gate = options.auth ? tokenGate(token) : OPEN_GATE;
  const onError = (e: unknown) => process.stderr.write(`oda-tasks serve: ${e instanceof Error ? e.message : String(e)}\n`);
  // This server's address, known once it listens: the MCP Apps widget opens a started chat's page there.
  let where = "";
  const handler = serveApp({
    store: opened.store,
    gate,
    // The bearer check is the app's (a cookie never reaches /mcp); every chat is this token's.
    mcp: mcpHandler({
      store: opened.store,
      authorize: () => true,
      suggestTask: options.suggestTask,
      onError,
      chatUrl: (id) => `${options.publicUrl ?? where}/chats/${encodeURIComponent(id)}`,
    }),
    // dist/ (the build rewrites the inner URL for where this code lands, and maps folders of src/ only)
    assets: new URL("../", new URL("../entrypoints/", import.meta.url)),
    onError,
  });
  let server: Awaited<ReturnType<typeof listenFetch>>;
  try {
    server = await listenFetch(handler, { host: options.host, port: options.port, onError });
  } catch (e) {
    await opened.close();
    const code = (e as { code?: string }).code;
    process.stderr.write(`oda-tasks serve: cannot listen on ${options.host}:${options.port}${code ? ` (${code})` : ""}\n`);
    process.exit(1);
  }
  where = `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${server.port}`;
  process.stdout.write(`oda-tasks serve: listening on ${where}\n`);
  if (!options.auth) process.stderr.write("oda-tasks serve: no authorization (--no-auth): anyone on this machine can use it\n");
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close();
    await opened.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
}
