// Type tests for the public API: `tsc --noEmit -p tests/types` must pass.
// Each `@ts-expect-error` line must fail to type-check, or tsc reports it.
import {
  ChatState,
  checkGoal,
  clampPermission,
  init,
  planStart,
  replaySuggestions,
  replayTodos,
  settleSuggestion,
  startedChat,
  suggestTask,
  suggestTaskTool,
  todoWrite,
  todoWriteTool,
} from "oda-tasks";
import type {
  JsonlReport,
  TodoReplay,
  Log,
  LogEntry,
  PlanState,
  SuggestionSettledEntry,
  TodoCard,
  TodoItem,
  TodoStatus,
  TodoUpdateEntry,
  ToolDefinition,
} from "oda-tasks";

// No `any` anywhere in the exported functions' parameters or results.
type IsAny<T> = 0 extends 1 & T ? true : false;
type AnyIn<T extends readonly unknown[]> = true extends { [I in keyof T]: IsAny<T[I]> }[number] ? true : false;
type Api = typeof import("oda-tasks");
type WithAny = {
  [K in keyof Api]: Api[K] extends (...args: infer P) => infer R
    ? AnyIn<P> extends true
      ? K
      : IsAny<R> extends true
        ? K
        : never
    : IsAny<Api[K]> extends true
      ? K
      : never;
}[keyof Api];
const noAny: [WithAny] extends [never] ? true : false = true;
void noAny;

await init();
const log: LogEntry[] = [{ type: "session", chatId: "c", workspace: "/w", agent: "top-level" }, { type: "turn_started" }];

const r = todoWrite(log, { todos: [{ content: "a", status: "in_progress" }] });
if (r.ok) {
  const entry: TodoUpdateEntry = r.entry;
  const output: string = r.output;
  log.push(entry);
  void output;
} else {
  const error: string = r.error;
  void error;
  // @ts-expect-error a refusal has no entry
  void r.entry;
}
todoWrite(null, { todos: [] }, { oneActive: false });
// The model's input is `unknown`, as SDKs hand it over: the core checks it, not the compiler.
const fromSdk: unknown = JSON.parse('{"todos":[]}');
todoWrite(log, fromSdk);
suggestTask(log, fromSdk, { maxInputLength: 65536 });
// @ts-expect-error the input limit is a number
suggestTask(log, fromSdk, { maxInputLength: "big" });
// @ts-expect-error oneActive is a boolean
todoWrite(log, { todos: [] }, { oneActive: "yes" });

const replay = replayTodos(log);
const items: TodoItem[] = replay.todos;
const cards: TodoCard[] = replay.cards;
const state: PlanState = replay.plan.state;
const status: TodoStatus | undefined = cards[0]?.changes.statusChanged[0]?.to;
const turn: number | null = replay.plan.turn;
void items, state, status, turn;
// @ts-expect-error replay needs a log (null means "no session" only for tool calls)
replayTodos(null);

const offer = suggestTask(log, { title: "t", tldr: "why", brief: "do" });
if (offer.ok) log.push(offer.entry);
// A ChatState answers the same questions from a state kept in WASM.
const chatState = ChatState.fromLog(log, { cards: true });
const stateLength: number = chatState.length;
chatState.ingest(stateLength, [{ type: "turn_ended" }]);
const fromState: TodoReplay = chatState.replayTodos();
const jsonl: JsonlReport = ChatState.fromJsonl(new Uint8Array()).endJsonl();
chatState.free();
void fromState, jsonl;
// @ts-expect-error ingest continues at a number, from the state's length
chatState.ingest("0", []);

const { open, settled } = replaySuggestions(log);
const firstId: string | undefined = open[0]?.id;
const outcome: "started" | "drafted" | "dismissed" | undefined = settled[0]?.outcome;
void firstId, outcome;

const d = settleSuggestion(log, "s1", "dismiss");
if (d.ok) {
  const e: SuggestionSettledEntry | null = d.entry;
  void e;
} else if (d.code === "task-suggestion/not-open") {
  const had: "started" | "drafted" | "dismissed" = d.outcome;
  void had;
} else if (d.code === "task-suggestion/open-limit") {
  const limit: number = d.limit;
  void limit;
}
// @ts-expect-error start is planned with planStart
settleSuggestion(log, "s1", "start");

const p = planStart(log, "c", "s1", { permission: "ask" }, ["read-only", "ask"]);
if (p.ok && p.kind === "create") log.push(p.settled);
planStart(log, "c", "s1");
const s: "missing" | "needs_brief" | "complete" | "foreign" = startedChat(null, "c", "s1");
const perm: string = clampPermission("full-access", "ask");
const g = checkGoal(log, "complete");
if (!g.ok) void g.error;
void s, perm;

