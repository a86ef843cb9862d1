// `oda-tasks/elements/react`: the elements for React 19 apps. Importing it
// defines the elements (as `oda-tasks/elements` does) and types them in JSX:
// properties by name, events as `onoda-start` and the like (React 19 passes
// a custom element's props on as properties and its `on*` functions as listeners).
// It also has the renderers of CopilotKit's activities and of assistant-ui's
// tool calls and data parts (this entry imports `react`; `oda-tasks/elements` does not).
import type { DetailedHTMLProps, HTMLAttributes } from "react";
import type { SuggestionList } from "../chat/service.js";
import type { TodoCard, TodoItem, TodoPlan } from "../core/types.js";
import type { PreviewCard } from "./preview-card.js";
import type { EditEventDetail, OdaPlanElement } from "./plan.js";
import type { OdaSuggestionsElement, OpenChatEventDetail, SuggestionEventDetail } from "./suggestions.js";
import type { OdaTodoCardElement } from "./todo-card.js";

export * from "./index.js";
export { odaActivityRenderers, type OdaActivityProps, type OdaActivityRenderer } from "./copilotkit.js";
export { odaAssistantUi, type OdaAssistantUi, type OdaDataProps, type OdaToolCallProps, type OdaToolEntry } from "./assistant-ui.js";
export type { OdaChatOptions } from "./chat-src.js";
export { odaCardSchema, odaPlanSchema, odaSuggestionsSchema, type OdaContentSchema, type SafeParseResult } from "./content-schema.js";

/**
 * The props every element takes: React's HTML attributes and `heading-level`.
 *
 * @example
 * const props: OdaElementProps<HTMLElement> = { "heading-level": 3, className: "plan" };
 */
export type OdaElementProps<E> = DetailedHTMLProps<HTMLAttributes<E>, E> & { "heading-level"?: number | string };

/**
 * The JSX props of `<oda-todo-card>`.
 *
 * @example
 * <oda-todo-card card={card} position={n + 1} total={cardCount} />;
 * <oda-todo-card preview={previewCard({ todos: [{ content: "Wri" }] }, card)} />; // while the model writes the call
 */
export type OdaTodoCardProps = OdaElementProps<OdaTodoCardElement> & {
  card?: TodoCard | null;
  preview?: PreviewCard | null;
  position?: number | null;
  total?: number | null;
};

/**
 * The JSX props of `<oda-plan>`.
 *
 * @example
 * <oda-plan plan={view.plan} cardCount={view.cardCount} />;
 * <oda-plan src="/api/oda/chats/chat-1" editable />; // or, live, and the person edits the list
 */
export type OdaPlanProps = OdaElementProps<OdaPlanElement> & {
  plan?: TodoPlan | null;
  cardCount?: number;
  /** The chat's list and the log length it was read at: what an edit is made on (without `src`). */
  todos?: TodoItem[] | null;
  length?: number | null;
  src?: string | null;
  heading?: string;
  /** The person may edit the list. */
  editable?: boolean;
  /** A person's edit, for the app to make (without `src`, or after `preventDefault()`): call `e.detail.respond(answer)`. */
  "onoda-edit"?: (event: CustomEvent<EditEventDetail>) => void;
};

/**
 * The JSX props of `<oda-suggestions>`: the list and a listener per action.
 *
 * @example
 * <oda-suggestions list={list} onoda-start={(e) => service.start(chatId, e.detail.id)} />;
 * <oda-suggestions src="/api/oda/chats/chat-1" />; // or, live
 */
export type OdaSuggestionsProps = OdaElementProps<OdaSuggestionsElement> & {
  list?: SuggestionList | null;
  src?: string | null;
  offer?: string | null;
  heading?: string;
  /** Start on an open offer. */
  "onoda-start"?: (event: CustomEvent<SuggestionEventDetail>) => void;
  /** Draft on an open offer. */
  "onoda-draft"?: (event: CustomEvent<SuggestionEventDetail>) => void;
  /** Dismiss on an open offer. */
  "onoda-dismiss"?: (event: CustomEvent<SuggestionEventDetail>) => void;
  /** Restore on a dismissed offer. */
  "onoda-restore"?: (event: CustomEvent<SuggestionEventDetail>) => void;
  /** Open chat on a started offer. */
  "onoda-open-chat"?: (event: CustomEvent<OpenChatEventDetail>) => void;
};

declare module "react" {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    interface IntrinsicElements {
      "oda-todo-card": OdaTodoCardProps;
      "oda-plan": OdaPlanProps;
      "oda-suggestions": OdaSuggestionsProps;
    }
  }
}
