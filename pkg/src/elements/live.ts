// What `src` gives `<oda-plan>` and `<oda-suggestions>`: the chat's screen
// from the `chatHandler` URL, kept current by its event stream (one
// EventSource per URL, shared by every element that follows it: a `screen`
// event resets it, a `change` is applied to it; EventSource itself resumes
// from the last id after a reconnect; a `deleted` event ends it for good),
// and the suggestion actions and a person's edits posted back as JSON. No
// core, no WASM: only fetch and EventSource, with the page's own cookies
// (same origin).
import type { ChatChange, ChatScreen } from "../integrations/http/screen.js";
import type { TodoItem } from "../core/types.js";

/** Hears each screen of the chat, and `null` once the chat was deleted (nothing follows). */
type Listener = (screen: ChatScreen | null) => void;

interface Feed {
  listeners: Set<Listener>;
  source: EventSource | null;
  /** The screen on show: the stream's, or an action's read when that is newer. */
  last: ChatScreen | null;
  /** The stream said the chat was deleted: it is closed, and every follower is told `null`. */
  deleted: boolean;
}

const feeds = new Map<string, Feed>();

/**
 * `screen` with `change` applied: the new cards appended (the last `window`
 * kept), the count and length, and each part the change carries.
 */
export function applyChange(screen: ChatScreen, change: ChatChange): ChatScreen {
  const joined = [...screen.cards, ...change.cards];
  const cards = joined.slice(Math.max(0, joined.length - change.window));
  const next: ChatScreen = { ...screen, length: change.length, cardCount: change.cardCount, cards };
  if (change.todos !== undefined) next.todos = change.todos;
  if (change.plan !== undefined) next.plan = change.plan;
  if (change.open !== undefined) next.open = change.open;
  if (change.settled !== undefined) next.settled = change.settled;
  if (change.skipped !== undefined) next.skipped = change.skipped;
  return next;
}

/** `src` without a trailing slash, resolved against the page. */
function chatUrl(src: string): string {
  return new URL(src, document.baseURI).href.replace(/\/+$/, "");
}

/**
 * Follows chat `src`: `listener` gets the screen now (fetched) and each new
 * one the event stream pushes, and `null` once the chat was deleted. Returns
 * the function that stops following.
 */
export function follow(src: string, listener: Listener): () => void {
  const url = chatUrl(src);
  let feed = feeds.get(url);
  if (feed === undefined) {
    const created: Feed = { listeners: new Set(), source: null, last: null, deleted: false };
    feed = created;
    feeds.set(url, created);
    const source = new EventSource(`${url}/events`);
    created.source = source;
    // The stream's own screen: changes apply to it (an action's read may have put a newer one on show).
    let streamed: ChatScreen | null = null;
    const take = (screen: ChatScreen) => {
      streamed = screen;
      if (created.last !== null && created.last.length > screen.length) return;
      created.last = screen;
      for (const l of created.listeners) l(screen);
    };
    source.addEventListener("screen", (event) => {
      const screen = parsed<ChatScreen>(event);
      if (screen !== null) {
        created.last = null; // a reset: the log may have been replaced
        take(screen);
      }
    });
    source.addEventListener("change", (event) => {
      const change = parsed<ChatChange>(event);
      // A change follows the stream's screen; the stream starts with one, so none is lost.
      if (change !== null && streamed !== null) take(applyChange(streamed, change));
    });
    // The chat's last event: no reconnect (the stream ended for good), no screen after it.
    source.addEventListener("deleted", () => {
      source.close();
      created.deleted = true;
      created.last = null;
      for (const l of created.listeners) l(null);
    });
  } else if (feed.deleted) {
    listener(null);
  } else if (feed.last !== null) {
    listener(feed.last);
  }
  feed.listeners.add(listener);
  const mine = feed;
  return () => {
    mine.listeners.delete(listener);
    if (mine.listeners.size === 0) {
      mine.source?.close();
      if (feeds.get(url) === mine) feeds.delete(url);
    }
  };
}

/** An event's JSON data, `null` when it is not JSON. */
function parsed<T>(event: Event): T | null {
  try {
    return JSON.parse((event as MessageEvent<string>).data) as T;
  } catch {
    return null;
  }
}

/** What an action answered: `ok` with the started chat, or the failure's code and message. */
export type ActionAnswer = { ok: true; chatId?: string } | { ok: false; code: string; message: string };

/** What a POST to the chat answered: its JSON body, or the failure's code, message and what it carries. */
type Posted =
  | { ok: true; body: Record<string, unknown> | null }
  | { ok: false; code: string; message: string; payload?: unknown; length?: unknown };

/** Posts `body` as JSON to `url` with the page's cookies. */
async function post(url: string, body: unknown): Promise<Posted> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
    const json = (await response.json().catch(() => null)) as
      | (Record<string, unknown> & { error?: { code?: string; message?: string; payload?: unknown; length?: unknown } })
      | null;
    if (response.ok) return { ok: true, body: json };
    const error = json?.error;
    return {
      ok: false,
      code: String(error?.code ?? `http/${response.status}`),
      message: String(error?.message ?? response.statusText),
      payload: error?.payload,
      length: error?.length,
    };
  } catch {
    return { ok: false, code: "http/network", message: "the server could not be reached" };
  }
}

/** Posts `action` of suggestion `id` to chat `src`, then reads the screen again for every element following it. */
export async function act(src: string, action: "start" | "draft" | "dismiss" | "restore", id: string): Promise<ActionAnswer> {
  const url = chatUrl(src);
  const posted = await post(`${url}/suggestions/${encodeURIComponent(id)}/${action}`, {});
  await refresh(url);
  if (!posted.ok) return { ok: false, code: posted.code, message: posted.message };
  const chatId = posted.body?.chatId;
  return { ok: true, ...(typeof chatId === "string" ? { chatId } : {}) };
}

/**
 * What a person's edit answered: saved, or refused with the reason; a list
 * that changed since the screen it was made on carries the list as it stands
 * and the length to edit it at.
 *
 * @example
 * const said = (a: EditAnswer) => (a.ok ? "Saved." : `Could not save: ${a.message}.`);
 */
export type EditAnswer = { ok: true } | { ok: false; message: string; changed?: { todos: TodoItem[]; length: number } };

/** Posts a person's edit of chat `src`'s list (`todos` on the log length `basedOn`), then reads the screen again. */
export async function editList(src: string, todos: readonly TodoItem[], basedOn: number): Promise<EditAnswer> {
  const url = chatUrl(src);
  const posted = await post(`${url}/todos`, { todos, basedOn });
  await refresh(url);
  if (posted.ok) return { ok: true };
  const changed =
    posted.code === "chat/changed" && Array.isArray(posted.payload) && typeof posted.length === "number"
      ? { changed: { todos: posted.payload as TodoItem[], length: posted.length } }
      : {};
  return { ok: false, message: posted.message, ...changed };
}

/** Reads chat `url`'s screen now and hands it to its followers (the event stream would, a poll later). */
async function refresh(url: string): Promise<void> {
  const feed = feeds.get(url);
  if (feed === undefined || feed.deleted) return;
  try {
    const response = await fetch(url, { credentials: "same-origin", headers: { accept: "application/json" } });
    if (!response.ok) return;
    const screen = (await response.json()) as ChatScreen;
    // A pushed screen read at a later length wins over this one; a deletion over every screen.
    if (feed.deleted || (feed.last !== null && feed.last.length > screen.length)) return;
    feed.last = screen;
    for (const l of feed.listeners) l(screen);
  } catch {
    // the event stream brings the next screen
  }
}
