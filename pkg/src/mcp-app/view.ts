// The widget's script, run inside the host's sandboxed frame: it takes the
// tool result through the MCP Apps `App`, draws its card with the package's
// elements, reads the chat's plan and suggestions through the app-only
// `oda_screen` tool, and turns the suggestions' events and the person's
// edits of the plan into app-only calls.
// Bundled into the widget's one HTML file by scripts/build-mcp-app.mjs.
import "./jitless.js";
import { App } from "@modelcontextprotocol/ext-apps";
import "../elements/index.js";
import type {
  EditEventDetail,
  OdaPlanElement,
  OdaSuggestionsElement,
  OdaTodoCardElement,
  SuggestionEventDetail,
} from "../elements/index.js";
import type { TodoItem } from "../core/types.js";
import { CARD_META, CHAT_META } from "../integrations/mcp/keys.js";
import type { AppScreen, AppToolAnswer } from "../integrations/mcp/app/screen.js";

type Action = "start" | "draft" | "dismiss" | "restore";

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const card = byId<OdaTodoCardElement>("card");
const plan = byId<OdaPlanElement>("plan");
const suggestions = byId<OdaSuggestionsElement>("suggestions");
const status = byId<HTMLElement>("status");

const app = new App({ name: "oda-tasks", version: "1" });
/** The chat this tool call acted on, from the result's `_meta`; `null` until a result names one. */
let chatId: string | null = null;
/** The screen last drawn, to name an offer by its title. */
let screen: AppScreen | null = null;
/** The started chats' pages, when the server has them (`chatUrl`). */
let links: Record<string, string> = {};
const pending = new Set<string>();

const say = (text: string) => {
  status.textContent = text;
};

/** Draws a screen the server answered: the plan and the suggestions. */
function draw(next: AppScreen): void {
  screen = next;
  // The person edits the list in the plan (the widget is shown to whoever may call the tools).
  plan.editable = true;
  Object.assign(plan, { plan: next.plan, cardCount: next.cardCount, todos: next.todos, length: next.length });
  suggestions.list = { open: next.open, settled: next.settled };
  document.body.dataset.ready = "true";
}

/** Calls app-only tool `name` on this chat and draws the screen it answers; a refusal throws its message. */
async function call(name: string, args: Record<string, string>): Promise<AppToolAnswer | null> {
  if (chatId === null) return null;
  const result = await app.callServerTool({ name, arguments: { chat: chatId, ...args } });
  const content = result.structuredContent as (AppToolAnswer & { error?: { message: string } }) | undefined;
  if (result.isError || content?.screen === undefined) {
    const text = result.content.find((c) => c.type === "text")?.text;
    throw new Error(content?.error?.message ?? text ?? "the server gave no answer");
  }
  draw(content.screen);
  links = content.links ?? {};
  return content;
}

/** The person's edit, made through `oda_edit`; its answer goes back to the plan, which shows it (and re-applies on a change). */
plan.addEventListener("oda-edit", (e: Event) => {
  const { todos, basedOn, respond } = (e as CustomEvent<EditEventDetail>).detail;
  if (chatId === null) return respond({ ok: false, message: "the widget shows no chat yet" });
  app.callServerTool({ name: "oda_edit", arguments: { chat: chatId, todos, basedOn } }).then(
    (result) => {
      const content = result.structuredContent as
        | (AppToolAnswer & { error?: { code: string; message: string; payload?: unknown; length?: unknown } })
        | undefined;
      const error = content?.error;
      if (!result.isError && content?.screen !== undefined) {
        draw(content.screen);
        return respond({ ok: true });
      }
      const changed =
        error?.code === "chat/changed" && Array.isArray(error.payload) && typeof error.length === "number"
          ? { changed: { todos: error.payload as TodoItem[], length: error.length } }
          : {};
      respond({
        ok: false,
        message: error?.message ?? result.content.find((c) => c.type === "text")?.text ?? "the server gave no answer",
        ...changed,
      });
    },
    (x: Error) => respond({ ok: false, message: x.message }),
  );
});

const titleOf = (id: string) => screen?.open.find((s) => s.id === id)?.title ?? screen?.settled.find((s) => s.id === id)?.title ?? id;

/** Where the person continues a started chat when the server gave no page for it. */
const WHERE = " Open it in the app that shares this chat's store.";
/** Asks the host to open a started chat's page; where it will not, says where the chat is. */
function open(url: string, said: string): void {
  app.openLink({ url }).then(
    (r) => r.isError && say(said + WHERE),
    () => say(said + WHERE),
  );
}

const DONE: Record<Action, string> = { start: "Started", draft: "Drafted", dismiss: "Dismissed", restore: "Restored" };

async function act(action: Action, id: string): Promise<void> {
  const key = `${action}:${id}`;
  if (pending.has(key)) return;
  pending.add(key);
  const title = titleOf(id);
  try {
    const answer = await call(`oda_${action}`, { id });
    if (answer?.started !== undefined) {
      const { chatId: started } = answer.started;
      const link = links[started];
      const said = `Started in a new chat: “${title}” (${started}).`;
      say(link === undefined ? said + WHERE : said);
      if (link !== undefined) open(link, said);
    } else if (answer !== null) say(`${DONE[action]} “${title}”.`);
  } catch (e) {
    say(`Could not ${action} “${title}”: ${(e as Error).message}.`);
    // What the chat holds now (another tab or person may have settled the offer).
    await call("oda_screen", {}).catch(() => undefined);
  } finally {
    pending.delete(key);
  }
}

for (const action of ["start", "draft", "dismiss", "restore"] as const) {
  suggestions.addEventListener(`oda-${action}`, (e: CustomEvent<SuggestionEventDetail>) => void act(action, e.detail.id));
}
suggestions.addEventListener("oda-open-chat", (e) => {
  const link = links[e.detail.chatId];
  const said = `“${titleOf(e.detail.id)}” runs in chat ${e.detail.chatId}.`;
  if (link !== undefined) open(link, said);
  else say(said + WHERE);
});

app.ontoolresult = (result) => {
  const meta = result._meta ?? {};
  const named = meta[CHAT_META];
  const recorded = meta[CARD_META];
  try {
    if (recorded !== undefined) {
      card.card = recorded as OdaTodoCardElement["card"];
      card.hidden = false;
    }
  } catch {
    // A card this version cannot draw: the rest of the screen still can.
  }
  if (typeof named !== "string") {
    document.body.dataset.ready = "true";
    return;
  }
  chatId = named;
  call("oda_screen", {}).catch((e: Error) => say(`Could not read the chat: ${e.message}`));
};

// The host removes the widget when it likes: nothing to save, so it may at once.
app.onteardown = async () => ({});

void app.connect();
