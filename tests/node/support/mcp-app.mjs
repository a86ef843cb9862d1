// An MCP server with the widget (from the built package)
// and a real SDK Client connected to it, in memory: what a host holds. The
// server is `odaMcpServer` (the model's tools and the widget).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import { MemoryStore } from "../../../pkg/dist/entrypoints/index.node.js";
import { odaMcpServer, registerOdaApp } from "../../../pkg/dist/entrypoints/mcp.js";

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

/**
 * A server with the widget and the two tools over `store`, and a Client
 * connected to it; `apps: true` makes the client declare MCP Apps at initialize.
 */
export async function connectHost({ store = new CountingStore(), apps = true, appOptions = {} } = {}) {
  // The package's own server (its tools and the widget); a listing option of registerOdaApp's alone on a bare server.
  let server;
  if (appOptions.appTools === undefined) server = odaMcpServer({ store, ...appOptions });
  else {
    server = new McpServer({ name: "oda-tasks-test", version: "1.0.0" });
    registerOdaApp(server, { store, ...appOptions });
  }
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
