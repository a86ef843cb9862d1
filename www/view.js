// Rendering: a chat's log and its replays to DOM nodes. No state and no
// storage here; actions arrive as callbacks.

const STATUS = { pending: "Pending", in_progress: "In progress", completed: "Completed" };
const OUTCOME = { started: "Started", drafted: "Drafted", dismissed: "Dismissed" };

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

const hidden = (text) => h("span", { className: "visually-hidden", text });

/** A to-do item: state icon, the state in words for screen readers, the text, and any change marks. */
function todoItem(item, marks = []) {
  return h("li", { className: `todo s-${item.status}` }, icon(item.status),
    h("span", { className: "line" }, hidden(`${STATUS[item.status]}: `), h("span", { className: "text", text: item.content }),
      marks.length ? h("span", { className: "marks" }, marks) : null));
}

const mark = (kind, text) => h("span", { className: `mark ${kind}` }, icon(kind), text);

/** The chat's title, ids, workspace and the settings it runs with. */
export function chatHeader(chatId, log, onOpen) {
  const session = log.find((e) => e.type === "session");
  const s = session?.settings ?? {};
  const settings = ["preset", "model", "permission", "sandbox", "approval"]
    .filter((k) => s[k] !== undefined)
    .map((k) => h("li", {}, h("span", { className: "k", text: k }), " ", h("span", { text: typeof s[k] === "string" ? s[k] : JSON.stringify(s[k]) })));
  const origin = session?.origin;
  return [
    h("h2", { id: "chat-title", text: session?.title ?? chatId }),
    h("p", { className: "meta" },
      h("span", { text: `Chat ${chatId}` }),
      h("span", { text: session?.workspace ? `Workspace ${session.workspace}` : "No workspace" }),
      session?.agent === "helper" ? h("span", { text: "Helper agent" }) : null,
      session?.scheduledTaskFolder ? h("span", { text: "Scheduled task folder" }) : null),
    origin && settings.length ? h("p", { className: "inherited", text: "Runs with the settings it inherited from the offering chat:" }) : null,
    settings.length ? h("ul", { className: "settings", "aria-label": origin ? "Settings (inherited from the offering chat)" : "Settings" }, settings) : null,
    origin ? h("p", { className: "origin" }, icon("suggestion"), "Started from suggestion ", h("strong", { text: origin.suggestionId }),
      " of ", h("button", { type: "button", className: "link", text: `chat ${origin.chatId}`, onclick: () => onOpen(origin.chatId) })) : null,
  ].filter(Boolean);
}

/** The entries replay could not use, with why. */
export function skippedList(skipped) {
  if (skipped.length === 0) return [];
  return [
    h("h3", { id: "skipped-h" }, icon("warning"), `${skipped.length} ${skipped.length === 1 ? "entry" : "entries"} skipped by replay`),
    h("ul", {}, skipped.map((s) => h("li", { text: `Entry ${s.index}${s.type ? ` (${s.type})` : ""}: ${s.reason}` }))),
  ];
}

/** The timeline: every entry in order, an "Update to-do list" card for each recorded update. */
export function timeline(log, todos, skipped) {
  const cards = new Map(todos.cards.map((c, n) => [c.index, { card: c, n: n + 1 }]));
  const skip = new Map(skipped.map((s) => [s.index, s.reason]));
  let turn = 0;
  return log.map((entry, index) => {
    const why = skip.get(index);
    let node;
    if (why !== undefined) node = h("li", { className: "event skipped" }, icon("warning"), h("span", { text: `${entry?.type ?? "entry"} skipped: ${why}` }));
    else if (cards.has(index)) node = card(cards.get(index).card, cards.get(index).n, todos.cards.length);
    else if (entry.type === "session") node = h("li", { className: "event" }, h("span", { text: "Chat created" }));
    else if (entry.type === "turn_started") node = turnLine(`Turn ${++turn} started`, entry.at);
    else if (entry.type === "turn_ended") node = turnLine(`Turn ${turn} ended`, entry.at);
    else if (entry.type === "message") node = message(entry);
    else if (entry.type === "suggestion_offered") {
      node = h("li", { className: "event offer" }, icon("suggestion"),
        h("span", {}, "Suggested ", h("strong", { text: entry.title }), ` (${entry.id})`));
    } else if (entry.type === "suggestion_settled") {
      node = h("li", { className: "event" }, icon(entry.outcome === "restored" ? "suggestion" : entry.outcome),
        h("span", { text: `Suggestion ${entry.id} ${entry.outcome}${entry.chatId ? ` as chat ${entry.chatId}` : ""}` }));
    } else {
      const json = JSON.stringify(entry);
      node = h("li", { className: "event other" }, h("code", { text: entry.type }),
        h("span", { className: "json", text: json.length > 140 ? json.slice(0, 139) + "…" : json }));
    }
    node.dataset.index = String(index);
    return node;
  });
}

function turnLine(text, at) {
  return h("li", { className: "turn" }, h("span", { text }), typeof at === "string" ? h("time", { datetime: at, text: at.replace("T", " ").replace(/:\d\d(\.\d+)?Z$/, " UTC") }) : null);
}

function message(entry) {
  const fromSuggestion = entry.source?.kind === "suggestion";
  const who = fromSuggestion ? "From the suggestion" : entry.role === "user" ? "You" : entry.role === "assistant" ? "Agent" : entry.role;
  return h("li", { className: `msg ${fromSuggestion ? "from-suggestion" : entry.role === "user" ? "user" : "agent"}` },
    h("p", { className: "who" }, fromSuggestion ? icon("suggestion") : null, who,
      fromSuggestion ? h("span", { className: "src", text: ` ${entry.source.suggestionId} of chat ${entry.source.chatId}` }) : null),
    h("p", { className: "body", text: entry.text ?? "" }));
}

