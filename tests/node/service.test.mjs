// SuggestionService over the real MemoryStore: the SPEC section 5 failures,
// the Start flow, single-flight, crash repair, the dismissal window, the
// permission ceiling and the goal check.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SuggestionError, SuggestionService, checkGoal, planStart } from "oda-tasks";
import {
  MemoryStore,
  SpyStore,
  barrier,
  chatWithOffers,
  count,
  isBrief,
  isStarted,
  makeChat,
  offer,
  session,
} from "./support/service-helpers.mjs";

const PERMISSIONS = ["read-only", "ask", "auto", "full-access"];
/** The refusal of starting suggestion s1 once it is dismissed. */
const DISMISSED = {
  code: "task-suggestion/not-open",
  message: 'suggestion "s1" is dismissed',
  payload: "dismissed",
  id: "s1",
  outcome: "dismissed",
};

/** Asserts `promise` rejects with a SuggestionError with exactly these fields. */
async function rejectsWith(promise, fields) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof Error, "an Error");
    assert.ok(e instanceof SuggestionError, "a SuggestionError");
    assert.equal(e.name, "SuggestionError");
    const named = { id: e.id, outcome: e.outcome, limit: e.limit, chatId: e.chatId };
    for (const k of Object.keys(named)) if (!(k in e)) delete named[k];
    assert.deepEqual({ code: e.code, message: e.message, payload: e.payload, ...named }, fields);
    return true;
  });
}

async function setup(n = 1, over = {}) {
  const store = new MemoryStore();
  const ids = await chatWithOffers(store, "c", n, over);
  return { store, ids, service: new SuggestionService({ store }) };
}

// --- failures -----------------------------------------------------------

test("not-found: every operation on an unknown id, and on a chat that does not exist", async () => {
  const { store, service } = await setup(1);
  const before = await store.read("c");
  const notFound = (id) => ({ code: "task-suggestion/not-found", message: `no suggestion "${id}"`, payload: id, id });
  await rejectsWith(service.start("c", "s9"), notFound("s9"));
  await rejectsWith(service.draft("c", "s9"), notFound("s9"));
  await rejectsWith(service.dismiss("c", "nope"), notFound("nope"));
  await rejectsWith(service.restore("c", "s2"), notFound("s2"));
  await rejectsWith(service.start("missing-chat", "s1"), notFound("s1"));
  await rejectsWith(service.dismiss("missing-chat", "s1"), notFound("s1"));
  assert.deepEqual(await store.read("c"), before);
  assert.equal(await store.read("missing-chat"), null);
  assert.deepEqual(await service.list("missing-chat"), { open: [], settled: [] });
});

test("not-open: each outcome it already has, for start, draft, dismiss and restore", async () => {
  const { store, service } = await setup(3);
  await service.dismiss("c", "s1");
  await service.draft("c", "s2");
  await service.start("c", "s3");
  const notOpen = (id, outcome) => ({
    code: "task-suggestion/not-open",
    message: `suggestion "${id}" is ${outcome}`,
    payload: outcome,
    id,
    outcome,
  });
  const before = await store.read("c");
  await rejectsWith(service.start("c", "s1"), notOpen("s1", "dismissed"));
  await rejectsWith(service.draft("c", "s1"), notOpen("s1", "dismissed"));
  await rejectsWith(service.dismiss("c", "s1"), notOpen("s1", "dismissed"));
  await rejectsWith(service.start("c", "s2"), notOpen("s2", "drafted"));
  await rejectsWith(service.dismiss("c", "s2"), notOpen("s2", "drafted"));
  await rejectsWith(service.restore("c", "s2"), notOpen("s2", "drafted"));
  await rejectsWith(service.draft("c", "s3"), notOpen("s3", "started"));
  await rejectsWith(service.dismiss("c", "s3"), notOpen("s3", "started"));
  await rejectsWith(service.restore("c", "s3"), notOpen("s3", "started"));
  assert.deepEqual(await store.read("c"), before);
});

