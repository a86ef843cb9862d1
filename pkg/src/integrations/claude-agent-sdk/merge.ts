// The app's own SDK options with withOda's added, never dropped: its hooks
// run first, its MCP servers stay beside `oda`, its allowed and disallowed
// tools are extended. A setting that contradicts one list per chat is refused.
import type { McpSdkServerConfigWithInstance, Options } from "@anthropic-ai/claude-agent-sdk";
import type { OdaHooks } from "./hooks.js";
import { ODA_SERVER, ODA_TOOL_NAMES, SDK_TASK_TOOLS } from "./names.js";

/** What withOda adds: its server and its hooks. */
export interface OdaAdditions {
  server: McpSdkServerConfigWithInstance;
  hooks: OdaHooks;
}

/**
 * Internal: checks the app's options (`app`, own properties already copied)
 * for what withOda extends, and returns them with `ours` added. Misuse is an
 * `oda-tasks:` TypeError naming the option.
 */
export function mergeOptions(call: string, app: Record<string, unknown>, ours: OdaAdditions): Options {
  const bad = (why: string): never => {
    throw new TypeError(`oda-tasks: invalid arguments of ${call}: ${why}`);
  };
  const list = (name: string): string[] => {
    const value = app[name];
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) bad(`\`options.${name}\` must be an array of tool names`);
    return value as string[];
  };
  const record = (name: string): Record<string, unknown> => {
    const value = app[name];
    if (value === undefined) return {};
    if (value === null || typeof value !== "object" || Array.isArray(value)) bad(`\`options.${name}\` must be an object`);
    return value as Record<string, unknown>;
  };
  const ownTaskTools = (names: readonly string[], option: string) => {
    const named = names.filter((n) => SDK_TASK_TOOLS.includes(n));
    if (named.length > 0) {
      bad(
        `\`options.${option}\` names the SDK's own task tools (${named.join(", ")}); ${call} replaces them with todo_write (one list per chat): remove them`,
      );
    }
  };

  const allowed = list("allowedTools");
  const disallowed = list("disallowedTools");
  ownTaskTools(allowed, "allowedTools");
  const denied = Object.values(ODA_TOOL_NAMES).filter((n) => disallowed.includes(n));
  if (denied.length > 0)
    bad(`\`options.disallowedTools\` names ${denied.join(", ")}, a tool ${call} adds; to go without its tools, leave ${call} out`);
  if (Array.isArray(app.tools)) ownTaskTools(list("tools"), "tools");
  const servers = record("mcpServers");
  if (Object.hasOwn(servers, ODA_SERVER))
    bad(`\`options.mcpServers\` already has a server named "${ODA_SERVER}", the name ${call} adds its tools under`);
  const appHooks = record("hooks");
  const hooks: Record<string, unknown[]> = {};
  for (const [event, matchers] of Object.entries(appHooks)) {
    if (matchers === undefined) continue;
    if (!Array.isArray(matchers)) bad(`\`options.hooks.${event}\` must be an array of hook matchers`);
    hooks[event] = [...(matchers as unknown[])];
  }
  for (const [event, matchers] of Object.entries(ours.hooks)) hooks[event] = [...(hooks[event] ?? []), ...(matchers ?? [])];

  const add = (names: string[], more: readonly string[]) => [...names, ...more.filter((n) => !names.includes(n))];
  return {
    ...app,
    mcpServers: { ...servers, [ODA_SERVER]: ours.server },
    allowedTools: add(allowed, Object.values(ODA_TOOL_NAMES)),
    disallowedTools: add(disallowed, SDK_TASK_TOOLS),
    hooks,
  } as Options;
}
