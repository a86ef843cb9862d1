// The agent UIs' one server (tests/node/consumers/consumer-agent-uis.test.mjs):
// the docs' route handlers as printed (the AG-UI endpoint, the AI SDK chat
// route, chatHandler), the Vite build's pages, and the model's gates, on
// 127.0.0.1; the last line it prints is its URL.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { POST as agentRun } from "./app/api/agent/route";
import { POST as chat } from "./app/api/chat/route";
import { GET as odaGet, POST as odaPost } from "./app/api/oda/[...path]/route";
import { release } from "./lib/model";

const types: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm" };
const dist = join(process.cwd(), "dist");

async function route(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const post = request.method === "POST";
  if (pathname === "/api/agent" && post) return agentRun(request);
  if (pathname === "/api/chat" && post) return chat(request);
  if (pathname.startsWith("/api/oda/")) return post ? odaPost(request) : odaGet(request);
  if (pathname.startsWith("/test/release/") && post) {
    release(pathname.slice("/test/release/".length));
    return new Response("released");
  }
  const file = normalize(join(dist, pathname));
  if (!file.startsWith(dist + "/") || request.method !== "GET") return new Response("not found", { status: 404 });
  try {
    return new Response(await readFile(file), { headers: { "content-type": types[extname(file)] ?? "application/octet-stream" } });
  } catch {
    return new Response("not found", { status: 404 });
  }
}

/** Node's request as a Fetch `Request` (aborted when the client goes), and a `Response` streamed back. */
async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const aborted = new AbortController();
  res.on("close", () => aborted.abort());
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers(Object.entries(req.headers).flatMap(([k, v]) => (typeof v === "string" ? [[k, v] as [string, string]] : [])));
  const request = new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers,
    body: req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks),
    signal: aborted.signal,
  });
  const response = await route(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) return void res.end();
  const reader = response.body.getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) res.write(read.value);
  } catch {
    // the client went away
  }
  res.end();
}

const server = createServer((req, res) => {
  handle(req, res).catch((e) => {
    console.error(e);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  if (address !== null && typeof address === "object") console.log(`listening http://127.0.0.1:${address.port}`);
});
