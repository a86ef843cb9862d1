// Many people, each alone: `oda-tasks serve --auth jwt` as a user runs it
// (the built CLI in its own process, tokens minted with `jose` against a key
// set in a file), on every store it takes (a folder, a SQLite file,
// PostgreSQL) and on two instances over one PostgreSQL database. Two owners'
// `c1` are two chats; neither sees, writes, follows, starts or deletes the
// other's chats through any route (MCP and the widget's tools, the chat API
// and its events, the session and turn routes, the list, the pages), and for
// a chat of another owner every route answers byte for byte what it answers
// for a chat that does not exist. Every answer is searched for the other's text.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import pg from "pg";
import { claimsFor, COOKIE_SECRET, ISSUER, mint, signingKey } from "./support/jwks.mjs";
import { startServe } from "./support/oda-serve.mjs";
import { sharedPostgres } from "./support/postgres.mjs";

const postgres = await sharedPostgres();

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "oda-owners-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A key set file of one ES256 key; `token(sub, claims)` mints an access token for `audience`. */
async function issuer(t) {
  const key = await signingKey("ES256", "k1");
  const file = join(tempDir(t), "jwks.json");
  writeFileSync(file, JSON.stringify({ keys: [key.jwk] }));
  return { file, token: (audience, claims) => mint(key, claimsFor(audience, claims)) };
}

/** `serve --auth jwt` on `store`; resolves to `{ url, audience, output }`. */
async function serveJwt(t, store, jwks, extra = []) {
  const started = await startServe(["--store", store, "--auth", "jwt", "--issuer", ISSUER, "--jwks", jwks, ...extra], {
    env: { ODA_TASKS_COOKIE_SECRET: COOKIE_SECRET },
    t,
  });
  return { ...started, audience: `${started.url}/mcp` };
}

/**
 * A person of `server` holding `token`: every call records its answer's
 * status and body (an event stream's first event only), for the search at the end.
 */
function person(url, token) {
  const seen = [];
  const call = async (path, init = {}) => {
    const headers = { authorization: `Bearer ${token}`, ...(init.headers ?? {}) };
    const response = await fetch(`${url}${path}`, { redirect: "manual", ...init, headers });
    let body;
    if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      body = await firstEvent(response);
    } else body = await response.text();
    seen.push(`${init.method ?? "GET"} ${path} ${response.status} ${body}`);
    return { status: response.status, body, json: () => JSON.parse(body), headers: response.headers };
  };
  const json = (path, method, body) => call(path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const mcp = async (name, args, meta) => {
    const r = await call("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
      }),
    });
    assert.equal(r.status, 200, r.body);
    return r.json().result;
  };
  return { call, json, mcp, seen, url };
}

/** The first event of an event stream, as its text; the stream is then closed. */
async function firstEvent(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    const event = text.split("\n\n").find((block) => /^event: /m.test(block));
    if (event !== undefined) {
      await reader.cancel();
      return event;
    }
  }
  return text;
}

