// Shared by the store fault suites: a chat's entries and tool calls, and what a
// fresh read decides on a call, the reference a store's warm state must match.
import { ChatState } from "oda-tasks";

export const TOP = {
  type: "session",
  chatId: "c",
  workspace: "/w",
  scheduledTaskFolder: false,
  agent: "top-level",
  settings: { preset: "coder", model: "m", permission: "auto" },
};
export const HELPER = { ...TOP, agent: "helper" };
export const OPEN_TURN = { type: "turn_started" };
export const TODO = { name: "todo_write", input: { todos: [{ content: "Read the code", status: "in_progress" }] } };
export const SUGGEST = { name: "suggest_task", input: { title: "Follow up", tldr: "Why it matters", brief: "Do the follow-up." } };
export const HELLO = { type: "message", role: "user", text: "hi" };

/** What a fresh read of the chat decides on `call` (the reference a warm state must match). */
export async function freshDecision(store, chatId, call) {
  const state = ChatState.fromLog(await store.read(chatId), { cards: false });
  try {
    const r = call.name === "suggest_task" ? state.suggestTask(call.input) : state.todoWrite(call.input);
    return r.ok ? { ok: true, output: r.output } : { ok: false, error: r.error };
  } finally {
    state.free();
  }
}
