// A chat's log as a file: written one entry per line on export, and the chat
// id an imported file takes. Reading JSONL is the core's (readJsonl).

/** The log as JSONL text: one entry per line, each ending in a newline. */
export function toJsonl(entries) {
  return entries.map((e) => JSON.stringify(e) + "\n").join("");
}

/** A chat id for an imported log: its session's id, else the file's name, made safe for every store. */
export function chatIdFor(entries, fileName) {
  const session = entries.find((e) => e?.type === "session");
  const wanted = typeof session?.chatId === "string" && session.chatId !== "" ? session.chatId : fileName.replace(/\.jsonl$/i, "");
  const safe = wanted.replace(/[/\\\u0000-\u001f\u007f]/g, "-").slice(0, 180);
  return safe === "" || safe === "." || safe === ".." ? "imported" : safe;
}