/** Signs `who` in with the form; resolves to the `Cookie` header value the browser then sends. */
async function signIn(url, token) {
  const r = await fetch(`${url}/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: url },
    body: new URLSearchParams({ token, next: "/" }).toString(),
    redirect: "manual",
  });
  assert.equal(r.status, 303);
  return r.headers.get("set-cookie").split(";")[0];
}

/** A database of its own on the file's PostgreSQL server, dropped when `t` ends. */
async function otherDatabase(t, suffix) {
  const name = `${new URL(postgres.url).pathname.slice(1)}_${suffix}`;
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  t.after(async () => {
    const last = new pg.Client({ connectionString: postgres.url });
    await last.connect();
    await last.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await last.end();
  });
  return postgres.urlOf(name);
}

const todos = (...items) => ({ todos: items.map((content) => ({ content, status: "pending" })) });

/** `who` makes chat `chatId` titled `title` with one list and one open offer, through the routes a Python agent uses. */
async function chatOf(who, chatId, { title, item, offer }) {
  const made = await who.json(`/api/sessions/${chatId}`, "PUT", { title, workspace: `/work/${title}` });
  assert.equal(made.status, 201, made.body);
  const written = await who.mcp("todo_write", todos(item), { "oda-tasks/chat": chatId, "oda-tasks/turn": `${chatId}-t1` });
  assert.deepEqual(written.content, [{ type: "text", text: "Updated todo list: 1 pending, 0 in progress, 0 completed" }]);
  const offered = await who.mcp(
    "suggest_task",
    { title: offer, tldr: `Why ${offer}.`, brief: `Do ${offer}.` },
    { "oda-tasks/chat": chatId, "oda-tasks/turn": `${chatId}-t1` },
  );
  assert.equal(offered.content[0].text, `Suggested "${offer}". The user decides whether to start it; do not start it yourself.`);
  return offered._meta["oda-tasks/offer"].id;
}

/**
 * Every route `who` can name chat `chatId` by, and what each answered:
 * reads, events, cards, actions, turns, the widget's tools, the page (with
 * `cookie`), the reminder, delete. Nothing here writes when the chat is not `who`'s.
 */
async function everyRoute(who, chatId, cookie) {
  const id = encodeURIComponent(chatId);
  const answers = [];
  const keep = (label, r) => answers.push(`${label} ${r.status} ${r.body}`);
  keep("screen", await who.call(`/api/oda/chats/${id}`));
  keep("cards", await who.call(`/api/oda/chats/${id}/cards`));
  keep("events", await who.call(`/api/oda/chats/${id}/events`));
  keep("reminder", await who.call(`/api/sessions/${id}/reminder?always=true`));
  for (const action of ["start", "draft", "dismiss", "restore"]) {
    keep(action, await who.json(`/api/oda/chats/${id}/suggestions/s1/${action}`, "POST", {}));
  }
  // An edit on a screen of length 0: another owner's chat would answer 409, a chat of none 404.
  keep("edit", await who.json(`/api/oda/chats/${id}/todos`, "POST", { todos: [], basedOn: 0 }));
  keep("begin", await who.json(`/api/turns/${id}/begin`, "POST", {}));
  keep("end", await who.json(`/api/turns/${id}/end`, "POST", {}));
  keep("context", await who.json(`/api/turns/${id}/context`, "POST", {}));
  for (const tool of ["oda_screen", "oda_start", "oda_dismiss"]) {
    const result = await who.mcp(tool, { chat: chatId, id: "s1" });
    answers.push(`${tool} ${JSON.stringify(result)}`);
  }
  const page = await fetch(`${who.url}/chats/${id}`, { headers: { cookie } });
  answers.push(`page ${page.status} ${await page.text()}`);
  keep("api delete", await who.call(`/api/oda/chats/${id}`, { method: "DELETE" }));
  keep("session delete", await who.call(`/api/sessions/${id}`, { method: "DELETE" }));
  return answers;
}

/** No answer `who` got holds any of `texts` (the other person's). */
function heardNothingOf(who, texts, label) {
  for (const line of who.seen) for (const text of texts) assert.ok(!line.includes(text), `${label} saw "${text}": ${line.slice(0, 300)}`);
}

async function twoPeople(urlA, urlB, keys, audience) {
  const alice = person(urlA, await keys.token(audience, { sub: "alice" }));
  const bob = person(urlB, await keys.token(audience, { sub: "bob" }));
  const aliceCookie = await signIn(urlA, await keys.token(audience, { sub: "alice" }));
  const bobCookie = await signIn(urlB, await keys.token(audience, { sub: "bob" }));

  // What Bob gets for a chat id he has not, before Alice makes one under it: the answers of a chat that does not exist.
  const before = await everyRoute(bob, "alice-only", bobCookie);
  assert.ok(
    before.every((line) => !line.startsWith("screen 200")),
    before[0],
  );

  // Both make `c1`: two chats. Alice also has `alice-only`.
  const aliceOffer = await chatOf(alice, "c1", { title: "ALICE-TITLE", item: "ALICE-ITEM", offer: "ALICE-OFFER" });
  await chatOf(bob, "c1", { title: "BOB-TITLE", item: "BOB-ITEM", offer: "BOB-OFFER" });
  await chatOf(alice, "alice-only", { title: "ALICE-SECRET", item: "ALICE-SECRET-ITEM", offer: "ALICE-SECRET-OFFER" });

  // Each reads their own c1.
  assert.deepEqual((await alice.call("/api/oda/chats/c1")).json().todos, [{ content: "ALICE-ITEM", status: "pending" }]);
  assert.deepEqual((await bob.call("/api/oda/chats/c1")).json().todos, [{ content: "BOB-ITEM", status: "pending" }]);
  assert.match((await alice.call("/api/sessions/c1/reminder?always=true")).json().text, /^1\. \[pending\] "ALICE-ITEM"$/m);
  assert.match((await bob.call("/api/sessions/c1/reminder?always=true")).json().text, /^1\. \[pending\] "BOB-ITEM"$/m);

  // For Alice's chat, every route answers Bob exactly as before it existed; Alice's chat is untouched.
  const after = await everyRoute(bob, "alice-only", bobCookie);
  assert.deepEqual(after, before);
  const aliceLog = (await alice.call("/api/oda/chats/alice-only")).json();
  assert.equal(aliceLog.length, 4, "nothing of Bob's calls landed in Alice's chat (session, turn, list, offer)");
  assert.deepEqual(
    aliceLog.open.map((o) => o.title),
    ["ALICE-SECRET-OFFER"],
  );

  // Start: Bob starts his own offer; Alice's started chat of the same id is hers, made only when she starts.
  const bobStarted = await bob.json(`/api/oda/chats/c1/suggestions/${aliceOffer}/start`, "POST", {});
  assert.equal(bobStarted.status, 200, bobStarted.body);
  assert.equal(bobStarted.json().chatId, "c1.s1");
  assert.equal((await alice.call("/api/oda/chats/c1.s1")).status, 404, "Bob's started chat is not Alice's");
  const aliceStarted = (await alice.mcp("oda_start", { chat: "c1", id: aliceOffer })).structuredContent;
  assert.equal(aliceStarted.started.chatId, "c1.s1");
  const startedScreen = (await alice.call("/api/oda/chats/c1.s1")).json();
  assert.equal(startedScreen.chatId, "c1.s1");
  assert.deepEqual((await bob.call("/api/oda/chats/c1.s1")).json().chatId, "c1.s1");

  // The lists: each sees their own chats only, newest first.
  const aliceList = (await alice.call("/api/sessions")).json();
  assert.deepEqual(
    aliceList.chats.map((c) => [c.chatId, c.title]),
    [
      ["c1.s1", "ALICE-OFFER"],
      ["alice-only", "ALICE-SECRET"],
      ["c1", "ALICE-TITLE"],
    ],
  );
  assert.equal(aliceList.next, null);
  const bobList = (await bob.call("/api/sessions?limit=2")).json();
  assert.deepEqual(
    bobList.chats.map((c) => c.chatId),
    ["c1.s1", "c1"],
  );
  const home = await fetch(`${bob.url}/`, { headers: { cookie: bobCookie } });
  assert.equal(home.status, 200);
  const homeHtml = await home.text();
  assert.match(homeHtml, /<a href="\/chats\/c1">BOB-TITLE<\/a>/);
  bob.seen.push(`home ${homeHtml}`);
  const alicePage = await fetch(`${alice.url}/chats/alice-only`, { headers: { cookie: aliceCookie } });
  assert.match(await alicePage.text(), /<h1>ALICE-SECRET<\/h1>/);

  // Bob's cookie on Alice's page of c1 shows Bob's c1; Alice's cookie shows hers.
  const bobPage = await (await fetch(`${bob.url}/chats/c1`, { headers: { cookie: bobCookie } })).text();
  assert.match(bobPage, /<h1>BOB-TITLE<\/h1>/);
  bob.seen.push(`page ${bobPage}`);

  // Deletion: Bob deletes his c1; Alice's c1 stays. Bob cannot delete Alice's.
  assert.equal((await bob.call("/api/sessions/c1", { method: "DELETE" })).body, '{"ok":true,"deleted":true}');
  assert.equal((await bob.call("/api/oda/chats/c1")).status, 404);
  assert.deepEqual((await alice.call("/api/oda/chats/c1")).json().todos, [{ content: "ALICE-ITEM", status: "pending" }]);
  assert.equal((await bob.call("/api/sessions/alice-only", { method: "DELETE" })).status, 404);
  assert.equal((await alice.call("/api/oda/chats/alice-only")).status, 200);

  heardNothingOf(bob, ["ALICE"], "Bob");
  heardNothingOf(alice, ["BOB"], "Alice");
  return { alice, bob };
}

for (const [kind, makeStore] of [
  ["a folder", (t) => tempDir(t)],
  ["a SQLite file", (t) => join(tempDir(t), "chats.db")],
  ["PostgreSQL", () => postgres.url],
]) {
  test(`two people on one server over ${kind}: neither sees, writes, starts, lists or deletes the other's chats`, async (t) => {
    const keys = await issuer(t);
    const { url, audience } = await serveJwt(t, makeStore(t), keys.file);
    await twoPeople(url, url, keys, audience);
  });
}

