// Chat logs of realistic shape for the benchmark: turns with the person's
// message, tool calls and results (the app's own entries), assistant
// messages, `todo_update`s of 5–30 items, offers and their settlements, as an
// agent's chat records them. Deterministic (seeded), written line by line.
import { createWriteStream } from "node:fs";
import { once } from "node:events";

export { prng } from "../prng.mjs";
import { prng } from "../prng.mjs";

const WORDS = (
  "the a to of and in is it for on with that this be as are by at from not or file test " +
  "function return value error build check config update fix add remove module import export type " +
  "store chat list task plan result input output log entry state read write append call tool run " +
  "é naïve café 日本 データ ✓ →"
).split(" ");

/** Text of about `n` characters from a small vocabulary (some non-ASCII, as real chats have). */
function text(rand, n) {
  const out = [];
  let len = 0;
  while (len < n) {
    const w = WORDS[Math.floor(rand() * WORDS.length)];
    out.push(w);
    len += w.length + 1;
  }
  return out.join(" ");
}

/** A length drawn from a log-normal around `median`, clamped to [min, max]. */
function length(rand, median, min, max) {
  const u = Math.max(rand(), 1e-9);
  const v = rand();
  const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  return Math.min(max, Math.max(min, Math.round(median * Math.exp(0.9 * normal))));
}

const STATUSES = ["pending", "in_progress", "completed"];

/**
 * Yields the entries of one chat of `count` entries. `maxOffers` caps the
 * chat's offers (the tool allows 10 a chat; 0 leaves room for calls).
 */
export function* chatEntries(count, { seed = 1, maxOffers = 10 } = {}) {
  const rand = prng(seed);
  let n = 0;
  let ts = 1_700_000_000_000;
  const stamp = () => (ts += Math.floor(rand() * 5000));
  const emit = (entry) => {
    n++;
    return entry;
  };
  yield emit({
    type: "session",
    v: 1,
    chatId: `bench-${seed}`,
    title: "Benchmark chat",
    workspace: "/home/dev/project",
    scheduledTaskFolder: false,
    agent: "top-level",
    settings: { preset: "default", model: "large", permission: "auto", sandbox: { network: false }, approval: "on-request" },
  });
  let todos = [];
  let offers = 0;
  const open = [];
  const dismissed = [];
  let turn = 0;
  while (n < count) {
    turn++;
    yield emit({ type: "turn_started", ts: stamp(), turn });
    if (n >= count) break;
    yield emit({ type: "message", v: 1, role: "user", text: text(rand, length(rand, 240, 10, 4000)), ts: stamp() });
    let offeredThisTurn = false;
    const steps = 2 + Math.floor(rand() * 12);
    for (let s = 0; s < steps && n < count; s++) {
      const r = rand();
      if (r < 0.45) {
        const id = `toolu_${turn}_${s}`;
        yield emit({
          type: "tool_use",
          id,
          name: rand() < 0.5 ? "read_file" : "bash",
          input: { path: `src/${text(rand, 12).replace(/ /g, "_")}.ts`, lines: [1, 200] },
          ts: stamp(),
        });
        if (n >= count) break;
        yield emit({ type: "tool_result", id, output: text(rand, length(rand, 300, 20, 12000)), ts: stamp() });
      } else if (r < 0.75) {
        yield emit({ type: "message", v: 1, role: "assistant", text: text(rand, length(rand, 260, 20, 6000)), ts: stamp() });
      } else if (r < 0.93) {
        todos = nextList(rand, todos);
        yield emit({ type: "todo_update", v: 1, todos, ts: stamp() });
      } else if (r < 0.97 && !offeredThisTurn && offers < maxOffers && open.length < 3) {
        offers++;
        offeredThisTurn = true;
        const id = `s${offers}`;
        open.push(id);
        yield emit({
          type: "suggestion_offered",
          v: 1,
          id,
          title: text(rand, 40).slice(0, 60),
          tldr: text(rand, 160).slice(0, 240),
          brief: text(rand, length(rand, 1200, 100, 4000)).slice(0, 4000),
          ts: stamp(),
        });
      } else if (open.length > 0 || dismissed.length > 0) {
        // The person settles an offer: start, draft, dismiss, or restore a dismissed one.
        const pick = rand();
        if (dismissed.length > 0 && (pick < 0.2 || open.length === 0) && open.length < 3) {
          const id = dismissed.shift();
          open.push(id);
          yield emit({ type: "suggestion_settled", v: 1, id, outcome: "restored", ts: stamp() });
        } else if (open.length > 0) {
          const id = open.shift();
          const outcome = pick < 0.5 ? "started" : pick < 0.7 ? "drafted" : "dismissed";
          if (outcome === "dismissed") dismissed.push(id);
          yield emit({
            type: "suggestion_settled",
            v: 1,
            id,
            outcome,
            ...(outcome === "started" ? { chatId: `bench-${seed}.${id}` } : {}),
            ts: stamp(),
          });
        }
      } else {
        yield emit({
          type: "app_event",
          kind: "usage",
          tokens: { input: Math.floor(rand() * 9e4), output: Math.floor(rand() * 4e3) },
          ts: stamp(),
        });
      }
    }
    if (n < count) yield emit({ type: "turn_ended", ts: stamp() });
  }
}

/** The agent's next list: usually progress on the last one, sometimes a new plan. */
function nextList(rand, prev) {
  if (prev.length === 0 || rand() < 0.15) {
    const size = 5 + Math.floor(rand() * 26);
    return Array.from({ length: size }, (_, i) => ({
      content: `${i + 1}. ${text(rand, length(rand, 50, 12, 140))}`,
      status: i === 0 ? "in_progress" : "pending",
    }));
  }
  const next = prev.map((item) => ({ ...item }));
  const active = next.findIndex((t) => t.status === "in_progress");
  if (active >= 0) next[active].status = "completed";
  const pending = next.findIndex((t) => t.status === "pending");
  if (pending >= 0) next[pending].status = "in_progress";
  if (rand() < 0.2 && next.length < 30) next.push({ content: `${next.length + 1}. ${text(rand, 40)}`, status: "pending" });
  if (rand() < 0.1 && next.length > 5) next.splice(Math.floor(rand() * next.length), 1);
  if (rand() < 0.1 && next.length > 2) next.unshift(...next.splice(next.length - 1, 1));
  // Keep texts unique, as the tool requires.
  const seen = new Set();
  return next
    .filter((t) => (seen.has(t.content) ? false : (seen.add(t.content), true)))
    .map((t) => ({ content: t.content, status: t.status ?? STATUSES[0] }));
}

/** The JSONL bytes of a chat of `count` entries. */
export function chatJsonl(count, options) {
  const lines = [];
  for (const entry of chatEntries(count, options)) lines.push(JSON.stringify(entry));
  return Buffer.from(lines.join("\n") + "\n", "utf8");
}

/** Writes a chat of `count` entries to `path` as JSONL, streaming; resolves to its size in bytes. */
export async function writeChatJsonl(path, count, options) {
  const out = createWriteStream(path);
  let bytes = 0;
  let batch = [];
  for (const entry of chatEntries(count, options)) {
    batch.push(JSON.stringify(entry));
    if (batch.length === 1000) {
      const chunk = batch.join("\n") + "\n";
      bytes += Buffer.byteLength(chunk);
      if (!out.write(chunk)) await once(out, "drain");
      batch = [];
    }
  }
  if (batch.length > 0) {
    const chunk = batch.join("\n") + "\n";
    bytes += Buffer.byteLength(chunk);
    out.write(chunk);
  }
  out.end();
  await once(out, "finish");
  return bytes;
}
