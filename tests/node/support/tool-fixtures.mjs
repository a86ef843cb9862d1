// The tool calls the framework suites script, and what each records: one
// copy for the AI SDK, LangChain and toolHandlers suites (also copied into
// consumer projects beside ai-suite.mjs).
import { MemoryStore } from "oda-tasks";

/** A valid todo_write input: one in progress, one pending. */
export const good = {
  todos: [
    { content: "Write tests", status: "in_progress" },
    { content: "Ship", status: "pending" },
  ],
};
/** A valid suggest_task input. */
export const suggestion = { title: "Add retries", tldr: "Uploads fail on flaky networks.", brief: "In upload.ts, retry failed uploads." };
/** The card replay makes for `good` recorded as the chat's first update in turn 1. */
export const card = {
  index: 2,
  turn: 1,
  todos: good.todos,
  counts: { pending: 1, inProgress: 1, completed: 0 },
  changes: {
    added: [
      { content: "Write tests", status: "in_progress", position: 0 },
      { content: "Ship", status: "pending", position: 1 },
    ],
    removed: [],
    statusChanged: [],
    moved: [],
  },
};
/** The offer replay makes for `suggestion` recorded first. */
export const offer = { id: "s1", ...suggestion };

/** A MemoryStore whose appends of tool entries wait until `release()`: a todo_write still being recorded. */
export class SlowStore extends MemoryStore {
  constructor() {
    super();
    this.started = new Promise((resolve) => (this.signalStarted = resolve));
    this.gate = new Promise((resolve) => (this.release = resolve));
  }
  async append(chatId, entries, expected) {
    if (entries.some((e) => !e.type.startsWith("turn_"))) {
      this.signalStarted();
      await this.gate;
    }
    return super.append(chatId, entries, expected);
  }
}

/** The MCP result of a second `suggest_task` in one turn on chat `chatId`: the core's refusal with `isError`. */
export const secondOfferRefused = (chatId) => ({
  content: [{ type: "text", text: "suggest_task: one suggestion per turn; this turn already offered one" }],
  isError: true,
  _meta: { "oda-tasks/chat": chatId },
});

/**
 * A person's two edits while the model works, as the integration suites script
 * them: the model records `good`; a person adds "Tell the team" between two of
 * its steps (`withC`, told as `notice`), then "Update the docs" while it writes
 * the next (`withCD`): that write, made without it, is refused with `refusal`.
 */
export const edited = {
  withC: { todos: [...good.todos, { content: "Tell the team", status: "pending" }] },
  withCD: { todos: [...good.todos, { content: "Tell the team", status: "pending" }, { content: "Update the docs", status: "pending" }] },
  notice:
    'The user edited the todo list while you worked. What they changed:\n- added "Tell the team" (pending)\nThe list as edited (2 pending, 1 in progress, 0 completed):\n1. [in_progress] "Write tests"\n2. [pending] "Ship"\n3. [pending] "Tell the team"\nKeep their changes: your next todo_write sends this list whole, with the user\'s changes in it.',
  refusal:
    'Error: the user edited the todo list, and this update was not recorded: it was written before you saw their edit. What they changed:\n- added "Update the docs" (pending)\nThe list as edited (3 pending, 1 in progress, 0 completed):\n1. [in_progress] "Write tests"\n2. [pending] "Ship"\n3. [pending] "Tell the team"\n4. [pending] "Update the docs"\nCall todo_write again with the whole list, starting from this one and keeping the user\'s changes.',
};
