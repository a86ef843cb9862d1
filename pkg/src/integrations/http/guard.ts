// The front door's Host and Origin checks, shared by `chatHandler`,
// `mcpHandler` and `serve`: a request a browser sent from another site's page
// (its `Origin` says so) or through a name rebound to this machine (its
// `Host` says so) is refused before anything of it is read. A request with no
// `Origin` passes: programs send none, and a browser sends one on every
// request that could change something.
import { failure } from "./replies.js";

/**
 * The allowed origins and hosts of a handler: `allowedOrigins` are
 * serialized origins (`https://app.example`, `http://localhost:3000`),
 * `allowedHosts` are host names (`localhost`, `127.0.0.1`, `[::1]`,
 * `app.example`: any port) or `host:port` (that port only). Each list left
 * out is not checked.
 *
 * @example
 * const options: RequestGuardOptions = { allowedOrigins: ["http://localhost:3000"], allowedHosts: ["localhost", "127.0.0.1", "[::1]"] };
 */
export interface RequestGuardOptions {
  allowedOrigins?: readonly string[];
  allowedHosts?: readonly string[];
}

/**
 * A guard: the 403 a request gets for its `Host` or `Origin`, or `null` when it may go on.
 *
 * @example
 * const guard: RequestGuard = requestGuard("chatHandler", { allowedHosts: ["localhost"] }) ?? (() => null);
 * const refused = guard(new Request("http://evil.example/chats/c1")); // a 403 Response (or null: it may go on)
 */
export type RequestGuard = (request: Request) => Response | null;

/** The answer to a request whose `Host` is not allowed. */
const FOREIGN_HOST = "the Host header names another server";
/** The answer to a request whose `Origin` is not allowed. */
const FOREIGN_ORIGIN = "requests from another origin are not allowed";

/** A `Host` header: a name, an IPv4 address or a bracketed IPv6 address, and an optional port. */
const HOST = /^(\[[0-9A-Fa-f:.]+\]|[^\s/?#@[\]:\\%]+)(?::(\d{1,5}))?$/;

/**
 * The guard of `options` for the call named `call` (`chatHandler`,
 * `mcpHandler`), or `null` when neither list is given. A list that is not
 * an array of well-formed origins or hosts throws an `oda-tasks:` TypeError.
 *
 * - `Host`: compared by host name (case-insensitive, IPv6 in its shortest
 *   form) and, for an entry with a port, by port. A request without a `Host`
 *   header is judged by the host of its URL (what the runtime took as the
 *   authority).
 * - `Origin`: compared as a serialized origin (scheme, host, port; a
 *   default port is the same as none). `Origin: null` (a sandboxed frame, a
 *   file, a redirect across sites) is never allowed. A request with no
 *   `Origin` passes.
 *
 * @example
 * const guard = requestGuard("chatHandler", { allowedOrigins: ["https://app.example"] });
 * guard?.(new Request("https://app.example/api/oda/chats/c1", { headers: { origin: "https://evil.example" } })); // a 403
 */
export function requestGuard(call: string, options: RequestGuardOptions): RequestGuard | null {
  const origins = options.allowedOrigins === undefined ? null : readOrigins(call, options.allowedOrigins);
  const hosts = options.allowedHosts === undefined ? null : readHosts(call, options.allowedHosts);
  if (origins === null && hosts === null) return null;
  return (request) => {
    if (hosts !== null) {
      const header = request.headers.get("host");
      const host = parseHost(header ?? hostOfUrl(request.url));
      if (host === null || !hosts.some((h) => h.name === host.name && (h.port === null || h.port === host.port))) {
        return failure(403, "http/forbidden", FOREIGN_HOST);
      }
    }
    if (origins !== null) {
      const header = request.headers.get("origin");
      if (header !== null) {
        const origin = parseOrigin(header);
        if (origin === null || !origins.has(origin)) return failure(403, "http/forbidden", FOREIGN_ORIGIN);
      }
    }
    return null;
  };
}

/** An allowed host: its name as a URL writes it, and its port, or `null` for any. */
interface Host {
  name: string;
  port: string | null;
}

/** `text` as a host (`name[:port]`), or `null` when it is not one. */
function parseHost(text: string): Host | null {
  const match = HOST.exec(text);
  if (match === null) return null;
  const [, name = "", port] = match;
  let url: URL;
  try {
    url = new URL(`http://${name}/`);
  } catch {
    return null;
  }
  if (port !== undefined && Number(port) > 65535) return null;
  // The port as digits without leading zeros, so "080" and "80" are one port.
  return { name: url.hostname, port: port === undefined ? null : String(Number(port)) };
}

/** The host of a request's URL, for a runtime that hands over no `Host` header. */
function hostOfUrl(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

/** `text` as a serialized http(s) origin (`https://app.example`, default port dropped), or `null`. */
function parseOrigin(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const bare = url.pathname === "/" && !/[?#]/.test(text) && url.username === "" && url.password === "";
  return bare && (url.protocol === "http:" || url.protocol === "https:") && /^[a-z]+:\/\/[^/]+\/?$/i.test(text) ? url.origin : null;
}

function readOrigins(call: string, value: unknown): Set<string> {
  const expected = `\`allowedOrigins\` must be an array of origins like "https://app.example"`;
  const origins = new Set<string>();
  for (const text of listOf(call, value, expected)) {
    const origin = parseOrigin(text);
    if (origin === null) {
      throw new TypeError(
        `oda-tasks: invalid arguments of ${call}: \`allowedOrigins\` holds ${shown(text)}, which is not an origin (http or https, a host, an optional port; no path)`,
      );
    }
    origins.add(origin);
  }
  return origins;
}

function readHosts(call: string, value: unknown): Host[] {
  const expected = `\`allowedHosts\` must be an array of hosts like "localhost" or "app.example:8443"`;
  const list = listOf(call, value, expected);
  if (list.length === 0) throw new TypeError(`oda-tasks: invalid arguments of ${call}: \`allowedHosts\` must hold at least one host`);
  return list.map((text) => {
    const host = parseHost(text);
    if (host === null) {
      throw new TypeError(
        `oda-tasks: invalid arguments of ${call}: \`allowedHosts\` holds ${shown(text)}, which is not a host (a name, an IPv4 address or a bracketed IPv6 address, and an optional :port)`,
      );
    }
    return host;
  });
}

/** `value` as an array of strings (copied), or the TypeError `expected` says. */
function listOf(call: string, value: unknown, expected: string): string[] {
  if (!Array.isArray(value)) throw new TypeError(`oda-tasks: invalid arguments of ${call}: ${expected}`);
  const list = [...(value as unknown[])];
  if (!list.every((v) => typeof v === "string")) throw new TypeError(`oda-tasks: invalid arguments of ${call}: ${expected}`);
  return list as string[];
}

function shown(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
