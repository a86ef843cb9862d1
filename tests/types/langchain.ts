// Type tests for oda-tasks/langchain against the real `langchain` 1.5 types:
// the middleware fits createAgent's `middleware`, and its options are checked.
import { createAgent, fakeModel, type AgentMiddleware } from "langchain";
import { MemoryStore } from "oda-tasks";
import { odaTasksMiddleware, type OdaTasksMiddlewareOptions } from "oda-tasks/langchain";

const store = new MemoryStore();
const options: OdaTasksMiddlewareOptions = { store, remind: "always", everyTurns: 2, oneActive: false };
const middleware: AgentMiddleware = odaTasksMiddleware(options);
export const agent = createAgent({ model: fakeModel(), tools: [], middleware: [middleware] });
export const fixed = createAgent({ model: fakeModel(), middleware: [odaTasksMiddleware({ store, chatId: "c" })] });
export const run = agent.invoke({ messages: [{ role: "user", content: "Plan the release" }] }, { configurable: { thread_id: "c" } });
// @ts-expect-error remind takes "due", "always" or "never"
void odaTasksMiddleware({ store, remind: "sometimes" });
// @ts-expect-error a store is needed
void odaTasksMiddleware({ chatId: "c" });
// @ts-expect-error the chat id is a string
void odaTasksMiddleware({ store, chatId: 5 });
