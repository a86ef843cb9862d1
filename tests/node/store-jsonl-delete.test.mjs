// JsonlStore's delete across real processes on one folder: appends of other
// processes racing it never bring the chat back, nothing of it is left in the
// folder, and other processes' watches hear it (fs.watch and polling), also a
// chat deleted and made again between two looks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fork } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import { JsonlStore } from "oda-tasks/node";
import { inTempDir } from "./support/temp-dir.mjs";

const CHILD = new URL("./children/store-jsonl-delete-child.mjs", import.meta.url);
/** How long a child's message may take: a bound for a hung child, not a timing. */
const WAIT_MS = 20_000;
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Forks a child on `dir` (store options `options`); resolves once it is ready, with `call(op, ...args)` and `next()` (its next message). */
async function child(dir, options = {}) {
  const proc = fork(CHILD, [dir, JSON.stringify(options)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const inbox = [];
  let wake = () => undefined;
  proc.on("message", (m) => {
    inbox.push(m);
    wake();
  });
  const next = async (what) => {
    const deadline = Date.now() + WAIT_MS;
    while (inbox.length === 0) {
      if (proc.exitCode !== null) assert.fail(`the child ended before ${what}`);
      if (Date.now() > deadline) assert.fail(`no ${what} from the child within ${WAIT_MS} ms`);
      await new Promise((resolve) => {
        wake = resolve;
        setTimeout(resolve, 50);
      });
    }
    return inbox.shift();
  };
  assert.equal(await next("ready"), "ready");
  let ids = 0;
  const call = async (op, ...args) => {
    const id = ++ids;
    proc.send({ id, op, args });
    const answer = await next(`the answer to ${op}`);
    assert.equal(answer.id, id);
    if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
    return answer.value;
  };
  const end = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = once(proc, "exit");
      proc.disconnect();
      await exited;
    }
  };
  return { proc, next, call, end };
}

/** Waits until `heard` holds `count` lengths (a bound for a lost notice), then a little more for one that should not come. */
async function heardAll(heard, count, what) {
  const deadline = Date.now() + WAIT_MS;
  while (heard.length < count) {
    if (Date.now() > deadline) assert.fail(`${what}: heard ${JSON.stringify(heard)}`);
    await pause(10);
  }
  await pause(400);
}

test(
  "JsonlStore across processes: appends of three other processes racing a delete never bring the chat back, and nothing of it is left in the folder",
  { timeout: 120_000 },
  () =>
    inTempDir("oda-jsonl-delete-", async (dir) => {
      const store = new JsonlStore(dir);
      for (let round = 0; round < 3; round++) {
        const chatId = `race-${round}`;
        await store.create(chatId, [{ type: "session", round }]);
        const writers = await Promise.all([0, 1, 2].map(() => child(dir)));
        try {
          writers.forEach((w, worker) => w.proc.send({ race: { chatId, worker, loops: 4 } }));
          // Every writer has appends landing (and more in flight) when the delete runs.
          for (const w of writers) assert.deepEqual(await w.next("its first append"), { appending: true });
          assert.equal(await store.delete(chatId), true);
          const reports = [];
          for (const w of writers) reports.push(await w.next("its report"));
          for (const { appended, failures } of reports) {
            assert.deepEqual(failures, [], "every append landed, lost a race, or found the chat gone");
            assert.ok(appended > 0);
          }
        } finally {
          await Promise.all(writers.map((w) => w.end()));
        }
        // Every writer has ended: nothing of the chat is left, no file, no lock, no temp file.
        assert.deepEqual(fs.readdirSync(dir), [], `round ${round}`);
        assert.equal(await store.read(chatId), null);
        assert.equal(await store.create(chatId, [{ type: "session", again: round }]), true);
        assert.deepEqual(await store.read(chatId), [{ type: "session", again: round }], "the chat made again holds nothing of the old one");
        assert.equal(await store.delete(chatId), true);
      }
    }),
);

