// `oda-tasks serve` as a user runs it: the built CLI in its own process, over
// real HTTP. Authorization on every route but /health, the sign-in cookie,
// the lifecycle routes, bounded bodies, no CORS, clear start-up errors, and
// SIGTERM finishing what is being written.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { JsonlStore } from "oda-tasks/node";
import { toolHandlers } from "oda-tasks";
import { runServe, startServe, TOKEN, withToken } from "./support/oda-serve.mjs";

function tempStore(t) {
  const dir = mkdtempSync(join(tmpdir(), "oda-serve-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const json = (body) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

test("serve refuses to start without a token, with a short one, or --no-auth off loopback; no stack", async (t) => {
  const dir = tempStore(t);
  const cases = [
    [[], {}, "set ODA_TASKS_TOKEN to a secret of at least 16 characters (or bind to loopback with --no-auth)"],
    [[], { ODA_TASKS_TOKEN: "short" }, "ODA_TASKS_TOKEN must be at least 16 characters (got 5)"],
    [["--no-auth", "--host", "0.0.0.0"], {}, "--no-auth is only taken with a loopback --host (127.0.0.1, ::1, localhost), not 0.0.0.0"],
    [["--port", "99999"], { ODA_TASKS_TOKEN: TOKEN }, '--port must be a whole number from 0 to 65535 (got "99999")'],
    [["--bogus"], { ODA_TASKS_TOKEN: TOKEN }, 'unknown argument "--bogus"'],
    ...["ftp://tasks.example", "https://tasks.example/?a=1", "https://user:pw@tasks.example", "tasks.example"].map((base) => [
      ["--public-url", base],
      { ODA_TASKS_TOKEN: TOKEN },
      `--public-url must be an http(s) URL with no query, fragment or credentials (got ${JSON.stringify(base)})`,
    ]),
  ];
  for (const [args, env, message] of cases) {
    const { code, stdout, stderr } = await runServe(["--store", dir, ...args], env);
    assert.equal(code, 2, stderr);
    assert.equal(stdout, "");
    assert.ok(stderr.startsWith(`oda-tasks serve: ${message}\n`), stderr);
    assert.doesNotMatch(stderr, /\n\s+at /, "no stack");
  }
  const missing = await runServe([], { ODA_TASKS_TOKEN: TOKEN });
  assert.equal(missing.code, 2);
  assert.ok(missing.stderr.startsWith("oda-tasks serve: --store is required\n"));
});

test("serve: /health is open, every other route needs the token, and no answer carries CORS", async (t) => {
  const { url } = await startServe(["--store", tempStore(t)], { t });
  const health = await fetch(`${url}/health`);
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { ok: true });
  const routes = [
    ["/mcp", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }],
    ["/api/oda/chats/c1", {}],
    ["/api/oda/chats/c1/events", {}],
    ["/api/turns/c1/begin", json({})],
    ["/assets/serve/chat-page.js", {}],
  ];
  for (const [path, init] of routes) {
    for (const authorization of [undefined, "Bearer wrong-token-0123456789", `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const headers = { ...(init.headers ?? {}), ...(authorization ? { authorization } : {}), origin: "https://evil.example" };
      const r = await fetch(`${url}${path}`, { ...init, headers });
      assert.ok(r.status === 401 || r.status === 403, `${path} with ${authorization}: ${r.status}`);
      assert.equal(r.headers.get("access-control-allow-origin"), null);
      await r.body?.cancel();
    }
  }
  // The page asks a browser to sign in, and never shows anything of a chat before.
  const page = await fetch(`${url}/chats/c1`);
  assert.equal(page.status, 401);
  const html = await page.text();
  assert.match(html, /<form method="post" action="\/sign-in">/);
  assert.doesNotMatch(html, /oda-plan/);
  const preflight = await fetch(`${url}/api/oda/chats/c1`, { method: "OPTIONS", headers: { origin: "https://evil.example" } });
  assert.equal(preflight.headers.get("access-control-allow-origin"), null);
});

test("serve: the lifecycle routes create a chat and its turns; the chat API reads it", async (t) => {
  const { url } = await startServe(["--store", tempStore(t)], { t });
  const put = (body) => withToken(`${url}/api/sessions/c1`, { ...json(body), method: "PUT" });
  const created = await put({ workspace: "/repos/app", settings: { permission: "ask" } });
  assert.equal(created.status, 201);
  assert.deepEqual(await created.json(), { ok: true, created: true });
  assert.deepEqual(await (await put({})).json(), { ok: true, created: false });
  const bad = await put({ agent: "boss" });
  assert.equal(bad.status, 400);
  assert.deepEqual(await bad.json(), {
    error: { code: "http/bad-request", message: 'invalid session of createChat: `agent` must be "top-level" or "helper"' },
  });
  const begin = await withToken(`${url}/api/turns/c1/begin`, json({}));
  assert.deepEqual(await begin.json(), { ok: true, turn: 1 });
  assert.deepEqual(await (await withToken(`${url}/api/turns/c1/end`, json({}))).json(), { ok: true, ended: true });
  assert.deepEqual(await (await withToken(`${url}/api/turns/c1/end`, json({}))).json(), { ok: true, ended: false });
  const missing = await withToken(`${url}/api/turns/nope/begin`, json({}));
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).error.code, "store/missing-chat");
  const wrongMethod = await withToken(`${url}/api/turns/c1/begin`);
  assert.equal(wrongMethod.status, 405);
  await wrongMethod.body?.cancel();
  const big = await withToken(`${url}/api/sessions/c2`, { ...json({ title: "x".repeat(5000) }), method: "PUT" });
  assert.equal(big.status, 413);
  await big.body?.cancel();
  const screen = await (await withToken(`${url}/api/oda/chats/c1`)).json();
  assert.equal(screen.length, 3);
  assert.equal(screen.plan.state, "none");
});

test("serve: a person's edit through the chat API, and the context route that tells an agent in any language once", async (t) => {
  const { url } = await startServe(["--store", tempStore(t)], { t });
  await withToken(`${url}/api/sessions/c1`, { ...json({ workspace: "/w" }), method: "PUT" });
  // No edit yet: nothing to tell.
  assert.deepEqual(await (await withToken(`${url}/api/turns/c1/context`, json({}))).json(), { ok: true, text: null });
  const edited = await withToken(`${url}/api/oda/chats/c1/todos`, json({ todos: [{ content: "Ship", status: "pending" }], basedOn: 1 }));
  assert.equal(edited.status, 200);
  assert.deepEqual(await edited.json(), { ok: true, length: 2 });
  const told = await withToken(`${url}/api/turns/c1/context`, json({}));
  assert.equal(told.status, 200);
  const text =
    'The user edited the todo list while you worked. What they changed:\n- added "Ship" (pending)\nThe list as edited (1 pending, 0 in progress, 0 completed):\n1. [pending] "Ship"\nKeep their changes: your next todo_write sends this list whole, with the user\'s changes in it.';
  assert.deepEqual(await told.json(), { ok: true, text });
  // Told once: recorded, so the next ask has nothing, and the screen's log holds what was told.
  assert.deepEqual(await (await withToken(`${url}/api/turns/c1/context`, json({}))).json(), { ok: true, text: null });
  assert.equal((await (await withToken(`${url}/api/oda/chats/c1`)).json()).length, 3);
  const missing = await withToken(`${url}/api/turns/nope/context`, json({}));
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).error.code, "store/missing-chat");
  const body = await withToken(`${url}/api/turns/c1/context`, json({ after: 1 }));
  assert.equal(body.status, 400);
  assert.deepEqual(await body.json(), { error: { code: "http/bad-request", message: "context takes no fields in its body" } });
  // A cookie is no credential there, as for begin and end.
  const cookieOnly = await fetch(`${url}/api/turns/c1/context`, {
    ...json({}),
    headers: { "content-type": "application/json", cookie: "oda_session=x" },
  });
  assert.equal(cookieOnly.status, 401);
  await cookieOnly.body?.cancel();
});

test("serve: a browser signs in once with the form; the cookie reads the chat but never calls a tool or writes a turn", async (t) => {
  const { url } = await startServe(["--store", tempStore(t)], { t });
  await withToken(`${url}/api/sessions/c1`, { ...json({}), method: "PUT" });
  const form = (token, next) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token, next }).toString(),
    redirect: "manual",
  });
  const wrong = await fetch(`${url}/sign-in`, form("not-the-token-at-all", "/chats/c1"));
  assert.equal(wrong.status, 401);
  assert.equal(wrong.headers.get("set-cookie"), null);
  assert.match(await wrong.text(), /That token is not this server's/);
  const right = await fetch(`${url}/sign-in`, form(TOKEN, "/chats/c1"));
  assert.equal(right.status, 303);
  assert.equal(right.headers.get("location"), "/chats/c1");
  const cookie = right.headers.get("set-cookie");
  assert.match(cookie, /^oda_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=2592000$/);
  assert.ok(!cookie.includes(TOKEN), "the cookie is not the token");
  // No open redirect: anywhere but a chat page or the list of chats goes to the list.
  for (const next of ["https://evil.example/", "//evil.example/", "/\\evil.example", "/health"]) {
    const away = await fetch(`${url}/sign-in`, form(TOKEN, next));
    assert.equal(away.headers.get("location"), "/", next);
  }
  const session = cookie.split(";")[0];
  const page = await fetch(`${url}/chats/c1`, { headers: { cookie: session } });
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-security-policy"), /script-src 'self'/);
  const html = await page.text();
  // The token may write: the person edits the list on the page.
  assert.match(html, /<oda-plan src="\/api\/oda\/chats\/c1" editable><\/oda-plan>/);
  assert.ok(!html.includes(TOKEN));
  assert.equal((await fetch(`${url}/api/oda/chats/c1`, { headers: { cookie: session } })).status, 200);
  // From another site the cookie counts for nothing (a browser says so in Sec-Fetch-Site): no credential.
  const crossSite = await fetch(`${url}/api/oda/chats/c1`, { headers: { cookie: session, "sec-fetch-site": "cross-site" } });
  assert.equal(crossSite.status, 401);
  await crossSite.body?.cancel();
  for (const path of ["/api/turns/c1/begin", "/mcp"]) {
    const r = await fetch(`${url}${path}`, { ...json({}), headers: { "content-type": "application/json", cookie: session } });
    assert.equal(r.status, 401, path);
    await r.body?.cancel();
  }
  const reminder = await fetch(`${url}/api/sessions/c1/reminder`, { headers: { cookie: session } });
  assert.equal(reminder.status, 401, "the reminder is for programs");
  await reminder.body?.cancel();
});

test("serve --public-url: the MCP Apps view links a started chat's page at the public address, not the bound one", async (t) => {
  const { url } = await startServe(["--store", tempStore(t), "--host", "127.0.0.1", "--public-url", "https://tasks.example/oda/"], { t });
  await withToken(`${url}/api/sessions/c1`, { ...json({ workspace: "/w" }), method: "PUT" });
  const call = async (name, args, meta) => {
    const r = await withToken(`${url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
      }),
    });
    return (await r.json()).result;
  };
  const offered = await call(
    "suggest_task",
    { title: "Add retries", tldr: "Flaky uploads.", brief: "Retry." },
    { "oda-tasks/chat": "c1", "oda-tasks/turn": "t1" },
  );
  const id = offered._meta["oda-tasks/offer"].id;
  const started = await call("oda_start", { chat: "c1", id });
  assert.deepEqual(started.structuredContent.links, { "c1.s1": "https://tasks.example/oda/chats/c1.s1" });
});

