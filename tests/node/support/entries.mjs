// Log entries the tests build chats from: a session of chat "c" (the fields
// `over` names replaced, in their place), an offer, and offers each made in a
// turn of its own.

/** A v1 session entry of a top-level chat in workspace "/w"; `over` replaces or adds fields. */
export function sessionEntry(over = {}) {
  return {
    type: "session",
    v: 1,
    chatId: "c",
    workspace: "/w",
    scheduledTaskFolder: false,
    agent: "top-level",
    settings: { permission: "auto" },
    ...over,
  };
}

/** A v1 `suggestion_offered` entry: tldr "Why <id>", brief "Do <id>.". */
export const offerEntry = (id, title) => ({ type: "suggestion_offered", v: 1, id, title, tldr: `Why ${id}`, brief: `Do ${id}.` });

/** Offers s1, s2 ... with these titles, each in a turn of its own. */
export const offerTurns = (titles) =>
  titles.flatMap((title, i) => [{ type: "turn_started" }, offerEntry(`s${i + 1}`, title), { type: "turn_ended" }]);