test("open-limit: restore with 3 open fails with limit 3; with 2 open it succeeds", async () => {
  const store = new MemoryStore();
  await makeChat(store, "c");
  const service = new SuggestionService({ store });
  await offer(store, "c", "One");
  await service.dismiss("c", "s1");
  for (const t of ["Two", "Three", "Four"]) await offer(store, "c", t);
  assert.equal((await service.list("c")).open.length, 3);
  const before = await store.read("c");
  await rejectsWith(service.restore("c", "s1"), {
    code: "task-suggestion/open-limit",
    message: "3 suggestions are already open",
    payload: 3,
    limit: 3,
  });
  assert.deepEqual(await store.read("c"), before);
  await service.draft("c", "s3");
  await service.restore("c", "s1");
  assert.deepEqual(
    (await service.list("c")).open.map((s) => s.id),
    ["s4", "s2", "s1"],
  );
});

test("workspace-missing: no workspace, a scheduled task's folder, and no workspace reported first", async () => {
  const store = new MemoryStore();
  const service = new SuggestionService({ store });
  // The offer comes from the core on a normal chat; the chats under test
  // carry the same entries after their own session (suggest_task itself
  // refuses in a scheduled folder, but a log may still hold an older offer).
  await makeChat(store, "src");
  await offer(store, "src", "Task");
  const rest = (await store.read("src")).slice(1);
  const chats = {
    nows: session("nows", { workspace: null }),
    sched: session("sched", { scheduledTaskFolder: true }),
    both: session("both", { workspace: null, scheduledTaskFolder: true }),
  };
  for (const [id, s] of Object.entries(chats)) await store.create(id, [s, ...rest]);
  await store.create("nosession", rest);
  const missing = (chatId, why) => ({
    code: "task-suggestion/workspace-missing",
    message: `session "${chatId}" ${why}`,
    payload: chatId,
    chatId,
  });
  await rejectsWith(service.start("nows", "s1"), missing("nows", "belongs to no workspace"));
  await rejectsWith(service.start("sched", "s1"), missing("sched", "runs in a scheduled task's folder"));
  await rejectsWith(service.start("both", "s1"), missing("both", "belongs to no workspace"));
  await rejectsWith(service.start("nosession", "s1"), missing("nosession", "belongs to no workspace"));
  for (const id of ["nows", "sched", "both", "nosession"]) {
    assert.equal(await store.read(`${id}.s1`), null, "no chat created");
    assert.equal(count(await store.read(id), isStarted), 0, "nothing settled");
  }
  // Not-open is checked before the workspace.
  await service.dismiss("both", "s1");
  await rejectsWith(service.start("both", "s1"), DISMISSED);
});

test("SuggestionError carries only the payload field of its code", async () => {
  const { service } = await setup(1);
  const e = await service.start("c", "zz").catch((x) => x);
  assert.ok(e instanceof SuggestionError && e instanceof Error);
  assert.equal("id" in e, true);
  assert.equal("limit" in e, false);
  assert.equal("outcome" in e, false);
  assert.equal("chatId" in e, false);
  assert.equal(e.toString(), 'SuggestionError: no suggestion "zz"');
});

// --- start ----------------------------------------------------------------

test("start creates the chat in the same workspace, titled after the suggestion, brief first, attributed to the suggestion", async () => {
  const store = new MemoryStore();
  await makeChat(store, "c", {
    workspace: "/repo/app",
    settings: { preset: "coder", model: "m-large", permission: "auto", sandbox: "x", approval: "y" },
  });
  await offer(store, "c", "Add retries", "In upload.ts, retry three times.");
  const service = new SuggestionService({ store });
  const before = await store.read("c");
  const { chatId } = await service.start("c", "s1");
  assert.equal(chatId, "c.s1");
  const log = await store.read(chatId);
  assert.equal(log.length, 2);
  const [s, brief] = log;
  assert.equal(s.type, "session");
  assert.equal(s.chatId, "c.s1");
  assert.equal(s.title, "Add retries");
  assert.equal(s.workspace, "/repo/app");
  assert.equal(s.scheduledTaskFolder, false);
  assert.equal(s.agent, "top-level");
  // With a preset: preset, model and permission; no sandbox/approval.
  assert.deepEqual(s.settings, { preset: "coder", model: "m-large", permission: "auto" });
  assert.equal(brief.type, "message");
  assert.equal(brief.role, "user");
  assert.equal(brief.text, "In upload.ts, retry three times.");
  assert.deepEqual(brief.source, { kind: "suggestion", chatId: "c", suggestionId: "s1" });
  // The offering chat gained exactly one `started` settlement naming the chat.
  const after = await store.read("c");
  assert.deepEqual(after.slice(0, before.length), before);
  assert.equal(after.length, before.length + 1);
  assert.equal(after.at(-1).type, "suggestion_settled");
  assert.equal(after.at(-1).outcome, "started");
  assert.equal(after.at(-1).chatId, "c.s1");
  const list = await service.list("c");
  assert.deepEqual(list.open, []);
  assert.deepEqual(
    list.settled.map((x) => [x.id, x.outcome, x.chatId, x.title]),
    [["s1", "started", "c.s1", "Add retries"]],
  );
});