test("serve --no-auth on loopback needs no token and says so", async (t) => {
  const { url, output } = await startServe(["--store", tempStore(t), "--no-auth"], { env: {}, t });
  const created = await fetch(`${url}/api/sessions/c1`, { ...json({}), method: "PUT" });
  assert.equal(created.status, 201);
  assert.match(output(), /no authorization \(--no-auth\)/);
});

test("serve: SIGTERM ends the event streams, lets the write in flight land, and exits 0", async (t) => {
  const dir = tempStore(t);
  const { url, stop } = await startServe(["--store", dir], { t });
  await withToken(`${url}/api/sessions/c1`, { ...json({}), method: "PUT" });
  const events = await withToken(`${url}/api/oda/chats/c1/events`);
  assert.equal(events.headers.get("content-type"), "text/event-stream; charset=utf-8");
  const reader = events.body.getReader();
  let first = "";
  while (!first.includes("event: screen")) first += new TextDecoder().decode((await reader.read()).value);
  assert.match(first, /id: 1\nevent: screen\n/);
  // Writes in flight as the signal comes: each one answered ok has landed; none is left half done.
  const ids = Array.from({ length: 10 }, (_, k) => `w${k}`);
  const writes = ids.map((id) =>
    withToken(`${url}/api/sessions/${id}`, { ...json({}), method: "PUT" }).then(
      (r) => r.status,
      () => "refused",
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 5));
  const code = await stop();
  assert.equal(code, 0);
  // The stream ended rather than hung.
  for (;;) if ((await reader.read()).done) break;
  const answers = await Promise.all(writes);
  const store = new JsonlStore(dir);
  for (const [k, id] of ids.entries()) {
    const log = await store.read(id);
    if (answers[k] === 201) assert.equal(log?.length, 1, `${id} was answered 201`);
    else assert.ok(answers[k] === 503 || answers[k] === "refused", `${id}: ${answers[k]}`);
  }
});

