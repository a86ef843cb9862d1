// suggest_task and the suggestion decisions against the BUILT package.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  checkGoal,
  clampPermission,
  planStart,
  replaySuggestions,
  settleSuggestion,
  startedChat,
  suggestTask,
  suggestTaskTool,
} from "oda-tasks";

const session = (over = {}) => ({
  type: "session",
  v: 1,
  chatId: "chat-1",
  workspace: "/home/ana/app",
  scheduledTaskFolder: false,
  agent: "top-level",
  settings: { preset: "engineer", model: "oda-large", permission: "auto" },
  ...over,
});
const good = { title: "Add retries", tldr: "Uploads fail twice", brief: "In upload.ts, retry with backoff." };

/** Offers `n` suggestions, one per turn, through the core itself. */
function chatWith(n, base = [session()], dismissEach = false) {
  const log = [...base];
  for (let i = 0; i < n; i++) {
    log.push({ type: "turn_started" });
    const r = suggestTask(log, { ...good, title: `Task ${i + 1}` });
    assert.equal(r.ok, true, r.error);
    log.push(r.entry, { type: "turn_ended" });
    if (dismissEach) log.push({ type: "suggestion_settled", v: 1, id: r.entry.id, outcome: "dismissed" });
  }
  log.push({ type: "turn_started" });
  return log;
}
const settle = (log, id, outcome, chatId) => [...log, { type: "suggestion_settled", v: 1, id, outcome, ...(chatId ? { chatId } : {}) }];

test("every SPEC section 4 refusal, byte for byte", () => {
  const open = [session(), { type: "turn_started" }];
  const cases = [
    [null, good, "suggest_task requires an owning agent session"],
    [
      [session({ agent: "helper" }), { type: "turn_started" }],
      good,
      "suggest_task is only for the top-level agent; report the follow-up in your result instead",
    ],
    [
      [session({ scheduledTaskFolder: true }), { type: "turn_started" }],
      good,
      "suggest_task: this chat runs in a scheduled task folder, where no new chat can start; offer no suggestions here",
    ],
    [[session()], good, "suggest_task: requires an open model turn"],
    [[session(), { type: "turn_started" }, { type: "turn_ended" }], good, "suggest_task: requires an open model turn"],
    [chatWith(10, [session()], true), good, "suggest_task: this chat already offered 10 suggestions; offer no more"],
    [chatWith(3), good, "suggest_task: 3 suggestions already wait for the user; offer no more until one is started or dismissed"],
    [
      [...open, suggestTask(open, good).entry],
      { ...good, title: "Other" },
      "suggest_task: one suggestion per turn; this turn already offered one",
    ],
    [open, { ...good, title: "  " }, "suggest_task: title must not be empty"],
    [open, { ...good, tldr: "" }, "suggest_task: tldr must not be empty"],
    [open, { ...good, brief: "\n" }, "suggest_task: brief must not be empty"],
    [open, { ...good, title: "x".repeat(61) }, "suggest_task: title must be at most 60 characters (got 61)"],
    [open, { ...good, tldr: "x".repeat(241) }, "suggest_task: tldr must be at most 240 characters (got 241)"],
    [open, { ...good, brief: "x".repeat(4001) }, "suggest_task: brief must be at most 4000 characters (got 4001)"],
  ];
  for (const [log, input, want] of cases) assert.deepEqual(suggestTask(log, input), { ok: false, error: want });
});

test("refusals come in SPEC order", () => {
  const helperScheduled = [session({ agent: "helper", scheduledTaskFolder: true })];
  assert.match(suggestTask(helperScheduled, { title: "" }).error, /only for the top-level agent/);
  assert.match(suggestTask([session({ scheduledTaskFolder: true })], {}).error, /scheduled task folder/);
  assert.match(suggestTask([session()], { title: "" }).error, /requires an open model turn/);
  // three open and one offered this turn: the open limit is the more lasting one
  const three = chatWith(2);
  const withThird = [...three, suggestTask(three, good).entry];
  assert.match(suggestTask(withThird, good).error, /3 suggestions already wait/);
  // the turn limit before the fields
  const once = [session(), { type: "turn_started" }];
  assert.match(suggestTask([...once, suggestTask(once, good).entry], { title: "" }).error, /one suggestion per turn/);
  // title before tldr, empty before length
  assert.equal(
    suggestTask(once, { title: "x".repeat(61), tldr: "", brief: "" }).error,
    "suggest_task: title must be at most 60 characters (got 61)",
  );
});

test("characters are Unicode code points of the trimmed text", () => {
  const log = [session(), { type: "turn_started" }];
  assert.equal(suggestTask(log, { ...good, title: "🧪".repeat(60) }).ok, true);
  assert.equal(suggestTask(log, { ...good, title: "🧪".repeat(61) }).error, "suggest_task: title must be at most 60 characters (got 61)");
  assert.equal(suggestTask(log, { ...good, title: ` ${"é".repeat(60)}\u3000` }).ok, true);
});

