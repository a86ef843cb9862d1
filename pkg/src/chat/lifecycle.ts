// A chat's lifecycle entries, written by the host: the `session` entry that
// creates the chat, and the turn markers around each model call. Markers go
// through the one write loop, so concurrent writers never double or lose one.
import { decideAndAppend } from "./append-loop.js";
import { ANY, ownOptions, readOptions, type OptionRule } from "../core/options.js";
import { cacheFor, type ChatStateCache } from "./state-cache.js";
import { latestTurnId, MAX_TURN_ID_LENGTH } from "./turn-id.js";
import { StoreError, jsonCopy, type Store } from "../stores/store.js";
import type { JsonValue, SessionEntry, SessionSettings } from "../core/types.js";
import { storeOperation } from "../telemetry/store-ops.js";

/**
 * What a new chat runs as: the fields of its `session` entry. Every field is
 * optional: a top-level chat with no workspace, outside a scheduled task folder.
 *
 * @example
 * const session: ChatSession = { title: "Fix the upload", workspace: "/repos/app", settings: { model: "gpt-5", permission: "auto" } };
 */
export interface ChatSession {
  title?: string;
  /** The folder or project the chat works in; `null` (the default): none, so Start refuses its offers. */
  workspace?: string | null;
  /** The chat runs in a scheduled task's folder, where `suggest_task` is refused (default `false`). */
  scheduledTaskFolder?: boolean;
  /** `"helper"` for a subagent's chat, which may not offer suggestions (default `"top-level"`). */
  agent?: "top-level" | "helper";
  settings?: SessionSettings;
}

/**
 * Host options of {@link beginTurn} and {@link endTurn}.
 *
 * @example
 * await beginTurn(store, "chat-1", { cache });
 */
export interface TurnOptions {
  /** The warm chat states to use; by default the store's shared cache (the one `runTool` uses). */
  cache?: ChatStateCache;
}

/**
 * Options of {@link beginTurn}: {@link TurnOptions} and the host's own id of
 * the turn.
 *
 * @example
 * await beginTurn(store, "chat-1", { turn: "msg_01H8" }); // again with "msg_01H8": the same turn goes on
 */
export interface BeginTurnOptions extends TurnOptions {
  /**
   * The host's opaque id of the turn (1 to 200 characters), stored in the
   * `turn_started` entry: while the open turn has this id, nothing is written
   * and the turn goes on; any other id ends the open turn and begins the next.
   */
  turn?: string;
}

const TURN_ID: OptionRule = {
  expected: `a string of 1 to ${MAX_TURN_ID_LENGTH} characters`,
  check: (v) => typeof v === "string" && v.length > 0 && v.length <= MAX_TURN_ID_LENGTH,
};

/** The version of the `session` entries this package writes. */
const SESSION_VERSION = 1;

/**
 * Creates chat `chatId` with its `session` entry, unless it exists (an
 * existing chat is never touched). Resolves to whether this call created it.
 * A session field that is unknown or of the wrong type is a `TypeError`
 * naming it, and nothing is written.
 *
 * @example
 * import { createChat, MemoryStore } from "oda-tasks";
 * const store = new MemoryStore();
 * await createChat(store, "chat-1", { workspace: "/repos/app" }); // true
 */
export async function createChat(store: Store, chatId: string, session?: ChatSession | null): Promise<boolean> {
  return createChatAt(store, chatId, chatId, session);
}

/**
 * Internal: {@link createChat} of an owner's chat `chatId`, stored under
 * `key` (stores/owners.ts): its session entry names `chatId`, the id its
 * owner uses.
 *
 * @internal
 */
export async function createChatAt(store: Store, key: string, chatId: string, session?: ChatSession | null): Promise<boolean> {
  const entry = sessionEntry(chatId, session);
  return storeOperation(store, "create", () => store.create(key, [entry]));
}

/**
 * Deletes chat `chatId` and every entry of it (`store.delete`), and resolves
 * to whether it existed. Its open event streams get a last `deleted` event
 * and end; a tool call on it afterwards is answered as for a chat that never
 * existed; a chat created later under the id is a new chat. Chats started
 * from its suggestions are chats of their own and stay.
 *
 * @example
 * import { createChat, deleteChat, MemoryStore } from "oda-tasks";
 * const store = new MemoryStore();
 * await createChat(store, "chat-1", { workspace: "/repos/app" });
 * await deleteChat(store, "chat-1"); // true
 * await deleteChat(store, "chat-1"); // false: already gone
 */
export async function deleteChat(store: Store, chatId: string): Promise<boolean> {
  if (store === null || typeof store !== "object" || typeof store.delete !== "function") {
    throw new TypeError("oda-tasks: deleteChat needs a store with delete(chatId) (every store of the package has it)");
  }
  return storeOperation(store, "delete", () => (store.delete as NonNullable<Store["delete"]>).call(store, chatId));
}

/**
 * Opens a model turn (appends `turn_started`): `suggest_task` needs an open
 * turn, and the plan shown is the running turn's. A turn still open (its
 * model call never ended, say the process died) is ended first, in the same
 * append, so every turn in the log is closed before the next starts.
 * Resolves to the new turn's number (1 for the chat's first). With `turn`,
 * an open turn begun with the same id goes on instead (its number).
 *
 * @example
 * const turn = await beginTurn(store, "chat-1"); // 1
 */
