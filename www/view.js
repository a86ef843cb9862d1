// Rendering: a chat's entries, header and list of chats to DOM nodes; the
// cards, the plan and the suggestions are the package's elements
// (oda-tasks/elements). No state and no storage here; actions arrive as callbacks.
import "oda-tasks/elements";

/** Builds an element: `props` are properties (`text`, `className`, `on<event>`) or attributes (`aria-*`, others). */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") el.textContent = value;
    else if (key === "className") el.className = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

/** One of the page's icons (decorative: the text next to it says the same). */
export function icon(name) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", `icon i-${name}`);
  svg.setAttribute("aria-hidden", "true");
  const use = document.createElementNS("http://www.w3.org/2000/svg", "use");
  use.setAttribute("href", `#i-${name}`);
  svg.append(use);
  return svg;
}

/** The chat's title, ids, workspace and the settings it runs with. */
export function chatHeader(chatId, log, onOpen) {
  const session = log.find((e) => e.type === "session");
  const s = session?.settings ?? {};
  const settings = ["preset", "model", "permission", "sandbox", "approval"]
    .filter((k) => s[k] !== undefined)
    .map((k) =>
      h("li", {}, h("span", { className: "k", text: k }), " ", h("span", { text: typeof s[k] === "string" ? s[k] : JSON.stringify(s[k]) })),
    );
  const origin = session?.origin;
  return [
    h("h2", { id: "chat-title", text: session?.title ?? chatId }),
    h(
      "p",
      { className: "meta" },
      h("span", { text: `Chat ${chatId}` }),
      h("span", { text: session?.workspace ? `Workspace ${session.workspace}` : "No workspace" }),
      session?.agent === "helper" ? h("span", { text: "Helper agent" }) : null,
      session?.scheduledTaskFolder ? h("span", { text: "Scheduled task folder" }) : null,
    ),
    origin && settings.length
      ? h("p", { className: "inherited", text: "Runs with the settings it inherited from the offering chat:" })
      : null,
    settings.length
      ? h("ul", { className: "settings", "aria-label": origin ? "Settings (inherited from the offering chat)" : "Settings" }, settings)
      : null,
    origin
      ? h(
          "p",
          { className: "origin" },
          icon("suggestion"),
          "Started from suggestion ",
          h("strong", { text: origin.suggestionId }),
          " of ",
          h("button", { type: "button", className: "link", text: `chat ${origin.chatId}`, onclick: () => onOpen(origin.chatId) }),
        )
      : null,
  ].filter(Boolean);
}

/** The entries replay could not use, with why. */
export function skippedList(skipped) {
  if (skipped.length === 0) return [];
  return [
    h("h3", { id: "skipped-h" }, icon("warning"), `${skipped.length} ${skipped.length === 1 ? "entry" : "entries"} skipped by replay`),
    h(
      "ul",
      {},
      skipped.map((s) => h("li", { text: `Entry ${s.index}${s.type ? ` (${s.type})` : ""}: ${s.reason}` })),
    ),
  ];
}

/**
 * One entry of the timeline: an "Update to-do list" card (<oda-todo-card>)
 * for a recorded update, a line or a message for the rest. `ctx` holds the
 * page's cards by entry index, the skipped entries, and the turn count so far.
 */
export function entryNode(entry, index, ctx) {
  const why = ctx.skipped.get(index);
  const found = ctx.cards.get(index);
  let node;
  if (why !== undefined)
    node = h("li", { className: "event skipped" }, icon("warning"), h("span", { text: `${entry?.type ?? "entry"} skipped: ${why}` }));
  else if (found !== undefined) {
    const card = document.createElement("oda-todo-card");
    Object.assign(card, { card: found.card, position: found.n, total: ctx.total });
    node = h("li", { className: "card-entry" }, card);
  } else if (entry.type === "session") node = h("li", { className: "event" }, h("span", { text: "Chat created" }));
  else if (entry.type === "turn_started") node = turnLine(`Turn ${++ctx.turn} started`, entry.at);
  else if (entry.type === "turn_ended") node = turnLine(`Turn ${ctx.turn} ended`, entry.at);
  else if (entry.type === "message") node = message(entry);
  else if (entry.type === "suggestion_offered") {
    node = h(
      "li",
      { className: "event offer" },
      icon("suggestion"),
      h("span", {}, "Suggested ", h("strong", { text: entry.title }), ` (${entry.id})`),
    );
  } else if (entry.type === "suggestion_settled") {
    node = h(
      "li",
      { className: "event" },
      icon(entry.outcome === "restored" ? "suggestion" : entry.outcome),
      h("span", { text: `Suggestion ${entry.id} ${entry.outcome}${entry.chatId ? ` as chat ${entry.chatId}` : ""}` }),
    );
  } else {
    const json = JSON.stringify(entry);
    node = h(
      "li",
      { className: "event other" },
      h("code", { text: entry.type }),
      h("span", { className: "json", text: json.length > 140 ? json.slice(0, 139) + "…" : json }),
    );
  }
  node.dataset.index = String(index);
  return node;
}

function turnLine(text, at) {
  return h(
    "li",
    { className: "turn" },
    h("span", { text }),
    typeof at === "string" ? h("time", { datetime: at, text: at.replace("T", " ").replace(/:\d\d(\.\d+)?Z$/, " UTC") }) : null,
  );
}

function message(entry) {
  const fromSuggestion = entry.source?.kind === "suggestion";
  const who = fromSuggestion ? "From the suggestion" : entry.role === "user" ? "You" : entry.role === "assistant" ? "Agent" : entry.role;
  return h(
    "li",
    { className: `msg ${fromSuggestion ? "from-suggestion" : entry.role === "user" ? "user" : "agent"}` },
    h(
      "p",
      { className: "who" },
      fromSuggestion ? icon("suggestion") : null,
      who,
      fromSuggestion ? h("span", { className: "src", text: ` ${entry.source.suggestionId} of chat ${entry.source.chatId}` }) : null,
    ),
    h("p", { className: "body", text: entry.text ?? "" }),
  );
}

/** The list of chats, the open one marked. */
export function chatList(chats, current, onOpen) {
  return chats.map((c) =>
    h(
      "li",
      {},
      h(
        "button",
        {
          type: "button",
          className: "chat-link",
          "aria-current": c.chatId === current ? "page" : undefined,
          onclick: () => onOpen(c.chatId),
        },
        h("span", { className: "title", text: c.title ?? c.chatId }),
        h("span", { className: "id", text: c.chatId }),
      ),
    ),
  );
}