test("success: trimmed fields, a deterministic id, the exact output", () => {
  const log = [session(), { type: "turn_started" }];
  const r = suggestTask(log, { title: "  Add retries\n", tldr: " why ", brief: "\tdo it " });
  assert.deepEqual(r, {
    ok: true,
    entry: { type: "suggestion_offered", v: 1, id: "s1", title: "Add retries", tldr: "why", brief: "do it" },
    output: 'Suggested "Add retries". The user decides whether to start it; do not start it yourself.',
  });
  assert.deepEqual(suggestTask(log, good), suggestTask(structuredClone(log), good));
  assert.equal(suggestTask(chatWith(2), good).entry.id, "s3");
});

test("missing, non-string and unknown fields are refused clearly", () => {
  const log = [session(), { type: "turn_started" }];
  assert.equal(suggestTask(log, { title: "t", tldr: "w" }).error, "suggest_task: brief must be a string");
  assert.equal(suggestTask(log, { ...good, title: 5 }).error, "suggest_task: title must be a string");
  assert.equal(
    suggestTask(log, { ...good, priority: 1 }).error,
    "suggest_task: unknown field `priority` (the input is only `title`, `tldr` and `brief`)",
  );
  assert.equal(suggestTask(log, "x").error, "suggest_task: input must be an object with `title`, `tldr` and `brief`");
});

test("the ledger: open newest first, settled in offer order, restore back in place", () => {
  let log = chatWith(3);
  log = settle(log, "s2", "dismissed");
  log = settle(log, "s1", "started", "chat-1.s1");
  let r = replaySuggestions(log);
  assert.deepEqual(
    r.open.map((s) => s.id),
    ["s3"],
  );
  assert.deepEqual(
    r.settled.map((s) => [s.id, s.outcome, s.chatId]),
    [
      ["s1", "started", "chat-1.s1"],
      ["s2", "dismissed", undefined],
    ],
  );
  assert.deepEqual(Object.keys(r.open[0]).sort(), ["brief", "id", "title", "tldr"]);
  log = settle(log, "s2", "restored");
  r = replaySuggestions(log);
  assert.deepEqual(
    r.open.map((s) => s.id),
    ["s3", "s2"],
    "a restored offer sits by when it was offered",
  );
  // misfits and unknown ids change nothing, and are reported
  const before = replaySuggestions(log);
  const noisy = settle(settle(settle(log, "s9", "dismissed"), "s1", "dismissed"), "s3", "restored");
  const after = replaySuggestions(noisy);
  assert.deepEqual([after.open, after.settled], [before.open, before.settled]);
  assert.deepEqual(
    after.skipped.map((s) => s.index),
    [log.length, log.length + 1, log.length + 2],
  );
});

test("an older offer longer than today's limits still replays", () => {
  const long = { type: "suggestion_offered", id: "s1", title: "t".repeat(100), tldr: "w".repeat(500), brief: "b".repeat(5000) };
  const r = replaySuggestions([session(), long]);
  assert.equal(r.open[0].title.length, 100);
  assert.deepEqual(r.skipped, []);
});

test("settleSuggestion: codes, exact messages and payloads", () => {
  const three = settle(settle(chatWith(3), "s1", "drafted"), "s2", "dismissed");
  const log = [...three, suggestTask(three, { ...good, title: "Fourth" }).entry]; // open: s3, s4
  assert.deepEqual(settleSuggestion(log, "s9", "dismiss"), {
    ok: false,
    code: "task-suggestion/not-found",
    message: 'no suggestion "s9"',
    payload: "s9",
    id: "s9",
  });
  assert.deepEqual(settleSuggestion(log, "s1", "dismiss"), {
    ok: false,
    code: "task-suggestion/not-open",
    message: 'suggestion "s1" is drafted',
    payload: "drafted",
    id: "s1",
    outcome: "drafted",
  });
  assert.deepEqual(settleSuggestion(log, "s2", "draft"), {
    ok: false,
    code: "task-suggestion/not-open",
    message: 'suggestion "s2" is dismissed',
    payload: "dismissed",
    id: "s2",
    outcome: "dismissed",
  });
  // two open: restoring s2 makes three, which is allowed
  assert.deepEqual(settleSuggestion(log, "s2", "restore"), {
    ok: true,
    entry: { type: "suggestion_settled", v: 1, id: "s2", outcome: "restored" },
  });
  assert.deepEqual(settleSuggestion(log, "s3", "restore"), { ok: true, entry: null });
  assert.equal(settleSuggestion(log, "s1", "restore").code, "task-suggestion/not-open");
  assert.deepEqual(settleSuggestion(log, "s3", "dismiss"), {
    ok: true,
    entry: { type: "suggestion_settled", v: 1, id: "s3", outcome: "dismissed" },
  });
  // three open: restore hits the ceiling
  const next = [...log, { type: "turn_ended" }, { type: "turn_started" }];
  const full = [...next, suggestTask(next, { ...good, title: "Fifth" }).entry];
  assert.deepEqual(settleSuggestion(full, "s2", "restore"), {
    ok: false,
    code: "task-suggestion/open-limit",
    message: "3 suggestions are already open",
    payload: 3,
    limit: 3,
  });
});

