// The preview page: chats in IndexedDB, shown as a chat app would show them,
// driven by hand. It uses only the package's public API, imported by name.
import { ChatState, init, readFrom, readJsonl, runTool, SuggestionService } from "oda-tasks";
import { IndexedDbStore } from "oda-tasks/browser";
import { chatIdFor, toJsonl } from "./files.js";
import { Timeline } from "./timeline.js";
import * as view from "./view.js";

await init();
const store = new IndexedDbStore("oda-tasks-preview");
// The list of chats is a log too (the Store has no listing): one entry per chat added, safe across tabs.
const index = new IndexedDbStore("oda-tasks-preview-index");
const LIST = "chats";
const service = new SuggestionService({ store });
// Other tabs of the preview re-render when this one writes.
const channel = new BroadcastChannel("oda-tasks-preview");
const $ = (id) => document.getElementById(id);

let current = null;
const timeline = new Timeline($("entries"), (chatId) => open(chatId));
let renders = 0;
let suggestionStatus = "";
/** The open chat's current to-do list, for the example input. */
let listNow = [];

// ---------------------------------------------------------------------------
// Chats: the list, importing, opening.

async function chats() {
  const seen = new Map();
  for (const e of (await index.read(LIST)) ?? []) {
    if (e.type === "preview_chat" && typeof e.chatId === "string" && !seen.has(e.chatId)) seen.set(e.chatId, e);
  }
  return [...seen.values()];
}

async function addChat(chatId, title, source) {
  if ((await chats()).some((c) => c.chatId === chatId)) return;
  await index.append(LIST, [{ type: "preview_chat", chatId, title, ...(source ? { source } : {}) }]);
}

/**
 * Imports JSONL bytes as a new chat, read by the core's one JSONL reader. A
 * line it cannot read, a cut-off last line, or an entry the store refuses
 * (not an object with a string `type`) imports nothing, and the page says why.
 */
async function importBytes(bytes, name, source) {
  const parsed = readJsonl(bytes);
  const why =
    parsed.unreadable.length > 0
      ? `line ${parsed.unreadable[0].line} cannot be read (${parsed.unreadable[0].reason})`
      : parsed.tornBytes > 0
        ? `its last line is cut off (${parsed.tornBytes} bytes that are not JSON)`
        : parsed.entries.length === 0
          ? "it holds no entries"
          : null;
  if (why !== null) {
    notice(`Nothing was imported: ${name}: ${why}.`);
    return null;
  }
  const base = chatIdFor(parsed.entries, name);
  let chatId = base;
  try {
    for (let n = 2; !(await store.create(chatId, parsed.entries)); n++) chatId = `${base}-${n}`;
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    notice(`Nothing was imported: ${name}: ${e.message.replace(/^oda-tasks: /, "")}.`);
    return null;
  }
  const session = parsed.entries.find((e) => e?.type === "session");
  await addChat(chatId, typeof session?.title === "string" ? session.title : name, source);
  notice("");
  changed();
  return chatId;
}

/** Per chat: its log as read so far and a ChatState fed only what is new since (the replays come from it). */
const loaded = new Map();
let loading = Promise.resolve();

/** The chat's log and state, brought up to date with one read of the new entries; `null` for no such chat. */
function load(chatId) {
  const next = loading.then(async () => {
    let chat = loaded.get(chatId);
    if (chat === undefined) {
      chat = { log: [], state: ChatState.empty() };
      loaded.set(chatId, chat);
    }
    const fresh = await readFrom(store, chatId, chat.log.length);
    if (fresh === null) {
      loaded.delete(chatId);
      chat.state.free();
      return null;
    }
    if (fresh.length > 0) {
      chat.state.ingest(chat.log.length, fresh);
      chat.log.push(...fresh);
    }
    return chat;
  });
  loading = next.catch(() => undefined); // one load at a time: each reads from where the last left off
  return next;
}

async function open(chatId) {
  current = chatId;
  if (chatId !== null) history.replaceState(null, "", `#chat=${encodeURIComponent(chatId)}`);
  await render();
}

function changed() {
  channel.postMessage("changed");
}

// ---------------------------------------------------------------------------
// Rendering.

