// `oda-tasks mcp --store <dir|url>`: the two tools as an MCP server on stdio,
// for hosts that start a server per user (Claude Desktop, VS Code, Cursor).
// The process is the MCP session: calls that name no chat share one chat,
// created on the first call, unless `--chat` names one.
import { randomUUID } from "node:crypto";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { odaMcpServer } from "../integrations/mcp/server.js";
import { openStoreOr } from "./open-store.js";

const USAGE = `usage: oda-tasks mcp --store <dir|url> [--chat <id>] [--workspace <dir>] [--no-suggest-task]

Serves the tools todo_write and suggest_task over MCP on stdio.

  --store <dir|url>   a folder of JSONL chat logs (created when missing), a
                      .db/.sqlite file, or a postgres:// connection string
  --chat <id>         the chat of calls whose _meta names none (default: a new
                      chat for this process, created on the first call)
  --workspace <dir>   the workspace of the chat this process creates (Start
                      of a suggestion needs one)
  --no-suggest-task   list todo_write only (for hosts that send no turn id)
  -h, --help          print this help
`;

/**
 * Runs the command with its arguments (after `mcp`); resolves when stdin
 * closes. A bad argument or `--store` prints one line and exits with 2.
 *
 * @example
 * await runMcp(["--store", "./chats"]);
 */
export async function runMcp(args: readonly string[]): Promise<void> {
  const options = parse(args);
  if (options === "help") {
    process.stdout.write(USAGE);
    return;
  }
  if (typeof options === "string") fail(options);
  const opened = await openStoreOr(options.store, fail);
  const { store, close } = opened;
  const server = odaMcpServer({
    store,
    ...(options.chat === undefined ? { sessionChat: options.workspace === undefined ? {} : { workspace: options.workspace } } : {}),
    ...(options.chat === undefined ? {} : { chatId: options.chat }),
    suggestTask: options.suggestTask,
    onError: (e) => process.stderr.write(`oda-tasks mcp: ${(e as Error)?.message ?? String(e)}\n`),
  });
  const transport = new StdioServerTransport();
  // The process is the session: its id names the chat made for calls that name none.
  (transport as Transport).sessionId = randomUUID();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
  await close().catch(() => undefined);
}

interface McpArgs {
  store: string;
  chat?: string;
  workspace?: string;
  suggestTask: boolean;
}

/** The arguments, `"help"`, or what is wrong with them. */
function parse(args: readonly string[]): McpArgs | "help" | string {
  const out: Partial<McpArgs> = { suggestTask: true };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "-h" || arg === "--help") return "help";
    if (arg === "--no-suggest-task") {
      out.suggestTask = false;
      continue;
    }
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const key = ({ "--store": "store", "--chat": "chat", "--workspace": "workspace" } as const)[flag as "--store"];
    if (key === undefined) return `unknown argument ${JSON.stringify(arg)}`;
    const value = inline ?? args[++i];
    if (value === undefined || value === "") return `${flag} needs a value`;
    out[key] = value;
  }
  if (out.store === undefined) return "--store <dir|url> is required";
  return out as McpArgs;
}

function fail(message: string): never {
  process.stderr.write(`oda-tasks mcp: ${message}\n${USAGE.split("\n")[0]}\n`);
  process.exit(2);
}
