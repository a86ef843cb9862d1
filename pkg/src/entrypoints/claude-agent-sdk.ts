// `oda-tasks/claude-agent-sdk`: the Claude Agent SDK's options with the chat's task list, its tools and its turns.
export { withOda, type OdaOptions } from "../integrations/claude-agent-sdk/with-oda.js";
export {
  CARD_META,
  CHAT_META,
  ODA_SERVER,
  ODA_TOOL_NAMES,
  OFFER_META,
  SDK_TASK_TOOLS,
  helperChatId,
} from "../integrations/claude-agent-sdk/names.js";
