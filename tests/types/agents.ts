// Type tests for oda-tasks/ag-ui and oda-tasks/acp against the real
// `@ag-ui/client` 1.0 and `@agentclientprotocol/sdk` 2 types: the middleware
// fits `agent.use`, the builders are AG-UI events, and odaAcp's wrappers fit
// the SDK's session/prompt and session/cancel handlers.
import * as acp from "@agentclientprotocol/sdk";
import { HttpAgent, type Middleware } from "@ag-ui/client";
import type { ActivitySnapshotEvent, BaseEvent, StateDeltaEvent } from "@ag-ui/core";
import { MemoryStore, type TodoCard } from "oda-tasks";
import { odaAcp, type AcpTurn, type OdaAcpOptions } from "oda-tasks/acp";
import { odaAgUi, odaCardActivity, odaPlanActivity, odaStateDelta, odaToolResult, type OdaState } from "oda-tasks/ag-ui";

const store = new MemoryStore();
const middleware: Middleware = odaAgUi({ store });
export const agent = new HttpAgent({ url: "https://agent.example/run" }).use(middleware, odaAgUi());
declare const card: TodoCard;
const events: BaseEvent[] = [odaCardActivity(card, "call-1"), odaPlanActivity({ state: "none", todos: [], turn: null })];
export const snapshot: ActivitySnapshotEvent = odaCardActivity(card, "call-1");
export const delta: StateDeltaEvent = odaStateDelta({ todos: card.todos } satisfies Partial<OdaState>);
export const read = odaToolResult("{}")?.card?.todos;
void events;
// @ts-expect-error the chat id is a string
void odaAgUi({ store, chatId: 5 });

const options: OdaAcpOptions = { store, priority: "low", chatId: (sessionId) => `acp:${sessionId}`, remind: "always" };
const oda = odaAcp(options);
export const app = acp
  .agent()
  .onRequest(
    "session/prompt",
    oda.prompt(async ({ params }, turn: AcpTurn) => {
      const { text } = await turn.tools.todo_write({ todos: [] });
      return { stopReason: params.prompt.length > 0 && text !== "" ? "end_turn" : "refusal" };
    }),
  )
  .onNotification("session/cancel", oda.cancel);
// An Agent-style prompt(params) with a connection of its own.
export const prompt = odaAcp({
  store,
  connection: app.connect(acp.ndJsonStream(new WritableStream(), new ReadableStream())).client,
}).prompt(async (params: acp.PromptRequest) => ({ stopReason: params.sessionId === "" ? "refusal" : "end_turn" }));
// @ts-expect-error priority is "high", "medium" or "low"
void odaAcp({ store, priority: "urgent" });
// @ts-expect-error a store is needed
void odaAcp({ priority: "low" });
