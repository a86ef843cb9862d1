// `npm run bench`: how fast the built package replays logs and answers tool
// calls, next to V8's JSON.parse and a plain-JavaScript replay of the same
// rules. Prints a table for people, then, as its last line, one JSON object
// for tools. Medians over repeated runs and ratios; it asserts no timing.
// Usage: npm run bench [-- --quick] [-- --only=replay,channels,calls,memory,collisions,cold] [-- --cold-before=<another build's index.node.js>] [-- --cold-node=<node binary>]   (--quick: fewer repeats, no 1M log)
// Timing by tinybench (each task's median over its iterations, after a warm-up).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { ChatState, ChatStateCache, MemoryStore, replaySuggestions, replayTodos, runTool, todoWrite } from "oda-tasks";
import { JsonlStore } from "oda-tasks/node";
import { chatEntries, chatJsonl, writeChatJsonl } from "./bench/generate.mjs";
import { forEachEntry, referenceFirstScreenJsonl, referenceReplayJsonl } from "./bench/reference.mjs";
import { wasmSizeProfile } from "./bench/wasm-size.mjs";
import { medians } from "./bench/medians.mjs";
import { ChatStateCore } from "../pkg/wasm/oda_tasks.js";
import { realmIntact } from "../pkg/dist/core/realm-guard.js";

const quick = process.argv.includes("--quick");
// `--only=replay,calls,memory`: run only those parts (sizes are always printed).
const only = process.argv
  .find((a) => a.startsWith("--only="))
  ?.slice(7)
  .split(",");
const part = (name) => only === undefined || only.includes(name);
const root = fileURLToPath(new URL("..", import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), "oda-bench-"));
const MB = 1024 * 1024;
const rows = [];
const out = {};

