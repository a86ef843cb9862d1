// docs/integration.md's "Next.js + AI SDK UI" recipe, as printed, in a fresh
// Next.js 16 app that installed the packed tarball, under Node 22 (which
// Next.js 16 and `ai` 7 need), with a scripted model: `next build`
// (Turbopack) and `next start`, `next build --webpack` and `next start`, and
// `next dev` (Turbopack), each with a Node route (JsonlStore) and an Edge
// route, and no next.config. In real Chromium a message makes the card appear
// from the tool part and the plan from its data part, and Start on the chip
// (which follows the event stream) creates the new chat, which the store then
// holds. The Turbopack build also runs the stream's tests
// (support/nextjs-stream.mjs). Slow (two builds and a dev server on a shared
// machine): one install, built once per mode, niced, with generous timeouts;
// `next dev` runs beside the two builds (it writes .next/dev, which `next build` keeps).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { sessionTab } from "../support/browser.mjs";
import { fileCleanup } from "../support/consumer.mjs";
import { printed, recipes } from "../support/recipes.mjs";
import { nextProject } from "../support/nextjs.mjs";
import { streamFiles, streamSuite } from "../support/nextjs-stream.mjs";

const once = fileCleanup();

const { dir, node22, build, serve } = nextProject(once, {
  ...recipes("lib/oda.ts", "app/api/oda/[...path]/route.ts", "app/api/chat/route.ts", "app/page.tsx", "app/api/own/route.ts"),
  // The app's own part the recipe leaves to it, beside the session check (support/nextjs.mjs): the model (scripted here), and the stream tests' pages.
  ...streamFiles,
  "app/layout.tsx": `export const metadata = { title: "Chat" };
export default function Layout({ children }: { children: React.ReactNode }) {
  return <html lang="en"><body>{children}</body></html>;
}
`,
  // An Edge route: the main entry and oda-tasks/http under edge-light, with no configuration.
  "app/api/edge/route.ts": `import { beginTurn, createChat, MemoryStore, toolHandlers } from "oda-tasks";
import { chatHandler } from "oda-tasks/http";

export const runtime = "edge";
const store = new MemoryStore();
const handler = chatHandler({ store, authorize: (request) => request.headers.get("authorization") === "Bearer edge" });

export async function GET(request: Request) {
  const chatId = \`edge-\${crypto.randomUUID()}\`;
  await createChat(store, chatId, { workspace: "/w" });
  await beginTurn(store, chatId);
  const { text, card } = await toolHandlers({ store, chatId, ui: true }).todo_write({ todos: [{ content: "Ship", status: "in_progress" }] });
  const screen = await (await handler(new Request(new URL(\`/chats/\${chatId}\`, request.url), { headers: { authorization: "Bearer edge" } }))).json();
  const denied = (await handler(new Request(new URL(\`/chats/\${chatId}\`, request.url)))).status;
  return Response.json({ text, todos: card?.todos, plan: screen.plan.state, denied });
}
`,
});

/** The person's side, in Chromium: a message, the card from the tool part, the plan from the events, Start on the chip. */
async function chat(t, { url, chats, output }) {
  const answer = await fetch(`${url}/api/edge`);
  const body = await answer.text();
  assert.equal(answer.status, 200, `GET /api/edge answered ${answer.status}: ${body.slice(0, 2000)}\n${output()}`);
  const edge = JSON.parse(body);
  assert.deepEqual(edge, {
    text: "Updated todo list: 0 pending, 1 in progress, 0 completed",
    todos: [{ content: "Ship", status: "in_progress" }],
    plan: "running",
    denied: 403,
  });
  assert.equal((await fetch(`${url}/api/oda/chats/chat-1`)).status, 403); // no session cookie
  const { tab, errors } = await sessionTab(t, url, "", { timeout: 300_000 });
  await tab.getByRole("textbox", { name: "Message" }).fill("Plan it now");
  await tab.getByRole("button", { name: "Send" }).click();
  const card = tab.locator("oda-todo-card");
  await card.getByRole("article", { name: "Update to-do list" }).waitFor({ timeout: 120_000 });
  assert.match(await card.locator("[part=list]").textContent(), /Write tests[\s\S]*Ship/);
  await tab.getByText("Planned.").waitFor({ timeout: 60_000 });
  // The plan part of the assistant message: the finished checklist of turn 1.
  const plan = tab.locator("oda-plan");
  await plan.locator("[part=state]").filter({ hasText: "Finished · turn 1" }).waitFor({ timeout: 60_000 });
  assert.equal(await plan.locator("[part=counts]").textContent(), "0 of 2 completed");
  // Start on the chip: the new chat, held by the store.
  await tab.getByRole("button", { name: "Start: Add retries" }).click();
  await tab.getByRole("button", { name: "Open chat: Add retries" }).waitFor({ timeout: 60_000 });
  // The change feed may show the started chat before the action's answer announces it.
  const announcement = tab.locator("oda-suggestions").locator("[part=announcement]");
  await announcement.filter({ hasText: "Started “Add retries” in a new chat." }).waitFor({ timeout: 60_000 });
  assert.equal(await announcement.textContent(), "Started “Add retries” in a new chat.");
  const script = `import { JsonlStore } from "oda-tasks/node";
const store = new JsonlStore(process.argv[1]);
const log = await store.read("chat-1");
const started = log.find((e) => e.type === "suggestion_settled" && e.outcome === "started");
console.log(JSON.stringify({ types: log.map((e) => e.type), child: (await store.read(started.chatId)).map((e) => e.type) }));`;
  const held = JSON.parse(execFileSync(node22, ["--input-type=module", "-e", script, chats], { cwd: dir, encoding: "utf8" }));
  assert.deepEqual(held.types, ["session", "turn_started", "todo_update", "suggestion_offered", "turn_ended", "suggestion_settled"]);
  assert.deepEqual(held.child, ["session", "message"]);
  assert.deepEqual(errors, [], output());
}

// `next dev` starts with the file, beside the builds; its test waits for it, and its clean-ups run when that test ends.
const devCleanup = [];
const dev = (async () => {
  const t = { after: (fn) => devCleanup.push(fn) };
  printed("npx next dev");
  await chat(t, await serve(t, "npx next dev"));
})().then(
  () => null,
  (error) => error,
);

test("next build (Turbopack) and next start: Node and Edge routes, the card, the plan and Start in Chromium; aiTurnResponse's stream in useChat", {
  timeout: 1_500_000,
}, async (t) => {
  build("npx next build");
  await chat(t, await serve(t, "npx next start"));
  // The stream's tests on the same build, with a chats folder of their own.
  await streamSuite(t, { dir, node22 }, await serve(t, "npx next start"));
});

test("next build --webpack and next start: the same", { timeout: 1_200_000 }, async (t) => {
  build("npx next build --webpack");
  await chat(t, await serve(t, "npx next start"));
});

test("next dev (Turbopack): the same", { timeout: 1_200_000 }, async (t) => {
  t.after(async () => {
    for (const fn of devCleanup.reverse()) await fn();
  });
  const error = await dev;
  if (error) throw error;
});