const tools: ToolDefinition[] = [todoWriteTool, suggestTaskTool];
const name: "todo_write" = todoWriteTool.name;
void tools, name;
const frozen: Log = log;
// @ts-expect-error a Log is read-only to the core
frozen.push({ type: "turn_ended" });

// The host layer.
import { ConflictError, MemoryStore, runTool, StoreError, SuggestionError, SuggestionService } from "oda-tasks";
import type { Store, TelemetryOptions, ToolCall, ToolResult } from "oda-tasks";
import { readFrom } from "oda-tasks";
import { JsonlStore } from "oda-tasks/node";
import { IndexedDbStore } from "oda-tasks/browser";

const stores: Store[] = [new MemoryStore(), new JsonlStore("/tmp/oda-types"), new IndexedDbStore("oda")];
const store: Store = stores[0]!;
const call: ToolCall = { name: "todo_write", input: { todos: [] } };
const result: ToolResult = await runTool(store, "c", call, { oneActive: false });
if (result.ok) void result.output.length;
// @ts-expect-error only the package's two tools
await runTool(store, "c", { name: "bash", input: {} });
// The call's span: the model's id of the call, and what the span records.
const telemetry: TelemetryOptions = { recordContent: true };
await runTool(store, "c", { name: "todo_write", input: { todos: [] }, id: "call-1" }, { telemetry });
await runTool(store, "c", call, { telemetry: false });
// @ts-expect-error telemetry is a boolean or { recordContent }
await runTool(store, "c", call, { telemetry: "off" });
const withService = new SuggestionService({ store, telemetry: false });
void withService;
const service = new SuggestionService({ store, permissions: ["read-only", "full-access"] });
const started: { chatId: string } = await service.start("c", "s1", { model: "m" });
void started;
try {
  await service.restore("c", "s1");
} catch (e) {
  if (e instanceof SuggestionError) {
    const code:
      | "task-suggestion/not-found"
      | "task-suggestion/not-open"
      | "task-suggestion/open-limit"
      | "task-suggestion/workspace-missing" = e.code;
    void code, e.payload, e.limit;
  } else if (e instanceof ConflictError) {
    void e.expectedLength;
  } else if (e instanceof StoreError) {
    void e.code;
  }
}
const length: number = await store.append("c", [{ type: "turn_started" }], 0);
const fresh: LogEntry[] | null = await readFrom(store, "c", length);
const own: LogEntry[] | null | undefined = await store.readFrom?.("c", 0);
const jsonlStore = new JsonlStore("/tmp/oda-types", { lockWait: 5_000, readChunkBytes: 1 << 16 });
const where: string = jsonlStore.file("c");
// @ts-expect-error options are checked by name
new JsonlStore("/tmp/oda-types", { lockwait: 5 });
// The change feed: a stop function; the listener hears a number.
const stopWatching: () => void = jsonlStore.watch("c", (n: number) => void n);
const stopOptional: (() => void) | undefined = store.watch?.("c", () => undefined);
void new JsonlStore("/tmp/oda-types", { watchMode: "poll", watchPollMs: 500 });
// @ts-expect-error watchMode is "fs-watch" or "poll"
void new JsonlStore("/tmp/oda-types", { watchMode: "inotify" });
// @ts-expect-error the listener hears a length, not the entries
jsonlStore.watch("c", (entries: string[]) => void entries);
const stopTab: () => void = new IndexedDbStore("oda").watch("c", () => undefined);
void stopWatching, stopOptional, stopTab;
const codes: StoreError["code"][] = ["store/locked", "store/not-a-file", "store/read-only", "store/no-access", "store/truncated"];
void fresh, own, where, codes;
const created: boolean = await store.create("c", []);
void length, created;

// Answers in pages.
{
  const state = ChatState.fromLog(log);
  const view: import("oda-tasks").ChatView = state.view({ cards: 50 });
  const count: number = view.cardCount + state.cardCount;
  const page: TodoCard[] = state.cards(-100, -50);
  const all: TodoCard[] = state.cards();
  void [count, page, all, view.todos, view.plan.state, view.open, view.settled, view.skipped];
  state.ingestTexts(state.length, ['{"type":"turn_ended"}']);
  // @ts-expect-error a number of cards, not a bare number
  state.view(5);
  // @ts-expect-error texts are strings
  state.ingestTexts(0, [{ type: "turn_ended" }]);
  state.free();
}
{
  const { readJsonl, RAW_TEXT } = await import("oda-tasks");
  const read: import("oda-tasks").JsonlRead = readJsonl(new Uint8Array());
  const texts: string[] = read.texts;
  const report: JsonlReport = read;
  const key: symbol = RAW_TEXT;
  void [texts, report, key, read.entries];
}