test("planStart: check order, what a Start writes, inherited and clamped settings", () => {
  const log = chatWith(1);
  const p = planStart(log, "chat-1", "s1");
  assert.equal(p.ok, true);
  assert.equal(p.kind, "create");
  assert.equal(p.chatId, "chat-1.s1");
  assert.deepEqual(p.session, {
    type: "session",
    v: 1,
    chatId: "chat-1.s1",
    title: "Task 1",
    workspace: "/home/ana/app",
    scheduledTaskFolder: false,
    agent: "top-level",
    settings: { preset: "engineer", model: "oda-large", permission: "auto" },
    origin: { chatId: "chat-1", suggestionId: "s1" },
  });
  assert.deepEqual(p.settled, { type: "suggestion_settled", v: 1, id: "s1", outcome: "started", chatId: "chat-1.s1" });
  assert.deepEqual(p.brief, {
    type: "message",
    v: 1,
    role: "user",
    text: good.brief,
    source: { kind: "suggestion", chatId: "chat-1", suggestionId: "s1" },
  });
  // no preset: sandbox and approval instead
  const bare = chatWith(1, [session({ settings: { model: "m", permission: "ask", sandbox: { net: false }, approval: "on-request" } })]);
  assert.deepEqual(planStart(bare, "chat-1", "s1", { permission: "full-access", model: "small" }).session.settings, {
    model: "small",
    permission: "ask",
    sandbox: { net: false },
    approval: "on-request",
  });
  // already started: the same chat, no error, even where a new Start would fail
  const started = settle(chatWith(1, [session({ workspace: null })]), "s1", "started", "chat-1.s1");
  assert.deepEqual(planStart(started, "chat-1", "s1").chatId, "chat-1.s1");
  assert.equal(planStart(started, "chat-1", "s1").kind, "started");
  assert.deepEqual(planStart(settle(log, "s1", "dismissed"), "chat-1", "s1").code, "task-suggestion/not-open");
  assert.deepEqual(planStart(log, "chat-1", "nope").code, "task-suggestion/not-found");
  // A chat can not offer from a scheduled folder; such logs come from a host
  // that moved the chat afterwards: swap the session entry.
  const both = chatWith(1);
  both[0] = session({ workspace: null, scheduledTaskFolder: true });
  assert.deepEqual(planStart(both, "chat-1", "s1"), {
    ok: false,
    code: "task-suggestion/workspace-missing",
    message: 'session "chat-1" belongs to no workspace',
    payload: "chat-1",
    chatId: "chat-1",
  });
  const scheduled = chatWith(1);
  scheduled[0] = session({ scheduledTaskFolder: true });
  assert.equal(planStart(scheduled, "chat-1", "s1").message, `session "chat-1" runs in a scheduled task's folder`);
});

test("clampPermission never gives more than the ceiling; unknown fails closed", () => {
  const order = ["read-only", "ask", "auto", "full-access"];
  for (const [i, wanted] of order.entries())
    for (const [j, ceiling] of order.entries())
      assert.equal(clampPermission(wanted, ceiling), order[Math.min(i, j)], `${wanted} under ${ceiling}`);
  assert.equal(clampPermission("root", "full-access"), "read-only");
  assert.equal(clampPermission("auto", "superuser"), "read-only");
  assert.equal(clampPermission(null, "auto"), "read-only");
  assert.equal(clampPermission("b", "c", ["a", "b", "c"]), "b");
});

test("startedChat and checkGoal: the brief is the suggestion's words, not the person's", () => {
  const p = planStart(chatWith(1), "chat-1", "s1");
  assert.equal(startedChat(null, "chat-1", "s1"), "missing");
  assert.equal(startedChat([p.session], "chat-1", "s1"), "needs_brief");
  const started = [p.session, p.brief];
  assert.equal(startedChat(started, "chat-1", "s1"), "complete");
  assert.equal(startedChat([session()], "chat-1", "s1"), "foreign");
  const refusal = checkGoal(started, "create");
  assert.equal(refusal.ok, false);
  assert.equal(
    refusal.error,
    "goal: this chat's instructions came from a suggestion, not from the person; ask the person to confirm in their own words before you create a goal",
  );
  assert.equal(checkGoal(started, "complete").ok, false);
  assert.deepEqual(checkGoal([...started, { type: "message", role: "user", text: "Yes, go ahead." }], "complete"), { ok: true });
});

test("suggestTaskTool: the seed's description and field descriptions exactly", () => {
  assert.deepEqual(suggestTaskTool, {
    name: "suggest_task",
    description: "Offer one out-of-scope follow-up the user can start in a new chat; never for work you can do now.",
    inputSchema: {
      type: "object",
      properties: {
        title: { type: "string", description: "Imperative title, at most 60 characters.", minLength: 1, maxLength: 60 },
        tldr: { type: "string", description: "Why it is worth doing, at most 240 characters.", minLength: 1, maxLength: 240 },
        brief: {
          type: "string",
          description: "Self-contained instructions for the new chat, at most 4000 characters.",
          minLength: 1,
          maxLength: 4000,
        },
      },
      required: ["title", "tldr", "brief"],
      additionalProperties: false,
    },
  });
});
