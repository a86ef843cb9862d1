// assistant-ui's renderers for the two tools' calls and the AI SDK data
// parts `aiTurnResponse` writes: `todo_write` as its card (the tentative card
// while the model writes the call), `suggest_task` as its offer's chip, and
// `data-oda-plan` and `data-oda-suggestions` as the plan and the suggestions.
// Plain objects and components: the app hands them to assistant-ui's own
// `defineToolkit` and `makeAssistantDataUI`, so nothing of assistant-ui is imported here.
import { createElement, useEffect, useState, type ReactElement } from "react";
import type { SuggestionList } from "../chat/service.js";
import type { UiToolResult } from "../chat/run.js";
import type { TodoItem, TodoPlan } from "../core/types.js";
import { chatOptions, chatSrc, type OdaChatOptions } from "./chat-src.js";
import { follow } from "./live.js";
import { previewCard } from "./preview-card.js";
import { suggestionListProblem, todoCardProblem } from "./shapes.js";
import { useStableValue } from "./stable-value.js";

/**
 * What assistant-ui hands a tool call's renderer (its `ToolCallMessagePartProps`,
 * the members read here): the input so far, the result once it is in, and the status.
 *
 * @example
 * const props: OdaToolCallProps = { args: { todos: [] }, result: undefined, status: { type: "running" } };
 */
export interface OdaToolCallProps {
  args: unknown;
  result?: unknown;
  status: { type: string };
}

/**
 * What assistant-ui hands a data part's renderer (`DataMessagePartProps`): the part's `data`.
 *
 * @example
 * const props: OdaDataProps<TodoPlan> = { name: "oda-plan", data: state.replayTodos().plan };
 */
export interface OdaDataProps<T> {
  name: string;
  data: T;
}

/**
 * A render-only toolkit entry: the tool runs on the server (`type: "backend"`),
 * its call is drawn on its own, outside a chain-of-thought group (`display: "standalone"`).
 *
 * @example
 * const entry: OdaToolEntry = odaAssistantUi().tools.todo_write;
 */
export interface OdaToolEntry {
  type: "backend";
  display: "standalone";
  /** Draws the tool call (nothing for a call it cannot draw yet). */
  render: (props: OdaToolCallProps) => ReactElement | null;
}

/**
 * The renderers for assistant-ui: `tools`, the toolkit entries of
 * `todo_write` and `suggest_task` (render-only: the tools run on the
 * server), to spread into `defineToolkit`; `data`, the two data parts'
 * `{ name, render }`, each for `makeAssistantDataUI`.
 *
 * @example
 * const { tools, data } = odaAssistantUi({ basePath: "/api/oda", chatId: "chat-1" });
 */
export interface OdaAssistantUi {
  tools: {
    todo_write: OdaToolEntry;
    suggest_task: OdaToolEntry;
  };
  data: {
    plan: {
      name: "oda-plan";
      /** Draws a `data-oda-plan` part. */
      render: (props: OdaDataProps<TodoPlan>) => ReactElement;
    };
    suggestions: {
      name: "oda-suggestions";
      /** Draws a `data-oda-suggestions` part. */
      render: (props: OdaDataProps<SuggestionList>) => ReactElement;
    };
  };
}

/**
 * The card of a `todo_write` call (the tentative card while the model writes
 * it), the chip of a `suggest_task` offer, the plan and the suggestions, for
 * an assistant-ui thread on the AI SDK runtime with `aiTurnResponse`. With
 * `basePath` and `chatId`, the chip, the plan and the suggestions follow the
 * chat on `chatHandler` and act there (Start, Dismiss, …), and the tentative
 * card compares the list with the chat's recorded one.
 *
 * @example
 * import { odaAssistantUi } from "oda-tasks/elements/react";
 * const oda = odaAssistantUi({ basePath: "/api/oda", chatId: "chat-1" });
 * // defineToolkit({ ...oda.tools }); makeAssistantDataUI(oda.data.plan); makeAssistantDataUI(oda.data.suggestions)
 */
export function odaAssistantUi(options?: OdaChatOptions): OdaAssistantUi {
  const { basePath, chatId, editable } = chatOptions("odaAssistantUi", options);
  const src = chatSrc(basePath, chatId);
  // Editing posts to the chat: only where the plan follows it.
  const edits = editable === true && src !== undefined;
  return {
    tools: {
      todo_write: { type: "backend", display: "standalone", render: (props) => createElement(TodoWriteCall, { ...props, src }) },
      suggest_task: { type: "backend", display: "standalone", render: (props) => createElement(SuggestTaskCall, { ...props, src }) },
    },
    data: {
      plan: { name: "oda-plan", render: ({ data }) => createElement(PlanPart, { data, src, edits }) },
      suggestions: { name: "oda-suggestions", render: ({ data }) => createElement(SuggestionsPart, { data, src }) },
    },
  };
}

/** Where the elements follow the chat and act: its `chatHandler` URL, if the options gave one. */
type At = { src: string | undefined };

function TodoWriteCall({ args, result, status, src }: OdaToolCallProps & At): ReactElement | null {
  const card = useStableValue(recordedCard(result));
  const writing = card === undefined && result === undefined && status.type === "running";
  const before = useListBefore(writing ? src : undefined);
  if (card !== undefined) return createElement("oda-todo-card", { "heading-level": 2, card });
  if (!writing) return null; // a refusal: the model reads it; nothing to draw
  return createElement("oda-todo-card", {
    "heading-level": 2,
    preview: previewCard(args, before === undefined ? null : { todos: before }),
  });
}

function SuggestTaskCall({ result, src }: OdaToolCallProps & At): ReactElement | null {
  const offer = recordedOffer(result);
  const list = useStableValue(offer === undefined ? null : { open: [offer], settled: [] });
  if (offer === undefined) return null;
  return createElement("oda-suggestions", { list, offer: offer.id, src });
}

function PlanPart({ data, src, edits }: { data: TodoPlan; edits: boolean } & At): ReactElement {
  return createElement("oda-plan", { plan: useStableValue(data), src, editable: edits });
}

function SuggestionsPart({ data, src }: { data: SuggestionList } & At): ReactElement {
  return createElement("oda-suggestions", { list: useStableValue(data), src });
}

/** The recorded card of a `todo_write` result (`{ text, card }`), if it has one of the core's shape. */
function recordedCard(result: unknown): UiToolResult["card"] | undefined {
  const card = (result as Partial<UiToolResult> | null | undefined)?.card;
  return card !== undefined && todoCardProblem(card) === null ? card : undefined;
}

/** The recorded offer of a `suggest_task` result (`{ text, offer }`), if it is one `<oda-suggestions>` takes. */
function recordedOffer(result: unknown): NonNullable<UiToolResult["offer"]> | undefined {
  const offer = (result as Partial<UiToolResult> | null | undefined)?.offer;
  return offer != null && suggestionListProblem({ open: [offer], settled: [] }) === null ? offer : undefined;
}

/**
 * The chat's recorded list as first read from `src` while a call is being
 * written (what its tentative card is compared with); kept, so the call's
 * own recording does not replace it.
 */
function useListBefore(src: string | undefined): TodoItem[] | undefined {
  const [todos, setTodos] = useState<TodoItem[] | undefined>(undefined);
  useEffect(() => {
    if (src === undefined) return undefined;
    return follow(src, (screen) => {
      if (screen !== null) setTodos((was) => was ?? screen.todos);
    });
  }, [src]);
  return todos;
}
