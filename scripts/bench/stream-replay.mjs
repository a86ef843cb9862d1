// Child process of the benchmark: replays one JSONL file by streaming it
// (createReadStream chunks into ChatState.ingestJsonl) and prints its peak
// memory as one JSON line. Run alone, so the peak is this replay's.
// Usage: node stream-replay.mjs <file> <cards: true|false|none>   (none: only load the package)
import { createReadStream, readFileSync } from "node:fs";
import { ChatState } from "oda-tasks";

const [file, mode = "false"] = process.argv.slice(2);
let entries = 0;
let answerBytes = 0;
if (mode !== "none") {
  const cards = mode === "true";
  const state = ChatState.empty({ cards });
  for await (const chunk of createReadStream(file)) state.ingestJsonl(chunk);
  const report = state.endJsonl();
  if (report.unreadable.length > 0 || report.tornBytes > 0) throw new Error(`unexpected: ${JSON.stringify(report)}`);
  entries = state.length;
  answerBytes += JSON.stringify(state.replaySuggestions()).length;
  // With cards: the first screen, then every card a page at a time (as a UI pages through them).
  if (cards) {
    answerBytes += JSON.stringify(state.view({ cards: 50 })).length;
    for (let from = 0; from < state.cardCount; from += 1000) answerBytes += JSON.stringify(state.cards(from, from + 1000)).length;
  }
  state.free();
}
const status = readFileSync("/proc/self/status", "utf8");
const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
console.log(
  JSON.stringify({
    entries,
    answerBytes,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    vmHwmMb: kb("VmHWM") / 1024,
  }),
);