test("two people on two instances over one PostgreSQL database: each sees their own chats on both, the other's on neither", async (t) => {
  const keys = await issuer(t);
  const store = await otherDatabase(t, "instances");
  const audience = "https://tasks.example/mcp";
  // One public address for both (a load balancer's); each bound to loopback.
  const flags = ["--audience", audience];
  const a = await serveJwt(t, store, keys.file, flags);
  const b = await serveJwt(t, store, keys.file, flags);
  // Alice works on A, Bob on B.
  await twoPeople(a.url, b.url, keys, audience);
  // Alice's chats on B are hers; Bob's on A his.
  const aliceOnB = person(b.url, await keys.token(audience, { sub: "alice" }));
  assert.deepEqual((await aliceOnB.call("/api/oda/chats/c1")).json().todos, [{ content: "ALICE-ITEM", status: "pending" }]);
  const bobOnA = person(a.url, await keys.token(audience, { sub: "bob" }));
  assert.equal((await bobOnA.call("/api/oda/chats/alice-only")).status, 404);
  // A cookie signed on A reads on B (the same secret), and only its owner's chats.
  const cookie = await signIn(a.url, await keys.token(audience, { sub: "alice" }));
  const page = await fetch(`${b.url}/chats/alice-only`, { headers: { cookie } });
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<h1>ALICE-SECRET<\/h1>/);
  heardNothingOf(bobOnA, ["ALICE"], "Bob on A");

  // Alice deletes a chat through A: a stream of it on B gets the last event and ends; B reads 404.
  const stream = await fetch(`${b.url}/api/oda/chats/alice-only/events`, {
    headers: { authorization: `Bearer ${await keys.token(audience, { sub: "alice" })}` },
  });
  const events = readAll(stream);
  const aliceOnA = person(a.url, await keys.token(audience, { sub: "alice" }));
  assert.equal((await aliceOnA.call("/api/sessions/alice-only", { method: "DELETE" })).body, '{"ok":true,"deleted":true}');
  const text = await events;
  assert.match(text, /^event: screen$/m);
  assert.ok(text.endsWith('event: deleted\ndata: {"code":"chat/deleted","message":"the chat was deleted"}\n\n'), text.slice(-300));
  assert.equal((await aliceOnB.call("/api/oda/chats/alice-only")).status, 404);
});