test("with no preset the started chat copies sandbox and approval; model and permission either way", async () => {
  const store = new MemoryStore();
  const settings = { model: "m-small", permission: "ask", sandbox: { net: false, paths: ["/w"] }, approval: "on-request" };
  await chatWithOffers(store, "c", 1, { settings });
  const { chatId } = await new SuggestionService({ store }).start("c", "s1");
  const [s] = await store.read(chatId);
  assert.deepEqual(s.settings, settings);
});

test("a requested model is taken; a requested permission above the offering chat's is clamped", async () => {
  const { store, service } = await setup(2);
  const a = await service.start("c", "s1", { model: "m-other", permission: "full-access" });
  assert.deepEqual((await store.read(a.chatId))[0].settings, { preset: "coder", model: "m-other", permission: "auto" });
  const b = await service.start("c", "s2", { permission: "read-only" });
  assert.deepEqual((await store.read(b.chatId))[0].settings, { preset: "coder", model: "m-large", permission: "read-only" });
});

test("repeating start returns the same chat and writes nothing new", async () => {
  const { store, service } = await setup(1);
  const first = await service.start("c", "s1");
  const offering = await store.read("c");
  const started = await store.read(first.chatId);
  for (const s of [service, new SuggestionService({ store })]) {
    assert.deepEqual(await s.start("c", "s1"), first);
    assert.deepEqual(await s.start("c", "s1", { permission: "read-only", model: "other" }), first);
  }
  assert.deepEqual(await store.read("c"), offering);
  assert.deepEqual(await store.read(first.chatId), started);
});

test("20 concurrent starts in one process: one attempt, one chat, one started settlement, one brief", async () => {
  const { store: inner } = await setup(1);
  const store = new SpyStore(inner);
  const service = new SuggestionService({ store });
  const results = await Promise.all(Array.from({ length: 20 }, () => service.start("c", "s1")));
  assert.deepEqual(new Set(results.map((r) => r.chatId)), new Set(["c.s1"]));
  assert.equal(store.calls.create, 1, "single-flight: one create for 20 calls");
  assert.equal(count(await inner.read("c"), isStarted), 1);
  const log = await inner.read("c.s1");
  assert.equal(count(log, isBrief), 1);
  assert.equal(
    count(log, (e) => e.type === "session"),
    1,
  );
  // Each caller gets its own result object.
  results[0].chatId = "changed";
  assert.equal(results[1].chatId, "c.s1");
});

test("20 concurrent starts from 20 services sharing a store still make one chat, one settlement, one brief", async () => {
  const { store } = await setup(1);
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => new SuggestionService({ store }).start("c", "s1", i % 2 ? { model: "x" } : undefined)),
  );
  assert.deepEqual(new Set(results.map((r) => r.chatId)), new Set(["c.s1"]));
  assert.equal(count(await store.read("c"), isStarted), 1);
  assert.equal(count(await store.read("c.s1"), isBrief), 1);
});

test("a failed start is not cached: the next call decides again", async () => {
  const { store, service } = await setup(1);
  await service.dismiss("c", "s1");
  await rejectsWith(service.start("c", "s1"), DISMISSED);
  await service.restore("c", "s1");
  assert.deepEqual(await service.start("c", "s1"), { chatId: "c.s1" });
  assert.equal(count(await store.read("c.s1"), isBrief), 1);
});

