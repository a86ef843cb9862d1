// Type tests for the lifecycle, the reminder, toolHandlers and the schema typings.
import {
  beginTurn,
  createChat,
  endTurn,
  looseInputSchema,
  MemoryStore,
  openaiTools,
  reminderDue,
  todoListText,
  todoReminder,
  todoWriteTool,
  toolHandlers,
  ChatState,
  type ChatSession,
  type ListState,
  type ToolInputSchema,
} from "oda-tasks";

const store = new MemoryStore();
const session: ChatSession = {
  title: "t",
  workspace: null,
  scheduledTaskFolder: false,
  agent: "helper",
  settings: { model: "m", sandbox: { net: false } },
};
export const created: Promise<boolean> = createChat(store, "c", session);
export const turn: Promise<number> = beginTurn(store, "c");
export const ended: Promise<boolean> = endTurn(store, "c");
// @ts-expect-error a misspelt session field
void createChat(store, "c", { workspce: "/w" });
// @ts-expect-error agent is "top-level" or "helper"
void createChat(store, "c", { agent: "sub" });
const handlers = toolHandlers({ store, chatId: "c" });
export const said: Promise<string> = handlers.todo_write(JSON.parse("{}") as unknown);
export const reminder: Promise<string | null> = todoReminder(store, "c", { always: true, everyTurns: 2 });
const list: ListState = ChatState.empty().listState();
export const due: boolean = reminderDue(list, 3);
export const text: string | null = todoListText(list.todos);
// The literals SDKs want at the top of a tool's input.
const schema: ToolInputSchema = todoWriteTool.inputSchema;
const strict: { type: "object"; additionalProperties: false; required: string[] } = schema;
const param: { additionalProperties: false } = openaiTools({ strict: true })[0].function.parameters;
const isStrict: true = openaiTools({ strict: true })[1].function.strict;
const loose: { type: "object" } = looseInputSchema(todoWriteTool);
void [strict, param, isStrict, loose];
