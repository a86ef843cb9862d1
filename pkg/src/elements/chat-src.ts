// Where a chat UI's renderers find a chat on `chatHandler`: the chat URL that
// `<oda-plan src>` and `<oda-suggestions src>` follow and post the actions to.

/**
 * What the renderers need to reach `chatHandler`: its `basePath` (as given
 * to `chatHandler`), and the chat when the UI's own thread id is not it.
 *
 * @example
 * const where: OdaChatOptions = { basePath: "/api/oda" }; // the chat: the thread's id
 */
export interface OdaChatOptions {
  /** The path `chatHandler` is mounted at (its `basePath`, such as `/api/oda`); without it the elements draw what they are given and post nothing. */
  basePath?: string;
  /** The chat's id; by default the UI's thread id (CopilotKit's `threadId`, assistant-ui's `id`). */
  chatId?: string;
  /**
   * The person may edit the list: the plan (followed at `basePath`) is
   * `<oda-plan editable>`. Leave it off where the app's `authorize` reads only.
   */
  editable?: boolean;
}

/**
 * The chat URL of `chatId` under `basePath` (`/api/oda/chats/chat-1`), or
 * `undefined` when either is missing (the elements then post nothing).
 *
 * @example
 * chatSrc("/api/oda", "chat-1"); // "/api/oda/chats/chat-1"
 */
export function chatSrc(basePath: string | undefined, chatId: string | undefined | null): string | undefined {
  if (basePath === undefined || chatId === undefined || chatId === null || chatId === "") return undefined;
  return `${basePath.replace(/\/+$/, "")}/chats/${encodeURIComponent(chatId)}`;
}

/**
 * The options, checked: `basePath` a path (`/…`, or `""`), `chatId` a
 * non-empty string, `editable` a boolean; a clear `TypeError` naming `call` otherwise.
 *
 * @example
 * chatOptions("odaActivityRenderers", { basePath: "/api/oda" });
 */
export function chatOptions(call: string, options: unknown): OdaChatOptions {
  if (options === undefined) return {};
  const bad = (why: string) => new TypeError(`oda-tasks: invalid arguments of ${call}: ${why}`);
  if (typeof options !== "object" || options === null) throw bad("the options must be an object");
  const { basePath, chatId, editable } = options as Record<string, unknown>;
  if (basePath !== undefined && (typeof basePath !== "string" || (basePath !== "" && !basePath.startsWith("/"))))
    throw bad('`basePath` must be chatHandler\'s basePath, a path like "/api/oda"');
  if (chatId !== undefined && (typeof chatId !== "string" || chatId === "")) throw bad("`chatId` must be a non-empty string");
  if (editable !== undefined && typeof editable !== "boolean") throw bad("`editable` must be a boolean");
  return {
    ...(basePath !== undefined ? { basePath } : {}),
    ...(chatId !== undefined ? { chatId } : {}),
    ...(editable !== undefined ? { editable } : {}),
  };
}
