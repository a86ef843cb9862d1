// Type tests for oda-tasks/ai against the real `ai` 7 types: the tools fit
// `generateText`/`streamText`'s `tools`, and aiTurn passes the call's result through.
import { generateText, streamText, type LanguageModel } from "ai";
import { MemoryStore } from "oda-tasks";
import { aiTools, aiTurn, type AiTools } from "oda-tasks/ai";

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