test("serve's page shows a chat's plan, suggestions and cards live", async (t) => {
  const dir = tempStore(t);
  const { url } = await startServe(["--store", dir], { t });
  await withToken(`${url}/api/sessions/c1`, { ...json({ workspace: "/w" }), method: "PUT" });
  await withToken(`${url}/api/turns/c1/begin`, json({}));
  // Another process's writes (an agent on the same folder) reach the page through the store's change feed.
  const tools = toolHandlers({ store: new JsonlStore(dir), chatId: "c1" });
  await tools.todo_write({ todos: [{ content: "Write the tests", status: "in_progress" }] });
  const { launch } = await import("./support/browser.mjs");
  const browser = await launch();
  t.after(() => browser.close());
  const page = await browser.context.newPage();
  await page.goto(`${url}/chats/c1`);
  await page.fill("#token", TOKEN);
  await page.click("button[type=submit]");
  await page.waitForSelector("oda-todo-card");
  // The person checks the item off on the page (the cookie may write): a person's edit, its card on the page.
  await page.locator("oda-plan").locator("input[type=checkbox]").click();
  await page.locator("oda-plan [part=edit-message]").filter({ hasText: "Saved your edit." }).waitFor({ timeout: 10_000 });
  await page.waitForFunction(() => document.querySelectorAll("oda-todo-card").length === 2);
  assert.equal(await page.locator("oda-todo-card").first().locator("[part=by]").textContent(), "Edited by you");
  const edited = (await new JsonlStore(dir).read("c1")).at(-1);
  assert.deepEqual(edited, { type: "todo_update", v: 1, todos: [{ content: "Write the tests", status: "completed" }], by: {} });
  // The agent's next write was written before it saw the edit: refused once; told so, it writes again.
  assert.match(
    await tools.todo_write({ todos: [{ content: "Write the tests", status: "in_progress" }] }),
    /^Error: the user edited the todo list/,
  );
  await tools.todo_write({ todos: [{ content: "Write the tests", status: "completed" }] });
  await page.waitForFunction(() => document.querySelectorAll("oda-todo-card").length === 3);
  await tools.suggest_task({ title: "Add retries", tldr: "Uploads fail.", brief: "Retry failed uploads." });
  const start = page.locator("oda-suggestions").getByRole("button", { name: "Start: Add retries" });
  await start.click();
  await page
    .locator("oda-suggestions")
    .getByRole("button", { name: /Open chat/ })
    .click();
  await page.waitForURL(/\/chats\/c1\.s1$/);
  // The page's CSP admits no inline script: axe goes in through the devtools protocol.
  await page.evaluate(readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8"));
  const violations = await page.evaluate(async () => (await globalThis.axe.run()).violations.map((v) => v.id));
  assert.deepEqual(violations, []);
});

test("serve's pages: / lists the chats newest first by title; a chat's page is headed with its title and deletes it after a confirmation, and another tab is told", async (t) => {
  const dir = tempStore(t);
  const { url } = await startServe(["--store", dir], { t });
  await withToken(`${url}/api/sessions/c1`, { ...json({ workspace: "/repos/app", title: "Fix the upload" }), method: "PUT" });
  await withToken(`${url}/api/sessions/c2`, { ...json({ workspace: "/repos/site" }), method: "PUT" });
  const tools = toolHandlers({ store: new JsonlStore(dir), chatId: "c1" });
  await tools.todo_write({ todos: [{ content: "Write the tests", status: "in_progress" }] });
  const { launch } = await import("./support/browser.mjs");
  const browser = await launch();
  t.after(() => browser.close());
  const page = await browser.context.newPage();
  await page.goto(`${url}/`);
  await page.fill("#token", TOKEN);
  await page.click("button[type=submit]");
  await page.waitForURL(`${url}/`);
  assert.equal(await page.locator("h1").textContent(), "Your chats");
  assert.deepEqual(await page.locator("ol.chats li").allTextContents(), ["Chat c2 /repos/site", "Fix the upload /repos/app"]);
  const axe = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  const violations = async (tab) => {
    await tab.evaluate(axe);
    return tab.evaluate(async () => (await globalThis.axe.run()).violations.map((v) => v.id));
  };
  assert.deepEqual(await violations(page), []);
  await page.getByRole("link", { name: "Fix the upload" }).click();
  await page.waitForURL(`${url}/chats/c1`);
  assert.equal(await page.locator("h1").textContent(), "Fix the upload");
  assert.equal(await page.title(), "Fix the upload · oda-tasks");
  await page.waitForSelector("oda-todo-card");
  assert.deepEqual(await violations(page), []);

  // Another tab follows the chat.
  const other = await browser.context.newPage();
  await other.goto(`${url}/chats/c1`);
  await other.waitForSelector("oda-todo-card");

  // Delete chat asks first: dismissed, nothing happens; accepted, the chat is gone and the list is shown.
  const dialogs = [];
  page.once("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.getByRole("button", { name: "Delete chat" }).click();
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(dialogs, ['Delete chat "c1"? Its plan, suggestions and updates are erased for good. Chats started from it stay.']);
  assert.notEqual(await new JsonlStore(dir).read("c1"), null, "dismissed: nothing deleted");
  page.once("dialog", (dialog) => void dialog.accept());
  await page.getByRole("button", { name: "Delete chat" }).click();
  await page.waitForURL(`${url}/`);
  assert.deepEqual(await page.locator("ol.chats li").allTextContents(), ["Chat c2 /repos/site"]);
  assert.equal(await new JsonlStore(dir).read("c1"), null);
  // The other tab is told, and shows nothing of the chat any more.
  await other.locator("#deleted").waitFor({ timeout: 10_000 });
  assert.equal(await other.locator("#deleted").textContent(), "This chat was deleted. Your chats");
  assert.equal(await other.locator(".columns").isVisible(), false);
  assert.equal(await other.getByRole("button", { name: "Delete chat" }).isVisible(), false);
  // Its page is now a 404 like any chat that does not exist.
  const gone = await page.goto(`${url}/chats/c1`);
  assert.equal(gone.status(), 404);
  assert.equal(await page.locator("h1").textContent(), "No such chat");
});

test("serve: the reminder route answers the list's text by todoReminder's rule, for the owner's chat, to a program", async (t) => {
  const dir = tempStore(t);
  const { url } = await startServe(["--store", dir], { t });
  await withToken(`${url}/api/sessions/c1`, { ...json({}), method: "PUT" });
  const reminder = async (query = "") => {
    const r = await withToken(`${url}/api/sessions/c1/reminder${query}`);
    return [r.status, await r.json()];
  };
  const turn = async () => {
    await withToken(`${url}/api/turns/c1/begin`, json({}));
    await withToken(`${url}/api/turns/c1/end`, json({}));
  };
  assert.deepEqual(await reminder("?always=true"), [200, { text: null }], "no list: nothing to put back");
  await withToken(`${url}/api/turns/c1/begin`, json({}));
  const tools = toolHandlers({ store: new JsonlStore(dir), chatId: "c1" });
  await tools.todo_write({
    todos: [
      { content: "Write tests", status: "in_progress" },
      { content: 'Ship "v2"', status: "pending" },
    ],
  });
  await withToken(`${url}/api/turns/c1/end`, json({}));
  const text = [
    "Your todo list, as last recorded with todo_write (1 pending, 1 in progress, 0 completed):",
    '1. [in_progress] "Write tests"',
    '2. [pending] "Ship \\"v2\\""',
    "Keep it current: call todo_write with the whole list when an item's state changes.",
  ].join("\n");
  assert.deepEqual(await reminder("?always=true"), [200, { text }], "after compaction: whenever the list has items");
  assert.deepEqual(await reminder(), [200, { text: null }], "not due in the turn after the update");
  await turn();
  assert.deepEqual(await reminder(), [200, { text: null }]);
  assert.deepEqual(await reminder("?everyTurns=1"), [200, { text }]);
  await turn();
  assert.deepEqual(await reminder("?everyTurns=2&always=false"), [200, { text }]);
  assert.deepEqual(await reminder(), [200, { text: null }]);
  await turn();
  assert.deepEqual(await reminder(), [200, { text }], "three whole turns without a todo_write");
  // The open turn does not count: the same answer after begin.
  await withToken(`${url}/api/turns/c1/begin`, json({}));
  assert.deepEqual(await reminder(), [200, { text }]);
  for (const [query, message] of [
    ["?always=yes", "`always` must be true or false"],
    ["?everyTurns=0", "`everyTurns` must be a whole number from 1 to 2147483647"],
    ["?everyTurns=2147483648", "`everyTurns` must be a whole number from 1 to 2147483647"],
    ["?everyTurns=1.5", "`everyTurns` must be a whole number from 1 to 2147483647"],
    ["?always=true&always=true", "`always` is given more than once"],
    ["?cards=1", "unknown query parameter `cards` (the reminder takes always and everyTurns)"],
  ]) {
    assert.deepEqual(await reminder(query), [400, { error: { code: "http/bad-request", message } }], query);
  }
  const missing = await withToken(`${url}/api/sessions/nope/reminder`);
  assert.equal(missing.status, 404);
  assert.deepEqual(await missing.json(), { error: { code: "store/missing-chat", message: "no such chat" } });
  const post = await withToken(`${url}/api/sessions/c1/reminder`, json({}));
  assert.equal(post.status, 405);
  assert.equal(post.headers.get("allow"), "GET");
  await post.body?.cancel();
  assert.equal((await fetch(`${url}/api/sessions/c1/reminder`)).status, 401);
});
