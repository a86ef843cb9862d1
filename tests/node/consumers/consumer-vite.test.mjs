// The packed package in Vite's dev server (5, 6 and 8) and build, in real
// Chromium. Vite 5 and 6 pre-bundle dependencies into node_modules/.vite/deps,
// where nothing sits beside the glue: plain `await init()` must still work.
// oda-tasks/elements in a Vite build: a React 19 app and a plain page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { launch, serve } from "../support/browser.mjs";
import { consumer, packTarball, sh, startServer, write } from "../support/consumer.mjs";

const app = (imports) => `${imports}
const log = [{ type: "session", chatId: "c", workspace: "/w", agent: "top-level" }, { type: "turn_started" }];
try {
  await init(${imports.includes("wasmUrl") ? "wasmUrl" : ""});
  window.__result = todoWrite(log, { todos: [{ content: "Ship it", status: "in_progress" }] });
} catch (e) {
  window.__result = { error: String(e && e.message || e) };
}
`;

// A React 19 app drawing the core's answers with the elements: properties by
// name, events through \`onoda-*\` props, the package's JSX typings aside.
const reactApp = `import { createElement as h, useState } from "react";
import { createRoot } from "react-dom/client";
import "oda-tasks/elements/react";
import { ChatState, init } from "oda-tasks";

await init();
const state = ChatState.fromLog([
  { type: "session", chatId: "c", workspace: "/w", agent: "top-level" }, { type: "turn_started" },
  { type: "todo_update", v: 1, todos: [{ content: "Ship it", status: "in_progress" }] },
  { type: "suggestion_offered", v: 1, id: "s1", title: "Add metrics", tldr: "Why", brief: "Do" },
]);
const { cards, plan } = state.replayTodos();
window.__events = [];
function App() {
  const [list, setList] = useState(state.replaySuggestions());
  return h("div", null,
    cards.map((card, n) => h("oda-todo-card", { key: card.index, card, position: n + 1, total: cards.length })),
    h("oda-plan", { plan, cardCount: cards.length }),
    h("oda-suggestions", { list, "onoda-dismiss": (e) => { window.__events.push(e.detail); setList({ open: [], settled: [{ ...list.open[0], outcome: "dismissed" }] }); } }));
}
createRoot(document.getElementById("root")).render(h(App));
window.__result = { rendered: true };
`;

// One install for the whole file; removed when it ends.
const cleanup = [];
test.after(() => cleanup.forEach((fn) => fn()));
const once = { after: (fn) => cleanup.push(fn) };
const { tarball } = packTarball(once);
const dir = consumer(once, tarball, {
  deps: { vite5: "npm:vite@5.4.9", vite6: "npm:vite@6.4.6", vite8: "npm:vite@8.3.8", react: "19.3.1", "react-dom": "19.3.1" },
  files: {
    "index.html": `<!doctype html><meta charset="utf-8"><title>app</title><script type="module" src="/main.js"></script>`,
    "main.js": app(`import { init, todoWrite } from "oda-tasks";`),
    "url.html": `<!doctype html><meta charset="utf-8"><title>app</title><script type="module" src="/url.js"></script>`,
    "url.js": app(`import { init, todoWrite } from "oda-tasks";\nimport wasmUrl from "oda-tasks/oda_tasks_bg.wasm?url";`),
    "react.html": `<!doctype html><meta charset="utf-8"><title>app</title><div id="root"></div><script type="module" src="/react.js"></script>`,
    "react.js": reactApp,
    "plain.html": `<!doctype html><meta charset="utf-8"><title>app</title><oda-plan></oda-plan><script type="module" src="/plain.js"></script>`,
    "plain.js": `import "oda-tasks/elements";
document.querySelector("oda-plan").plan = { state: "running", turn: 1, todos: [{ content: "Ship it", status: "in_progress" }] };
window.__result = { state: document.querySelector("oda-plan").shadowRoot.querySelector(".state").textContent };
`,
    "vite.exclude.config.mjs": `export default { optimizeDeps: { exclude: ["oda-tasks"] } };\n`,
    "vite.config.mjs": `export default {};\n`,
  },
});

const accepted = {
  ok: true,
  entry: { type: "todo_update", v: 1, todos: [{ content: "Ship it", status: "in_progress" }] },
  output: "Updated todo list: 0 pending, 1 in progress, 0 completed",
};

/** Opens `page` of a running server in fresh Chromium; resolves to the app's result and every request made. */
async function openApp(t, url, page = "") {
  const browser = await launch();
  t.after(() => browser.close());
  const tab = await browser.context.newPage();
  const requests = [];
  const errors = [];
  tab.on("response", (r) => requests.push({ url: new URL(r.url()).pathname, status: r.status() }));
  tab.on("pageerror", (e) => errors.push(e.message));
  await tab.goto(url + page);
  const result = await tab.waitForFunction(() => window.__result, null, { timeout: 60_000 }).then((h) => h.jsonValue());
  return { result, requests, errors };
}

