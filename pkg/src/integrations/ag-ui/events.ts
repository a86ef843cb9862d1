// The AG-UI events that draw a chat's card, plan and suggestions, as pure
// builders: the middleware emits them, and a producer that runs the tools
// itself can emit the same ones. Plain objects, so no AG-UI code is loaded.
import type { ActivitySnapshotEvent, EventType, StateDeltaEvent } from "@ag-ui/core";
import type { SuggestionList } from "../../chat/service.js";
import type { UiToolResult } from "../../chat/run.js";
import type { Suggestion, TodoCard, TodoItem, TodoPlan } from "../../core/types.js";

/**
 * The `activityType` of each activity: one card per recorded `todo_write`,
 * the plan and the suggestions (each replaced in place).
 *
 * @example
 * const isCard = (message: { role: string; activityType?: string }) => message.role === "activity" && message.activityType === ODA_ACTIVITY.card;
 */
export const ODA_ACTIVITY = { card: "oda-card", plan: "oda-plan", suggestions: "oda-suggestions" } as const;

/**
 * The `messageId`s of the plan's and the suggestions' activities: one each
 * per thread, so every snapshot replaces the last.
 *
 * @example
 * const planOf = (messages: { id: string }[]) => messages.find((m) => m.id === ODA_MESSAGE_ID.plan);
 */
export const ODA_MESSAGE_ID = { plan: "oda-plan", suggestions: "oda-suggestions" } as const;

/**
 * What the middleware keeps under `/oda` in the agent's state: the list the
 * latest recorded `todo_write` sent, the plan and the suggestions.
 *
 * @example
 * const todosOf = (state: { oda?: OdaState }) => state.oda?.todos ?? [];
 */
export interface OdaState {
  todos: TodoItem[];
  plan: TodoPlan;
  suggestions: SuggestionList;
}

/**
 * The card's activity: `messageId` `oda-card:<toolCallId>`, so each tool
 * call has its own and a repeated snapshot replaces it.
 *
 * @example
 * const event = odaCardActivity(card, "call-1"); // emitted after call-1's TOOL_CALL_RESULT
 */
export function odaCardActivity(card: TodoCard, toolCallId: string): ActivitySnapshotEvent {
  return activity(`oda-card:${toolCallId}`, ODA_ACTIVITY.card, card);
}

/**
 * The plan's activity (`messageId` `oda-plan`): what `<oda-plan plan>` takes.
 *
 * @example
 * const event = odaPlanActivity(state.view({ cards: 0 }).plan);
 */
export function odaPlanActivity(plan: TodoPlan): ActivitySnapshotEvent {
  return activity(ODA_MESSAGE_ID.plan, ODA_ACTIVITY.plan, plan);
}

/**
 * The suggestions' activity (`messageId` `oda-suggestions`): what `<oda-suggestions list>` takes.
 *
 * @example
 * const event = odaSuggestionsActivity(await service.list(chatId, { progress: true }));
 */
export function odaSuggestionsActivity(list: SuggestionList): ActivitySnapshotEvent {
  return activity(ODA_MESSAGE_ID.suggestions, ODA_ACTIVITY.suggestions, list);
}

/**
 * A `STATE_DELTA` setting the given members of `/oda`: one `add` per member
 * (an `add` replaces a member that exists), or, with `whole: true`, one `add`
 * of `/oda` itself holding them (for a state that has no `/oda` yet).
 *
 * @example
 * const event = odaStateDelta({ todos: card.todos }, { whole: true }); // [{ op: "add", path: "/oda", value: { todos } }]
 */
export function odaStateDelta(values: Partial<OdaState>, options?: { whole?: boolean }): StateDeltaEvent {
  const members = Object.entries(values).filter(([, v]) => v !== undefined);
  const delta =
    options?.whole === true
      ? [{ op: "add" as const, path: "/oda", value: Object.fromEntries(members) }]
      : members.map(([key, value]) => ({ op: "add" as const, path: `/oda/${key}`, value }));
  return { type: "STATE_DELTA" as EventType.STATE_DELTA, delta };
}

function activity(messageId: string, activityType: string, content: object): ActivitySnapshotEvent {
  return {
    type: "ACTIVITY_SNAPSHOT" as EventType.ACTIVITY_SNAPSHOT,
    messageId,
    activityType,
    content: content as Record<string, unknown>,
    replace: true,
  };
}

/**
 * What one of the package's tools recorded, read from a `TOOL_CALL_RESULT`'s
 * `content`: the JSON text of `{ text, card?, offer? }` (`toolHandlers({ ui:
 * true })`, `aiTools`), or of an MCP tool result carrying them in `_meta`
 * (`oda-tasks/card`, `oda-tasks/offer`). `null` for anything else, and for a
 * card or offer whose shape is not the package's: nothing is drawn from it.
 *
 * @example
 * const ui = odaToolResult(JSON.stringify({ text: "Updated todo list: 1 pending, 0 in progress, 0 completed", card })); // { text, card }
 */
export function odaToolResult(content: unknown): UiToolResult | null {
  const text = typeof content === "string" ? content : Array.isArray(content) ? textParts(content) : null;
  if (text === null || !text.startsWith("{")) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(value)) return null;
  if (typeof value.text === "string") return uiResult(value.text, value.card, value.offer);
  // An MCP CallToolResult: the model's text in `content`, the card or offer in `_meta`.
  const meta = value._meta;
  if (!isObject(meta) || !Array.isArray(value.content)) return null;
  const first = value.content[0] as unknown;
  if (!isObject(first) || typeof first.text !== "string") return null;
  return uiResult(first.text, meta["oda-tasks/card"], meta["oda-tasks/offer"]);
}

function uiResult(text: string, card: unknown, offer: unknown): UiToolResult | null {
  if (card !== undefined && !isCard(card)) return null;
  if (offer !== undefined && !isOffer(offer)) return null;
  return { text, ...(card === undefined ? {} : { card }), ...(offer === undefined ? {} : { offer }) };
}

function textParts(parts: unknown[]): string | null {
  const texts = parts.map((p) => (isObject(p) && p.type === "text" && typeof p.text === "string" ? p.text : null));
  return texts.includes(null) ? null : texts.join("");
}

const STATUSES = new Set(["pending", "in_progress", "completed"]);
const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;

function isItem(v: unknown): v is TodoItem {
  return isObject(v) && typeof v.content === "string" && STATUSES.has(v.status as string);
}

function isCard(v: unknown): v is TodoCard {
  if (!isObject(v) || !isCount(v.index) || !(v.turn === null || isCount(v.turn))) return false;
  if (!Array.isArray(v.todos) || !v.todos.every(isItem)) return false;
  const { counts, changes } = v;
  if (!isObject(counts) || !isCount(counts.pending) || !isCount(counts.inProgress) || !isCount(counts.completed)) return false;
  return isObject(changes) && ["added", "removed", "statusChanged", "moved"].every((k) => Array.isArray(changes[k]));
}

function isOffer(v: unknown): v is Suggestion {
  return isObject(v) && ["id", "title", "tldr", "brief"].every((k) => typeof v[k] === "string");
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
