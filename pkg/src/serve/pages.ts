// The HTML `serve` answers a browser with: the signed-in owner's chats, a
// chat's page (the live plan, suggestions and cards, drawn by the package's
// elements) and the sign-in form. Every page is one static text with no inline script, sent with a
// content security policy that lets it load only this server's own scripts.

/**
 * The headers of every page: no framing, no script but the server's own, and
 * no referrer to another site. (`same-origin`, not `no-referrer`: under
 * `no-referrer` a browser sends `Origin: null` with a form's POST, which the
 * server refuses as a foreign origin.)
 */
export const PAGE_HEADERS: Record<string, string> = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

/** `text` safe inside HTML text and double-quoted attributes. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  [hidden] { display: none !important; }
  body { margin: 0 auto; max-width: 72rem; padding: 1rem; }
  h1 { font-size: 1.25rem; overflow-wrap: anywhere; }
  h2 { font-size: 1.05rem; margin: 0.25rem 0 0.75rem; }
  .panels { display: grid; gap: 1rem; align-content: start; }
  .columns { display: grid; gap: 1rem; grid-template-columns: minmax(0, 1fr); }
  @media (min-width: 60rem) { .columns { grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); } }
  ol.cards { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.75rem; }
  form { display: grid; gap: 0.5rem; max-width: 24rem; }
  input, button { font: inherit; padding: 0.5rem; }
  ol.chats { display: grid; gap: 0.5rem; padding-left: 1.5rem; }
  .workspace { color: color-mix(in srgb, CanvasText 70%, Canvas); overflow-wrap: anywhere; }
`;

/** A page's head: its title (HTML-escaped already) and what else it loads. */
function head(title: string, extra: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${title} · oda-tasks</title>
<style>${STYLE}</style>
${extra}</head>
`;
}

/** What a chat's page shows beside its id: its title, and whether the viewer may change it. */
export interface ChatPageOptions {
  /** The chat's title (its session's), or `null`: the page is headed "Chat <id>". */
  title: string | null;
  /** The viewer's credential may write: the page offers to edit the list and to delete the chat. */
  canWrite: boolean;
}

/**
 * A chat's page: `<oda-plan>` and `<oda-suggestions>` following the chat
 * API at `apiBase` (`/api/oda`), and its cards, newest first; headed with
 * the chat's title when it has one; when the viewer may write, the plan is
 * editable and a Delete button (confirmed first) is offered.
 *
 * @example
 * new Response(chatPage("chat-1", "/api/oda", { title: "Fix the upload", canWrite: true }), { headers: PAGE_HEADERS });
 */
export function chatPage(chatId: string, apiBase: string, { title, canWrite }: ChatPageOptions): string {
  const src = escapeHtml(`${apiBase}/chats/${encodeURIComponent(chatId)}`);
  const heading = escapeHtml(title ?? `Chat ${chatId}`);
  const remove = canWrite
    ? `<p class="actions"><button type="button" id="delete-chat" data-chat-id="${escapeHtml(chatId)}">Delete chat</button></p>\n`
    : "";
  return `${head(heading, '<script type="module" src="/assets/serve/chat-page.js"></script>\n')}<body>
<nav><a href="/">Your chats</a></nav>
<main data-chat-src="${src}">
<h1>${heading}</h1>
${remove}
<div class="columns">
<div class="panels">
<oda-plan src="${src}"${canWrite ? " editable" : ""}></oda-plan>
<oda-suggestions src="${src}"></oda-suggestions>
</div>
<section aria-labelledby="cards-heading">
<h2 id="cards-heading">Updates</h2>
<p id="no-cards">No to-do list yet.</p>
<ol id="cards" class="cards"></ol>
</section>
</div>
</main>
</body>
</html>
`;
}

/** What the form asks for, by the server's mode. */
const TOKEN_LABEL = {
  none: "Access token (this server needs none: any text signs in)",
  token: "Access token (the server's ODA_TASKS_TOKEN)",
  jwt: "Access token (an OAuth access token for this server, with the scope oda:read or oda:write)",
} as const;

/** Why the form is shown again, by the server's mode. */
const NOTICE = {
  token: { none: "", token: "That token is not this server's.", jwt: "That access token is not valid here, or it has expired." },
  unavailable: "This server cannot check access tokens right now; try again in a moment.",
  ended: "Your sign-in has ended; sign in again.",
} as const;

/**
 * What the sign-in form says: the server's mode (`token`: the server's
 * token; `jwt`: an OAuth access token) and why it is shown again, if it is
 * (`token`: the token was refused; `unavailable`: tokens cannot be checked
 * now; `ended`: the cookie sent has expired or is not valid).
 *
 * @example
 * const options: SignInPageOptions = { mode: "jwt", notice: "ended" };
 */
export interface SignInPageOptions {
  mode: "none" | "token" | "jwt";
  notice?: "token" | "unavailable" | "ended" | undefined;
}

/**
 * The page of a chat the signed-in owner has not (none by that id, or
 * deleted): said as for any chat that does not exist, with the way back.
 *
 * @example
 * new Response(missingChatPage("chat-9"), { status: 404, headers: PAGE_HEADERS });
 */
export function missingChatPage(chatId: string): string {
  return `${head("No such chat", "")}<body>
<nav><a href="/">Your chats</a></nav>
<main>
<h1>No such chat</h1>
<p>There is no chat ${escapeHtml(JSON.stringify(chatId))} among yours: it was never made, or it was deleted.</p>
</main>
</body>
</html>
`;
}

/**
 * The signed-in owner's chats, newest first: each its title (or its id)
 * linking its page, and its workspace; `next` the cursor of older ones.
 *
 * @example
 * new Response(chatsPage([{ chatId: "chat-1", title: "Fix the upload" }], null), { headers: PAGE_HEADERS });
 */
export function chatsPage(chats: readonly { chatId: string; title?: string; workspace?: string }[], next: string | null): string {
  const items = chats.map(({ chatId, title, workspace }) => {
    const link = `<a href="/chats/${escapeHtml(encodeURIComponent(chatId))}">${escapeHtml(title ?? `Chat ${chatId}`)}</a>`;
    const where = workspace === undefined ? "" : ` <span class="workspace">${escapeHtml(workspace)}</span>`;
    return `<li>${link}${where}</li>`;
  });
  const list = items.length === 0 ? '<p id="no-chats">No chats yet.</p>' : `<ol class="chats">\n${items.join("\n")}\n</ol>`;
  const older = next === null ? "" : `\n<p><a href="/?cursor=${escapeHtml(encodeURIComponent(next))}">Older chats</a></p>`;
  return `${head("Your chats", "")}<body>
<main>
<h1>Your chats</h1>
${list}${older}
</main>
</body>
</html>
`;
}

/**
 * The sign-in form: the token is posted once (never put in a URL) and a
 * cookie holds the session; `next` is the page to go back to.
 *
 * @example
 * new Response(signInPage("/chats/chat-1", { mode: "token" }), { status: 401, headers: PAGE_HEADERS });
 */
export function signInPage(next: string, { mode, notice }: SignInPageOptions): string {
  const text = notice === undefined ? "" : notice === "token" ? NOTICE.token[mode] : NOTICE[notice];
  return `${head("Sign in", "")}<body>
<main>
<h1>Sign in</h1>
${text === "" ? "" : `<p role="alert">${text}</p>\n`}<form method="post" action="/sign-in">
<label for="token">${TOKEN_LABEL[mode]}</label>
<input id="token" name="token" type="password" autocomplete="current-password" required>
<input type="hidden" name="next" value="${escapeHtml(next)}">
<button type="submit">Sign in</button>
</form>
</main>
</body>
</html>
`;
}
