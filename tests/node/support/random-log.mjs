// Seeded random chat logs for equivalence tests: every entry type the core
// reads, in good and odd shapes (newer versions, wrong types, repeated ids,
// settlements that do not fit, lone surrogates, non-objects), plus the app's
// own entries. All of them are JSON data, so the same log can be fed as
// objects or as JSONL bytes.

export { prng } from "../../../scripts/prng.mjs";
import { prng } from "../../../scripts/prng.mjs";

const TEXTS = ["a", "b", "c", " a ", "Write tests", "Écrire 🧪", "日本語", "x".repeat(300), "a\u0000b", "\uD800", "", "  "];
const IDS = ["s1", "s2", "s3", "s4", "s5", "s11", "\uFFFD"];
const STATUSES = ["pending", "in_progress", "completed", "pending", "in_progress", "done"];
const OUTCOMES = ["started", "drafted", "dismissed", "restored", "dismissed", "restored", "archived"];

/** A random log of up to `max` entries. */
export function randomLog(seed, max = 60) {
  const rand = prng(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const chance = (p) => rand() < p;
  const versioned = (entry) => {
    const r = rand();
    if (r < 0.7) return { ...entry, v: 1 };
    if (r < 0.85) return entry; // no `v`: read as v1
    return { ...entry, v: pick([2, 0, 1.5, "1", null]) };
  };
  const session = () => {
    const s = {
      type: "session",
      chatId: pick(["c", "p", "p.s1"]),
      workspace: chance(0.85) ? "/w" : null,
      scheduledTaskFolder: chance(0.1),
      agent: chance(0.85) ? "top-level" : pick(["helper", 5]),
      settings: chance(0.9)
        ? {
            preset: pick([undefined, "eng"]),
            model: "m",
            permission: pick(["ask", "auto", "full-access", "root"]),
            sandbox: { net: false },
          }
        : [],
    };
    if (chance(0.3)) s.origin = { chatId: "p", suggestionId: pick(["s1", "s2"]) };
    if (chance(0.3)) s.title = pick(TEXTS);
    return versioned(s);
  };
  const item = () => ({ content: pick(TEXTS), status: pick(STATUSES) });
  const entry = () => {
    const r = rand();
    if (r < 0.16) return { type: "turn_started", ...(chance(0.2) ? { at: "t", v: 99 } : {}) };
    if (r < 0.26) return { type: "turn_ended" };
    if (r < 0.44) {
      const todos = chance(0.95) ? Array.from({ length: Math.floor(rand() * 7) }, item) : pick([{}, "x", null]);
      return versioned({ type: "todo_update", todos });
    }
    if (r < 0.6) {
      const offer = { type: "suggestion_offered", id: pick(IDS), title: pick(TEXTS), tldr: "why", brief: "do it" };
      if (chance(0.05)) offer.title = 5;
      if (chance(0.05)) delete offer.brief;
      return versioned(offer);
    }
    if (r < 0.76) {
      const s = { type: "suggestion_settled", id: pick(IDS), outcome: pick(OUTCOMES) };
      if (s.outcome === "started" && chance(0.9)) s.chatId = `p.${s.id}`;
      return versioned(s);
    }
    if (r < 0.88) {
      const m = { type: "message", role: pick(["user", "user", "assistant", 5]), text: pick(TEXTS) };
      if (chance(0.3)) m.source = chance(0.9) ? { kind: "suggestion", chatId: "p", suggestionId: pick(["s1", "s2"]) } : { kind: "bot" };
      return chance(0.5) ? versioned(m) : m;
    }
    if (r < 0.93) return { type: pick(["tool_use", "app_event"]), data: { nested: [1, { a: pick(TEXTS) }] } };
    if (r < 0.96) return session();
    return pick([null, 3, "text", [1, 2], {}, { v: 1 }, { type: 7 }, true]);
  };
  const log = [];
  if (chance(0.8)) log.push(session());
  const count = Math.floor(rand() * max);
  while (log.length < count) log.push(entry());
  return log;
}

/** `list` cut at random places into pieces (some empty). */
export function randomPieces(rand, list) {
  const pieces = [];
  let at = 0;
  while (at < list.length) {
    const size = rand() < 0.1 ? 0 : 1 + Math.floor(rand() * Math.max(1, list.length / 3));
    pieces.push(list.slice(at, at + size));
    at += size;
  }
  if (rand() < 0.3) pieces.push(list.slice(list.length));
  return pieces;
}
