// The MCP Apps widget's part of `oda-tasks/mcp`: re-exported by that entry.
export { APP_TOOLS, appToolChat, registerOdaApp, type OdaAppOptions } from "./register.js";
export type { AppScreen, AppToolAnswer } from "./screen.js";
