// Drives one children/store-watch-child.mjs process: sends it lines and waits
// for the lines it prints (writes it made, notices it heard).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { setTimeout as pause } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { createChat, toolHandlers } from "oda-tasks";
import { chatHandler } from "oda-tasks/http";
import { applyChange } from "../../../pkg/dist/elements/live.js";
import { sse, sseUntil } from "./sse.mjs";

const SCRIPT = fileURLToPath(new URL("../children/store-watch-child.mjs", import.meta.url));

/** How long a line may take to come (a notice through fs.watch or a poll): a bound for a hung child, not a timing. */
const LINE_WAIT_MS = 20_000;

/**
 * Starts the child with `args` (see the script), under `runtime` (default this
 * process's), with at most `maxFiles` file descriptors when given.
 */
export async function watchChild(args, { runtime = process.execPath, maxFiles } = {}) {
  const argv = [SCRIPT, ...args];
  const proc =
    maxFiles === undefined
      ? spawn(runtime, argv, { stdio: ["pipe", "pipe", "pipe"] })
      : spawn("bash", ["-c", `ulimit -n ${maxFiles} && exec "$0" "$@"`, runtime, ...argv], { stdio: ["pipe", "pipe", "pipe"] });
  const lines = [];
  let partial = "";
  let err = "";
  let waiters = [];
  proc.stdout.setEncoding("utf8");
  proc.stderr.setEncoding("utf8");
  proc.stdout.on("data", (chunk) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop();
    lines.push(...parts);
    for (const w of waiters) w();
  });
  proc.stderr.on("data", (chunk) => (err += chunk));
  const exited = new Promise((resolve) => proc.on("close", (code, signal) => resolve({ code, signal })));
  exited.then(() => {
    for (const w of waiters) w();
  });
  let closed = false;
  exited.then(() => (closed = true));

  /** Waits for a printed line equal to `line` (or matching a RegExp), after `from`; resolves to its index. */
  const expect = async (line, from = 0) => {
    const deadline = Date.now() + LINE_WAIT_MS;
    for (;;) {
      const at = lines.findIndex((l, i) => i >= from && (line instanceof RegExp ? line.test(l) : l === line));
      if (at >= 0) return at;
      if (closed) assert.fail(`the child ended without printing ${line}: ${lines.join(" | ")} ${err}`);
      if (Date.now() > deadline) assert.fail(`no ${line} from the child within ${LINE_WAIT_MS} ms: ${lines.join(" | ")} ${err}`);
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 50);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      waiters = [];
    }
  };
  await expect("ready");
  return {
    lines,
    expect,
    send: (line) => proc.stdin.write(`${line}\n`),
    /** Lines starting with "heard ". */
    heard: () => lines.filter((l) => l.startsWith("heard ")),
    /** Ends stdin; resolves to the child's notices once it has ended by itself. */
    async end() {
      proc.stdin.end();
      let timer;
      const hung = new Promise((resolve) => (timer = setTimeout(() => resolve({ code: "hung" }), LINE_WAIT_MS)));
      const { code, signal } = await Promise.race([exited, hung]);
      clearTimeout(timer);
      if (code === "hung") {
        proc.kill("SIGKILL");
        assert.fail(`the child did not end by itself once its watches stopped: something keeps it alive (${lines.join(" | ")})`);
      }
      assert.equal(code, 0, `the child ended with ${code ?? signal}: ${err}`);
      return JSON.parse(lines.at(-1));
    },
    kill: () => proc.kill("SIGKILL"),
  };
}

/**
 * Waits until `list` holds `count` items (a bound for a lost notice, not a
 * timing), then `settleMs` more for one that should not come.
 */
export async function heardAll(list, count, what, settleMs) {
  const deadline = Date.now() + LINE_WAIT_MS;
  while (list.length < count) {
    if (Date.now() > deadline) assert.fail(`${what}: heard ${JSON.stringify(list)}`);
    await pause(10);
  }
  await pause(settleMs);
}

