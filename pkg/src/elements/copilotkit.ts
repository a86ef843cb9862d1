// CopilotKit's activity renderers for what `odaAgUi` adds to an AG-UI event
// stream: the card (`oda-card`), the plan (`oda-plan`) and the suggestions
// (`oda-suggestions`), drawn by the elements; Start, Draft, Dismiss and
// Restore go to `chatHandler` through `<oda-suggestions src>`.
import { createElement, type ReactElement } from "react";
import type { SuggestionList } from "../chat/service.js";
import type { TodoCard, TodoPlan } from "../core/types.js";
import { ODA_ACTIVITY } from "../integrations/ag-ui/events.js";
import { chatOptions, chatSrc, type OdaChatOptions } from "./chat-src.js";
import { odaCardSchema, odaPlanSchema, odaSuggestionsSchema, type OdaContentSchema } from "./content-schema.js";
import { useStableValue } from "./stable-value.js";

/**
 * What CopilotKit hands an activity renderer: the snapshot's content (checked
 * by the renderer's `content` schema first) and the agent, whose `threadId`
 * names the chat.
 *
 * @example
 * const props: OdaActivityProps<TodoPlan> = {
 *   activityType: "oda-plan",
 *   content: state.replayTodos().plan,
 *   message: { id: "m1" },
 *   agent: { threadId: "chat-1" },
 * };
 */
export interface OdaActivityProps<T> {
  activityType: string;
  content: T;
  message: { id: string };
  agent: { threadId?: string } | undefined;
}

/**
 * One entry of CopilotKit's `renderActivityMessages`: `{ activityType, content, render }`.
 *
 * @example
 * const [card]: [OdaActivityRenderer<TodoCard>, ...unknown[]] = odaActivityRenderers();
 */
export interface OdaActivityRenderer<T> {
  activityType: string;
  content: OdaContentSchema<T>;
  /** Draws the activity's content. */
  render: (props: OdaActivityProps<T>) => ReactElement;
}

/**
 * The three renderers, for `renderActivityMessages` of CopilotKit's provider
 * (`@copilotkit/react-core/v2`). With `basePath` (`chatHandler`'s), the plan
 * and the suggestions follow the chat there and the suggestions' buttons act
 * on it (the chat: `chatId`, else the agent's `threadId`); without it they
 * draw the snapshots alone and the buttons only dispatch their events. With
 * `editable` too, the person edits the list in the plan (`<oda-plan editable>`).
 *
 * @example
 * import { odaActivityRenderers } from "oda-tasks/elements/react";
 * const renderers = odaActivityRenderers({ basePath: "/api/oda" });
 * // <CopilotKitProvider renderActivityMessages={renderers} …>
 */
export function odaActivityRenderers(
  options?: OdaChatOptions,
): [OdaActivityRenderer<TodoCard>, OdaActivityRenderer<TodoPlan>, OdaActivityRenderer<SuggestionList>] {
  const where = chatOptions("odaActivityRenderers", options);
  return [
    { activityType: ODA_ACTIVITY.card, content: odaCardSchema, render: (props) => createElement(CardActivity, props) },
    { activityType: ODA_ACTIVITY.plan, content: odaPlanSchema, render: (props) => createElement(PlanActivity, { ...props, where }) },
    {
      activityType: ODA_ACTIVITY.suggestions,
      content: odaSuggestionsSchema,
      render: (props) => createElement(SuggestionsActivity, { ...props, where }),
    },
  ];
}

type Placed<T> = OdaActivityProps<T> & { where: OdaChatOptions };
/** The chat's URL: the options' chat, else the agent's thread. */
const srcOf = ({ basePath, chatId }: OdaChatOptions, agent: OdaActivityProps<unknown>["agent"]) =>
  chatSrc(basePath, chatId ?? agent?.threadId);

function CardActivity({ content }: OdaActivityProps<TodoCard>): ReactElement {
  return createElement("oda-todo-card", { "heading-level": 2, card: useStableValue(content) });
}

function PlanActivity({ content, agent, where }: Placed<TodoPlan>): ReactElement {
  const src = srcOf(where, agent);
  // Editing posts to the chat: only where the plan follows it.
  return createElement("oda-plan", { plan: useStableValue(content), src, editable: where.editable === true && src !== undefined });
}

function SuggestionsActivity({ content, agent, where }: Placed<SuggestionList>): ReactElement {
  return createElement("oda-suggestions", { list: useStableValue(content), src: srcOf(where, agent) });
}