// --- restore and list -------------------------------------------------------

test("restore of an open offer succeeds and writes nothing", async () => {
  const { store, service } = await setup(2);
  const before = await store.read("c");
  assert.equal(await service.restore("c", "s1"), undefined);
  assert.deepEqual(await store.read("c"), before);
});

test("draft, dismiss and restore resolve to nothing and each write one settlement", async () => {
  const { store, service } = await setup(2);
  const len = (await store.read("c")).length;
  assert.equal(await service.draft("c", "s1"), undefined);
  assert.equal(await service.dismiss("c", "s2"), undefined);
  assert.equal(await service.restore("c", "s2"), undefined);
  const log = await store.read("c");
  assert.deepEqual(
    log.slice(len).map((e) => [e.type, e.id, e.outcome]),
    [
      ["suggestion_settled", "s1", "drafted"],
      ["suggestion_settled", "s2", "dismissed"],
      ["suggestion_settled", "s2", "restored"],
    ],
  );
});

/** Before each of the first `n` appends to `chatId`, a rival appends an app entry first, so the conditional append conflicts. */
function rivalStore(inner, chatId, n) {
  let left = n;
  return {
    conflicts: 0,
    arm(k) {
      left = k;
    },
    read: (id) => inner.read(id),
    create: (id, e) => inner.create(id, e),
    async append(id, entries, expectedLength) {
      if (id === chatId && left > 0) {
        left--;
        await inner.append(id, [{ type: "app_note" }]);
        try {
          return await inner.append(id, entries, expectedLength);
        } catch (e) {
          this.conflicts++;
          throw e;
        }
      }
      return inner.append(id, entries, expectedLength);
    },
  };
}

test("draft, dismiss and restore retry after another writer appended first", async () => {
  const { store: inner } = await setup(2);
  const store = rivalStore(inner, "c", 0);
  const service = new SuggestionService({ store });
  store.arm(3);
  await service.dismiss("c", "s1");
  store.arm(3);
  await service.draft("c", "s2");
  store.arm(3);
  await service.restore("c", "s1");
  assert.equal(store.conflicts, 9);
  const settled = (await inner.read("c")).filter((e) => e.type === "suggestion_settled");
  assert.deepEqual(
    settled.map((e) => [e.id, e.outcome]),
    [
      ["s1", "dismissed"],
      ["s2", "drafted"],
      ["s1", "restored"],
    ],
  );
});

test("start retries after another writer appended to the offering chat or to the new chat", async () => {
  const { store: inner } = await setup(1);
  const offering = rivalStore(inner, "c", 4);
  assert.deepEqual(await new SuggestionService({ store: offering }).start("c", "s1"), { chatId: "c.s1" });
  assert.equal(offering.conflicts, 4);
  assert.equal(count(await inner.read("c"), isStarted), 1);
  assert.equal(count(await inner.read("c.s1"), isBrief), 1);

  const { store: inner2 } = await setup(1);
  const started = rivalStore(inner2, "c.s1", 4);
  await new SuggestionService({ store: started }).start("c", "s1");
  assert.equal(started.conflicts, 4);
  const log = await inner2.read("c.s1");
  assert.equal(count(log, isBrief), 1);
  assert.equal(log.at(-1).type, "message");
});

test("a restored offer is listed among the open ones by when it was offered", async () => {
  const { service } = await setup(3);
  assert.deepEqual(
    (await service.list("c")).open.map((s) => s.id),
    ["s3", "s2", "s1"],
  );
  await service.dismiss("c", "s2");
  const mid = await service.list("c");
  assert.deepEqual(
    mid.open.map((s) => s.id),
    ["s3", "s1"],
  );
  assert.deepEqual(
    mid.settled.map((s) => [s.id, s.outcome]),
    [["s2", "dismissed"]],
  );
  await service.restore("c", "s2");
  const after = await service.list("c");
  assert.deepEqual(
    after.open.map((s) => s.id),
    ["s3", "s2", "s1"],
  );
  assert.deepEqual(after.settled, []);
  assert.deepEqual(Object.keys(after).sort(), ["open", "settled"]);
  assert.deepEqual(Object.keys(after.open[0]).sort(), ["brief", "id", "title", "tldr"]);
});

