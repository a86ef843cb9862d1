// The racing-Starts check of the SQL stores' process tests (PostgreSQL's
// service-postgres-processes, SQLite's store-sqlite-processes): one offer,
// many processes starting it at once, exactly one chat, settlement and brief.
import assert from "node:assert/strict";
import { runTool } from "oda-tasks";
import { makeChat } from "./service-helpers.mjs";

/** Makes chat "offer-chat" holding one offer (a suggest_task call) for the processes to start. */
export async function offerChat(store) {
  await makeChat(store, "offer-chat");
  const r = await runTool(store, "offer-chat", {
    name: "suggest_task",
    input: { title: "Add retries", tldr: "Flaky uploads", brief: "Retry uploads." },
  });
  assert.equal(r.ok, true);
}

/** Checks the race's `results` (`calls` of them) and the store: one new chat "offer-chat.s1", one started settlement, one brief. */
export async function checkStarted(store, results, calls, chats) {
  assert.equal(results.length, calls);
  assert.deepEqual(
    results.filter((x) => "error" in x),
    [],
  );
  assert.deepEqual(new Set(results.map((x) => x.chatId)), new Set(["offer-chat.s1"]));
  assert.deepEqual(await chats(), ["offer-chat", "offer-chat.s1"], "exactly one new chat");
  const offering = await store.read("offer-chat");
  const started = offering.filter((e) => e.type === "suggestion_settled" && e.outcome === "started");
  assert.equal(started.length, 1, "one started settlement");
  assert.equal(started[0].chatId, "offer-chat.s1");
  const log = await store.read("offer-chat.s1");
  assert.deepEqual(
    log.map((e) => e.type),
    ["session", "message"],
  );
  assert.equal(log.filter((e) => e.type === "message" && e.source?.kind === "suggestion").length, 1, "one brief");
  assert.equal(log[1].text, "Retry uploads.", "one brief");
}
