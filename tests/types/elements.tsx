// Type tests of oda-tasks/elements in a React 19 app (JSX) and in plain DOM code.
import { useRef } from "react";
import type { OdaSuggestionsElement, OdaTodoCardElement } from "oda-tasks/elements/react";
import type { OdaSuggestionsEventMap, SuggestionList, TodoCard, TodoPlan } from "oda-tasks/elements/react";
import { odaActivityRenderers, odaAssistantUi, previewCard } from "oda-tasks/elements/react";
import type { ChatState, SuggestionService } from "oda-tasks";

export function Chat({
  cards,
  plan,
  list,
  service,
  chatId,
}: {
  cards: TodoCard[];
  plan: TodoPlan;
  list: SuggestionList;
  service: SuggestionService;
  chatId: string;
}) {
  const ref = useRef<OdaSuggestionsElement>(null);
  const card = useRef<OdaTodoCardElement>(null);
  return (
    <main>
      {cards.map((c, n) => (
        <oda-todo-card key={c.index} ref={n === 0 ? card : undefined} card={c} position={n + 1} total={cards.length} />
      ))}
      <oda-plan plan={plan} cardCount={cards.length} heading-level={3} className="plan" />
      <oda-suggestions
        ref={ref}
        list={list}
        onoda-start={(e) => void service.start(chatId, e.detail.id)}
        onoda-draft={(e) => void service.draft(chatId, e.detail.id)}
        onoda-dismiss={(e) => void service.dismiss(chatId, e.detail.id)}
        onoda-restore={(e) => void service.restore(chatId, e.detail.id)}
        onoda-open-chat={(e) => {
          const started: string = e.detail.chatId;
          void started;
        }}
      />
      <oda-todo-card preview={previewCard({ todos: [{ content: "Wri" }] }, cards.at(-1))} />
      {/* @ts-expect-error a preview is previewCard's card, not a recorded one */}
      <oda-todo-card preview={cards[0]} />
      {/* @ts-expect-error a card is a TodoCard, not text */}
      <oda-todo-card card="Update to-do list" />
      {/* @ts-expect-error the plan is TodoPlan */}
      <oda-plan plan={{ state: "paused", todos: [], turn: null }} />
      {/* @ts-expect-error Open chat's detail has no `title` */}
      <oda-suggestions onoda-open-chat={(e) => e.detail.title} />
      <oda-suggestions src="/api/oda/chats/chat-1" offer="s1" heading="This call's suggestion" />
      <oda-plan src="/api/oda/chats/chat-1" heading="This chat's plan" />
      <oda-plan src="/api/oda/chats/chat-1" editable onoda-edit={(e) => e.detail.respond({ ok: true })} />
      <oda-plan plan={plan} todos={plan.todos} length={3} editable />
      {/* @ts-expect-error editable is a boolean */}
      <oda-plan editable="yes" />
      {/* @ts-expect-error offer is an offer's id */}
      <oda-suggestions offer={1} />
      {/* @ts-expect-error no such element */}
      <oda-todo-list />
    </main>
  );
}

// The elements' answers are the core's: what view()/service.list() give fits them.
export function feed(state: ChatState, list: Awaited<ReturnType<SuggestionService["list"]>>): void {
  const el = document.createElement("oda-suggestions");
  el.list = list;
  const listener = (e: OdaSuggestionsEventMap["oda-dismiss"]) => e.detail.id;
  el.addEventListener("oda-dismiss", listener);
  el.addEventListener("oda-open-chat", (e) => {
    const chatId: string = e.detail.chatId;
    void chatId;
  });
  const card = document.createElement("oda-todo-card");
  card.card = state.replayTodos().cards[0] ?? null;
  // @ts-expect-error position is a number
  card.position = "1";
  const plan = document.createElement("oda-plan");
  plan.plan = state.replayTodos().plan;
}

// list({ progress: true }) answers what <oda-suggestions> takes, progress included.
export async function progress(service: SuggestionService): Promise<number | undefined> {
  const list = await service.list("chat-1", { progress: true });
  document.createElement("oda-suggestions").list = list;
  // @ts-expect-error progress is a boolean
  await service.list("chat-1", { progress: 1 });
  return list.settled[0]?.progress?.completed;
}

// The chat UI kits' renderers: CopilotKit's activity renderers and assistant-ui's toolkit entries and data renderers.
export function kits(plan: TodoPlan) {
  const [card, planRenderer, suggestions] = odaActivityRenderers({ basePath: "/api/oda" });
  const kinds: string[] = [card.activityType, planRenderer.activityType, suggestions.activityType];
  const checked: boolean = planRenderer.content.safeParse(plan).success;
  const { tools, data } = odaAssistantUi({ basePath: "/api/oda", chatId: "chat-1" });
  const entry: "backend" = tools.todo_write.type;
  const name: "oda-plan" = data.plan.name;
  // @ts-expect-error chatId is a string
  odaAssistantUi({ chatId: 1 });
  return { kinds, checked, entry, name, drawn: data.plan.render({ name: "oda-plan", data: plan }), chip: tools.suggest_task.render };
}