test("settlements retry on a conflict and decide again: a dismissal racing a start loses cleanly", async () => {
  const { store, service } = await setup(1);
  const [a, b] = await Promise.allSettled([service.start("c", "s1"), new SuggestionService({ store }).dismiss("c", "s1")]);
  const log = await store.read("c");
  const settled = log.filter((e) => e.type === "suggestion_settled");
  assert.equal(settled.length, 1, "exactly one of them landed");
  if (settled[0].outcome === "started") {
    assert.equal(a.status, "fulfilled");
    assert.equal(b.status, "rejected");
    assert.equal(b.reason.outcome, "started");
    assert.equal(count(await store.read("c.s1"), isBrief), 1);
  } else {
    assert.equal(b.status, "fulfilled");
    assert.equal(a.status, "rejected");
    assert.equal(a.reason.outcome, "dismissed");
    assert.equal(count((await store.read("c.s1")) ?? [], isBrief), 0);
  }
});

// --- crash repair and the dismissal window ------------------------------------

test("crash after the started settlement, before the brief: start writes the brief once and returns the chat", async () => {
  const { store } = await setup(1);
  // Build the state by hand: the new chat created, `started` recorded, no brief.
  const log = await store.read("c");
  const plan = planStart(log, "c", "s1", {}, PERMISSIONS);
  assert.equal(plan.kind, "create");
  assert.equal(await store.create(plan.chatId, [plan.session]), true);
  await store.append("c", [plan.settled], log.length);
  const offering = await store.read("c");
  assert.equal(count(await store.read(plan.chatId), isBrief), 0);

  const results = await Promise.all(Array.from({ length: 8 }, () => new SuggestionService({ store }).start("c", "s1")));
  assert.deepEqual(new Set(results.map((r) => r.chatId)), new Set([plan.chatId]));
  const started = await store.read(plan.chatId);
  assert.deepEqual(started, [plan.session, plan.brief]);
  assert.deepEqual(await store.read("c"), offering, "no second settlement");
  await new SuggestionService({ store }).start("c", "s1");
  assert.deepEqual(await store.read(plan.chatId), started, "a later start writes nothing");
});

test("crash after creating the chat, before the settlement: start reuses the chat and finishes", async () => {
  const { store, service } = await setup(1);
  const plan = planStart(await store.read("c"), "c", "s1", {}, PERMISSIONS);
  await store.create(plan.chatId, [plan.session]);
  assert.deepEqual(await service.start("c", "s1"), { chatId: plan.chatId });
  assert.equal(count(await store.read("c"), isStarted), 1);
  assert.deepEqual(await store.read(plan.chatId), [plan.session, plan.brief]);
});

test("a chat of the same id not started from this offer is refused with an Error and nothing is settled", async () => {
  const { store, service } = await setup(1);
  const before = await store.read("c");
  await store.create("c.s1", [session("c.s1")]);
  await assert.rejects(service.start("c", "s1"), (e) => {
    assert.ok(e instanceof Error);
    assert.ok(!(e instanceof SuggestionError));
    assert.match(e.message, /not started from suggestion "s1" of chat "c"/);
    return true;
  });
  assert.deepEqual(await store.read("c"), before);
  assert.deepEqual(await store.read("c.s1"), [session("c.s1")]);
});

