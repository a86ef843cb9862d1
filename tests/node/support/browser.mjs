// Real headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core,
// and a static server for the repository, for tests of the package in a browser.
import { createServer } from "node:http";
import { readFileSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const root = fileURLToPath(new URL("../../../", import.meta.url));
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const types = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".css": "text/css",
};

/** Answers with `file`'s bytes, or 404 when it is no file. */
function sendFile(res, file) {
  try {
    if (!statSync(file).isFile()) throw new Error("not a file");
    res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
  } catch {
    res.writeHead(404).end();
  }
}

/** Serves the repository (or `base`) read-only on 127.0.0.1; `pages` maps a path to inline HTML. */
export async function serve(pages = {}, base = root) {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (pages[path] !== undefined) {
      res.writeHead(200, { "content-type": "text/html" }).end(pages[path]);
      return;
    }
    const dir = normalize(base + sep);
    const file = normalize(join(dir, path.endsWith("/") ? path + "index.html" : path));
    if (!file.startsWith(dir) || file.split(sep).includes("..")) return res.writeHead(403).end();
    sendFile(res, file);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

/**
 * A chat app on 127.0.0.1 for the elements' browser tests: `/api/oda/…` handled
 * by `api` (a Node request listener, `chatHandler` through @hono/node-server's
 * adapter), `/page.html` the page, and the built package's files under `/pkg/dist/`.
 * Resolves to its URL and `close()`.
 */
export async function appServer(api, page) {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (path.startsWith("/api/oda/")) return api(req, res);
    if (path === "/page.html") return res.writeHead(200, { "content-type": "text/html" }).end(page);
    const file = normalize(join(root, path));
    if (!file.startsWith(normalize(root + sep)) || !path.startsWith("/pkg/dist/")) return res.writeHead(404).end();
    sendFile(res, file);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/**
 * The page of {@link appServer} in a tab of the file's Chromium, with the
 * person's session cookie (`session=person-1`), once it set `window.__ready`;
 * all closed when test `t` ends. `errors` collects uncaught page errors.
 */
export async function appTab(t, api, page) {
  const { url, close } = await appServer(api, page);
  const browser = await launch();
  t.after(async () => {
    await browser.close();
    await close();
  });
  await browser.context.addCookies([{ name: "session", value: "person-1", url }]);
  const tab = await browser.context.newPage();
  const errors = [];
  tab.on("pageerror", (e) => errors.push(e.message));
  await tab.goto(`${url}/page.html`);
  await tab.waitForFunction(() => window.__ready === true, null, { timeout: 20_000 });
  return { tab, errors };
}

/** The file's one Chromium while any of its contexts is open (and a second after, for the next test). */
let shared;

/**
 * A fresh browser context (its own storage, as a new profile has: IndexedDB, Web
 * Locks, cookies) in the test file's one headless Chromium; `close()` closes the
 * context. Chromium itself starts at the first launch() and exits a second after
 * the last context closes, unless another launch() takes it first.
 */
export async function launch() {
  if (shared === undefined || !(await shared.browser).isConnected()) {
    shared = { browser: startChromium(), open: 0, timer: undefined };
  }
  const mine = shared;
  clearTimeout(mine.timer);
  mine.open++;
  const context = await (await mine.browser).newContext();
  return {
    context,
    close: async () => {
      await context.close();
      if (--mine.open > 0) return;
      mine.timer = setTimeout(() => {
        if (shared === mine) shared = undefined;
        mine.browser.then((browser) => browser.close());
      }, 1000);
    },
  };
}

function startChromium() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
}

/**
 * Serves `html` at /page.html, opens it in `count` tabs of one fresh browser
 * (one profile: the tabs share IndexedDB and Web Locks), and closes all when
 * test `t` ends. `errors` collects uncaught page errors.
 */
export async function openTabs(t, html, count = 1) {
  const server = await serve({ "/page.html": html });
  const browser = await launch();
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  const errors = [];
  const tabs = [];
  for (let i = 0; i < count; i++) {
    const tab = await browser.context.newPage();
    tab.on("pageerror", (e) => errors.push(e.message));
    await tab.goto(`${server.url}/page.html`);
    tabs.push(tab);
  }
  return { tabs, errors };
}

/**
 * Opens `html` in one tab (see openTabs), waits for the page to set
 * `window[name]` and returns it with the page's uncaught errors.
 */
export async function pageResult(t, html, name) {
  const {
    tabs: [tab],
    errors,
  } = await openTabs(t, html);
  const out = await tab.waitForFunction((n) => window[n], name, { timeout: 20_000 }).then((h) => h.jsonValue());
  return { out, errors };
}

/**
 * Opens `url` + `path` in a new tab of the file's Chromium with the person's
 * session cookie (`session=person-1`, what the recipes' lib/auth.ts checks);
 * the context closes when test `t` ends. `errors` collects uncaught page errors.
 */
export async function sessionTab(t, url, path = "", options = {}) {
  const browser = await launch();
  t.after(() => browser.close());
  await browser.context.addCookies([{ name: "session", value: "person-1", url }]);
  const tab = await browser.context.newPage();
  const errors = [];
  tab.on("pageerror", (e) => errors.push(e.message));
  await tab.goto(`${url}${path}`, options);
  return { tab, errors };
}