/** `n` small entries to write. */
export const entries = (n) => Array.from({ length: n }, (_, i) => ({ type: "x", i }));

/**
 * The two-process script every shared store's feed passes: `child` (started,
 * not yet watching chat "c") and `store` (whose listener of "c" fills `heard`)
 * hear each other's writes once and their own at once; `another()` is a second
 * store of the same place in this process; chat "d" is not heard.
 */
export async function hearEachOther(store, heard, child, another, settleMs) {
  child.send("watch c");
  await child.expect("watching c");
  child.send("create c 1");
  await child.expect("wrote c 1");
  await heardAll(heard, 1, "the other process's create", settleMs);
  // This process's append: heard before it resolves, not again through the feed.
  assert.equal(await store.append("c", entries(2)), 3);
  assert.deepEqual(heard, [1, 3]);
  await child.expect("heard c 3");
  child.send("append c 1");
  await child.expect("wrote c 4");
  await heardAll(heard, 3, "the other process's append", settleMs);
  // Another chat is not heard; another store of the same place in this process is, at once.
  child.send("create d 2");
  await child.expect("wrote d 2");
  assert.equal(await another().append("c", entries(1)), 5);
  assert.deepEqual(heard, [1, 3, 4, 5]);
  await child.expect("heard c 5");
  await pause(settleMs);
  assert.deepEqual(heard, [1, 3, 4, 5], "each length once, and nothing of chat d");
  assert.deepEqual(await child.end(), [
    ["c", 1],
    ["c", 3],
    ["c", 4],
    ["c", 5],
  ]);
}

/**
 * The hint script every shared store's feed passes, with `child` (another
 * process on the same place): chat "c" of `store` watched (`heard`) and
 * followed by an HTTP viewer; the other process's events that change no log
 * (a file event, a data_version tick) tell nothing; a restore that cuts the
 * log back is told with its shorter length and the viewer gets the restored
 * screen; a later write is told and reaches the viewer as a change.
 */
export async function hintsStayHints(store, child, settleMs) {
  const heard = [];
  const stop = store.watch("c", (length) => heard.push(length));
  let s;
  try {
    await createChat(store, "c", { workspace: "/w" });
    const tools = toolHandlers({ store, chatId: "c" });
    for (const n of [1, 2, 3]) await tools.todo_write({ todos: [{ content: `Step ${n}`, status: "in_progress" }] });
    assert.deepEqual(heard, [1, 2, 3, 4]);
    const handler = chatHandler({ store, authorize: () => true });
    s = sse(await handler(new Request("http://app.test/chats/c/events")));
    let held = (await s.next()).data;
    assert.equal(held.cardCount, 3);

    child.send("touch c");
    await child.expect("done touch c");
    await pause(settleMs);
    assert.deepEqual(heard, [1, 2, 3, 4], "an event that changed no log tells nothing");

    child.send("restore c 2");
    await child.expect("done restore c");
    await heardAll(heard, 5, "the restore", settleMs);
    assert.deepEqual(heard, [1, 2, 3, 4, 2], "a log cut back is told with its length");
    const restored = await sseUntil(s, 2);
    assert.equal(restored.event, "screen", "a log cut back: the viewer gets a screen, never a change onto the old one");
    assert.equal(restored.data.cardCount, 1);
    held = restored.data;

    child.send("append c 1");
    await child.expect("wrote c 3");
    await heardAll(heard, 6, "a write after the restore", settleMs);
    assert.deepEqual(heard.at(-1), 3);
    const change = await sseUntil(s, 3);
    held = change.event === "screen" ? change.data : applyChange(held, change.data);
    const fresh = await (await chatHandler({ store, authorize: () => true })(new Request("http://app.test/chats/c"))).json();
    assert.deepEqual(held, fresh);
  } finally {
    await s?.reader.cancel();
    stop();
  }
}