/** One "Update to-do list" card: the list sent, each item marked with what changed, removed items last. */
function card(c, n, total) {
  const { added, removed, statusChanged, moved } = c.changes;
  const addedSet = new Set(added.map((a) => a.content));
  const changed = new Map(statusChanged.map((s) => [s.content, s]));
  const movedBy = new Map(moved.map((m) => [m.content, m]));
  const id = `card-${c.index}`;
  const summary = [
    added.length && `${added.length} added`, removed.length && `${removed.length} removed`,
    statusChanged.length && `${statusChanged.length} state changed`, moved.length && `${moved.length} moved`,
  ].filter(Boolean).join(", ") || "no change";
  return h("li", { className: "card-entry" }, h("article", { className: "card", "aria-labelledby": id },
    h("header", {},
      h("h3", { id }, icon("completed"), "Update to-do list"),
      h("span", { className: "count", text: `${n} of ${total}${c.turn === null ? "" : ` · turn ${c.turn}`}` })),
    h("p", { className: "summary" },
      h("span", { text: `${c.counts.pending} pending · ${c.counts.inProgress} in progress · ${c.counts.completed} completed` }),
      h("span", { className: "changes", text: summary })),
    h("ul", { className: "todos" },
      c.todos.map((t) => {
        const marks = [];
        if (addedSet.has(t.content)) marks.push(mark("added", "Added"));
        const s = changed.get(t.content);
        if (s) marks.push(mark("changed", `${STATUS[s.from]} → ${STATUS[s.to]}`));
        const m = movedBy.get(t.content);
        if (m) marks.push(mark("moved", `Moved from ${m.from + 1} to ${m.to + 1}`));
        return todoItem(t, marks);
      }),
      removed.map((r) => h("li", { className: "todo removed" }, icon("removed"), h("span", { className: "line" }, hidden("Removed: "),
        h("del", { className: "text", text: r.content }), h("span", { className: "marks" }, mark("removed", "Removed"))))))));
}

/** The plan: running while its turn runs, the finished checklist after, cleared when the next turn starts. */
export function plan(todos) {
  const p = todos.plan;
  const state = p.state === "running" ? `Running · turn ${p.turn ?? "–"}`
    : p.state === "finished" ? `Finished · turn ${p.turn ?? "–"}`
    : todos.cards.length ? "Cleared: a new turn started" : "No plan yet";
  const c = { pending: 0, in_progress: 0, completed: 0 };
  for (const t of p.todos) c[t.status]++;
  return [
    h("h2", { id: "plan-h" }, "Plan"),
    h("p", { className: `plan-state ${p.state}`, "data-state": p.state }, icon(p.state), h("span", { text: state })),
    p.state === "none" ? null : h("p", { className: "plan-counts", text: `${c.completed} of ${p.todos.length} completed` }),
    p.state === "none" ? null : h("ul", { className: "todos", "aria-label": "Plan items" }, p.todos.map((t) => todoItem(t))),
  ].filter(Boolean);
}

/** Open suggestions (newest first) as chips with Start, Draft and Dismiss; settled ones in offer order. */
export function suggestions(replay, actions) {
  const { open, settled } = replay;
  return [
    h("h2", { id: "suggestions-h" }, "Suggestions"),
    h("p", { className: "counts", text: `${open.length} open · ${settled.length} settled` }),
    open.length ? h("ul", { className: "chips", "aria-label": "Open suggestions" }, open.map((s) => h("li", { className: "chip" },
      h("h3", {}, icon("suggestion"), h("span", { text: s.title })),
      h("p", { className: "tldr", text: s.tldr }),
      h("details", {}, h("summary", { text: "Brief" }), h("p", { className: "brief", text: s.brief })),
      h("div", { className: "chip-actions" },
        h("button", { type: "button", className: "primary", "aria-label": `Start: ${s.title}`, text: "Start", onclick: () => actions.start(s) }),
        h("button", { type: "button", "aria-label": `Draft: ${s.title}`, text: "Draft", onclick: () => actions.draft(s) }),
        h("button", { type: "button", "aria-label": `Dismiss: ${s.title}`, text: "Dismiss", onclick: () => actions.dismiss(s) }))))) : null,
    settled.length ? h("h3", { className: "sub", text: "Settled" }) : null,
    settled.length ? h("ul", { className: "settled", "aria-label": "Settled suggestions" }, settled.map((s) => h("li", { className: `settled-item o-${s.outcome}` },
      h("span", { className: "outcome" }, icon(s.outcome), OUTCOME[s.outcome]),
      h("span", { className: "title", text: s.title }),
      s.outcome === "dismissed" ? h("button", { type: "button", "aria-label": `Restore: ${s.title}`, text: "Restore", onclick: () => actions.restore(s) }) : null,
      s.outcome === "started" && s.chatId ? h("button", { type: "button", "aria-label": `Open the chat of: ${s.title}`, text: "Open chat", onclick: () => actions.open(s.chatId) }) : null))) : null,
    h("p", { id: "suggestion-status", className: "status", role: "status" }),
  ].filter(Boolean);
}

/** The list of chats, the open one marked. */
export function chatList(chats, current, onOpen) {
  return chats.map((c) => h("li", {}, h("button", {
    type: "button", className: "chat-link", "aria-current": c.chatId === current ? "page" : undefined, onclick: () => onOpen(c.chatId),
  }, h("span", { className: "title", text: c.title ?? c.chatId }), h("span", { className: "id", text: c.chatId }))));
}
