// `oda-tasks/http`: the chat's Fetch-API handler (screen, cards, suggestion
// actions, event stream) for any server that speaks Request and Response.
export { chatHandler } from "../integrations/http/handler.js";
export type { AuthorizeContext, ChatHandler, ChatHandlerOptions } from "../integrations/http/handler.js";
export type { ChatAction } from "../integrations/http/routes.js";
export type { CardPage, ChatChange, ChatScreen } from "../integrations/http/screen.js";
export type { HttpErrorCode } from "../integrations/http/replies.js";
