// The Claude Agent SDK recipe of docs/integration.md (reply-claude.ts) as printed, run in a
// consumer project under Node 22: the real SDK and the Claude Code CLI it spawns, pointed
// at a local stand-in for the Messages API (anthropic-fake.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore } from "oda-tasks";
import { ODA_TOOL_NAMES } from "oda-tasks/claude-agent-sdk";
import { offlineEnv, startFakeAnthropic, toolUse } from "./anthropic-fake.mjs";
import { card, good } from "./tool-fixtures.mjs";
import { reply } from "./reply-claude.ts";

test("reply-claude.ts draws the chat's cards from a real run, in one turn", async (t) => {
  const api = await startFakeAnthropic();
  const home = mkdtempSync(join(tmpdir(), "oda-claude-"));
  t.after(async () => {
    await api.close();
    rmSync(home, { recursive: true, force: true });
  });
  api.script("RUN-R", [[toolUse("r1", ODA_TOOL_NAMES.todo_write, good)], [{ type: "text", text: "Planned." }]]);
  const chat = new MemoryStore();
  const drawn = [];
  // The app's SDK options: the CLI offline, its config in a temp home, the model at the fake API.
  const options = { cwd: home, settingSources: [], env: offlineEnv(home, api.url) };
  assert.equal(await reply(chat, "r", "RUN-R: plan the release", options, (c) => drawn.push(c)), "Planned.");
  assert.deepEqual(drawn, [card]);
  assert.deepEqual(
    (await chat.read("r")).map((e) => e.type),
    ["session", "turn_started", "todo_update", "turn_ended"],
  );
});
