// What `src` gives `<oda-plan>` and `<oda-suggestions>`: the chat's screen
// from the `chatHandler` URL, kept current by its event stream (one
// EventSource per URL, shared by every element that follows it), and the
// suggestion actions posted back as JSON. No core, no WASM: only fetch and
// EventSource, with the page's own cookies (same origin).
import type { ChatScreen } from "../integrations/http/screen.js";

type Listener = (screen: ChatScreen) => void;

interface Feed {
  listeners: Set<Listener>;
  source: EventSource | null;
  last: ChatScreen | null;
}

const feeds = new Map<string, Feed>();

/** `src` without a trailing slash, resolved against the page. */
function chatUrl(src: string): string {
  return new URL(src, document.baseURI).href.replace(/\/+$/, "");
}

/**
 * Follows chat `src`: `listener` gets the screen now (fetched) and each new
 * one the event stream pushes. Returns the function that stops following.
 */
export function follow(src: string, listener: Listener): () => void {
  const url = chatUrl(src);
  let feed = feeds.get(url);
  if (feed === undefined) {
    const created: Feed = { listeners: new Set(), source: null, last: null };
    feed = created;
    feeds.set(url, created);
    const source = new EventSource(`${url}/events`);
    created.source = source;
    source.addEventListener("screen", (event) => {
      let screen: ChatScreen;
      try {
        screen = JSON.parse((event as MessageEvent<string>).data) as ChatScreen;
      } catch {
        return;
      }
      created.last = screen;
      for (const l of created.listeners) l(screen);
    });
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

/** What an action answered: `ok` with the started chat, or the failure's code and message. */
export type ActionAnswer = { ok: true; chatId?: string } | { ok: false; code: string; message: string };

/** Posts `action` of suggestion `id` to chat `src`, then reads the screen again for every element following it. */
export async function act(src: string, action: "start" | "draft" | "dismiss" | "restore", id: string): Promise<ActionAnswer> {
  const url = chatUrl(src);
  let answer: ActionAnswer;
  try {
    const response = await fetch(`${url}/suggestions/${encodeURIComponent(id)}/${action}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
      credentials: "same-origin",
    });
    const body = (await response.json().catch(() => null)) as { chatId?: string; error?: { code?: string; message?: string } } | null;
    answer = response.ok
      ? { ok: true, ...(typeof body?.chatId === "string" ? { chatId: body.chatId } : {}) }
      : {
          ok: false,
          code: String(body?.error?.code ?? `http/${response.status}`),
          message: String(body?.error?.message ?? response.statusText),
        };
  } catch {
    answer = { ok: false, code: "http/network", message: "the server could not be reached" };
  }
  await refresh(url);
  return answer;
}

/** Reads chat `url`'s screen now and hands it to its followers (the event stream would, a poll later). */
async function refresh(url: string): Promise<void> {
  const feed = feeds.get(url);
  if (feed === undefined) return;
  try {
    const response = await fetch(url, { credentials: "same-origin", headers: { accept: "application/json" } });
    if (!response.ok) return;
    const screen = (await response.json()) as ChatScreen;
    // A pushed screen read at a later length wins over this one.
    if (feed.last !== null && feed.last.length > screen.length) return;
    feed.last = screen;
    for (const l of feed.listeners) l(screen);
  } catch {
    // the event stream brings the next screen
  }
}
