// Type tests for oda-tasks/ai against the real `ai` 7 types: the tools fit
// `generateText`/`streamText`'s `tools`, and aiTurn passes the call's result through.
import {
  createUIMessageStream,
  generateText,
  streamText,
  type InferUITools,
  type LanguageModel,
  type UIDataTypes,
  type UIMessage,
} from "ai";
import { MemoryStore, toolHandlers, type Suggestion, type TodoCard, type TodoPlan, type UiToolResult } from "oda-tasks";
import type { SuggestionList } from "oda-tasks/elements";
import {
  aiTools,
  aiTurn,
  aiTurnResponse,
  aiTurnStream,
  previewCard,
  type AiTools,
  type OdaDataTypes,
  type PreviewCard,
} from "oda-tasks/ai";

declare const model: LanguageModel;
const store = new MemoryStore();
const tools: AiTools = aiTools({ store, chatId: "c", oneActive: false });
export const a = generateText({ model, tools, prompt: "p" });
export const b = streamText({ model, tools, prompt: "p" });
export const text: Promise<string> = aiTurn({ store, chatId: "c", remind: "always" }, async ({ tools, reminder, turn }) => {
  const n: number = turn;
  void n;
  const r = await generateText({ model, tools, system: reminder ?? undefined, prompt: "p" });
  return r.text;
});
// @ts-expect-error remind takes "due", "always" or "never"
void aiTurn({ store, chatId: "c", remind: "sometimes" }, () => 1);
// @ts-expect-error a chat id is needed
void aiTools({ store });

// The UI's tool parts carry `{ text, card?, offer? }`: `part.output.card` type-checks under useChat's types.
type ChatMessage = UIMessage<never, UIDataTypes, InferUITools<AiTools>>;
export function cardOf(message: ChatMessage): TodoCard | undefined {
  for (const part of message.parts) {
    if (part.type === "tool-todo_write" && part.state === "output-available") {
      const text: string = part.output.text;
      void text;
      return part.output.card;
    }
    if (part.type === "tool-suggest_task" && part.state === "output-available") {
      const offer: Suggestion | undefined = part.output.offer;
      void offer;
      // @ts-expect-error the output is an object, not the model's text
      const asText: string = part.output;
      void asText;
    }
  }
  return undefined;
}
const ui = toolHandlers({ store, chatId: "c", ui: true });
export const uiCard: Promise<TodoCard | undefined> = ui.todo_write({}).then((r: UiToolResult) => r.card);
export const plainText: Promise<string> = toolHandlers({ store, chatId: "c" }).todo_write({});

// aiTurnResponse takes streamText's result and passes the SDK's options on; the data parts are typed.
type OdaMessage = UIMessage<never, OdaDataTypes, InferUITools<AiTools>>;
export const response: Promise<Response> = aiTurnResponse<OdaMessage>(
  { store, chatId: "c", originalMessages: [] as OdaMessage[], onFinish: ({ messages }) => void messages, headers: { "x-a": "1" } },
  ({ tools, reminder }) => streamText({ model, tools, system: reminder ?? undefined, prompt: "p" }),
);
// @ts-expect-error the call returns streamText's result, not generateText's
void aiTurnResponse({ store, chatId: "c" }, ({ tools }) => generateText({ model, tools, prompt: "p" }));
export function planOf(message: OdaMessage): TodoPlan | SuggestionList | null {
  for (const part of message.parts) {
    if (part.type === "data-oda-plan") return part.data;
    if (part.type === "data-oda-suggestions") return part.data;
  }
  return null;
}
// The app's own stream: its writer takes the parts when its message type includes OdaDataTypes.
export const own = createUIMessageStream<UIMessage<never, OdaDataTypes & { title: string }, InferUITools<AiTools>>>({
  execute: async ({ writer }) => {
    writer.write({ type: "data-title", data: "t" });
    await aiTurnStream({ store, chatId: "c", writer }, ({ tools }) => streamText({ model, tools: { ...tools }, prompt: "p" }));
    aiTools({ store, chatId: "c", writer });
  },
});
export const preview: PreviewCard = previewCard({ todos: [{ content: "a" }] }, null);
