// A chat's log as a JSONL file: parsed strictly on import (one bad line and
// nothing is imported), written one entry per line on export.

/**
 * The entries of a JSONL text, or `{ error }` saying which line is wrong.
 * Every non-blank line must be a JSON object with a string `type`.
 */
export function parseChat(text) {
  const entries = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch (e) {
      return { error: `line ${i + 1} is not JSON (${e.message})` };
    }
    if (entry === null || typeof entry !== "object" || Array.isArray(entry) || typeof entry.type !== "string") {
      return { error: `line ${i + 1} is not a log entry: an entry is a JSON object with a string "type"` };
    }
    entries.push(entry);
  }
  if (entries.length === 0) return { error: "it holds no entries" };
  return { entries };
}

/** The log as JSONL text: one entry per line, each ending in a newline. */
export function toJsonl(entries) {
  return entries.map((e) => JSON.stringify(e) + "\n").join("");
}

/** A chat id for an imported log: its session's id, else the file's name, made safe for every store. */
export function chatIdFor(entries, fileName) {
  const session = entries.find((e) => e.type === "session");
  const wanted = typeof session?.chatId === "string" && session.chatId !== "" ? session.chatId : fileName.replace(/\.jsonl$/i, "");
  // eslint-disable-next-line no-control-regex
  const safe = wanted.replace(/[/\\\u0000-\u001f\u007f]/g, "-").slice(0, 180);
  return safe === "" || safe === "." || safe === ".." ? "imported" : safe;
}