export async function beginTurn(store: Store, chatId: string, options?: BeginTurnOptions | null): Promise<number> {
  const { turn, ...rest } = readOptions<BeginTurnOptions>("beginTurn", options, { cache: ANY, turn: TURN_ID });
  const cache = turnCache("beginTurn", store, rest);
  return decideAndAppend<number>(cache, chatId, `beginTurn on chat "${chatId}"`, async (state) => {
    if (state === null) throw missingChat(chatId, "beginTurn");
    const { turns, turnOpen } = state.listState();
    // Decided in the write loop: two calls with one new id open one turn (the second finds the first's).
    if (turn !== undefined && turnOpen && (await latestTurnId(store, chatId, state)) === turn) return { done: turns };
    const started = turn === undefined ? { type: "turn_started" } : { type: "turn_started", v: 1, turn };
    const append = turnOpen ? [{ type: "turn_ended" }, started] : [started];
    // biome-ignore lint/suspicious/noThenProperty: the append loop's step (append-loop.ts `Step`): `then` is what it answers after the append, never awaited
    return { append, then: turns + 1 };
  });
}

/**
 * Closes the open model turn (appends `turn_ended`). Ending a turn that is
 * not open changes nothing. Resolves to whether a turn was ended.
 *
 * @example
 * await beginTurn(store, "chat-1");
 * try {
 *   // the model's turn: its tool calls
 * } finally {
 *   await endTurn(store, "chat-1");
 * }
 */
export async function endTurn(store: Store, chatId: string, options?: TurnOptions | null): Promise<boolean> {
  const cache = turnCache("endTurn", store, options);
  return decideAndAppend<boolean>(cache, chatId, `endTurn on chat "${chatId}"`, (state) => {
    if (state === null) throw missingChat(chatId, "endTurn");
    if (!state.listState().turnOpen) return { done: false };
    // biome-ignore lint/suspicious/noThenProperty: the append loop's step (append-loop.ts `Step`): `then` is what it answers after the append, never awaited
    return { append: [{ type: "turn_ended" }], then: true };
  });
}

function turnCache(call: string, store: Store, options: TurnOptions | null | undefined): ChatStateCache {
  const { cache } = readOptions<TurnOptions>(call, options, { cache: ANY });
  return cacheFor(call, store, cache);
}

/** Internal: the failure of `call` on chat `chatId`, which does not exist. */
export function missingChat(chatId: string, call: string): StoreError {
  return new StoreError("store/missing-chat", `chat "${chatId}" does not exist; create it with createChat() before ${call}()`, chatId);
}

const SESSION_FIELDS = new Set(["title", "workspace", "scheduledTaskFolder", "agent", "settings"]);
const SETTINGS_FIELDS = new Set(["preset", "model", "permission", "sandbox", "approval"]);

/**
 * Internal: checks `session` as {@link createChat} would, writing nothing,
 * so a host that creates chats later refuses a bad one at once.
 */
export function checkChatSession(session: ChatSession | null | undefined): void {
  sessionEntry("", session);
}

/** The `session` entry for `session`, checked field by field (own properties only). */
function sessionEntry(chatId: string, session: ChatSession | null | undefined): SessionEntry {
  const bad = (field: string, why: string): never => {
    throw new TypeError(`oda-tasks: invalid session of createChat: \`${field}\` ${why}`);
  };
  const fields = ownOptions("createChat", session);
  for (const key of Object.keys(fields)) if (!SESSION_FIELDS.has(key)) bad(key, "is not a session field");
  const { title, workspace = null, scheduledTaskFolder = false, agent = "top-level", settings } = fields;
  if (title !== undefined && typeof title !== "string") bad("title", "must be a string");
  if (workspace !== null && typeof workspace !== "string") bad("workspace", "must be a string or null");
  if (typeof scheduledTaskFolder !== "boolean") bad("scheduledTaskFolder", "must be a boolean");
  if (agent !== "top-level" && agent !== "helper") bad("agent", 'must be "top-level" or "helper"');
  const entry: SessionEntry = {
    type: "session",
    v: SESSION_VERSION,
    chatId,
    ...(title === undefined ? {} : { title: title as string }),
    workspace: workspace as string | null,
    scheduledTaskFolder: scheduledTaskFolder as boolean,
    agent: agent as "top-level" | "helper",
    settings: sessionSettings(settings, bad),
  };
  return entry;
}

function sessionSettings(settings: unknown, bad: (field: string, why: string) => never): SessionSettings {
  if (settings === undefined) return {};
  if (settings === null || typeof settings !== "object" || Array.isArray(settings)) bad("settings", "must be an object");
  const fields = ownOptions("createChat", settings);
  const out: SessionSettings = {};
  for (const [key, value] of Object.entries(fields)) {
    if (!SETTINGS_FIELDS.has(key)) bad(`settings.${key}`, "is not a setting");
    if (value === undefined) continue;
    if (key === "preset" || key === "model" || key === "permission") {
      if (typeof value !== "string") bad(`settings.${key}`, "must be a string");
      out[key] = value as string;
    } else {
      // `sandbox` and `approval` are copied as they are: any JSON data.
      let copy: JsonValue | undefined;
      try {
        copy = jsonCopy(value) as JsonValue;
      } catch {
        bad(`settings.${key}`, "must be JSON data");
      }
      if (copy === undefined) bad(`settings.${key}`, "must be JSON data");
      out[key as "sandbox" | "approval"] = copy;
    }
  }
  return out;
}