try {
  sizes();
  const logs = {};
  for (const [name, count] of [
    ["1k", 1_000],
    ["10k", 10_000],
    ["100k", 100_000],
  ]) {
    logs[name] = chatJsonl(count, { seed: count });
  }
  if (part("replay")) replays(logs);
  if (part("channels")) channels(logs["10k"]);
  if (part("calls")) await calls();
  if (part("memory")) await memory(logs);
  if (part("collisions")) collisions();
  if (part("cold")) coldStart();
  printTable();
  console.log(JSON.stringify(out));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------

function sizes() {
  const wasm = readFileSync(join(root, "pkg/wasm/oda_tasks_bg.wasm"));
  out.wasm_bytes = wasm.length;
  out.wasm_gzip_bytes = gzipSync(wasm, { level: 9 }).length;
  rows.push(["size", "pkg/wasm/oda_tasks_bg.wasm", `${wasm.length} B`, `gzip -9: ${out.wasm_gzip_bytes} B`, ""]);
  // Where the bytes go, from cargo's module before wasm-bindgen and wasm-opt (it still has names).
  let profile;
  try {
    profile = wasmSizeProfile(join(root, "target/wasm32-unknown-unknown/release/oda_tasks.wasm"));
  } catch {
    return; // not built here
  }
  const share = (b) => `${((100 * b) / profile.code).toFixed(1)}% of code`;
  rows.push([
    "size",
    "cargo's .wasm before wasm-opt: code / data / names and the rest",
    `${profile.code} B`,
    `${profile.data} B`,
    `${profile.total - profile.code - profile.data} B`,
  ]);
  for (const [crate, b] of profile.byCrate.slice(0, 6)) rows.push(["size", `  code of crate ${crate}`, `${b} B`, share(b), ""]);
  for (const [module, b] of profile.byModule.slice(0, 8)) rows.push(["size", `  code of ${module}`, `${b} B`, share(b), ""]);
}

function progress(what) {
  process.stderr.write(`bench: ${what}\n`);
}

function jsonParseLines(bytes) {
  let n = 0;
  forEachEntry(bytes, () => n++);
  return n;
}

function parsedLog(bytes) {
  const log = [];
  forEachEntry(bytes, (entry) => log.push(entry));
  return log;
}

function chunks(bytes, size) {
  const list = [];
  for (let at = 0; at < bytes.length; at += size) list.push(bytes.subarray(at, at + size));
  return list;
}

function replays(logs) {
  const runsOf = { "1k": quick ? 9 : 31, "10k": quick ? 5 : 15, "100k": quick ? 3 : 9 };
  for (const [name, bytes] of Object.entries(logs)) {
    progress(`replaying the ${name} log`);
    const runs = runsOf[name];
    const mb = bytes.length / MB;
    const rate = (ms) => mb / (ms / 1000);
    const pieces = chunks(bytes, 64 * 1024);
    const log = parsedLog(bytes);
    const state = ChatState.fromJsonl(bytes);
    const answerBytes = JSON.stringify(state.replayTodos()).length;
    const fullReplay = (input) => () => {
      const s = ChatState.fromJsonl(input);
      s.replayTodos();
      s.replaySuggestions();
      s.free();
    };
    const PAGE = 1000;
    const [parseMs, referenceMs, wholeMs, chunkedMs, foldMs, todosMs, noCardsMs, pureMs, openMs, refOpenMs, allCardsMs] = medians(runs, [
      () => jsonParseLines(bytes),
      () => referenceReplayJsonl(bytes),
      fullReplay(bytes),
      fullReplay(pieces),
      // Where the time goes: folding the bytes, and turning the answer into JS objects.
      () => ChatState.fromJsonl(bytes).free(),
      () => state.replayTodos(),
      () => {
        const s = ChatState.fromJsonl(bytes, { cards: false });
        s.replaySuggestions();
        s.free();
      },
      () => {
        replayTodos(log);
        replaySuggestions(log);
      },
      // The first screen: the fold and view({ cards: 50 }) into JS objects.
      () => {
        const s = ChatState.fromJsonl(bytes);
        s.view({ cards: 50 });
        s.free();
      },
      () => referenceFirstScreenJsonl(bytes, 50),
      // Every card, a page at a time.
      () => {
        const s = ChatState.fromJsonl(bytes);
        const count = s.cardCount;
        for (let from = 0; from < count; from += PAGE) s.cards(from, from + PAGE);
        s.free();
      },
    ]);
    state.free();
    const row = (what, ms) =>
      rows.push(["replay " + name, what, `${ms.toFixed(2)} ms`, `${rate(ms).toFixed(1)} MB/s`, `${(parseMs / ms).toFixed(2)}× JSON.parse`]);
    row("V8 JSON.parse, line by line (decode + split + parse)", parseMs);
    row("plain JS: JSON.parse + the same fold (list, cards, plan, offers)", referenceMs);
    row("ChatState.fromJsonl(bytes) + replayTodos() + replaySuggestions()", wholeMs);
    row("  the same, bytes in 64 KiB chunks", chunkedMs);
    row("  of which: the fold alone (fromJsonl, cards kept)", foldMs);
    row(`  of which: replayTodos() answer (${(answerBytes / MB).toFixed(1)} MB of JSON: serialise + JSON.parse)`, todosMs);
    row("ChatState.fromJsonl(bytes, { cards: false }) + replaySuggestions() (decisions only)", noCardsMs);
    row("pure replayTodos(log) + replaySuggestions(log) on parsed entries (parse not counted)", pureMs);
    row("first screen: ChatState.fromJsonl(bytes) + view({ cards: 50 })", openMs);
    row("first screen by plain JS (JSON.parse + fold, diffs only for the 50 cards shown)", refOpenMs);
    row(`every card: fromJsonl + cards(from, from + ${PAGE}) page by page`, allCardsMs);
    if (name === "100k") {
      const best = Math.min(wholeMs, chunkedMs);
      out.log_bytes_100k = bytes.length;
      out.json_parse_mb_s = round(rate(parseMs));
      out.reference_js_mb_s = round(rate(referenceMs));
      out.replay_mb_s = round(rate(best));
      out.replay_method = best === wholeMs ? "ChatState.fromJsonl(bytes)" : "ChatState.fromJsonl(64 KiB chunks)";
      out.replay_vs_json_parse = round(parseMs / best, 3);
      out.replay_vs_reference_js = round(referenceMs / best, 3);
      out.fold_mb_s = round(rate(foldMs));
      out.replay_todos_answer_ms = round(todosMs);
      out.fold_vs_json_parse = round(parseMs / foldMs, 3);
      out.open_vs_json_parse = round(parseMs / openMs, 3);
      out.open_vs_reference_js = round(refOpenMs / openMs, 3);
      out.all_cards_vs_reference_js = round(referenceMs / allCardsMs, 3);
      out.open_ms_100k = round(openMs, 2);
    }
  }
}

// ---------------------------------------------------------------------------

/**
 * Each answer's two channels on the 10k chat, through the glue: JSON text +
 * JSON.parse, and a value built by serde-wasm-bindgen (what ChatState takes
 * while the realm guard holds); then the guard's own cost per call.
 */
function channels(bytes) {
  progress("the answers' channels on the 10k log");
  const core = new ChatStateCore(true);
  core.ingestJsonl(bytes);
  core.endJsonl();
  const parse = JSON.parse;
  const kinds = [
    ["view", "view({ cards: 50 })", () => parse(core.view(50)), () => core.viewValue(50)],
    ["cards", "cards(0, 1000)", () => parse(core.cards(0, 1000)), () => core.cardsValue(0, 1000)],
    ["replay_todos", "replayTodos()", () => parse(core.replayTodos()), () => core.replayTodosValue()],
    ["replay_suggestions", "replaySuggestions()", () => parse(core.replaySuggestions()), () => core.replaySuggestionsValue()],
    ["list_state", "listState()", () => parse(core.listState()), () => core.listStateValue()],
  ];
  const runs = quick ? 9 : 31;
  for (const [key, what, text, value] of kinds) {
    if (JSON.stringify(text()) !== JSON.stringify(value())) throw new Error(`bench: the channels of ${what} answer differently`);
    const [textMs, valueMs] = medians(runs, [text, value]);
    rows.push([
      "channel 10k",
      what,
      `text ${fmtUs(textMs * 1000)}`,
      `value ${fmtUs(valueMs * 1000)}`,
      `value ${(textMs / valueMs).toFixed(2)}× text`,
    ]);
    out[`channel_value_vs_text_${key}`] = round(textMs / valueMs, 3);
  }
  core.free();
  const n = 200_000;
  const [guardMs] = medians(quick ? 5 : 11, [
    () => {
      let intact = 0;
      for (let i = 0; i < n; i++) intact += realmIntact() ? 1 : 0;
      if (intact !== n) throw new Error("bench: the realm guard does not hold in the bench's own realm");
    },
  ]);
  out.realm_guard_ns_per_call = round((guardMs * 1e6) / n, 0);
  rows.push(["channel 10k", "the realm guard, per call", `${out.realm_guard_ns_per_call} ns`, "", `${n} calls`]);
}

// ---------------------------------------------------------------------------

/** A 20-item list for the n-th call, so each call changes something. */
function twentyItems(n) {
  return {
    todos: Array.from({ length: 20 }, (_, i) => ({
      content: `Step ${i + 1} of the bench plan, round ${n}`,
      status: i < n % 20 ? "completed" : i === n % 20 ? "in_progress" : "pending",
    })),
  };
}

function offer(n) {
  return {
    title: `Follow-up ${n}: add retries to uploads`,
    tldr: "Uploads fail on flaky networks; retries with backoff would fix most of them.",
    brief: "In src/upload.ts, wrap the PUT in a retry loop with exponential backoff (3 tries). ".repeat(8),
  };
}

/**
 * Times `runTool` calls on warm chats of 10 and 100k entries. Every timed
 * call is accepted and appends. A chat allows 10 offers in its life, so
 * `suggest_task` rounds use several copies of each chat; between two offers
 * the host (untimed) dismisses the last one and starts a new turn, as a
 * chat does between turns, and the next call reads those entries.
 */
async function calls() {
  const copies = quick ? 1 : 3;
  const perCopy = 10;
  const SIZES = [
    ["10", 10],
    ["100k", 100_000],
  ];
  for (const [label, makeStore] of [
    ["JsonlStore", (dir) => new JsonlStore(dir)],
    ["MemoryStore", () => new MemoryStore()],
  ]) {
    // Every chat is written and warmed first, then the calls on the two sizes
    // are timed in turn, so both meet the same disk (the 100k chats' 45 MB
    // writes would otherwise still be flushing during their calls alone).
    const chats = [];
    for (const [sizeName, count] of SIZES) {
      progress(`runTool calls on ${label}: writing the chats of ${sizeName} entries`);
      const store = makeStore(join(tmp, `calls-${label}-${sizeName}`));
      const cache = new ChatStateCache(store, { size: 8 });
      const base = [...chatEntries(count, { seed: 42, maxOffers: 0 })];
      for (let c = 0; c < copies; c++) {
        const chatId = `chat-${sizeName}-${c}`;
        await store.create(chatId, base);
        // Warm up: the first call reads the whole chat into the cache (untimed).
        const warm = await runTool(store, chatId, { name: "todo_write", input: twentyItems(0) }, { cache });
        if (!warm.ok) throw new Error(warm.error);
        chats.push({ sizeName, copy: c, store, cache, chatId, length: base.length + 1 });
      }
    }
    progress(`runTool calls on ${label}, the two sizes in turn`);
    const results = Object.fromEntries(SIZES.map(([sizeName]) => [sizeName, { todo_write: [], suggest_task: [] }]));
    for (let n = 1; n <= perCopy; n++) {
      for (let c = 0; c < copies; c++) {
        for (const chat of chats.filter((x) => x.copy === c)) {
          const { store, cache, chatId } = chat;
          chat.length = await store.append(
            chatId,
            [
              ...(n > 1 ? [{ type: "suggestion_settled", v: 1, id: `s${n - 1}`, outcome: "dismissed" }] : []),
              { type: "turn_ended" },
              { type: "turn_started" },
            ],
            chat.length,
          );
          for (const [tool, input] of [
            ["todo_write", twentyItems(n)],
            ["suggest_task", offer(n)],
          ]) {
            const t = performance.now();
            const r = await runTool(store, chatId, { name: tool, input }, { cache });
            results[chat.sizeName][tool].push((performance.now() - t) * 1000);
            if (!r.ok) throw new Error(`${tool} on ${chatId} refused: ${r.error}`);
            chat.length++;
          }
        }
      }
    }
    for (const [sizeName] of SIZES) {
      // One call on a cold cache, for comparison: it reads the whole chat.
      const { store, cache } = chats.find((x) => x.sizeName === sizeName);
      const coldCache = new ChatStateCache(store, { size: 1 });
      const t = performance.now();
      await runTool(store, `chat-${sizeName}-0`, { name: "todo_write", input: twentyItems(99) }, { cache: coldCache });
      results[sizeName].cold = (performance.now() - t) * 1000;
      coldCache.clear();
      cache.clear();
    }
    let worst = null;
    for (const tool of ["todo_write", "suggest_task"]) {
      const p50 = {};
      for (const sizeName of ["10", "100k"]) {
        const sorted = [...results[sizeName][tool]].sort((a, b) => a - b);
        p50[sizeName] = sorted[Math.floor(sorted.length / 2)];
        const p90 = sorted[Math.floor(sorted.length * 0.9)];
        rows.push([
          `call ${label}`,
          `${tool}, warm chat of ${sizeName} entries`,
          `p50 ${fmtUs(p50[sizeName])}`,
          `p90 ${fmtUs(p90)}`,
          `${sorted.length} calls`,
        ]);
      }
      const ratio = p50["100k"] / p50["10"];
      rows.push([`call ${label}`, `${tool}: 100k vs 10`, `ratio ${ratio.toFixed(2)}`, "", ""]);
      if (label === "JsonlStore") {
        out[`call_us_p50_10_${tool}`] = round(p50["10"]);
        out[`call_us_p50_100k_${tool}`] = round(p50["100k"]);
        out[`call_ratio_${tool}`] = round(ratio, 3);
        if (worst === null || ratio > worst.ratio) worst = { ratio, p50, tool };
      } else {
        out[`memory_store_call_ratio_${tool}`] = round(ratio, 3);
      }
    }
    for (const sizeName of ["10", "100k"]) {
      rows.push([`call ${label}`, `todo_write, cold cache, chat of ${sizeName} entries`, fmtUs(results[sizeName].cold), "", "1 call"]);
    }
    if (worst !== null) {
      out.call_us_p50_10 = round(worst.p50["10"]);
      out.call_us_p50_100k = round(worst.p50["100k"]);
      out.call_ratio_100k_vs_10 = round(worst.ratio, 3);
      out.call_ratio_tool = worst.tool;
    }
  }
}

function fmtUs(us) {
  return us >= 10_000 ? `${(us / 1000).toFixed(1)} ms` : `${us.toFixed(0)} µs`;
}

// ---------------------------------------------------------------------------

/** Peak memory of a streamed replay, each in a fresh child process. */
async function memory(logs) {
  const file10k = join(tmp, "chat-10k.jsonl");
  writeFileSync(file10k, logs["10k"]);
  const files = [["10k", file10k]];
  if (!quick) {
    const file1m = join(tmp, "chat-1m.jsonl");
    progress("writing the 1M log");
    const t = performance.now();
    await writeChatJsonl(file1m, 1_000_000, { seed: 1_000_000 });
    rows.push([
      "generate",
      "1M entries, streamed to a temp file",
      `${((performance.now() - t) / 1000).toFixed(1)} s`,
      `${(statSync(file1m).size / MB).toFixed(0)} MB`,
      "",
    ]);
    files.push(["1m", file1m]);
  }
  const child = (file, mode) => {
    const text = execFileSync(process.execPath, [join(root, "scripts/bench/stream-replay.mjs"), file, mode], { encoding: "utf8" });
    return JSON.parse(text.trim().split("\n").pop());
  };
  const floor = child(file10k, "none");
  rows.push(["stream RSS", "node + the package loaded, no replay", `${floor.maxRssMb.toFixed(1)} MB`, "", ""]);
  for (const [name, file] of files) {
    const mb = statSync(file).size / MB;
    progress(`streamed replay of the ${name} log in child processes`);
    for (const mode of ["false", "true"]) {
      const t = performance.now();
      const r = child(file, mode);
      const secs = (performance.now() - t) / 1000;
      rows.push([
        "stream RSS",
        `${name}: createReadStream → ingestJsonl, cards: ${mode}`,
        `peak ${r.maxRssMb.toFixed(1)} MB`,
        `${mb.toFixed(0)} MB file`,
        `${(mb / secs).toFixed(0)} MB/s incl. process start`,
      ]);
      if (mode === "false") out[`stream_peak_rss_mb_${name}`] = round(r.maxRssMb);
      else out[`stream_peak_rss_mb_${name}_cards`] = round(r.maxRssMb);
    }
  }
  if (out.stream_peak_rss_mb_1m !== undefined) {
    out.stream_rss_ratio_1m_vs_10k = round(out.stream_peak_rss_mb_1m / out.stream_peak_rss_mb_10k, 3);
  }
}

// ---------------------------------------------------------------------------

/**
 * A crafted list: 18,000 16-character items chosen to be expensive for the
 * structure that holds them. The core finds texts by hash in trees, and texts
 * whose hash an earlier one has in a tree of texts, whose worst case is long
 * shared prefixes, so these share their first 8 characters and differ only at
 * the end; against 18,000 ordinary texts.
 */
function collisions() {
  progress("todo_write with 18,000 crafted and 18,000 ordinary items");
  const crafted = Array.from({ length: 18_000 }, (_, i) => ({ content: `collide-${i.toString(36).padStart(7, "0")}`, status: "pending" }));
  const plain = Array.from({ length: 18_000 }, (_, i) => ({
    content: `${(i * 7919).toString(16)} step ${i}`.slice(0, 16).padEnd(16, "."),
    status: "pending",
  }));
  const log = [{ type: "session", workspace: "/w", agent: "top-level" }, { type: "turn_started" }];
  const runs = quick ? 3 : 9;
  const [craftedMs, plainMs, replayCraftedMs] = medians(runs, [
    () => todoWrite(log, { todos: crafted }, { maxInputLength: 4 << 20 }),
    () => todoWrite(log, { todos: plain }, { maxInputLength: 4 << 20 }),
    () => {
      const entry = (items) => ({ type: "todo_update", v: 1, todos: items });
      const s = ChatState.fromLog([...log, entry(crafted), entry([...crafted].reverse())]);
      s.view({ cards: 2 });
      s.free();
    },
  ]);
  rows.push(["collisions", "todo_write, 18,000 crafted 16-char items", `${craftedMs.toFixed(1)} ms`, "", ""]);
  rows.push([
    "collisions",
    "todo_write, 18,000 ordinary 16-char items",
    `${plainMs.toFixed(1)} ms`,
    `ratio ${(craftedMs / plainMs).toFixed(2)}`,
    "",
  ]);
  rows.push(["collisions", "a chat of two crafted updates: fold + view({ cards: 2 })", `${replayCraftedMs.toFixed(1)} ms`, "", ""]);
  out.todo_write_18k_crafted_ms = round(craftedMs, 2);
  out.todo_write_18k_plain_ms = round(plainMs, 2);
  out.todo_write_18k_crafted_vs_plain = round(craftedMs / plainMs, 3);
  out.replay_two_crafted_updates_ms = round(replayCraftedMs, 2);
}

/**
 * A cold start as a serverless function or a CLI run pays it: in 20 fresh
 * Node processes, `await import("oda-tasks")` plus the first todoWrite, next
 * to the plain-JavaScript replay (scripts/bench/reference.mjs) imported and
 * called once, the processes alternating. Wall time inside each process, whose
 * main module is a file (as an app's is: its ESM loader is up, which a
 * `node -e` script's first import would pay for, 4-5 ms here). The wasm floor
 * is what any package that ships this .wasm pays, with no host layer at all.
 * `--cold-before=<entry.js>` adds another build's Node entry to the rounds,
 * imported as "oda-tasks" too (its package resolved from a folder of its own);
 * `--cold-node=<node binary>` runs the probes on another Node (tests/runtimes has 22 and 24);
 * from Node 22.1 on, ours also runs with Node's compile cache.
 */
function coldStart() {
  const probe = (load) => `const t0 = performance.now(); ${load} process.stdout.write(String(performance.now() - t0));`;
  const call = (entry) =>
    probe(`const { todoWrite } = await import(${JSON.stringify(entry)}); todoWrite([], { todos: [{ content: "a", status: "pending" }] });`);
  const reference = JSON.stringify(new URL("./bench/reference.mjs", import.meta.url).href);
  const scripts = {
    ours: call("oda-tasks"),
    plain: probe(
      `const { referenceReplayJsonl } = await import(${reference}); referenceReplayJsonl(Buffer.from('{"type":"todo_update","v":1,"todos":[{"content":"a","status":"pending"}]}\\n'));`,
    ),
  };
  // The floor under any host layer: wasm-bindgen's glue, the .wasm read, compiled and instantiated,
  // and the same first call made on the glue itself (the answer checked, so it did the same work).
  const wasmFile = join(root, "pkg/wasm/oda_tasks_bg.wasm");
  const glue = JSON.stringify(pathToFileURL(join(root, "pkg/wasm/oda_tasks.js")).href);
  const params = JSON.stringify('{"input":{"todos":[{"content":"a","status":"pending"}]},"options":{}}');
  scripts.floor = probe(
    `const glue = await import(${glue}); glue.initSync({ module: process.getBuiltinModule("node:fs").readFileSync(${JSON.stringify(wasmFile)}) }); if (!glue.todoWriteCall(true, ${params})[0].startsWith('{"ok":true')) throw new Error("the floor's call was refused");`,
  );
  // `new WebAssembly.Module` alone, the first in the process, of the shipped bytes (read before the clock starts).
  const compile = (wasm) =>
    `import { readFileSync } from "node:fs"; const bytes = readFileSync(${JSON.stringify(wasm)}); const t0 = performance.now(); new WebAssembly.Module(bytes); process.stdout.write(String(performance.now() - t0));`;
  scripts.compile = compile(wasmFile);
  const before = process.argv.find((a) => a.startsWith("--cold-before="))?.slice(14);
  const beforePackage = before && resolve(dirname(before), "../..");
  if (before) {
    scripts.before = call("oda-tasks"); // resolved from a folder of its own to that build (below), as ours is
    scripts.compileBefore = compile(join(beforePackage, "wasm/oda_tasks_bg.wasm"));
  }
  // Inside the repository, so that "oda-tasks" resolves as in an app.
  const dir = mkdtempSync(join(root, "target", "cold-start-"));
  if (before) {
    mkdirSync(join(dir, "before", "node_modules"), { recursive: true });
    symlinkSync(beforePackage, join(dir, "before", "node_modules", "oda-tasks"), "dir");
  }
  const files = Object.fromEntries(
    Object.entries(scripts).map(([k, script]) => {
      const file = join(dir, k === "before" ? "before" : "", `${k}.mjs`);
      writeFileSync(file, script);
      return [k, file];
    }),
  );
  const node = process.argv.find((a) => a.startsWith("--cold-node="))?.slice(12) ?? process.execPath;
  out.cold_start_node = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
  // Node >= 22.1 keeps compiled JS across processes where NODE_COMPILE_CACHE names a folder (an app's choice).
  const [major, minor] = out.cold_start_node.slice(1).split(".").map(Number);
  const cache = major > 22 || (major === 22 && minor >= 1) ? join(dir, "compile-cache") : undefined;
  if (cache !== undefined) files.cached = files.ours;
  const env = (k) => (k === "cached" ? { ...process.env, NODE_COMPILE_CACHE: cache } : { ...process.env, NODE_COMPILE_CACHE: "" });
  const once = (k) => Number(execFileSync(node, [files[k]], { cwd: root, encoding: "utf8", env: env(k) }));
  const runs = Object.fromEntries(Object.keys(files).map((k) => [k, []]));
  try {
    if (cache !== undefined) once("cached"); // fills the cache
    for (let i = 0; i < 20; i++) for (const k in files) runs[k].push(once(k));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const median = (list) => {
    const s = [...list].sort((a, b) => a - b);
    return round((s[9] + s[10]) / 2, 2);
  };
  /** Sets `out[key]` to the median of `runs[k]` and prints it as a row. */
  const report = (key, k, label, extra = "") => {
    out[key] = median(runs[k]);
    rows.push(["cold start", label, `${out[key]} ms`, extra, ""]);
  };
  report("cold_start_ms", "ours", 'fresh node: await import("oda-tasks") + first todoWrite (median of 20)');
  out.cold_start_vs_plain_import = round(out.cold_start_ms / median(runs.plain), 2);
  report(
    "cold_start_plain_import_ms",
    "plain",
    "fresh node: import the plain-JS replay + first call (median of 20)",
    `ratio ${out.cold_start_vs_plain_import}`,
  );
  if (cache !== undefined)
    report("cold_start_compile_cache_ms", "cached", "the same with Node's compile cache (NODE_COMPILE_CACHE, filled by one run before)");
  report(
    "cold_start_wasm_floor_ms",
    "floor",
    "fresh node: the glue alone + read, compile, instantiate the .wasm + the same first call (no host layer; median of 20)",
  );
  // The host layer's share of a cold start: ours over the floor, both medians of the same alternating processes.
  out.cold_start_vs_wasm_floor = round(out.cold_start_ms / out.cold_start_wasm_floor_ms, 2);
  rows.push(["cold start", "ours / the wasm floor (target <= 1.6)", `${out.cold_start_vs_wasm_floor}`, "", ""]);
  report("wasm_compile_ms", "compile", "fresh node: new WebAssembly.Module of the shipped .wasm (median of 20)");
  if (before) {
    report("cold_start_before_ms", "before", `fresh node: the same with ${before}`);
    report("wasm_compile_before_ms", "compileBefore", "fresh node: new WebAssembly.Module of its .wasm");
  }
}

function round(x, digits = 1) {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function printTable() {
  out.date = new Date().toISOString();
  out.node = process.version;
  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => String(r[i]).length)));
  let group = "";
  for (const r of rows) {
    if (r[0] !== group) {
      console.log("");
      group = r[0];
    }
    console.log(
      r
        .map((cell, i) => String(cell).padEnd(widths[i]))
        .join("  ")
        .trimEnd(),
    );
  }
  console.log("");
  const measured = (...keys) => keys.every((k) => out[k] !== undefined);
  const at = (key, test) => (measured(key) ? test(out[key]) : null);
  const targets = [
    ["fold_vs_json_parse >= 2.0", at("fold_vs_json_parse", (x) => x >= 2.0)],
    ["open_vs_json_parse >= 2.0", at("open_vs_json_parse", (x) => x >= 2.0)],
    ["open_vs_reference_js >= 2.0", at("open_vs_reference_js", (x) => x >= 2.0)],
    ["all_cards_vs_reference_js >= 1.0", at("all_cards_vs_reference_js", (x) => x >= 1.0)],
    ["stream_peak_rss_mb_1m_cards <= 256", at("stream_peak_rss_mb_1m_cards", (x) => x <= 256)],
    ["wasm_gzip_bytes <= 125000", out.wasm_gzip_bytes <= 125_000],
    ["cold_start_ms <= 1.6 × cold_start_wasm_floor_ms", at("cold_start_vs_wasm_floor", (x) => x <= 1.6)],
    ["todo_write_18k_crafted_vs_plain <= 2", at("todo_write_18k_crafted_vs_plain", (x) => x <= 2)],
    ["call_ratio_100k_vs_10 <= 1.2", at("call_ratio_100k_vs_10", (x) => x <= 1.2)],
    [
      "stream_peak_rss_mb_1m <= 1.5 × stream_peak_rss_mb_10k",
      measured("stream_peak_rss_mb_1m", "stream_peak_rss_mb_10k") ? out.stream_peak_rss_mb_1m <= 1.5 * out.stream_peak_rss_mb_10k : null,
    ],
  ];
  for (const [what, met] of targets) console.log(`target ${what}: ${met === null ? "not measured in this run" : met ? "met" : "NOT met"}`);
}
