// `npm run preview [-- path/to/chat.jsonl] [--port N]`: builds the package if
// it is missing or older than its sources, then serves the preview page
// (www/) and the built package (pkg/dist, pkg/wasm) on 127.0.0.1. The page
// opens on the given chat, or on the bundled example. Nothing from a CDN.
// Files are served by sirv (its dev mode: read on each request, never cached,
// nothing outside its folder).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import sirv from "sirv";

const root = fileURLToPath(new URL("..", import.meta.url));
const DEFAULT_PORT = 4178;

const usage = "usage: npm run preview [-- path/to/chat.jsonl] [--port N]";
const args = process.argv.slice(2);
let port;
let chatPath;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--port") port = Number(args[++i]);
  else if (args[i] === "-h" || args[i] === "--help") {
    process.stdout.write(usage + "\n");
    process.exit(0);
  } else if (!args[i].startsWith("-") && chatPath === undefined) chatPath = args[i];
  else fail(`unknown argument ${args[i]}\n${usage}`);
}
if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536)) fail(`--port needs a port number\n${usage}`);

// npm runs scripts in the repository root; a relative path means where npm was called.
const chatFile = chatPath === undefined ? join(root, "pkg/example/chat.jsonl") : resolve(process.env.INIT_CWD ?? process.cwd(), chatPath);
let chatText;
try {
  chatText = readFileSync(chatFile, "utf8");
} catch (e) {
  fail(`cannot read ${chatFile}: ${e.message}`);
}

buildIfStale();

/** Where each URL prefix is served from; nothing else in the repository is. */
const nosniff = (res) => res.setHeader("x-content-type-options", "nosniff");
const mounts = [
  ["/pkg/dist/", join(root, "pkg/dist")],
  ["/pkg/wasm/", join(root, "pkg/wasm")],
  ["/", join(root, "www")],
].map(([prefix, dir]) => [prefix, sirv(dir, { dev: true, setHeaders: nosniff, onNoMatch: notFound })]);
const opening = JSON.stringify({ name: basename(chatFile), url: "/opening-chat.jsonl" });

const server = createServer((req, res) => {
  const send = (status, type, body) =>
    res.writeHead(status, { "content-type": type, "cache-control": "no-store", "x-content-type-options": "nosniff" }).end(body);
  if (req.method !== "GET" && req.method !== "HEAD") return send(405, "text/plain", "method not allowed");
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  if (path === "/opening.json") return send(200, "application/json", opening);
  if (path === "/opening-chat.jsonl") return send(200, "application/jsonl", chatText);
  const mount = mounts.find(([p]) => (req.url ?? "").startsWith(p));
  if (mount === undefined) return notFound(req, res);
  req.url = "/" + req.url.slice(mount[0].length); // sirv serves its folder from "/"
  mount[1](req, res);
});

function notFound(_req, res) {
  res.writeHead(404, { "content-type": "text/plain", "x-content-type-options": "nosniff" }).end("not found");
}

listen(port ?? DEFAULT_PORT, port === undefined ? 20 : 0);

/** Listens on 127.0.0.1; with the default port, tries the next ones while they are taken. */
function listen(at, retries) {
  server.once("error", (e) => {
    if (e.code === "EADDRINUSE" && retries > 0) return listen(at + 1, retries - 1);
    fail(`cannot listen on 127.0.0.1:${at}: ${e.message}`);
  });
  server.listen(at, "127.0.0.1", () => {
    process.stdout.write(`Serving ${chatFile} and the package\nPreview: http://127.0.0.1:${server.address().port}/\n`);
  });
}

/** Runs the build when the package is missing or older than a source it is built from. */
function buildIfStale() {
  const built = ["pkg/dist/entrypoints/index.js", "pkg/dist/entrypoints/browser.js", "pkg/wasm/oda_tasks_bg.wasm"].map((f) =>
    join(root, f),
  );
  const oldest = Math.min(...built.map((f) => (existsSync(f) ? statSync(f).mtimeMs : 0)));
  const newest = Math.max(...["src", "pkg/src", "Cargo.toml", "scripts/build.mjs"].map((f) => newestIn(join(root, f))));
  if (oldest > newest) return;
  process.stderr.write("preview: building the package first\n");
  // What `npm run build` runs: the build, then the inlined module the Node entry loads.
  for (const script of ["scripts/build.mjs", "scripts/inline-wasm.mjs"])
    execFileSync(process.execPath, [join(root, script)], { cwd: root, stdio: ["ignore", process.stderr, process.stderr] });
}

/** The newest file's time under `path`; folders' own times do not count (the build's making pkg/src/gen changes pkg/src's). */
function newestIn(path) {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(
    0,
    ...readdirSync(path)
      .filter((n) => n !== "gen")
      .map((n) => newestIn(join(path, n))),
  );
}

function fail(message) {
  process.stderr.write(`preview: ${message}\n`);
  process.exit(1);
}
