// An MCP server with the widget (`registerOdaApp`, from the built package)
// and a real SDK Client connected to it, in memory: what a host holds. The
// model-facing tools here are a minimal stand-in of `odaMcpServer`'s (the
// core's exact text, the card, offer and chat in `_meta`), over the
// package's `toolHandlers`.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import { z } from "zod/v4";
import { MemoryStore, toolHandlers } from "../../../pkg/dist/entrypoints/index.node.js";
import { registerOdaApp } from "../../../pkg/dist/entrypoints/mcp.js";

export const APP_URI = "ui://oda-tasks/chat.html";

/** A MemoryStore that tells which chats were created in it. */
export class CountingStore extends MemoryStore {
  created = [];
  async create(chatId, entries) {
    const made = await super.create(chatId, entries);
    if (made) this.created.push(chatId);
    return made;
  }
}

/** The model-facing tools, as the host's model calls them: the chat in the request's `_meta`. */
function registerModelTools(server, store) {
  for (const name of ["todo_write", "suggest_task"]) {
    server.registerTool(
      name,
      { description: name, inputSchema: z.looseObject({}), _meta: { ui: { resourceUri: APP_URI } } },
      async (input, extra) => {
        const chatId = extra._meta?.["oda-tasks/chat"];
        const { text, card, offer } = await toolHandlers({ store, chatId, ui: true })[name](input);
        const meta = {
          "oda-tasks/chat": chatId,
          ...(card ? { "oda-tasks/card": card } : {}),
          ...(offer ? { "oda-tasks/offer": offer } : {}),
        };
        return { content: [{ type: "text", text }], _meta: meta, ...(card || offer ? {} : { isError: true }) };
      },
    );
  }
}

/**
 * A server with the widget and the two tools over `store`, and a Client
 * connected to it; `apps: true` makes the client declare MCP Apps at initialize.
 */
export async function connectHost({ store = new CountingStore(), apps = true, appOptions = {} } = {}) {
  const server = new McpServer({ name: "oda-tasks-test", version: "1.0.0" });
  registerModelTools(server, store);
  registerOdaApp(server, { store, ...appOptions });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const capabilities = apps ? { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } } : {};
  const client = new Client({ name: "test-host", version: "1.0.0" }, { capabilities });
  await client.connect(clientSide);
  return { store, server, client, close: () => client.close() };
}

/** The model's call of `name` on chat `chatId`, as a host sends it. */
export function modelCall(client, chatId, name, args) {
  return client.callTool({ name, arguments: args, _meta: { "oda-tasks/chat": chatId } });
}