function devServer(t, vite, config = "vite.config.mjs") {
  return startServer(
    t,
    dir,
    process.execPath,
    [`node_modules/${vite}/bin/vite.js`, "--config", config, "--host", "127.0.0.1", "--port", "0", "--force"],
    /Local:\s+(http:\/\/127\.0\.0\.1:\d+\/)/,
  );
}

for (const vite of ["vite5", "vite6", "vite8"]) {
  test(`${vite} dev server: plain \`await init()\` works with no config, pre-bundled or not`, async (t) => {
    const { url } = await devServer(t, vite);
    const { result, requests, errors } = await openApp(t, url);
    assert.deepEqual(errors, []);
    assert.deepEqual(result, accepted);
    const wasm = requests.filter((r) => r.url.endsWith(".wasm"));
    assert.deepEqual(
      wasm.map((r) => r.status),
      [200],
      JSON.stringify(wasm),
    );
    if (vite !== "vite8") {
      // The case that used to fail: the package was served from Vite's pre-bundle cache.
      assert.ok(
        requests.some((r) => /\/node_modules\/\.vite\/deps\/oda-tasks\.js$/.test(r.url)),
        JSON.stringify(requests),
      );
    }
  });
}

test("vite5 dev server: the README's recipe, optimizeDeps.exclude, serves the package as it is", async (t) => {
  const { url } = await devServer(t, "vite5", "vite.exclude.config.mjs");
  const { result, requests } = await openApp(t, url);
  assert.deepEqual(result, accepted);
  assert.ok(!requests.some((r) => r.url.includes("/.vite/deps/oda-tasks")), "not pre-bundled");
  assert.ok(requests.some((r) => r.url === "/node_modules/oda-tasks/wasm/oda_tasks_bg.wasm" && r.status === 200));
});

test("vite6 dev server: an explicit `?url` import passed to init() works too", async (t) => {
  const { url } = await devServer(t, "vite6");
  const { result } = await openApp(t, url, "url.html");
  assert.deepEqual(result, accepted);
});

/** One Vite 6 build of the three pages (the app, the React app, the plain page), made by the first test that needs it. */
let built;
function vite6Build() {
  built ??= (() => {
    write(dir, {
      "vite.build.config.mjs": `export default { logLevel: "error", build: { outDir: "dist6", target: "es2022",
    rollupOptions: { input: { main: "index.html", react: "react.html", plain: "plain.html" } } } };\n`,
    });
    sh(dir, process.execPath, ["node_modules/vite6/bin/vite.js", "build", "--config", "vite.build.config.mjs"]);
    return `${dir}/dist6`;
  })();
  return built;
}

test("vite6 build: the .wasm is emitted with the bundle and loads", async (t) => {
  const server = await serve({}, vite6Build());
  t.after(() => server.close());
  const { result, requests } = await openApp(t, server.url + "/");
  assert.deepEqual(result, accepted);
  assert.ok(
    requests.some((r) => /\/assets\/oda_tasks_bg-[\w-]+\.wasm$/.test(r.url) && r.status === 200),
    JSON.stringify(requests),
  );
});

test("vite6 build: a React 19 app and a plain page draw with oda-tasks/elements; the plain page loads no WASM", async (t) => {
  const server = await serve({}, vite6Build());
  t.after(() => server.close());

  const plain = await openApp(t, server.url + "/", "plain.html");
  assert.deepEqual(plain.errors, []);
  assert.deepEqual(plain.result, { state: "Running · turn 1" });
  assert.deepEqual(
    plain.requests.filter((r) => r.url.endsWith(".wasm")),
    [],
    "the elements alone load no core",
  );

  const browser = await launch();
  t.after(() => browser.close());
  const tab = await browser.context.newPage();
  const errors = [];
  tab.on("pageerror", (e) => errors.push(e.message));
  await tab.goto(server.url + "/react.html");
  await tab.locator("oda-todo-card .text").waitFor();
  assert.equal(await tab.locator("oda-todo-card .text").textContent(), "Ship it");
  assert.equal(await tab.locator("oda-todo-card .position").textContent(), "1 of 1 · turn 1");
  assert.equal(await tab.locator("oda-plan .state").textContent(), "Running · turn 1");
  await tab.getByRole("button", { name: "Dismiss: Add metrics" }).click();
  await tab.getByRole("button", { name: "Restore: Add metrics" }).waitFor();
  assert.deepEqual(await tab.evaluate(() => window.__events), [{ id: "s1" }]);
  assert.deepEqual(errors, []);
});
