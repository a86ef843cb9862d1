// JsonlStore: the Store contract, the file format, crash repair, the lock,
// and several processes sharing one directory.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, fork, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { once } from "node:events";
import { JsonlStore } from "oda-tasks/node";
import { plantOwner } from "./support/lock-names.mjs";
import { STALE_MS, sweep } from "../../pkg/dist/stores/jsonl/lock.js";
import { HOSTILE_CHAT_IDS } from "oda-tasks/testing";
import { contractOver } from "./support/contract.mjs";
import { inTempDir } from "./support/temp-dir.mjs";

const WORKER = new URL("./children/store-jsonl-worker.mjs", import.meta.url);

function tempDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), "oda-jsonl-"));
}

const lines = (file) => fs.readFileSync(file, "utf8").split("\n");

/** Asserts the file is whole lines, each one JSON object; returns them parsed. */
function wellFormed(file) {
  const text = fs.readFileSync(file, "utf8");
  assert.ok(text === "" || text.endsWith("\n"), "the file ends with a newline");
  return text
    .split("\n")
    .slice(0, -1)
    .map((line) => {
      const value = JSON.parse(line);
      assert.equal(typeof value, "object");
      assert.ok(value !== null && !Array.isArray(value));
      return value;
    });
}

contractOver(
  "JsonlStore",
  () => {
    const dir = tempDir();
    // A file event with no new line (its times changed): the only message this feed hears carries no length.
    const notice = (chatId) => {
      const now = new Date();
      fs.utimesSync(new JsonlStore(dir).file(chatId), now, now);
    };
    // Retried for up to 15 s: a stopped watch's last read-back (under the chat's lock, which
    // it may wait for on a loaded machine) may still be ending in the folder as the test ends.
    const done = async () => {
      for (let tries = 1; ; tries++) {
        try {
          return fs.rmSync(dir, { recursive: true, force: true });
        } catch (e) {
          if (e.code !== "ENOTEMPTY" || tries === 60) throw e;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
    };
    return {
      open: () => new JsonlStore(dir),
      done,
      notice,
    };
  },
  { notices: true },
);

test("JsonlStore: the bytes on disk are one JSON entry per line, in order", () =>
  inTempDir("oda-jsonl-", async (dir) => {
    const store = new JsonlStore(dir);
    const entries = [
      { type: "session", title: 'line\nbreak and "quotes"', workspace: null },
      { type: "message", role: "user", text: "é ✓ 😀 \u2028 \u2029 \t end" },
      { type: "todo_update", v: 1, todos: [{ content: "a", status: "pending" }] },
    ];
    await store.create("c", entries.slice(0, 1));
    await store.append("c", entries.slice(1));
    const file = path.join(dir, "c.jsonl");
    assert.equal(fs.readFileSync(file, "utf8"), entries.map((e) => JSON.stringify(e) + "\n").join(""));
    assert.deepEqual(wellFormed(file), entries);
    // Nothing else is left in the directory: no temp file, no lock.
    assert.deepEqual(fs.readdirSync(dir), ["c.jsonl"]);
  }));

test("JsonlStore: the constructor creates a missing directory", () =>
  inTempDir("oda-jsonl-", async (dir) => {
    const nested = path.join(dir, "a", "b");
    const store = new JsonlStore(nested);
    assert.equal(store.dir, nested);
    assert.equal(await store.create("c", [{ type: "session" }]), true);
    assert.ok(fs.existsSync(path.join(nested, "c.jsonl")));
  }));

test("JsonlStore: options are checked: unknown names and bad numbers are oda-tasks: errors", () =>
  inTempDir("oda-jsonl-", async (dir) => {
    assert.throws(() => new JsonlStore(dir, { lockwait: 10 }), {
      name: "TypeError",
      message: "oda-tasks: invalid arguments of JsonlStore: unknown option `lockwait`",
    });
    for (const [bad, shown] of [
      [0, "0"],
      [-1, "-1"],
      [1.5, "1.5"],
      [NaN, "NaN"],
      ["100", '"100"'],
      [null, "null"],
    ]) {
      assert.throws(() => new JsonlStore(dir, { lockWait: bad }), {
        name: "TypeError",
        message: `oda-tasks: invalid arguments of JsonlStore: \`lockWait\` must be a whole number >= 1 (got ${shown})`,
      });
    }
    assert.throws(() => new JsonlStore(dir, 5), {
      message: "oda-tasks: invalid arguments of JsonlStore: options must be an object (got number)",
    });
    assert.equal(new JsonlStore(dir, null).dir, new JsonlStore(dir).dir, "null is no options, as for every call");
    assert.equal(await new JsonlStore(dir, { lockWait: 1, readChunkBytes: 1 }).create("c", []), true);
  }));

test("JsonlStore: hostile ids touch nothing on disk", () =>
  inTempDir("oda-jsonl-", async (dir) => {
    const inner = path.join(dir, "inner");
    const store = new JsonlStore(inner);
    for (const id of HOSTILE_CHAT_IDS) {
      await assert.rejects(store.create(id, [{ type: "x" }]), { code: "store/bad-chat-id" });
      await assert.rejects(store.append(id, [{ type: "x" }]), { code: "store/bad-chat-id" });
      await assert.rejects(store.read(id), { code: "store/bad-chat-id" });
    }
    assert.deepEqual(fs.readdirSync(dir), ["inner"]);
    assert.deepEqual(fs.readdirSync(inner), []);
  }));

test("JsonlStore: file names are ASCII in one case, so no two ids share a file on any file system", () =>
  inTempDir("oda-jsonl-", async (dir) => {
    const store = new JsonlStore(dir);
    const named = {
      "chat-1.s1": "chat-1.s1.jsonl",
      Chat: "%43hat.jsonl",
      "caf\u00e9": "caf%C3%A9.jsonl",
      "cafe\u0301": "cafe%CC%81.jsonl",
      "a b%~": "a%20b%25%7E.jsonl",
      con: "%63on.jsonl",
      "nul.s1": "%6Eul.s1.jsonl",
      console: "console.jsonl",
      ".hidden": ".hidden.jsonl",
    };
    for (const [id, name] of Object.entries(named)) {
      assert.equal(store.file(id), path.join(dir, name));
      assert.equal(await store.create(id, [{ type: "session", id }]), true);
    }
    assert.deepEqual(fs.readdirSync(dir).sort(), Object.values(named).sort());
    // A name too long for a file system: a prefix, "~" and a hash of the whole id.
    const long = "\u00e9".repeat(200);
    const name = path.basename(store.file(long));
    assert.match(name, /^(%C3%A9){35}~[0-9a-f]{32}\.jsonl$/);
    assert.ok(Buffer.byteLength(name + ".lock") <= 255);
    assert.notEqual(store.file(long), store.file(long.slice(0, -1) + "e"));
    // Many random ids: pairwise distinct names even with case and normalization folded.
    const alphabet = [
      "a",
      "A",
      "z",
      "Z",
      "0",
      ".",
      "-",
      "_",
      "%",
      "~",
      " ",
      "\u00e9",
      "e\u0301",
      "\u00c9",
      "\u00df",
      "S",
      "s",
      "\u212a",
      "k",
      "\u{1F600}",
      "\u65e5",
    ];
    const seen = new Map();
    let state = 7;
    const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 20_000; n++) {
      const length = 1 + (next() % (n % 10 === 0 ? 190 : 8));
      let id = "";
      for (let i = 0; i < length; i++) id += alphabet[next() % alphabet.length];
      if (id === "." || id === ".." || id.length > 200) continue;
      const file = path.basename(store.file(id));
      assert.match(file, /^[\x21-\x7e]+$/, "printable ASCII");
      assert.ok(Buffer.byteLength(file + ".lock") <= 255);
      for (const folded of new Set([file.toLowerCase(), file.toUpperCase()])) {
        const other = seen.get(folded);
        assert.ok(other === undefined || other === id, `${JSON.stringify(id)} and ${JSON.stringify(other)} share ${file}`);
        seen.set(folded, id);
      }
    }
  }));

test("JsonlStore: a last line cut off by a crash is left out, never cut away, and ended before the next append", () =>
  inTempDir("oda-jsonl-", async (dir) => {
    const file = path.join(dir, "c.jsonl");
    const entries = [{ type: "session" }, { type: "a", n: 1 }, { type: "b", text: "a longer last entry" }];
    await new JsonlStore(dir).create("c", entries);
    fs.truncateSync(file, fs.statSync(file).size - 7);
    const torn = fs.readFileSync(file);
    const store = new JsonlStore(dir);
    assert.deepEqual(await store.read("c"), entries.slice(0, 2));
    assert.deepEqual(fs.readFileSync(file), torn, "read changes no byte");
    assert.equal(await store.append("c", [{ type: "c" }], 2), 3);
    assert.equal(fs.readFileSync(file, "utf8"), torn + "\n" + JSON.stringify({ type: "c" }) + "\n");
    assert.deepEqual(await new JsonlStore(dir).read("c"), [...entries.slice(0, 2), { type: "c" }]);
  }));

test("JsonlStore: an append after a torn line ends it first, without a read; a file of only a torn line holds no entries", () =>
  inTempDir("oda-jsonl-", async (dir) => {
    const file = path.join(dir, "c.jsonl");
    await new JsonlStore(dir).create("c", [{ type: "session" }, { type: "a" }]);
    fs.appendFileSync(file, '{"type":"torn","text":"cut he'); // a crash mid-append
    const store = new JsonlStore(dir);
    // The torn entry never counted: expectedLength 2 holds.
    assert.equal(await store.append("c", [{ type: "b" }, { type: "c" }], 2), 4);
    assert.deepEqual(lines(file), [
      '{"type":"session"}',
      '{"type":"a"}',
      '{"type":"torn","text":"cut he',
      '{"type":"b"}',
      '{"type":"c"}',
      "",
    ]);
    assert.deepEqual(await new JsonlStore(dir).read("c"), [{ type: "session" }, { type: "a" }, { type: "b" }, { type: "c" }]);
    fs.writeFileSync(path.join(dir, "d.jsonl"), '{"type":"sess');
    assert.deepEqual(await store.read("d"), []);
    assert.equal(await store.append("d", [{ type: "x" }], 0), 1);
    assert.deepEqual(lines(path.join(dir, "d.jsonl")), ['{"type":"sess', '{"type":"x"}', ""]);
  }));

test("JsonlStore: concurrent reads from different indexes share one look at the file; each gets its own objects", () =>
  inTempDir("oda-jsonl-", async (dir) => {
    const store = new JsonlStore(dir);
    const log = Array.from({ length: 10 }, (_, i) => ({ type: "e", i, nested: { i } }));
    await store.create("c", log);
    // An append first, so that the reads below queue behind the lock and join one another.
    // The calls overlap, so the reads may see the log before or after the append (the
    // append may still be on its way to the lock under load), but all of them one look.
    const appended = store.append("c", [{ type: "late" }], 10);
    const [whole, from3, fromEnd, past, again] = await Promise.allSettled([
      store.read("c"),
      store.readFrom("c", 3),
      store.readFrom("c", 11),
      store.readFrom("c", 12),
      store.read("c"),
    ]);
    assert.equal(await appended, 11);
    const full = [...log, { type: "late" }];
    const seen = whole.value.length === full.length ? full : log;
    assert.deepEqual(whole.value, seen);
    assert.deepEqual(from3.value, seen.slice(3));
    if (seen === full) assert.deepEqual(fromEnd.value, []);
    else assert.equal(fromEnd.reason.code, "store/truncated");
    assert.equal(past.reason.code, "store/truncated");
    assert.deepEqual(again.value, seen);
    assert.notEqual(whole.value[5].nested, again.value[5].nested, "no object is shared between callers");
    assert.notEqual(whole.value[5].nested, from3.value[2].nested);
  }));

test("JsonlStore: an unreadable middle line stays in the file and out of read()", () =>
  inTempDir("oda-jsonl-", async (dir) => {
    const file = path.join(dir, "c.jsonl");
    const a = JSON.stringify({ type: "session" });
    const b = JSON.stringify({ type: "b" });
    fs.writeFileSync(file, `${a}\nnot json {\n\n${b}\n`);
    const store = new JsonlStore(dir);
    assert.deepEqual(await store.read("c"), [{ type: "session" }, { type: "b" }]);
    assert.equal(await store.append("c", [{ type: "c" }], 2), 3, "the length counts readable entries only");
    assert.deepEqual(lines(file), [a, "not json {", "", b, JSON.stringify({ type: "c" }), ""]);
    assert.deepEqual(await store.read("c"), [{ type: "session" }, { type: "b" }, { type: "c" }]);
  }));

/** The pid of a process that has exited. */
async function deadPid() {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  return child.pid;
}

/** Puts a lock on `chatId` as the store's lock layout has it, owned by `pid`. */
function plantLock(dir, chatId, pid) {
  const lock = path.join(dir, `${chatId}.jsonl.lock`);
  plantOwner(lock, pid);
  return lock;
}

test("JsonlStore: a lock left by a dead process is broken", () =>
  inTempDir("oda-jsonl-", async (dir) => {
    const store = new JsonlStore(dir);
    await store.create("c", [{ type: "session" }]);
    const lock = plantLock(dir, "c", await deadPid());
    assert.equal(await store.append("c", [{ type: "a" }], 1), 2);
    assert.ok(!fs.existsSync(lock));
    assert.deepEqual(fs.readdirSync(dir), ["c.jsonl"]);
  }));

test("JsonlStore: a lock held by a live process is waited for", () =>
  inTempDir("oda-jsonl-", async (dir) => {
    const store = new JsonlStore(dir);
    await store.create("c", [{ type: "session" }]);
    const holder = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    try {
      const lock = plantLock(dir, "c", holder.pid);
      const settled = [];
      const append = store.append("c", [{ type: "a" }], 1).finally(() => settled.push("append"));
      const read = new JsonlStore(dir).read("c").finally(() => settled.push("read"));
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(settled, [], "append and read wait while the holder lives");
      holder.kill("SIGKILL");
      await once(holder, "exit");
      assert.equal(await append, 2, "once the holder is dead its lock is broken");
      assert.ok((await read).length >= 1);
      assert.ok(!fs.existsSync(lock));
    } finally {
      holder.kill("SIGKILL");
    }
  }));

/** Forks `n` workers, starts them together, and resolves to their reports. */
async function runWorkers(n, mode, dir, chatId, count) {
  const children = Array.from({ length: n }, (_, w) =>
    fork(WORKER, [mode, dir, chatId, String(w), String(count)], { stdio: ["ignore", "inherit", "inherit", "ipc"] }),
  );
  try {
    await Promise.all(children.map((c) => once(c, "message")));
    const reports = children.map((c) => once(c, "message").then(([m]) => m));
    const exits = children.map((c) => once(c, "exit"));
    for (const c of children) c.send("go");
    const results = await Promise.all(reports);
    for (const [code] of await Promise.all(exits)) assert.equal(code, 0);
    return results.map((r) => r.results);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  }
}

test("JsonlStore across 4 processes: 100 concurrent conditional appends land exactly once", { timeout: 60_000 }, () =>
  inTempDir("oda-jsonl-", async (dir) => {
    await new JsonlStore(dir).create("c", [{ type: "session" }]);
    const conflicts = await runWorkers(4, "append", dir, "c", 25);
    const log = wellFormed(path.join(dir, "c.jsonl"));
    assert.equal(log.length, 101);
    assert.deepEqual(log[0], { type: "session" });
    log.slice(1).forEach((e, k) => assert.equal(e.at, k + 1, "each append landed at the length it expected"));
    const keys = log.slice(1).map((e) => `${e.worker}:${e.i}`);
    assert.equal(new Set(keys).size, 100, "each append exactly once");
    for (let w = 0; w < 4; w++) for (let i = 0; i < 25; i++) assert.ok(keys.includes(`${w}:${i}`));
    assert.deepEqual(await new JsonlStore(dir).read("c"), log);
    assert.deepEqual(fs.readdirSync(dir), ["c.jsonl"], "no lock or temp file left behind");
    assert.ok(
      conflicts.flat().some((n) => n > 0),
      "the workers did contend",
    );
  }),
);

test("JsonlStore across 4 processes: of 100 concurrent creates of one chat exactly one wins", { timeout: 60_000 }, () =>
  inTempDir("oda-jsonl-", async (dir) => {
    const results = await runWorkers(4, "create", dir, "c", 25);
    const wins = results.flatMap((r, w) => r.map((won, i) => (won ? `${w}:${i}` : null))).filter(Boolean);
    assert.equal(wins.length, 1);
    assert.deepEqual(wellFormed(path.join(dir, "c.jsonl")), [{ type: "session", by: wins[0] }]);
    assert.deepEqual(fs.readdirSync(dir), ["c.jsonl"], "no temp file left behind");
  }),
);

test("JsonlStore: a process killed mid-append leaves a log that others keep using", { timeout: 30_000 }, () =>
  inTempDir("oda-jsonl-", async (dir) => {
    await new JsonlStore(dir).create("c", [{ type: "session" }]);
    const child = fork(WORKER, ["crash", dir, "c", "0", "4"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    try {
      await once(child, "message");
      child.send("go");
      // Let it get well into its appends, then kill it: with four appends in
      // flight it almost always holds the lock at that moment.
      while (fs.statSync(path.join(dir, "c.jsonl")).size < 100_000) await new Promise((r) => setTimeout(r, 10));
    } finally {
      child.kill("SIGKILL");
      await once(child, "exit");
    }
    const store = new JsonlStore(dir);
    const log = await store.read("c");
    assert.ok(log.length > 10);
    assert.equal(await store.append("c", [{ type: "after" }], log.length), log.length + 1);
    // Every whole line is an entry; a line the kill cut off stays, unread, before "after".
    const text = fs.readFileSync(path.join(dir, "c.jsonl"), "utf8");
    const readable = text.split("\n").filter((line) => {
      try {
        return JSON.parse(line) !== undefined;
      } catch {
        return false;
      }
    });
    assert.deepEqual(
      readable.map((line) => JSON.parse(line)),
      [...log, { type: "after" }],
    );
    assert.ok(text.split("\n").length - 1 - readable.length <= 1, "at most the one line the kill cut off");
    assert.deepEqual(await new JsonlStore(dir).read("c"), [...log, { type: "after" }]);
    // Its temp files go once they are STALE_MS old (a live owner keeps its own fresh).
    await new Promise((r) => setTimeout(r, STALE_MS + 100));
    await sweep(dir);
    assert.deepEqual(fs.readdirSync(dir), ["c.jsonl"], "the dead process's lock and temp files are gone");
  }),
);

/** Records the size of every read buffer the store allocates (`Buffer.allocUnsafe`) until `restore()`. */
function countReadBuffers() {
  const sizes = [];
  const allocUnsafe = Buffer.allocUnsafe;
  Buffer.allocUnsafe = (size) => {
    sizes.push(size);
    return allocUnsafe(size);
  };
  return { sizes, restore: () => (Buffer.allocUnsafe = allocUnsafe) };
}

test("JsonlStore reads a chat in buffers sized to its file: a small chat, one small buffer; a large one, chunks of readChunkBytes", async () =>
  inTempDir("oda-jsonl-chunks-", async (dir) => {
    const store = new JsonlStore(dir);
    await store.create("small", [{ type: "session", v: 1, chatId: "small", workspace: "/w" }]);
    const big = Array.from({ length: 400 }, (_, i) => ({ type: "message", role: "user", text: `${i} ${"x".repeat(8000)}` }));
    await store.create("big", big);
    const { sizes, restore } = countReadBuffers();
    try {
      const small = fs.statSync(path.join(dir, "small.jsonl")).size;
      assert.equal((await new JsonlStore(dir).read("small")).length, 1);
      assert.deepEqual(sizes, [small + 1], "one read, into a buffer of the file's size and one byte more");
      sizes.length = 0;
      const size = fs.statSync(path.join(dir, "big.jsonl")).size;
      assert.ok(size > 3 << 20);
      assert.deepEqual(await new JsonlStore(dir, { readChunkBytes: 1 << 20 }).read("big"), big);
      assert.deepEqual(sizes, [1 << 20, 1 << 20, 1 << 20, size - 3 * (1 << 20) + 1]);
    } finally {
      restore();
    }
  }));

/** Settles `promise` into `settled` under `name`, so a test can see what is still waiting. */
const track = (settled, name, promise) => promise.finally(() => settled.push(name));

/** `promise`, or a failure saying `why` when it takes longer than `ms`. */
function within(promise, ms, why) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(why)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

test("JsonlStore: a warm read takes the log this process committed without the chat's lock, and never bytes a lock holder has not committed", () =>
  inTempDir("oda-jsonl-committed-", async (dir) => {
    const store = new JsonlStore(dir);
    await store.create("c", [{ type: "session" }]);
    const first = await store.readSince("c", 0, null);
    await store.append("c", [{ type: "a" }], 1);
    const holder = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    try {
      // Another process holds the lock, and the file is still what this process committed: no wait.
      plantLock(dir, "c", holder.pid);
      const warm = await within(store.readSince("c", 1, first.mark), 2000, "a warm read waited for the lock");
      assert.deepEqual(warm.texts, ['{"type":"a"}']);
      assert.deepEqual(await within(store.readSince("c", 2, warm.mark), 2000, "a read with nothing new waited for the lock"), {
        texts: [],
        mark: warm.mark,
      });
      // The holder's append is under way: its line is in the file, not yet committed.
      const file = store.file("c");
      const committed = fs.statSync(file).size;
      fs.appendFileSync(file, '{"type":"in flight"}\n');
      const settled = [];
      const read = track(settled, "readSince", store.readSince("c", 2, warm.mark));
      const told = [];
      const stop = store.watch("c", (length) => {
        told.push(length);
        settled.push("watch");
      });
      fs.utimesSync(file, new Date(), new Date()); // a file event, for the watch to look
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(settled, [], "a file past its commit point is read under the lock, so the reads wait");
      // Its append failed and took its bytes back; the holder dies and its lock is broken.
      fs.truncateSync(file, committed);
      holder.kill("SIGKILL");
      await once(holder, "exit");
      assert.deepEqual((await read).texts, [], "the taken-back line was never read");
      await new Promise((r) => setTimeout(r, 100));
      assert.ok(
        told.every((length) => length === 2),
        `the watch told only the committed length: ${told}`,
      );
      assert.equal(await store.append("c", [{ type: "b" }], 2), 3);
      assert.equal(told.at(-1), 3);
      stop();
    } finally {
      holder.kill("SIGKILL");
    }
  }));

test("JsonlStore: a reader at the state before this process's append gets its texts and mark as a read of the file gives them", () =>
  inTempDir("oda-jsonl-appended-", async (dir) => {
    const store = new JsonlStore(dir);
    // Past the 4 KiB a mark hashes, and short of it: both.
    await store.create("long", [{ type: "session", pad: "x".repeat(5000) }]);
    await store.create("short", [{ type: "session" }]);
    for (const chat of ["long", "short"]) {
      let at = await store.readSince(chat, 0, null);
      let length = 1;
      for (const entry of [
        { type: "a", n: 1.5e300 },
        { type: "b", text: "é\u2028" },
      ]) {
        length = await store.append(chat, [entry], length);
        const warm = await store.readSince(chat, length - 1, at.mark);
        // The same read in another process, which has nothing remembered: from the file.
        const cold = JSON.parse(
          execFileSync(
            process.execPath,
            [
              "--input-type=module",
              "-e",
              `import { JsonlStore } from "oda-tasks/node"; console.log(JSON.stringify(await new JsonlStore(${JSON.stringify(dir)}).readSince(${JSON.stringify(chat)}, ${length - 1}, ${JSON.stringify(at.mark)})));`,
            ],
            { cwd: path.dirname(WORKER.pathname), encoding: "utf8" },
          ),
        );
        assert.deepEqual(warm, cold, chat);
        at = warm;
      }
    }
  }));

test("JsonlStore: an append to a chat at the state this process committed reads nothing of the file before writing", () =>
  inTempDir("oda-jsonl-append-", async (dir) => {
    const store = new JsonlStore(dir);
    await store.create("c", [{ type: "session" }]);
    await store.append("c", [{ type: "a" }], 1);
    const { sizes, restore } = countReadBuffers();
    try {
      assert.equal(await store.append("c", [{ type: "b" }], 2), 3);
      assert.deepEqual(sizes, [], "no scan: the length is the one it committed");
      // Another program's line moves the file past that state: the next append scans it and counts it.
      fs.appendFileSync(store.file("c"), '{"type":"other"}\n');
      assert.equal(await store.append("c", [{ type: "c" }], 4), 5);
      assert.equal(sizes.length, 1);
    } finally {
      restore();
    }
    assert.deepEqual(
      (await store.read("c")).map((e) => e.type),
      ["session", "a", "b", "other", "c"],
    );
  }));