async function render() {
  const seq = ++renders;
  const list = await chats();
  const chat = current === null ? null : await load(current);
  if (seq !== renders) return; // a newer render is under way
  $("chat-list").replaceChildren(...view.chatList(list, current, open));
  if (chat === null) {
    $("chat-header").replaceChildren(
      view.h("h2", { id: "chat-title", text: "No chat open" }),
      view.h("p", { text: "Import a .jsonl file to see its chat." }),
    );
    for (const id of ["entries", "skipped"]) $(id).replaceChildren();
    Object.assign($("plan"), { plan: null, cardCount: 0 });
    $("suggestions").list = null;
    $("skipped").hidden = true;
    return;
  }
  const { log, state } = chat;
  const screen = state.view({ cards: 50 });
  const offers = await service.list(current, { progress: true });
  if (seq !== renders) return;
  $("chat-header").replaceChildren(...view.chatHeader(current, log, open));
  $("skipped").replaceChildren(...view.skippedList(screen.skipped));
  $("skipped").hidden = screen.skipped.length === 0;
  timeline.show(current, log, state, screen);
  Object.assign($("plan"), { plan: screen.plan, cardCount: screen.cardCount });
  $("suggestions").list = offers;
  $("suggestion-status").textContent = suggestionStatus;
  const turns = log.filter((e) => e.type === "turn_started" || e.type === "turn_ended");
  const running = turns.at(-1)?.type === "turn_started";
  const number = log.filter((e) => e.type === "turn_started").length;
  $("turn-start").disabled = running;
  $("turn-end").disabled = !running;
  $("turn-state").textContent = running ? `Turn ${number} is running` : "No turn is running";
  document.title = `${$("chat-title").textContent} · oda-tasks preview`;
  listNow = screen.todos;
  if ($("call-input").value === "" || $("call-input").value === template) fillTemplate();
}

function notice(text) {
  $("notice").replaceChildren(
    text,
    text ? view.h("button", { type: "button", className: "quiet", text: "Close", onclick: () => notice("") }) : "",
  );
  $("notice").hidden = text === "";
}

// ---------------------------------------------------------------------------
// Suggestions.

/** The offer an event of <oda-suggestions> names, from the list it shows. */
const offer = (e) => {
  const { open: waiting = [], settled = [] } = $("suggestions").list ?? {};
  return [...waiting, ...settled].find((s) => s.id === e.detail.id) ?? { id: e.detail.id, title: e.detail.id };
};
$("suggestions").addEventListener("oda-start", (e) =>
  act(offer(e), async () => {
    const s = offer(e);
    const { chatId } = await service.start(current, s.id);
    await addChat(chatId, s.title);
    suggestionStatus = "";
    changed();
    await open(chatId);
    $("timeline").focus();
  }),
);
$("suggestions").addEventListener("oda-draft", (e) =>
  act(offer(e), () => service.draft(current, e.detail.id), `Drafted “${offer(e).title}”.`),
);
$("suggestions").addEventListener("oda-dismiss", (e) =>
  act(offer(e), () => service.dismiss(current, e.detail.id), `Dismissed “${offer(e).title}”.`),
);
$("suggestions").addEventListener("oda-restore", (e) =>
  act(offer(e), () => service.restore(current, e.detail.id), `Restored “${offer(e).title}”.`),
);
$("suggestions").addEventListener("oda-open-chat", (e) => open(e.detail.chatId));

async function act(_s, fn, done) {
  try {
    await fn();
    if (done) suggestionStatus = done;
  } catch (e) {
    suggestionStatus = e.code ? `${e.code}: ${e.message}` : String(e.message ?? e);
  }
  changed();
  await render();
}

// ---------------------------------------------------------------------------
// The drive panel: turns, tool calls, the one-active rule, import and export.

async function appendTurn(type) {
  await store.append(current, [{ type, at: new Date().toISOString() }]);
  changed();
  await render();
}
$("turn-start").addEventListener("click", () => appendTurn("turn_started"));
$("turn-end").addEventListener("click", () => appendTurn("turn_ended"));