test("the dismissal window: dismissed while the chat is created, it stays dismissed and gets no brief", async () => {
  const { store: inner } = await setup(1);
  const store = new SpyStore(inner);
  const service = new SuggestionService({ store });
  const gate = barrier();
  const reached = barrier();
  store.gate = async () => {
    reached.open();
    await gate.opened;
  };
  const starting = service.start("c", "s1");
  await reached.opened; // start() holds inside create()
  await service.dismiss("c", "s1"); // lands while Start waits
  assert.equal((await inner.read("c")).at(-1).outcome, "dismissed");
  gate.open();
  await rejectsWith(starting, DISMISSED);
  const created = await inner.read("c.s1");
  assert.ok(created, "the chat was created before the dismissal was seen");
  assert.equal(count(created, isBrief), 0, "no brief");
  assert.equal(
    count(created, (e) => e.type === "message"),
    0,
  );
  assert.equal(count(await inner.read("c"), isStarted), 0);
  const list = await service.list("c");
  assert.deepEqual(list.open, []);
  assert.deepEqual(
    list.settled.map((s) => [s.id, s.outcome]),
    [["s1", "dismissed"]],
  );
  store.gate = null;
  await rejectsWith(service.start("c", "s1"), DISMISSED);
  await rejectsWith(new SuggestionService({ store: inner }).start("c", "s1"), DISMISSED);
  assert.equal(count(await inner.read("c.s1"), isBrief), 0);
  // Restored and started again, the chat left by the window is taken up: one settlement, one brief.
  await service.restore("c", "s1");
  assert.deepEqual(await service.start("c", "s1"), { chatId: "c.s1" });
  assert.equal(count(await inner.read("c"), isStarted), 1);
  assert.deepEqual(
    (await inner.read("c.s1")).map((e) => e.type),
    ["session", "message"],
  );
});

// --- permissions and the goal check -----------------------------------------------

test("the started chat never has more permission than the offering chat, for every pair", async () => {
  const rank = (p) => Math.max(0, PERMISSIONS.indexOf(p));
  const parents = [...PERMISSIONS, "root"];
  const wants = [...PERMISSIONS, "superuser", undefined];
  const store = new MemoryStore();
  const service = new SuggestionService({ store });
  let n = 0;
  for (const parent of parents) {
    for (const wanted of wants) {
      const id = `p${n++}`;
      await chatWithOffers(store, id, 1, { settings: { preset: "coder", model: "m", permission: parent } });
      const { chatId } = await service.start(id, "s1", wanted === undefined ? undefined : { permission: wanted });
      const got = (await store.read(chatId))[0].settings.permission;
      const label = `offering ${parent}, asked ${wanted}: got ${got}`;
      assert.ok(PERMISSIONS.includes(got), label);
      assert.ok(rank(got) <= rank(parent), label);
      if (!PERMISSIONS.includes(parent)) assert.equal(got, "read-only", `unknown ceiling fails closed: ${label}`);
      if (wanted !== undefined && !PERMISSIONS.includes(wanted)) assert.equal(got, "read-only", `unknown request fails closed: ${label}`);
      const asked = wanted ?? parent;
      assert.equal(got, PERMISSIONS[Math.min(rank(asked), rank(parent))], label);
    }
  }
  assert.equal(n, 30);
});

test("a full-access chat starts a full-access chat; a host permission order is honoured", async () => {
  const store = new MemoryStore();
  await chatWithOffers(store, "fa", 1, { settings: { model: "m", permission: "full-access" } });
  const { chatId } = await new SuggestionService({ store }).start("fa", "s1");
  assert.equal((await store.read(chatId))[0].settings.permission, "full-access");

  await chatWithOffers(store, "custom", 2, { settings: { model: "m", permission: "mid" } });
  const custom = new SuggestionService({ store, permissions: ["low", "mid", "high"] });
  const a = await custom.start("custom", "s1", { permission: "high" });
  assert.equal((await store.read(a.chatId))[0].settings.permission, "mid");
  const b = await custom.start("custom", "s2", { permission: "low" });
  assert.equal((await store.read(b.chatId))[0].settings.permission, "low");
});

test("the goal check refuses on the started chat until the person speaks there", async () => {
  const { store, service } = await setup(1);
  const { chatId } = await service.start("c", "s1");
  for (const action of ["create", "complete"]) {
    const g = checkGoal(await store.read(chatId), action);
    assert.equal(g.ok, false);
    assert.equal(
      g.error,
      `goal: this chat's instructions came from a suggestion, not from the person; ask the person to confirm in their own words before you ${action} a goal`,
    );
  }
  await store.append(chatId, [{ type: "message", role: "assistant", text: "Shall I?" }]);
  assert.equal(checkGoal(await store.read(chatId), "create").ok, false);
  await store.append(chatId, [{ type: "message", role: "user", text: "Yes, go ahead." }]);
  assert.deepEqual(checkGoal(await store.read(chatId), "create"), { ok: true });
  assert.deepEqual(checkGoal(await store.read(chatId), "complete"), { ok: true });
});