test(
  "JsonlStore: a delete through another process is heard through fs.watch as 0, and a chat made again there with its own lengths, also between two looks",
  { timeout: 60_000 },
  () =>
    inTempDir("oda-jsonl-delete-", async (dir) => {
      const store = new JsonlStore(dir);
      const heard = [];
      const never = [];
      const stops = [store.watch("c", (length) => heard.push(length)), store.watch("never", (length) => never.push(length))];
      const other = await child(dir);
      try {
        assert.equal(await other.call("create", "c", [{ type: "session", n: 1 }, { type: "x" }]), true);
        await heardAll(heard, 1, "the other process's create");
        const { mark } = await store.readSince("c", 0, null);
        assert.equal(await other.call("delete", "c"), true);
        await heardAll(heard, 2, "the other process's delete");
        assert.deepEqual(heard, [2, 0]);
        assert.equal(await store.read("c"), null);
        await assert.rejects(store.readSince("c", 2, mark), { code: "store/replaced" });
        // Deletes that find no chat change nothing: nobody hears them.
        assert.equal(await other.call("delete", "c"), false);
        assert.equal(await other.call("delete", "never"), false);
        await pause(400);
        assert.deepEqual(heard, [2, 0]);
        assert.deepEqual(never, []);
        assert.equal(await other.call("create", "c", [{ type: "session", n: 2 }]), true);
        await heardAll(heard, 3, "the chat made again");
        // Deleted and made again at once, as long as before: 0 first, wherever the look falls.
        assert.deepEqual(await other.call("recreate", "c", [{ type: "session", n: 3 }]), [true, true]);
        await heardAll(heard, 5, "the chat deleted and made again");
        assert.deepEqual(heard, [2, 0, 1, 0, 1]);
        assert.deepEqual(await store.read("c"), [{ type: "session", n: 3 }]);
      } finally {
        for (const stop of stops) stop();
        await other.end();
      }
    }),
);

test(
  'JsonlStore: watchMode "poll" hears another process\'s delete, and a chat deleted and made again between two polls as 0 then its length',
  { timeout: 60_000 },
  () =>
    inTempDir("oda-jsonl-delete-", async (dir) => {
      const store = new JsonlStore(dir, { watchMode: "poll", watchPollMs: 300 });
      const heard = [];
      const stop = store.watch("c", (length) => heard.push(length));
      const other = await child(dir);
      try {
        await other.call("create", "c", [{ type: "session", n: 1 }, { type: "x" }]);
        await heardAll(heard, 1, "the create");
        await other.call("delete", "c");
        await heardAll(heard, 2, "the delete");
        await other.call("create", "c", [{ type: "session", n: 2 }, { type: "x" }, { type: "y" }]);
        await heardAll(heard, 3, "the chat made again");
        // Both at once, well within one poll: the file the next poll finds has another identity and another first line.
        await other.call("recreate", "c", [{ type: "session", n: 3 }, { type: "x" }, { type: "y" }]);
        await heardAll(heard, 5, "the chat deleted and made again between two polls");
        assert.deepEqual(heard, [2, 0, 3, 0, 3]);
      } finally {
        stop();
        await other.end();
      }
    }),
);

test("JsonlStore: delete waits for the chat's lock held by another process, removes the file, and leaves no lock behind", () =>
  inTempDir("oda-jsonl-delete-", async (dir) => {
    const store = new JsonlStore(dir);
    await store.create("c", [{ type: "session" }]);
    const holder = await child(dir);
    try {
      // The other process holds the chat's lock through a long append (a large write and its fsync):
      // the delete comes after it, so the append went with the chat.
      const appending = holder.call("append", "c", [{ type: "big", pad: "x".repeat(20_000_000) }]);
      for (let tries = 0; !fs.existsSync(`${store.file("c")}.lock`) && tries < 2000; tries++) await pause(1);
      const deleted = await store.delete("c");
      assert.equal(deleted, true);
      const appended = await appending.then(
        (length) => length,
        (e) => e.code,
      );
      assert.ok(appended === 2 || appended === "store/missing-chat", `the append landed before the delete or was refused: ${appended}`);
      assert.equal(await store.read("c"), null);
      assert.deepEqual(fs.readdirSync(dir), [], "no file, no lock, no temp file");
      // A delete of a chat that is not there takes no lock at all.
      assert.equal(await store.delete("c"), false);
      assert.equal(await store.delete("never"), false);
      assert.deepEqual(fs.readdirSync(dir), []);
    } finally {
      await holder.end();
    }
  }));

test("JsonlStore: delete refuses what is not a chat's file at the chat's path (store/not-a-file) and removes a symbolic link, not the file it points to", () =>
  inTempDir("oda-jsonl-delete-", async (dir) => {
    const store = new JsonlStore(dir);
    fs.mkdirSync(store.file("d"));
    await assert.rejects(store.delete("d"), {
      code: "store/not-a-file",
      message: `chat "d": ${store.file("d")} is a directory, not a chat's file; move or remove it`,
    });
    assert.ok(fs.statSync(store.file("d")).isDirectory(), "left as it was");
    fs.writeFileSync(`${dir}/elsewhere`, `${JSON.stringify({ type: "session" })}\n`);
    fs.symlinkSync(`${dir}/elsewhere`, store.file("linked"));
    assert.equal(await store.delete("linked"), true);
    assert.equal(fs.existsSync(store.file("linked")), false);
    assert.equal(fs.readFileSync(`${dir}/elsewhere`, "utf8"), `${JSON.stringify({ type: "session" })}\n`);
  }));
