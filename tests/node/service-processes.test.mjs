// Start across Node processes: 4 children share one JsonlStore directory and
// each fires 25 concurrent starts of the same suggestion. One chat, one
// `started` settlement and one brief must come out of it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { planStart, runTool } from "oda-tasks";
import { JsonlStore } from "oda-tasks/node";
import { session } from "./support/service-helpers.mjs";
import { raceChildren } from "./support/spawn-child.mjs";

const CHILD = new URL("./children/service-child.mjs", import.meta.url);
const PROCESSES = 4;
const CALLS = 25;

async function race(mode, { crashed = false } = {}) {
  const dir = await mkdtemp(join(tmpdir(), "oda-service-"));
  try {
    const store = new JsonlStore(dir);
    await store.create("offer-chat", [session("offer-chat"), { type: "turn_started" }]);
    const r = await runTool(store, "offer-chat", {
      name: "suggest_task",
      input: { title: "Add retries", tldr: "Flaky uploads", brief: "Retry uploads." },
    });
    assert.equal(r.ok, true);
    const filesBefore = await readdir(dir);
    if (crashed) {
      // A Start that crashed after recording `started`, before the brief:
      // every racing caller now tries to complete the same brief.
      const log = await store.read("offer-chat");
      const plan = planStart(log, "offer-chat", "s1", {}, ["read-only", "ask", "auto", "full-access"]);
      assert.equal(await store.create(plan.chatId, [plan.session]), true);
      await store.append("offer-chat", [plan.settled], log.length);
    }

    const results = await raceChildren(CHILD, [dir, "offer-chat", "s1", String(CALLS), mode], PROCESSES);

    assert.equal(results.length, PROCESSES * CALLS);
    const errors = results.filter((x) => "error" in x);
    assert.deepEqual(errors, []);
    assert.deepEqual(new Set(results.map((x) => x.chatId)), new Set(["offer-chat.s1"]));

    // One new chat on disk besides the offering chat's (whatever a store keeps beside them).
    const added = (await readdir(dir)).filter((f) => !filesBefore.includes(f));
    const chatFiles = added.filter((f) => f.includes("offer-chat.s1"));
    assert.equal(chatFiles.length, 1, `one started chat file (added: ${added.join(", ")})`);
    assert.equal(added.filter((f) => f.endsWith(".jsonl")).length, 1, `no other chat (added: ${added.join(", ")})`);

    const offering = await store.read("offer-chat");
    const started = offering.filter((e) => e.type === "suggestion_settled" && e.outcome === "started");
    assert.equal(started.length, 1);
    assert.equal(started[0].chatId, "offer-chat.s1");
    const log = await store.read("offer-chat.s1");
    assert.equal(log.filter((e) => e.type === "session").length, 1);
    assert.equal(log.filter((e) => e.type === "message" && e.source?.kind === "suggestion").length, 1);
    assert.deepEqual(
      log.map((e) => e.type),
      ["session", "message"],
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test(`${PROCESSES} processes x ${CALLS} concurrent starts (one service each): one chat, one settlement, one brief`, () => race("shared"));

test(`${PROCESSES} processes x ${CALLS} concurrent starts (a service per call): one chat, one settlement, one brief`, () =>
  race("separate"));

test(`crash repair across processes: ${PROCESSES} x ${CALLS} starts complete the missing brief exactly once`, () =>
  race("separate", { crashed: true }));