/** The whole text of an event stream, once it ends (within 20 s). */
async function readAll(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const timer = setTimeout(() => reader.cancel(), 20_000);
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  clearTimeout(timer);
  return text;
}

test("people of one tenant (--tenant-claim) share their chats; another tenant's are apart", async (t) => {
  const keys = await issuer(t);
  const { url, audience } = await serveJwt(t, tempDir(t), keys.file, ["--tenant-claim", "org"]);
  const carol = person(url, await keys.token(audience, { sub: "carol", org: "acme" }));
  const dave = person(url, await keys.token(audience, { sub: "dave", org: "acme" }));
  const erin = person(url, await keys.token(audience, { sub: "erin", org: "globex" }));
  await chatOf(carol, "plan", { title: "ACME-PLAN", item: "ACME-ITEM", offer: "ACME-OFFER" });
  assert.deepEqual((await dave.call("/api/oda/chats/plan")).json().todos, [{ content: "ACME-ITEM", status: "pending" }]);
  assert.equal((await erin.call("/api/oda/chats/plan")).status, 404);
  heardNothingOf(erin, ["ACME"], "Erin");

  // A reader (oda:read) sees the chat's page with no Delete chat, and cannot delete it through the chat API.
  const readerToken = await keys.token(audience, { sub: "frank", org: "acme", scope: "oda:read" });
  const readerCookie = await signIn(url, readerToken);
  const page = await (await fetch(`${url}/chats/plan`, { headers: { cookie: readerCookie } })).text();
  assert.match(page, /<h1>ACME-PLAN<\/h1>/);
  assert.doesNotMatch(page, /delete-chat/);
  assert.match(page, /<oda-plan src="\/api\/oda\/chats\/plan"><\/oda-plan>/, "a reader's plan is not editable");
  const writerPage = await (
    await fetch(`${url}/chats/plan`, { headers: { cookie: await signIn(url, await keys.token(audience, { sub: "dave", org: "acme" })) } })
  ).text();
  assert.match(writerPage, /<button type="button" id="delete-chat" data-chat-id="plan">Delete chat<\/button>/);
  assert.match(writerPage, /<oda-plan src="\/api\/oda\/chats\/plan" editable><\/oda-plan>/, "a writer edits the list");
  const refused = await fetch(`${url}/api/oda/chats/plan`, { method: "DELETE", headers: { cookie: readerCookie } });
  assert.equal(refused.status, 403);
  assert.equal((await refused.json()).error.message, "this needs the scope oda:write");
  assert.equal((await dave.call("/api/oda/chats/plan")).status, 200, "still there");
  // A person's edit is a write: the reader's is refused, a writer of the tenant makes it, on the tenant's chat.
  const screen = (await dave.call("/api/oda/chats/plan")).json();
  const edit = { todos: [{ content: "ACME-ITEM", status: "completed" }], basedOn: screen.length };
  const readerEdit = await fetch(`${url}/api/oda/chats/plan/todos`, {
    method: "POST",
    headers: { cookie: readerCookie, "content-type": "application/json", origin: url },
    body: JSON.stringify(edit),
  });
  assert.equal(readerEdit.status, 403);
  assert.equal((await readerEdit.json()).error.message, "this needs the scope oda:write");
  assert.equal((await carol.json("/api/oda/chats/plan/todos", "POST", edit)).status, 200);
  assert.deepEqual((await dave.call("/api/oda/chats/plan")).json().todos, edit.todos);
  assert.equal((await erin.json("/api/oda/chats/plan/todos", "POST", edit)).status, 404, "another tenant's chat is none of Erin's");
});

test("an owner's chat id may be at most 175 characters: a longer one is refused by every route, naming no key", async (t) => {
  const keys = await issuer(t);
  const { url, audience } = await serveJwt(t, tempDir(t), keys.file);
  const who = person(url, await keys.token(audience, { sub: "alice" }));
  const long = "x".repeat(176);
  const made = await who.json(`/api/sessions/${long}`, "PUT", {});
  assert.equal(made.status, 400);
  assert.equal(made.body, '{"error":{"code":"store/bad-chat-id","message":"invalid chat id"}}');
  assert.equal((await who.json(`/api/sessions/${"x".repeat(175)}`, "PUT", {})).status, 201);
  const read = await who.call(`/api/oda/chats/${long}`);
  assert.equal(read.status, 400);
  const refused = await who.mcp("todo_write", todos("A"), { "oda-tasks/chat": long });
  assert.deepEqual(refused.content, [
    {
      type: "text",
      text: `oda-tasks: _meta["oda-tasks/chat"]: invalid chat id ${JSON.stringify(long)}: it is longer than 175 characters`,
    },
  ]);
});
