// The oda-tasks Python package (python/) against `oda-tasks serve` started from
// the build, in the project's venv (tests/node/support/python.mjs: `pip install
// -e python[all]` and the pinned frameworks, from PyPI at setup only). Its pytest
// suite (the client, Pydantic AI's FunctionModel, LangChain's GenericFakeChatModel,
// the OpenAI Agents SDK's ScriptedModel, docs/python.md's blocks as printed) runs
// with the token, and the client's tests and each framework's first under
// `--auth jwt` (tokens minted with `jose`). Then
// Start: from Python and from the page's button (Chromium) at one instant, and from
// four Python processes at one instant: one chat each time, its brief once.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { toolHandlers } from "oda-tasks";
import { JsonlStore } from "oda-tasks/node";
import { claimsFor, COOKIE_SECRET, ISSUER, mint, signingKey } from "./support/jwks.mjs";
import { startServe, TOKEN, withToken } from "./support/oda-serve.mjs";
import { PACKAGE_DIR, projectVenv, runPython } from "./support/python.mjs";

const python = projectVenv();
const START_AT = join(PACKAGE_DIR, "tests/start_at.py");

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "oda-python-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs the package's pytest suite (`args` select) with `env`; resolves to its counts of passed and skipped tests. */
async function pytest(env, args = []) {
  const out = await runPython(python, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", ...args], { cwd: PACKAGE_DIR, env });
  const summary = out.trim().split("\n").at(-1);
  assert.match(summary, /^\d+ passed(, \d+ skipped)?(, \d+ deselected)? in /, out.slice(-2000));
  return { passed: Number(/(\d+) passed/.exec(summary)[1]), skipped: Number(/(\d+) skipped/.exec(summary)?.[1] ?? 0) };
}

test("the Python package's suite against serve with the token: every route, the three frameworks, the docs' blocks", async (t) => {
  const { url } = await startServe(["--store", tempDir(t)], { t });
  const { passed, skipped } = await pytest({ ODA_TASKS_URL: url, ODA_TASKS_TOKEN: TOKEN, ODA_AUTH: "token" });
  assert.equal(skipped, 2, "the two tests of --auth jwt alone skipped");
  assert.ok(passed >= 30, `${passed} passed`);
});

test("the Python package's client and frameworks against serve --auth jwt: access tokens, owners apart, a read-only token", async (t) => {
  const dir = tempDir(t);
  const key = await signingKey("ES256", "k1");
  const jwks = join(dir, "jwks.json");
  writeFileSync(jwks, JSON.stringify({ keys: [key.jwk] }));
  const { url } = await startServe(["--store", join(dir, "chats"), "--auth", "jwt", "--issuer", ISSUER, "--jwks", jwks], {
    env: { ODA_TASKS_COOKIE_SECRET: COOKIE_SECRET },
    t,
  });
  const token = (claims) => mint(key, claimsFor(`${url}/mcp`, claims));
  // The client's tests and each framework's first: the frameworks reach serve only through the client.
  const { passed, skipped } = await pytest(
    {
      ODA_TASKS_URL: url,
      ODA_AUTH: "jwt",
      ODA_TASKS_TOKEN: await token({ sub: "alice" }),
      ODA_OTHER_TOKEN: await token({ sub: "bob" }),
      ODA_READ_TOKEN: await token({ sub: "alice", scope: "oda:read" }),
    },
    ["-k", "test_client or exact_texts"],
  );
  assert.equal(skipped, 0);
  assert.ok(passed >= 15, `${passed} passed`);
});

/** Chat `c1` in a workspace with one open offer `s1`, made through serve's routes and a tool call on its store. */
async function chatWithOffer(url, dir) {
  const json = (body) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  assert.equal((await withToken(`${url}/api/sessions/c1`, { ...json({ workspace: "/repos/app" }), method: "PUT" })).status, 201);
  await withToken(`${url}/api/turns/c1/begin`, json({}));
  const tools = toolHandlers({ store: new JsonlStore(dir), chatId: "c1" });
  const offered = await tools.suggest_task({ title: "Add retries", tldr: "Uploads fail.", brief: "Retry failed uploads." });
  assert.equal(offered, 'Suggested "Add retries". The user decides whether to start it; do not start it yourself.');
  await withToken(`${url}/api/turns/c1/end`, json({}));
}

/** One started chat of `c1.s1`: one `started` settlement, and the brief once in the new chat. */
async function startedOnce(dir) {
  const store = new JsonlStore(dir);
  const settled = (await store.read("c1")).filter((e) => e.type === "suggestion_settled");
  assert.deepEqual(
    settled.map((e) => [e.id, e.outcome, e.chatId]),
    [["s1", "started", "c1.s1"]],
  );
  const messages = (await store.read("c1.s1")).filter((e) => e.type === "message");
  assert.deepEqual(
    messages.map((m) => m.text),
    ["Retry failed uploads."],
  );
}

test("Start from Python and from the page's button at one instant make one chat", async (t) => {
  const dir = tempDir(t);
  const { url } = await startServe(["--store", dir], { t });
  await chatWithOffer(url, dir);
  const { launch } = await import("./support/browser.mjs");
  const browser = await launch();
  t.after(() => browser.close());
  const page = await browser.context.newPage();
  await page.goto(`${url}/chats/c1`);
  await page.fill("#token", TOKEN);
  await page.click("button[type=submit]");
  const start = page.locator("oda-suggestions").getByRole("button", { name: "Start: Add retries" });
  await start.waitFor();
  const at = Date.now() + 3000; // past the interpreter's start-up
  const fromPython = runPython(python, [START_AT, url, "c1", "s1", String(at / 1000)], { env: { ODA_TASKS_TOKEN: TOKEN } });
  // The page's click at the same instant, timed in the page (a click through the driver waits on the button).
  const fromPage = page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/suggestions/s1/start"));
  await start.evaluate((button, when) => setTimeout(() => button.click(), when - Date.now()), at);
  assert.equal((await fromPython).trim(), "c1.s1");
  const answered = await fromPage;
  assert.equal(answered.status(), 200);
  assert.deepEqual(await answered.json(), { ok: true, chatId: "c1.s1" });
  await page
    .locator("oda-suggestions")
    .getByRole("button", { name: /Open chat/ })
    .click();
  await page.waitForURL(/\/chats\/c1\.s1$/);
  await startedOnce(dir);
});

test("four Python processes racing Start make one chat", async (t) => {
  const dir = tempDir(t);
  const { url } = await startServe(["--store", dir], { t });
  await chatWithOffer(url, dir);
  const at = (Date.now() + 3000) / 1000;
  const runs = Array.from({ length: 4 }, () =>
    runPython(python, [START_AT, url, "c1", "s1", String(at)], { env: { ODA_TASKS_TOKEN: TOKEN } }),
  );
  assert.deepEqual(
    (await Promise.all(runs)).map((out) => out.trim()),
    ["c1.s1", "c1.s1", "c1.s1", "c1.s1"],
  );
  await startedOnce(dir);
});
