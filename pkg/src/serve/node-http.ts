// A Fetch-API handler on node:http: each request becomes a `Request` (its
// body a bounded stream), each `Response` is written with backpressure, and
// `close()` lets what is being written finish, ends the event streams and stops.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A Fetch-API handler, as `chatHandler` and `mcpHandler` are. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** A listening server: its address, and a graceful stop. */
export interface FetchServer {
  readonly port: number;
  readonly host: string;
  /** Stops accepting, waits up to `graceMs` for the answers being written, ends the event streams, and resolves when every connection closed. */
  close(graceMs?: number): Promise<void>;
}

/** The largest request body the server reads, whatever the handler's own bound (each handler bounds its own further). */
const MAX_BODY_BYTES = 4 << 20;

/** An answer being written: an event stream is ended at `close()`, the others are waited for. */
interface Answer {
  streaming: boolean;
  end: () => void;
  done: Promise<void>;
}

/**
 * Serves `handler` on `host:port` (port 0: any free port).
 *
 * @example
 * const server = await listenFetch(async () => new Response("ok"), { host: "127.0.0.1", port: 0 });
 * await server.close();
 */
export async function listenFetch(
  handler: FetchHandler,
  { host, port, onError }: { host: string; port: number; onError?: (e: unknown) => void },
): Promise<FetchServer> {
  const answers = new Set<Answer>();
  let closing = false;
  const server: Server = createServer({ requestTimeout: 60_000, headersTimeout: 30_000 }, (req, res) => {
    if (closing) {
      res.writeHead(503, { "content-type": "application/json; charset=utf-8", connection: "close", "retry-after": "1" });
      res.end('{"error":{"code":"http/unavailable","message":"the server is stopping"}}');
      return;
    }
    const answer = serveOne(handler, req, res, onError);
    answers.add(answer);
    void answer.done.finally(() => answers.delete(answer));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    port: address.port,
    host,
    async close(graceMs = 10_000) {
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      for (const answer of answers) if (answer.streaming) answer.end();
      const writing = [...answers].filter((a) => !a.streaming).map((a) => a.done);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(writing), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      for (const answer of answers) answer.end();
      server.closeAllConnections();
      await stopped;
    },
  };
}

/** One request: the handler's answer written out; `done` when the response finished or the client left. */
function serveOne(handler: FetchHandler, req: IncomingMessage, res: ServerResponse, onError?: (e: unknown) => void): Answer {
  const aborted = new AbortController();
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const answer: Answer = {
    streaming: false,
    end: () => {
      void reader?.cancel().catch(() => undefined);
      if (!res.writableEnded) res.end();
    },
    done: Promise.resolve(),
  };
  res.on("close", () => {
    if (!res.writableFinished) aborted.abort();
    void reader?.cancel().catch(() => undefined);
  });
  answer.done = (async () => {
    let response: Response;
    try {
      response = await handler(toRequest(req, aborted.signal));
    } catch (e) {
      onError?.(e);
      response = Response.json({ error: { code: "http/internal", message: "internal error" } }, { status: 500 });
    }
    answer.streaming = (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
    if (res.destroyed) {
      await response.body?.cancel().catch(() => undefined);
      return;
    }
    res.writeHead(response.status, headerList(response.headers));
    if (response.body === null) {
      res.end();
      return;
    }
    reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || res.destroyed) break;
        if (!res.write(value)) await new Promise<void>((resolve) => (res.once("drain", resolve), res.once("close", resolve)));
      }
    } catch (e) {
      if (!res.destroyed) onError?.(e);
    } finally {
      if (!res.writableEnded) res.end();
    }
  })();
  return answer;
}

/** The request as a Fetch `Request`: the path on a fixed origin (a Host header is not trusted), the body a stream cut at {@link MAX_BODY_BYTES}. */
function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i] ?? "", req.rawHeaders[i + 1] ?? "");
  const method = req.method ?? "GET";
  const url = new URL(req.url ?? "/", "http://localhost").href;
  if (method === "GET" || method === "HEAD") return new Request(url, { method, headers, signal });
  let size = 0;
  let open = true;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      req.on("data", (chunk: Buffer) => {
        if (!open) return;
        size += chunk.byteLength;
        if (size > MAX_BODY_BYTES) {
          open = false;
          controller.error(new Error("request body too large"));
          return;
        }
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.on("end", () => open && controller.close());
      req.on("error", (e) => open && controller.error(e));
    },
    pull() {
      req.resume();
    },
    // What the handler did not read is read and dropped (within the server's request timeout), so its answer still arrives.
    cancel() {
      open = false;
      req.resume();
    },
  });
  return new Request(url, { method, headers, body, signal, duplex: "half" } as RequestInit);
}

/** A `Headers` as node's header object, `set-cookie` kept as a list. */
function headerList(headers: Headers): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  headers.forEach((value, key) => {
    if (key !== "set-cookie") out[key] = value;
  });
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies;
  return out;
}
