// Type tests for a person's edit: editTodos and its result and error, editNotice,
// ChatState's edit decisions, the stored entries, aiTurn's prepareStep, and the
// editable plan's event.
import { generateText, type LanguageModel } from "ai";
import {
  ChatChangedError,
  ChatState,
  editNotice,
  editTodos,
  MemoryStore,
  todoWrite,
  type EditDecision,
  type EditNotice,
  type EditNoticeOptions,
  type EditTodosCallOptions,
  type EditTodosOptions,
  type EditTodosResult,
  type RefusedTold,
  type TodoCard,
  type TodoEditor,
  type TodoToldEntry,
  type TodoUpdateEntry,
} from "oda-tasks";
import { aiTurn, type OdaPrepareStep } from "oda-tasks/ai";
import type { EditAnswer, EditEventDetail, OdaPlanElement } from "oda-tasks/elements";

declare const model: LanguageModel;
const store = new MemoryStore();
const todos = [{ content: "Ship", status: "completed" as const }];

const call: EditTodosCallOptions = { basedOn: 4, by: "Ada", oneActive: false };
export const edited: Promise<EditTodosResult> = editTodos(store, "c", todos, call);
// @ts-expect-error basedOn is required
void editTodos(store, "c", todos, {});
// @ts-expect-error a status is one of the three
void editTodos(store, "c", [{ content: "Ship", status: "done" }], { basedOn: 4 });
export const changed = (e: unknown): number | null =>
  e instanceof ChatChangedError && e.code === "chat/changed" ? e.length + e.payload.length : null;
const noticeOptions: EditNoticeOptions = {};
export const notice: Promise<string | null> = editNotice(store, "c", noticeOptions);

const state = ChatState.empty();
const decisionOptions: EditTodosOptions = { basedOn: state.length };
const decided: EditDecision = state.editTodos(todos, decisionOptions);
export const entry: TodoUpdateEntry | null = decided.ok ? decided.entry : null;
export const told: EditNotice | null = state.editNotice();
export const listText: string | null = state.listText();
const r = todoWrite([], { todos });
export const record: TodoToldEntry | null = !r.ok && "entry" in r ? (r satisfies RefusedTold).entry : null;
export const who = (card: TodoCard): TodoEditor | undefined => card.by;

export const reply = aiTurn({ store, chatId: "c" }, ({ tools, prepareStep }) => {
  const step: OdaPrepareStep = prepareStep;
  return generateText({ model, tools, prepareStep: step, prompt: "Plan" });
});

export function listen(plan: OdaPlanElement): void {
  plan.editable = true;
  plan.todos = todos;
  plan.length = 4;
  plan.addEventListener("oda-edit", (e) => {
    const { detail } = e as CustomEvent<EditEventDetail>;
    const answer: EditAnswer = { ok: false, message: "changed", changed: { todos: detail.todos, length: detail.basedOn + 1 } };
    detail.respond(answer);
  });
}
