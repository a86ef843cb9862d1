// withOda with the Claude Agent SDK's `/core` entry, which takes zod and
// @modelcontextprotocol/sdk from the app's install instead of its own copies
// (an app that bundles the SDK uses it): the real CLI, the fake Messages API.
// A process of its own: the SDK's root and `/core` entries are not to be mixed.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { query } from "@anthropic-ai/claude-agent-sdk/core";
import { createChat, MemoryStore, replayTodos } from "oda-tasks";
import { CARD_META, ODA_TOOL_NAMES, withOda } from "oda-tasks/claude-agent-sdk";
import { offlineEnv, startFakeAnthropic, toolResults, toolUse } from "./support/anthropic-fake.mjs";
import { card, good } from "./support/tool-fixtures.mjs";

const api = await startFakeAnthropic();
const home = mkdtempSync(join(tmpdir(), "oda-claude-core-"));
after(async () => {
  await api.close();
  rmSync(home, { recursive: true, force: true });
});

test("the SDK's /core entry: the tools run in process, the exact text reaches the model, the card rides in _meta", async () => {
  const store = new MemoryStore();
  await createChat(store, "c", { workspace: "/w" });
  api.script("RUN-CORE", [[toolUse("k1", ODA_TOOL_NAMES.todo_write, good)], [{ type: "text", text: "done" }]]);
  const env = offlineEnv(home, api.url);
  const messages = [];
  for await (const m of query({
    prompt: "RUN-CORE: plan",
    options: withOda({ cwd: home, env, settingSources: [] }, { store, chatId: "c" }),
  })) {
    messages.push(m);
  }
  assert.equal(messages.at(-1).subtype, "success");
  assert.deepEqual(toolResults(api.of("RUN-CORE")).get("k1"), {
    text: "Updated todo list: 1 pending, 1 in progress, 0 completed",
    isError: false,
  });
  const result = messages.find((m) => m.type === "user" && m.message.content.some?.((c) => c.tool_use_id === "k1"));
  assert.deepEqual(result.tool_use_result._meta[CARD_META], card);
  assert.deepEqual(
    (await store.read("c")).map((e) => e.type),
    ["session", "turn_started", "todo_update", "turn_ended"],
  );
  assert.deepEqual(replayTodos(await store.read("c")).todos, good.todos);
});