const oneActive = $("one-active");
oneActive.checked = localStorage.getItem("oda-preview:one-active") !== "off";
oneActive.addEventListener("change", () => localStorage.setItem("oda-preview:one-active", oneActive.checked ? "on" : "off"));

$("call").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("call-result").replaceChildren(); // the previous answer goes; the next one shows when the call is decided
  const name = new FormData($("call")).get("tool");
  let input;
  try {
    input = JSON.parse($("call-input").value);
  } catch (e) {
    return callResult("bad", "Not sent: the input is not JSON", e.message);
  }
  const r = await runTool(store, current, { name, input }, { oneActive: oneActive.checked });
  callResult(
    r.ok ? "ok" : "refused",
    r.ok ? "Recorded. The model sees:" : "Refused, nothing recorded. The model sees:",
    r.ok ? r.output : r.error,
  );
  if (r.ok) {
    changed();
    await render();
  }
});

function callResult(kind, label, text) {
  $("call-result").className = `call-result ${kind}`;
  $("call-result").replaceChildren(view.h("strong", { text: label }), view.h("pre", { className: "said", text }));
}

// Switching tools swaps the example in, unless the input was edited.
let template = "";
for (const radio of document.querySelectorAll('input[name="tool"]')) {
  radio.addEventListener("change", () => {
    if ($("call-input").value === "" || $("call-input").value === template) fillTemplate();
  });
}
$("call-template").addEventListener("click", () => fillTemplate());

/** An example input for the chosen tool: the current list with one more step, or a follow-up offer. */
function fillTemplate() {
  const name = new FormData($("call")).get("tool");
  const input =
    name === "todo_write"
      ? { todos: [...listNow, { content: `Step ${listNow.length + 1}`, status: "pending" }] }
      : {
          title: "Add upload metrics",
          tldr: "Counting retries would show whether the fix holds.",
          brief: "Add a retry counter to src/upload.ts.",
        };
  template = JSON.stringify(input, null, 2);
  $("call-input").value = template;
}

$("export").addEventListener("click", async () => {
  const log = current === null ? null : await store.read(current);
  if (log === null) return;
  const a = view.h("a", {
    href: URL.createObjectURL(new Blob([toJsonl(log)], { type: "application/jsonl" })),
    download: `${current}.jsonl`,
  });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
});

async function importFile(file) {
  const chatId = await importBytes(new Uint8Array(await file.arrayBuffer()), file.name);
  if (chatId !== null) await open(chatId);
}
$("import").addEventListener("change", async () => {
  const file = $("import").files?.[0];
  $("import").value = "";
  if (file) await importFile(file);
});

// Drag and drop a .jsonl file anywhere on the page.
const hasFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes("Files");
let dragDepth = 0;
document.addEventListener("dragenter", (e) => {
  if (!hasFiles(e)) return;
  e.preventDefault();
  dragDepth++;
  $("drop").hidden = false;
});
document.addEventListener("dragover", (e) => {
  if (hasFiles(e)) e.preventDefault();
});
document.addEventListener("dragleave", () => {
  if (--dragDepth <= 0) {
    dragDepth = 0;
    $("drop").hidden = true;
  }
});
document.addEventListener("drop", async (e) => {
  if (!hasFiles(e)) return;
  e.preventDefault();
  dragDepth = 0;
  $("drop").hidden = true;
  const file = e.dataTransfer.files[0];
  if (file) await importFile(file);
});

channel.addEventListener("message", () => render());

// ---------------------------------------------------------------------------
// Start-up: the chat the server was started with (imported once), or the one in the address.

await index.create(LIST, []);
const opening = await (await fetch("/opening.json")).json();
const bytes = new Uint8Array(await (await fetch(opening.url)).arrayBuffer());
const source = await sha256(bytes);
const known = (await chats()).find((c) => c.source === source);
const openingId = known?.chatId ?? (await importBytes(bytes, opening.name, source));
const wanted = location.hash.startsWith("#chat=") ? decodeURIComponent(location.hash.slice(6)) : null;
const list = await chats();
await open(list.some((c) => c.chatId === wanted) ? wanted : (openingId ?? list[0]?.chatId ?? null));
window.__preview = { ready: true };

async function sha256(value) {
  const digest = await crypto.subtle.digest("SHA-256", value);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
