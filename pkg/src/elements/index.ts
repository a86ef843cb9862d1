// `oda-tasks/elements`: custom elements that draw the core's answers. Importing
// this module defines <oda-todo-card>, <oda-plan> and <oda-suggestions>; it
// loads no WASM and has no dependency, and on a server it defines nothing.
import { define } from "./dom.js";
import { OdaPlanElement } from "./plan.js";
import { OdaSuggestionsElement } from "./suggestions.js";
import { OdaTodoCardElement } from "./todo-card.js";

export { OdaPlanElement, type EditEventDetail } from "./plan.js";
export type { EditAnswer } from "./live.js";
export { OdaSuggestionsElement } from "./suggestions.js";
export type { OdaSuggestionsEventMap, OpenChatEventDetail, SuggestionEventDetail } from "./suggestions.js";
export { OdaTodoCardElement } from "./todo-card.js";
export { previewCard, type PreviewCard } from "./preview-card.js";
export type { ListedSuggestion, StartedProgress, SuggestionList } from "../chat/service.js";
export type { TodoCard, TodoPlan } from "../core/types.js";

define("oda-todo-card", OdaTodoCardElement);
define("oda-plan", OdaPlanElement);
define("oda-suggestions", OdaSuggestionsElement);

declare global {
  interface HTMLElementTagNameMap {
    "oda-todo-card": OdaTodoCardElement;
    "oda-plan": OdaPlanElement;
    "oda-suggestions": OdaSuggestionsElement;
  }
}
