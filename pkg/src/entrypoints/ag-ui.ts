// `oda-tasks/ag-ui`: the chat's card, plan and suggestions as AG-UI events, added to any agent's stream by one middleware.
export * from "../integrations/ag-ui/middleware.js";
export * from "../integrations/ag-ui/events.js";
export type { SuggestionList } from "../chat/service.js";
