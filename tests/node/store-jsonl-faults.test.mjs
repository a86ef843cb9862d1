// JsonlStore against what real disks and real crashes hand it: odd bytes in a
// chat's file, odd things at a chat's path, locks that nobody will release,
// read-only files, writers SIGKILLed mid-append, a file past V8's longest
// string, one lock holder across PID namespaces, warm states that notice a
// replaced file, appends by other programs. IndexedDB's faults are in
// store-idb-faults.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, fork, spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { ChatState, StoreError, beginTurn, createChat, replaySuggestions, replayTodos, runTool } from "oda-tasks";
import { JsonlStore } from "oda-tasks/node";
// The store's chunked line reader, for a unit test of lines too long to be strings.
import { JsonlScanner } from "../../pkg/dist/stores/jsonl/scanner.js";
import { hostKey, plantOwner } from "./support/lock-names.mjs";
import { HELLO, HELPER, OPEN_TURN, SUGGEST, TODO, TOP, freshDecision } from "./support/warm-state.mjs";
import { inTempDir } from "./support/temp-dir.mjs";

const WORKER = new URL("./children/store-jsonl-worker.mjs", import.meta.url);
const READONLY = new URL("./children/store-jsonl-readonly.mjs", import.meta.url);
const REFUSALS = new URL("./children/store-jsonl-refusals.mjs", import.meta.url);
const HOLDER = new URL("./children/lock-holder.mjs", import.meta.url);
const NS_WRITER = new URL("./children/lock-namespace-writer.mjs", import.meta.url);

const J = (entry) => JSON.stringify(entry);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const a = { type: "a", text: "é ✓ 😀" };
const b = { type: "b" };
const c = { type: "c", n: 3 };
const d = { type: "d" };
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * The README's line rules over a whole text, written out plainly: the
 * reference the store's chunked reader must match.
 */
function parseJsonl(text) {
  const lines = (text.startsWith("\uFEFF") ? text.slice(1) : text).split(/\r\n|\r|\n/);
  const last = lines.pop();
  const read = (line) => {
    if (line.trim() === "") return undefined;
    try {
      return { entry: JSON.parse(line) };
    } catch {
      return null;
    }
  };
  const entries = lines
    .map(read)
    .filter(Boolean)
    .map((r) => r.entry);
  const tail = read(last);
  if (tail) entries.push(tail.entry);
  return { entries, torn: tail === null ? last : null };
}

/** What the core's own reader (ChatState, as the CLI uses it) makes of `bytes`. */
function coreReads(bytes) {
  const state = ChatState.empty();
  try {
    state.ingestJsonl(bytes);
    const report = state.endJsonl(); // folds the last line first
    return { length: state.length, ...report };
  } finally {
    state.free();
  }
}

/** Asserts `promise` rejects with a StoreError of `code` and exactly `message`. */
async function rejectsWith(promise, code, message) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof StoreError, `expected a StoreError, got ${e}`);
    assert.equal(e.code, code);
    assert.equal(e.message, message);
    return true;
  });
}

// ---------------------------------------------------------------------------
// Odd bytes in a chat's file.

/** A JsonlStore of `dir` waiting `lockWait` ms for a lock, with chat "c" holding entry `a`. */
async function chatA(dir, lockWait) {
  const store = new JsonlStore(dir, { lockWait });
  await store.create("c", [a]);
  return store;
}
/** Chat "c" in a JsonlStore of `dir`, in an open turn, its warm state made by a todo_write (3 entries). */
async function warmChat(dir) {
  const store = new JsonlStore(dir);
  await store.create("c", [TOP, OPEN_TURN]);
  assert.equal((await runTool(store, "c", TODO)).ok, true, "warm at 3 entries");
  return { store, file: store.file("c") };
}
/** A test (bounded by `timeout` ms) of `fn(store, dir)`: chatA(dir, lockWait) in a fresh folder. */
function testOnChatA(title, timeout, lockWait, fn) {
  test(title, { timeout }, () => inTempDir("oda-faults-", async (dir) => fn(await chatA(dir, lockWait), dir)));
}

test("a file that starts with a UTF-8 BOM keeps its first line, so a helper chat stays a helper", () =>
  inTempDir("oda-faults-", async (dir) => {
    const file = path.join(dir, "c.jsonl");
    const helper = {
      type: "session",
      v: 1,
      chatId: "c",
      workspace: "/w",
      scheduledTaskFolder: false,
      agent: "helper",
      settings: { permission: "auto" },
    };
    const bytes = Buffer.concat([BOM, Buffer.from(`${J(helper)}\n${J({ type: "turn_started" })}\n`)]);
    fs.writeFileSync(file, bytes);
    const store = new JsonlStore(dir);
    assert.deepEqual(await store.read("c"), [helper, { type: "turn_started" }]);
    const r = await runTool(store, "c", { name: "suggest_task", input: { title: "T", tldr: "why", brief: "do" } });
    assert.equal(r.ok, false);
    assert.match(r.error, /suggest_task is only for the top-level agent/);
    assert.deepEqual(fs.readFileSync(file), bytes, "a refused call and a read change no byte");
    assert.equal(await store.append("c", [d], 2), 3);
    assert.deepEqual(fs.readFileSync(file), Buffer.concat([bytes, Buffer.from(`${J(d)}\n`)]), "the BOM stays");
    // A BOM split across 1-byte reads is still recognised; a BOM-only file holds nothing.
    assert.deepEqual(await new JsonlStore(dir, { readChunkBytes: 1 }).read("c"), [helper, { type: "turn_started" }, d]);
    fs.writeFileSync(path.join(dir, "e.jsonl"), BOM);
    assert.deepEqual(await store.read("e"), []);
    assert.equal(await store.append("e", [d], 0), 1);
    assert.deepEqual(fs.readFileSync(path.join(dir, "e.jsonl")), Buffer.concat([BOM, Buffer.from(`\n${J(d)}\n`)]));
    assert.equal(coreReads(bytes).length, 2, "the core's reader (the CLI) agrees");
  }));

test("CR-only, CRLF and mixed line ends read every line, no byte is ever cut, appends end the last line first", () =>
  inTempDir("oda-faults-", async (dir) => {
    const store = new JsonlStore(dir);
    const files = {
      cr: `${J(a)}\r${J(b)}\r${J(c)}`,
      "cr-ended": `${J(a)}\r${J(b)}\r${J(c)}\r`,
      crlf: `${J(a)}\r\n${J(b)}\r\n${J(c)}\r\n`,
      "crlf-open": `${J(a)}\r\n${J(b)}\r\n${J(c)}`,
      mixed: `${J(a)}\n\r\n${J(b)}\r\r${J(c)}\n`,
    };
    for (const [id, text] of Object.entries(files)) {
      const file = path.join(dir, `${id}.jsonl`);
      fs.writeFileSync(file, text);
      assert.deepEqual(await store.read(id), [a, b, c], id);
      assert.equal(fs.readFileSync(file, "utf8"), text, `${id}: read changes no byte`);
      assert.deepEqual(parseJsonl(text).entries, [a, b, c], `${id}: the reference rules agree`);
      assert.equal(await store.append(id, [d], 3), 4, id);
      const end = /[\r\n]$/.test(text) ? "" : "\n";
      assert.equal(fs.readFileSync(file, "utf8"), `${text}${end}${J(d)}\n`, `${id}: only appended to`);
      assert.deepEqual(await store.read(id), [a, b, c, d], id);
      assert.deepEqual(await store.readFrom(id, 3), [d], id);
    }
  }));

test("a complete last line without \\n is an entry, kept, and ended before the next append; only a tail that is not JSON is torn", () =>
  inTempDir("oda-faults-", async (dir) => {
    const store = new JsonlStore(dir);
    const cases = [
      // [file text, entries read, the CLI's torn]
      [`${J(a)}\n${J(b)}`, [a, b], null],
      [`${J(a)}\n${J(b)}  \t`, [a, b], null],
      [`${J(a)}\n${J(b).slice(0, -1)}`, [a], J(b).slice(0, -1)],
      [`${J(a)}\n{"type":"b","t":"cut`, [a], '{"type":"b","t":"cut'],
    ];
    for (const [n, [text, entries, torn]] of cases.entries()) {
      const id = `c${n}`;
      const file = path.join(dir, `${id}.jsonl`);
      fs.writeFileSync(file, text);
      assert.deepEqual(await store.read(id), entries, text);
      assert.equal(fs.readFileSync(file, "utf8"), text, "read changes no byte");
      assert.deepEqual(parseJsonl(text), { entries, torn }, "the reference rules agree");
      const core = coreReads(Buffer.from(text));
      assert.deepEqual(
        [core.length, core.tornBytes],
        [entries.length, Buffer.byteLength(torn ?? "")],
        "the core's reader (the CLI) agrees",
      );
      assert.equal(await store.append(id, [c], entries.length), entries.length + 1);
      assert.equal(fs.readFileSync(file, "utf8"), `${text}\n${J(c)}\n`, "the newline first, nothing cut");
      assert.deepEqual(await store.read(id), [...entries, c], "a torn tail stays behind as an unreadable line");
    }
  }));

test("invalid UTF-8: a line that is not UTF-8 is left out (never read as U+FFFD) and kept in the file", () =>
  inTempDir("oda-faults-", async (dir) => {
    const store = new JsonlStore(dir);
    const file = path.join(dir, "c.jsonl");
    const invalid = [
      Buffer.from([0xff, 0xfe]), // never valid
      Buffer.from([0xc3]), // a sequence cut short
      Buffer.from([0xed, 0xa0, 0x80]), // a surrogate in UTF-8
      Buffer.from([0xc0, 0xaf]), // an overlong "/"
    ].map((bytes) => Buffer.concat([Buffer.from('{"type":"bad","t":"'), bytes, Buffer.from('"}')]));
    const replaced = { type: "ok", t: "\uFFFD" }; // a real U+FFFD is data like any other
    const bytes = Buffer.concat([
      Buffer.from(`${J(a)}\n`),
      ...invalid.map((line) => Buffer.concat([line, Buffer.from("\n")])),
      Buffer.from(`${J(replaced)}\n`),
      invalid[0],
    ]);
    fs.writeFileSync(file, bytes);
    assert.deepEqual(await store.read("c"), [a, replaced]);
    assert.deepEqual(await new JsonlStore(dir, { readChunkBytes: 3 }).read("c"), [a, replaced]);
    assert.equal(await store.append("c", [b], 2), 3);
    assert.deepEqual(fs.readFileSync(file), Buffer.concat([bytes, Buffer.from(`\n${J(b)}\n`)]));
    assert.deepEqual(await store.read("c"), [a, replaced, b]);
  }));

test("empty and blank files: no entries, and the first append lands after what is there", () =>
  inTempDir("oda-faults-", async (dir) => {
    const store = new JsonlStore(dir);
    for (const [id, text] of [
      ["empty", ""],
      ["newlines", "\n\n\r\n"],
      ["blank", "\n  \n\t"],
      ["nbsp", "\u00a0"],
    ]) {
      const file = path.join(dir, `${id}.jsonl`);
      fs.writeFileSync(file, text);
      assert.deepEqual(await store.read(id), [], id);
      assert.deepEqual(await store.readFrom(id, 0), [], id);
      await rejectsWith(store.readFrom(id, 1), "store/truncated", `chat "${id}" has 0 entries, fewer than the 1 already read`);
      assert.equal(await store.append(id, [a], 0), 1, id);
      const end = text === "" || /[\r\n]$/.test(text) ? "" : "\n";
      assert.equal(fs.readFileSync(file, "utf8"), `${text}${end}${J(a)}\n`, id);
      assert.deepEqual(await store.read(id), [a], id);
    }
  }));

/** A small deterministic random source. */
function random(seed) {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
}

/** A random JSONL text of odd but valid UTF-8: every line end, blank and unreadable lines, a BOM, an open last line. */
function oddJsonl(rand, { bom = rand(4) === 0, lines = rand(12), ends = ["\n", "\r\n", "\r"] } = {}) {
  const kinds = [
    () => J({ type: "e", n: rand(1000), text: ["", "é", "😀 ✓", "a\u2028b", "\uFFFD"][rand(5)] }),
    () => J({ type: "e", nested: { list: [rand(9), null, true] } }),
    () => "",
    () => "   \t",
    () => "{oops",
    () => "[1,",
    () => "42",
    () => '"text"',
    () => ` ${J({ type: "spaced" })} `,
  ];
  let text = bom ? "\uFEFF" : "";
  for (let i = 0; i < lines; i++) text += kinds[rand(kinds.length)]() + ends[rand(ends.length)];
  const tail = rand(4);
  if (tail === 1) text += J({ type: "tail", n: rand(9) });
  if (tail === 2) text += J({ type: "torn", n: 12345 }).slice(0, 1 + rand(10));
  if (tail === 3) text += "  ";
  return text;
}

test("the store reads in chunks of any size exactly as the rules read the whole text", () =>
  inTempDir("oda-faults-", async (dir) => {
    const rand = random(11);
    for (let n = 0; n < 60; n++) {
      const text = oddJsonl(rand);
      const expected = parseJsonl(text).entries;
      for (const chunk of [1, 2, 3, 5, 64, 1 << 20]) {
        const id = `f${n}-${chunk}`;
        fs.writeFileSync(path.join(dir, `${id}.jsonl`), text);
        const store = new JsonlStore(dir, { readChunkBytes: chunk });
        assert.deepEqual(await store.read(id), expected, `${JSON.stringify(text)} in chunks of ${chunk}`);
        for (let from = 0; from <= expected.length; from++) assert.deepEqual(await store.readFrom(id, from), expected.slice(from));
      }
    }
  }));

test("readFrom after bytes were added by hand agrees with parsing the whole file again (CRLF split, tails grown)", () =>
  inTempDir("oda-faults-", async (dir) => {
    const rand = random(5);
    for (let n = 0; n < 80; n++) {
      const id = `g${n}`;
      const file = path.join(dir, `${id}.jsonl`);
      let text = oddJsonl(rand);
      fs.writeFileSync(file, text);
      const store = new JsonlStore(dir, { readChunkBytes: 1 + rand(8) });
      let known = (await store.read(id)).length;
      for (let round = 0; round < 3; round++) {
        const more = ["\n", "", "x"][rand(3)] + oddJsonl(rand, { bom: false });
        fs.appendFileSync(file, more);
        text += more;
        const all = parseJsonl(text).entries;
        if (all.length < known) {
          // The open last line the store counted was grown into something unreadable.
          await assert.rejects(store.readFrom(id, known), { code: "store/truncated" });
        } else {
          assert.deepEqual(await store.readFrom(id, known), all.slice(known), JSON.stringify(text));
        }
        known = all.length;
        assert.deepEqual(await store.read(id), all);
      }
    }
  }));

test("the store and the core's own JSONL reader (ChatState.fromJsonl) agree on odd files, every line end included", () =>
  inTempDir("oda-faults-", async (dir) => {
    // They must match exactly, or a state built from the bytes could not catch up through readFrom(state.length).
    const rand = random(23);
    const todo = (n) => J({ type: "todo_update", v: 1, todos: [{ content: `step ${n}`, status: "in_progress" }] });
    const store = new JsonlStore(dir);
    for (let n = 0; n < 60; n++) {
      let text = oddJsonl(rand);
      text = `${J({ type: "turn_started" })}\n${todo(n)}\n${text}`;
      const bytes = Buffer.concat([Buffer.from(text), rand(3) === 0 ? Buffer.from([0x0a, 0xff, 0x0a]) : Buffer.alloc(0)]);
      fs.writeFileSync(path.join(dir, `h${n}.jsonl`), bytes);
      const entries = await store.read(`h${n}`);
      const chunks = [];
      for (let i = 0, step = 1; i < bytes.length; i += step, step = 1 + rand(9)) chunks.push(bytes.subarray(i, i + step));
      const state = ChatState.fromJsonl(chunks.length > 0 ? chunks : [bytes]);
      try {
        assert.equal(state.length, entries.length, JSON.stringify(text));
        assert.deepEqual(state.replayTodos(), replayTodos(entries));
        assert.deepEqual(state.replaySuggestions(), replaySuggestions(entries));
      } finally {
        state.free();
      }
    }
  }));

test("a line too long to be a string is unreadable, not an error; the lines around it are read", () => {
  const scanner = new JsonlScanner({ offset: 0, count: 0 }, 0, 16);
  for (const piece of [`${J(b)}\n`, `{"type":"long","pad":"`, "x".repeat(40), `"}\n${J(d)}\n`, "y".repeat(30)]) {
    for (let i = 0; i < piece.length; i += 7) scanner.push(Buffer.from(piece.slice(i, i + 7)));
  }
  scanner.end();
  assert.deepEqual(scanner.entries, [b, d]);
  assert.equal(scanner.count, 2);
  assert.equal(scanner.openLine, true);
});

test("warm reads seek: readFrom and append read only what follows the last checkpoint, and notice a file cut, replaced or rewritten", () =>
  inTempDir("oda-faults-", async (dir) => {
    const store = new JsonlStore(dir);
    const file = path.join(dir, "c.jsonl");
    await store.create("c", [a, b]);
    assert.equal(await store.append("c", [c], 2), 3);
    assert.deepEqual(await store.readFrom("c", 3), []);
    // Same file, same size, the start of line 1 overwritten in place: a seeking store never sees it.
    const fd = fs.openSync(file, "r+");
    fs.writeSync(fd, "xxxx", 0);
    fs.closeSync(fd);
    assert.equal(await store.append("c", [d], 3), 4, "counted from the checkpoint, not from line 1");
    assert.deepEqual(await store.readFrom("c", 3), [d]);
    assert.deepEqual(await new JsonlStore(dir).readFrom("c", 2), [c, d], "a checkpoint a little before the end (after create) is kept too");
    assert.deepEqual(await store.read("c"), [b, c, d], "a whole read sees the file as it is");
    // Replaced by another file (a new inode): read again from the start.
    fs.writeFileSync(path.join(dir, "new.tmp"), `${J(a)}\n${J(b)}\n`);
    fs.renameSync(path.join(dir, "new.tmp"), file);
    await rejectsWith(store.readFrom("c", 3), "store/truncated", 'chat "c" has 2 entries, fewer than the 3 already read');
    assert.deepEqual(await store.readFrom("c", 1), [b]);
    // Cut shorter in place.
    fs.truncateSync(file, Buffer.byteLength(J(a)) + 1);
    await rejectsWith(store.readFrom("c", 2), "store/truncated", 'chat "c" has 1 entries, fewer than the 2 already read');
    // Rewritten in place, longer, with other bytes where the checkpoint was.
    fs.writeFileSync(file, `${J(c)}\n${J(d)}\n${J(a)}\n`, { flag: "r+" });
    assert.deepEqual(await store.readFrom("c", 1), [d, a]);
    assert.equal(await store.append("c", [b], 3), 4);
    assert.deepEqual(parseJsonl(fs.readFileSync(file, "utf8")).entries, [c, d, a, b]);
  }));

// ---------------------------------------------------------------------------
// Odd things at a chat's path.

test("a directory, FIFO, socket, dangling or looping symlink at a chat's path is store/not-a-file, at once", { timeout: 30_000 }, () =>
  inTempDir("oda-faults-", async (dir) => {
    const store = new JsonlStore(dir);
    const servers = [];
    const odd = {
      dir: [(p) => fs.mkdirSync(p), "a directory"],
      fifo: [(p) => execFileSync("mkfifo", [p]), "a FIFO"],
      socket: [
        async (p) =>
          servers.push(
            await new Promise((r) => {
              const s = net.createServer().listen(p, () => r(s));
            }),
          ),
        "a socket",
      ],
      dangling: [(p) => fs.symlinkSync(path.join(dir, "nowhere"), p), "a symbolic link to nothing"],
      loop: [(p) => fs.symlinkSync(p, p), "a symbolic link loop"],
      "to-dir": [(p) => (fs.mkdirSync(`${p}.target`), fs.symlinkSync(`${p}.target`, p)), "a directory"],
    };
    try {
      for (const [id, [make, what]] of Object.entries(odd)) {
        const file = path.join(dir, `${id}.jsonl`);
        await make(file);
        const message = `chat "${id}": ${file} is ${what}, not a chat's file; move or remove it`;
        await rejectsWith(store.read(id), "store/not-a-file", message);
        await rejectsWith(store.readFrom(id, 0), "store/not-a-file", message);
        // 100 KB: more than a pipe holds, which used to block forever on a FIFO.
        await rejectsWith(store.append(id, [{ type: "big", pad: "x".repeat(100_000) }]), "store/not-a-file", message);
        await rejectsWith(store.create(id, [a]), "store/not-a-file", message);
        fs.rmSync(file, { recursive: true, force: true });
        assert.equal(await store.create(id, [a]), true, `${id}: once it is removed the chat can be created`);
        assert.deepEqual(await store.read(id), [a]);
      }
      // A symlink to a regular file is a chat like any other.
      fs.writeFileSync(path.join(dir, "elsewhere"), `${J(a)}\n`);
      fs.symlinkSync(path.join(dir, "elsewhere"), path.join(dir, "linked.jsonl"));
      assert.equal(await store.append("linked", [b], 1), 2);
      assert.deepEqual(await store.read("linked"), [a, b]);
      assert.equal(await store.create("linked", []), false);
    } finally {
      for (const s of servers) s.close();
    }
  }),
);

test("read-only file and read-only directory: reads work, writes are store/read-only and change nothing", () =>
  inTempDir("oda-faults-", async (dir) => {
    // Root may write anything: then the child runs as "nobody", who may not.
    const root = process.getuid?.() === 0;
    const run = (chatDir) => {
      const out = execFileSync(process.execPath, [new URL(READONLY).pathname, chatDir], {
        encoding: "utf8",
        ...(root ? { uid: 65534, gid: 65534 } : {}),
      });
      return JSON.parse(out);
    };
    fs.chmodSync(dir, 0o755);
    const content = `${J(a)}\n${J(b)}\n`;
    // The file is read-only, the directory is not.
    const fileRo = path.join(dir, "file-ro");
    fs.mkdirSync(fileRo);
    fs.writeFileSync(path.join(fileRo, "c.jsonl"), content, { mode: 0o444 });
    fs.chmodSync(path.join(fileRo, "c.jsonl"), 0o444);
    if (root) fs.chownSync(fileRo, 65534, 65534);
    const one = run(fileRo);
    assert.deepEqual(one.read, { value: [a, b] });
    assert.deepEqual(one.readFrom, { value: [b] });
    assert.deepEqual(one.append, {
      code: "store/read-only",
      name: "StoreError",
      message: `chat "c" cannot be written: the file ${path.join(fileRo, "c.jsonl")} is read-only here (EACCES)`,
    });
    assert.deepEqual(one.create, { value: true });
    assert.equal(fs.readFileSync(path.join(fileRo, "c.jsonl"), "utf8"), content);
    // The directory is read-only: no lock can be taken, reads go ahead without one.
    const dirRo = path.join(dir, "dir-ro");
    fs.mkdirSync(dirRo);
    fs.writeFileSync(path.join(dirRo, "c.jsonl"), content);
    fs.chmodSync(dirRo, 0o555);
    try {
      const two = run(dirRo);
      assert.deepEqual(two.read, { value: [a, b] });
      assert.deepEqual(two.readFrom, { value: [b] });
      const refused = (id) => ({
        code: "store/read-only",
        name: "StoreError",
        message: `chat "${id}" cannot be written: the directory ${dirRo} is read-only here (EACCES)`,
      });
      assert.deepEqual(two.append, refused("c"));
      assert.deepEqual(two.create, refused("d"));
      assert.equal(fs.readFileSync(path.join(dirRo, "c.jsonl"), "utf8"), content);
      assert.deepEqual(fs.readdirSync(dirRo), ["c.jsonl"]);
    } finally {
      fs.chmodSync(dirRo, 0o755);
    }
  }));

// What every operation of a store and of the chat helpers answers over a
// folder the file system refuses: `{ read…, dismiss }`, from the child.
const OPERATIONS = [
  "read",
  "readFrom",
  "readSince",
  "append",
  "create",
  "createChat",
  "beginTurn",
  "runTool",
  "list",
  "dismiss",
  "listChats",
  "delete",
];
const WRITES = new Set(["append", "create", "createChat", "beginTurn", "runTool", "dismiss", "delete"]);
const CHAT_OF = { create: "d", createChat: "e" };
const refusalsIn = (chatDir, { vanish = false, asNobody = false } = {}) =>
  JSON.parse(
    execFileSync(process.execPath, [new URL(REFUSALS).pathname, chatDir, ...(vanish ? ["vanish"] : [])], {
      encoding: "utf8",
      ...(asNobody ? { uid: 65534, gid: 65534 } : {}),
    }),
  );
const refused = (code, message) => ({ code, name: "StoreError", message });
const cannotWrite = (id, what, where, errno) =>
  refused("store/read-only", `chat "${id}" cannot be written: the ${what} ${where} is read-only here (${errno})`);
const cannotRead = (what, where) =>
  refused("store/no-access", `chat "c" cannot be read: this process may not read the ${what} ${where} (EACCES)`);
/** A chat with an open turn and one open offer (`s1`), as the children expect. */
async function offeringChat(chatDir) {
  const store = new JsonlStore(chatDir);
  await createChat(store, "c", { workspace: "/repos/app" });
  await beginTurn(store, "c");
  const offered = await runTool(store, "c", SUGGEST);
  assert.equal(offered.ok, true);
  return fs.readFileSync(path.join(chatDir, "c.jsonl"), "utf8");
}

test(
  "a read-only mount (EROFS): reads and list answer, every write is store/read-only naming the folder, nothing is written",
  {
    skip: canMount() ? false : "needs mount -t tmpfs (root)",
  },
  () =>
    inTempDir("oda-faults-", async (dir) => {
      const mnt = path.join(dir, "mnt");
      fs.mkdirSync(mnt);
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt]);
      try {
        const chatDir = path.join(mnt, "chats");
        const content = await offeringChat(chatDir);
        execFileSync("mount", ["-o", "remount,ro", mnt]);
        const seen = refusalsIn(chatDir);
        assert.deepEqual(Object.keys(seen), OPERATIONS);
        assert.equal(seen.read.value.length, 3);
        assert.equal(seen.readFrom.value.length, 2);
        assert.deepEqual(seen.readSince, { value: 3 });
        assert.deepEqual(seen.list, { value: 1 });
        assert.deepEqual(seen.listChats, { value: ["c"] });
        for (const op of WRITES) assert.deepEqual(seen[op], cannotWrite(CHAT_OF[op] ?? "c", "directory", chatDir, "EROFS"), op);
        assert.equal(fs.readFileSync(path.join(chatDir, "c.jsonl"), "utf8"), content);
        assert.deepEqual(fs.readdirSync(chatDir), ["c.jsonl"], "no lock or temp file is left");
      } finally {
        execFileSync("umount", ["-l", mnt]);
      }
    }),
);

test("a folder removed while the store is open: every operation is store/unavailable naming it, and it is not made again", () =>
  inTempDir("oda-faults-", async (dir) => {
    const chatDir = path.join(dir, "chats");
    await offeringChat(chatDir);
    const seen = refusalsIn(chatDir, { vanish: true });
    assert.deepEqual(Object.keys(seen), OPERATIONS);
    assert.deepEqual(
      seen.listChats,
      refused(
        "store/unavailable",
        `the chats cannot be listed: the store's directory ${chatDir} is missing (ENOENT); restore it, or open the store where the chats are`,
      ),
    );
    for (const op of OPERATIONS.filter((op) => op !== "listChats")) {
      const id = CHAT_OF[op] ?? "c";
      assert.deepEqual(
        seen[op],
        refused(
          "store/unavailable",
          `chat "${id}" cannot be reached: the store's directory ${chatDir} is missing (ENOENT); restore it, or open the store where the chats are`,
        ),
        op,
      );
    }
    assert.equal(fs.existsSync(chatDir), false);
  }));

test(
  "a chat's file or folder this process may not read: reads are store/no-access naming which, writes store/read-only",
  {
    skip: process.getuid?.() === 0 ? false : "needs root to run the child as another user",
  },
  () =>
    inTempDir("oda-faults-", async (dir) => {
      fs.chmodSync(dir, 0o755);
      // The file may not be read; its folder is the child's own.
      const fileDir = path.join(dir, "file-refused");
      const content = await offeringChat(fileDir);
      const file = path.join(fileDir, "c.jsonl");
      fs.chmodSync(file, 0);
      fs.chownSync(fileDir, 65534, 65534);
      const one = refusalsIn(fileDir, { asNobody: true });
      for (const op of ["read", "readFrom", "readSince", "beginTurn", "runTool", "list", "dismiss"])
        assert.deepEqual(one[op], cannotRead("file", file), op);
      assert.deepEqual(one.append, cannotWrite("c", "file", file, "EACCES"));
      assert.deepEqual([one.create, one.createChat], [{ value: true }, { value: true }], "other chats of the folder are made");
      assert.deepEqual(
        one.listChats,
        refused("store/no-access", `the chats cannot be listed: this process may not read the file ${file} (EACCES)`),
      );
      assert.deepEqual(one.delete, { value: true }, "a file it may not read, in a folder it may write, it may delete");
      assert.equal(fs.existsSync(file), false);
      // The folder may not be entered at all.
      const dirRefused = path.join(dir, "dir-refused");
      await offeringChat(dirRefused);
      fs.chmodSync(dirRefused, 0);
      try {
        const two = refusalsIn(dirRefused, { asNobody: true });
        for (const op of ["read", "readFrom", "readSince", "beginTurn", "runTool", "list", "dismiss"]) {
          assert.deepEqual(two[op], cannotRead("directory", dirRefused), op);
        }
        for (const op of ["append", "create", "createChat", "delete"])
          assert.deepEqual(two[op], cannotWrite(CHAT_OF[op] ?? "c", "directory", dirRefused, "EACCES"), op);
        assert.deepEqual(
          two.listChats,
          refused("store/no-access", `the chats cannot be listed: this process may not read the directory ${dirRefused} (EACCES)`),
        );
      } finally {
        fs.chmodSync(dirRefused, 0o755);
      }
      assert.equal(fs.readFileSync(path.join(dirRefused, "c.jsonl"), "utf8"), content.replace("file-refused", "dir-refused"));
      assert.deepEqual(fs.readdirSync(dirRefused), ["c.jsonl"]);
    }),
);

function canMount() {
  if (process.getuid?.() !== 0) return false;
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), "oda-mount-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe], { stdio: "ignore" });
    execFileSync("umount", [probe], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------
// Locks nobody releases.

const HOST = hostKey();
const TOKEN = "0123456789abcdef";

test("a lock that shows no sign of life is reported after the wait, naming what to remove; nothing is written", {
  timeout: 60_000,
}, async () => {
  const sleeper = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  try {
    const dead = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    await once(dead, "exit");
    const cases = {
      stray: [
        (lock) => (fs.mkdirSync(lock), fs.writeFileSync(path.join(lock, ".DS_Store"), "")),
        'it holds ".DS_Store", which is not a lock owner',
      ],
      "stray-beside-a-dead-owner": [
        (lock) => {
          plantOwner(lock, dead.pid, TOKEN);
          fs.writeFileSync(path.join(lock, "Thumbs.db"), "");
        },
        'it holds "Thumbs.db", which is not a lock owner',
      ],
      "impossible-pid": [
        (lock) => fs.mkdirSync(path.join(lock, `99999999999-${HOST}-${TOKEN}`), { recursive: true }),
        `its owner entry "99999999999-${HOST}-${TOKEN}" names pid 99999999999, which no process can have`,
      ],
      "pid-zero": [
        (lock) => fs.mkdirSync(path.join(lock, `0-${HOST}-${TOKEN}`), { recursive: true }),
        `its owner entry "0-${HOST}-${TOKEN}" names pid 0, which no process can have`,
      ],
      "reused-pid": [
        (lock) => fs.mkdirSync(path.join(lock, `${sleeper.pid}-${HOST}-${TOKEN}`), { recursive: true }),
        `its owner, process ${sleeper.pid} on this host, is alive but has not touched it for the whole wait (a stalled process, or a reused pid)`,
      ],
      "other-host": [
        (lock) => fs.mkdirSync(path.join(lock, `${process.pid}-000000000000-${TOKEN}`), { recursive: true }),
        `its owner, process ${process.pid} on another host or in another PID namespace (000000000000), has not touched it for the whole wait`,
      ],
      file: [(lock) => fs.writeFileSync(lock, "not a lock"), "it is a regular file, not a lock directory"],
      symlink: [(lock) => fs.symlinkSync("/nonexistent", lock), "it is a symbolic link, not a lock directory"],
      fifo: [(lock) => execFileSync("mkfifo", [lock]), "it is a FIFO, not a lock directory"],
    };
    await Promise.all(
      Object.entries(cases).map(([name, [plant, why]]) =>
        inTempDir("oda-faults-", async (dir) => {
          const file = path.join(dir, "c.jsonl");
          fs.writeFileSync(file, `${J(a)}\n`);
          const lock = path.join(dir, "c.jsonl.lock");
          plant(lock);
          const store = new JsonlStore(dir, { lockWait: 300 });
          const message = `chat "c" stays locked: ${why}; remove ${lock} if no process is using it`;
          await rejectsWith(store.read("c"), "store/locked", message);
          await rejectsWith(store.append("c", [b], 1), "store/locked", message);
          await rejectsWith(store.readFrom("c", 0), "store/locked", message);
          assert.equal(fs.readFileSync(file, "utf8"), `${J(a)}\n`, `${name}: nothing written`);
          assert.ok(fs.lstatSync(lock), `${name}: the lock is left alone`);
          if (name === "stray-beside-a-dead-owner") assert.deepEqual(fs.readdirSync(lock), ["Thumbs.db"], "the dead owner was broken");
          fs.rmSync(lock, { recursive: true, force: true });
          assert.equal(await store.append("c", [b], 1), 2, `${name}: once it is removed the chat works`);
          assert.deepEqual(fs.readdirSync(dir).sort(), ["c.jsonl"]);
        }),
      ),
    );
  } finally {
    sleeper.kill("SIGKILL");
  }
});

test("a live holder is waited for however long it works (its heartbeat), a stopped one is reported", { timeout: 60_000 }, () =>
  inTempDir("oda-faults-", async (dir) => {
    const store = await chatA(dir, 1000);
    const lock = path.join(dir, "c.jsonl.lock");
    const hold = async () => {
      const holder = fork(HOLDER, [dir, lock], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
      await once(holder, "message");
      return holder;
    };
    // Working: holds for three times the wait, touching its lock all along.
    const holder = await hold();
    try {
      let settled = false;
      const append = store.append("c", [b], 1).finally(() => (settled = true));
      await sleep(3000);
      assert.equal(settled, false, "still waiting for a holder that shows it is alive");
      holder.send("release");
      assert.equal(await append, 2);
    } finally {
      holder.kill("SIGKILL");
    }
    // Stopped (SIGSTOP): alive, but it no longer touches its lock.
    const stopped = await hold();
    try {
      stopped.kill("SIGSTOP");
      await rejectsWith(
        store.append("c", [c], 2),
        "store/locked",
        `chat "c" stays locked: its owner, process ${stopped.pid} on this host, is alive but has not touched it for the whole wait (a stalled process, or a reused pid); remove ${lock} if no process is using it`,
      );
      stopped.kill("SIGCONT");
      stopped.send("release");
      await once(stopped, "message");
      assert.equal(await store.append("c", [c], 2), 3);
    } finally {
      stopped.kill("SIGKILL");
    }
  }),
);

// ---------------------------------------------------------------------------
// Crashes and sizes.

test("a writer SIGKILLed again and again: every acknowledged append is there after reopen, whole and once", { timeout: 180_000 }, () =>
  inTempDir("oda-faults-", async (dir) => {
    await new JsonlStore(dir).create("c", [{ type: "session" }]);
    const rand = random(3);
    const acked = new Set();
    for (let round = 0; round < 12; round++) {
      const child = fork(WORKER, ["acked", dir, "c", String(round), "3"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
      await once(child, "message");
      const target = 1 + rand(20);
      let seen = 0;
      child.on("message", (m) => {
        acked.add(m.acked);
        if (++seen === target) child.kill("SIGKILL");
      });
      child.send("go");
      await once(child, "exit");
      // Reopen: a new store object, and a new look at the file from its first byte.
      const log = await new JsonlStore(dir).read("c");
      const firsts = new Map();
      log.forEach((entry, i) => {
        if (entry.type !== "pair") return;
        if (entry.part === 1) {
          assert.ok(!firsts.has(entry.key), `${entry.key} landed once`);
          firsts.set(entry.key, i);
        }
      });
      for (const key of acked) {
        const at = firsts.get(key);
        assert.ok(at !== undefined, `acknowledged append ${key} is there (round ${round})`);
        assert.deepEqual(log[at + 1], { type: "pair", part: 2, key }, `${key}: its two entries together`);
      }
      assert.equal(log.filter((e) => e.part === 2).length, new Set(log.filter((e) => e.part === 2).map((e) => e.key)).size);
      // The chat takes a conditional append at the length it shows.
      assert.equal(await new JsonlStore(dir).append("c", [{ type: "round", round }], log.length), log.length + 1);
    }
    assert.ok(acked.size >= 12);
  }),
);

test("a chat file over 512 MiB takes appends and reads (in chunks, never one string)", { timeout: 180_000 }, () =>
  inTempDir("oda-faults-", async (dir) => {
    const file = path.join(dir, "c.jsonl");
    const line = Buffer.from(`${J({ type: "big", pad: "x".repeat((1 << 20) - 30) })}\n`);
    const lines = 520;
    const fd = fs.openSync(file, "w");
    for (let i = 0; i < lines; i++) fs.writeSync(fd, line);
    fs.closeSync(fd);
    assert.ok(fs.statSync(file).size > 512 * 2 ** 20);
    // Separate store objects; the first one to look at the file reads it all.
    assert.equal(await new JsonlStore(dir).append("c", [d], lines), lines + 1);
    assert.deepEqual(await new JsonlStore(dir).readFrom("c", lines), [d]);
    assert.deepEqual(await new JsonlStore(dir).readFrom("c", lines + 1), []);
  }),
);

// ---------------------------------------------------------------------------
// One lock holder in every deployment, warm states that notice a replaced
// log, counts that never drift from the file.

const unshareWorks = (() => {
  try {
    execFileSync("unshare", ["--pid", "--fork", "--mount-proc", "true"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** A child in a PID namespace of its own (pid 1 there, as a container's main process); resolves its JSON lines one by one. */
function inOwnPidNamespace(...args) {
  const child = spawn("unshare", ["--pid", "--fork", "--mount-proc", process.execPath, new URL(NS_WRITER).pathname, ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = [];
  const waiting = [];
  let buffer = "";
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    for (let i = buffer.indexOf("\n"); i !== -1; i = buffer.indexOf("\n")) {
      const line = JSON.parse(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
      const next = waiting.shift();
      if (next) next(line);
      else lines.push(line);
    }
  });
  return { child, next: () => (lines.length > 0 ? Promise.resolve(lines.shift()) : new Promise((r) => waiting.push(r))) };
}

test(
  "two processes in separate PID namespaces (one pod's containers) never hold a chat's lock at once, nor sweep each other's temp files",
  { skip: unshareWorks ? false : "needs unshare --pid --fork --mount-proc (root)", timeout: 60_000 },
  () =>
    inTempDir("oda-faults-", async (dir) => {
      await new JsonlStore(dir).create("c", [a]);
      const holder = inOwnPidNamespace("hold", dir, "c", "2500");
      try {
        const held = await holder.next();
        assert.equal(held.event, "held");
        const writer = inOwnPidNamespace("append", dir, "c", "1");
        const appended = await writer.next();
        assert.equal(held.pid, 1, "the holder is pid 1 in its namespace");
        assert.equal(appended.pid, 1, "so is the writer in its own: the holder's pid is the writer's own");
        const tempKept = fs.existsSync(held.temp);
        const released = await holder.next();
        assert.deepEqual(
          { intruded: released.intruded, appendedAfterRelease: appended.at >= released.at, tempKept },
          { intruded: false, appendedAfterRelease: true, tempKept: true },
          "nobody wrote the chat while its holder held the lock, and the holder's temp file was not swept from the other namespace",
        );
        assert.equal(appended.length, 2);
        assert.deepEqual(await new JsonlStore(dir).read("c"), [a, { type: "from-another-namespace" }]);
      } finally {
        holder.child.stdin.end();
        await once(holder.child, "exit");
      }
      assert.deepEqual(fs.readdirSync(dir), ["c.jsonl"]);
    }),
);

testOnChatA(
  "a holder whose event loop is blocked far past the lock wait is waited for, not reported: its heartbeat runs on a thread",
  60_000,
  1000,
  async (store, dir) => {
    const lock = path.join(dir, "c.jsonl.lock");
    const holder = fork(HOLDER, [dir, lock], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    try {
      await once(holder, "message");
      holder.send({ block: 4000 }); // a long synchronous replay: four times the wait
      const released = once(holder, "message").then(() => Date.now());
      await sleep(100);
      const length = await store.append("c", [b], 1);
      assert.equal(length, 2);
      assert.ok(Date.now() >= (await released) - 50, "appended once the busy holder was done");
    } finally {
      holder.kill("SIGKILL");
    }
  },
);

testOnChatA(
  "a pid that looks dead is broken only once its entry went untouched for STALE_MS; a fresh one is waited for",
  30_000,
  200,
  async (store, dir) => {
    const dead = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    await once(dead, "exit");
    const lock = path.join(dir, "c.jsonl.lock");
    const owner = path.join(lock, `${dead.pid}-${HOST}-${TOKEN}`);
    fs.mkdirSync(owner, { recursive: true }); // touched just now: its pid is gone, but not for long enough
    const started = Date.now();
    assert.equal(await store.append("c", [b], 1), 2, "broken once stale, though the wait is shorter (it never counts as stuck)");
    assert.ok(Date.now() - started >= 1900, `not broken before it went untouched for STALE_MS (took ${Date.now() - started} ms)`);
    // A dead process's temp file is swept only when it is old, too.
    const temp = path.join(dir, `.create-${dead.pid}-${HOST}-${TOKEN}.tmp`);
    fs.writeFileSync(temp, "{}\n");
    const { sweep } = await import("../../pkg/dist/stores/jsonl/lock.js");
    await sweep(dir);
    assert.ok(fs.existsSync(temp), "a fresh temp file stays");
    const then = new Date(Date.now() - 60_000);
    fs.utimesSync(temp, then, then);
    await sweep(dir);
    assert.ok(!fs.existsSync(temp), "an old one of a dead pid goes");
  },
);

test("a warm state notices its file was renamed over or rewritten in place (rsync, a restore) and reads it again", () =>
  inTempDir("oda-faults-", async (dir) => {
    for (const how of ["renamed over", "rewritten in place"]) {
      const store = new JsonlStore(dir);
      const chat = how === "renamed over" ? "c" : "d";
      const file = store.file(chat);
      await store.create(chat, [{ ...TOP, chatId: chat }, OPEN_TURN]);
      assert.equal((await runTool(store, chat, TODO)).ok, true, "warm: the shared cache holds the chat at 3 entries");
      // The chat is now a helper's, and at least as long as the warm state thinks.
      const text = [{ ...HELPER, chatId: chat }, OPEN_TURN, HELLO, HELLO].map((e) => `${J(e)}\n`).join("");
      if (how === "renamed over") {
        fs.writeFileSync(path.join(dir, "restore.tmp"), text);
        fs.renameSync(path.join(dir, "restore.tmp"), file);
      } else {
        fs.writeFileSync(file, text); // same inode
      }
      const expected = await freshDecision(store, chat, SUGGEST);
      assert.equal(expected.ok, false, "a fresh read refuses: a helper offers nothing");
      assert.deepEqual(await runTool(store, chat, SUGGEST), expected, how);
      assert.equal(fs.readFileSync(file, "utf8"), text, `${how}: nothing recorded`);
    }
  }));

/** Makes the next write through any FileHandle first append `line` to `file` as another program would (no lock). */
async function appendBeforeNextWrite(file, line) {
  const fh = await fs.promises.open(file, "r");
  const proto = Object.getPrototypeOf(fh);
  await fh.close();
  const write = proto.write;
  proto.write = function (...args) {
    proto.write = write;
    fs.appendFileSync(file, line);
    return write.apply(this, args);
  };
  return () => (proto.write = write);
}

test("another program appends while the store writes: the store says where its entry landed, and the warm state reads again", () =>
  inTempDir("oda-faults-", async (dir) => {
    const { store, file } = await warmChat(dir);
    let undo = await appendBeforeNextWrite(file, `${J({ type: "turn_ended" })}\n`);
    try {
      assert.equal((await runTool(store, "c", TODO)).ok, true);
    } finally {
      undo();
    }
    const log = await store.read("c");
    assert.deepEqual(
      log.map((e) => e.type),
      ["session", "turn_started", "todo_update", "turn_ended", "todo_update"],
    );
    const expected = await freshDecision(store, "c", SUGGEST);
    assert.equal(expected.ok, false, "outside a turn, a fresh read refuses");
    assert.deepEqual(await runTool(store, "c", SUGGEST), expected, "and so does the warm state");
    // The store's own answer: the length the file really has, its entry last.
    undo = await appendBeforeNextWrite(file, `${J(HELLO)}\n`);
    try {
      assert.equal(await store.append("c", [b], 5), 7, "the other program's line and ours");
    } finally {
      undo();
    }
    assert.deepEqual(await store.readFrom("c", 5), [HELLO, b]);
    assert.equal(await store.append("c", [c], 7), 8, "the count it remembers is the file's");
  }));

test("an app-wrapped JSON.parse that throws once during a scan makes the store read again, never count the line as unreadable", () =>
  inTempDir("oda-faults-", async (dir) => {
    const { store, file } = await warmChat(dir);
    fs.appendFileSync(file, `${J({ type: "turn_ended" })}\n`); // another program ends the turn
    const parse = JSON.parse;
    let failures = 0;
    JSON.parse = function (text, ...rest) {
      if (failures === 0 && typeof text === "string" && text.includes('"turn_ended"')) {
        failures++;
        throw new SyntaxError("the app's JSON.parse wrapper failed once");
      }
      return parse.call(this, text, ...rest);
    };
    let warm;
    try {
      warm = await runTool(store, "c", SUGGEST).catch((e) => ({ threw: e.code }));
    } finally {
      JSON.parse = parse;
    }
    const expected = await freshDecision(store, "c", SUGGEST);
    assert.equal(expected.ok, false, "outside a turn, a fresh read refuses");
    // Read again (and decided right), or refused with store/read-failed: never accepted on a shifted count.
    assert.ok(warm.threw === "store/read-failed" || (warm.ok === false && warm.error === expected.error), JSON.stringify(warm));
    assert.deepEqual(await runTool(store, "c", SUGGEST), expected, "the next call decides on the whole log");
    assert.equal((await store.read("c")).length, 4, "nothing recorded");
  }));

test("a line nested 6,000 deep from another program is skipped and reported; runTool and list keep working through JsonlStore", () =>
  inTempDir("oda-faults-", async (dir) => {
    const { SuggestionService } = await import("oda-tasks");
    const store = new JsonlStore(dir);
    await store.create("c", [TOP, OPEN_TURN]);
    const deep = `{"type":"app","deep":${"[".repeat(6000)}1${"]".repeat(6000)}}`;
    fs.appendFileSync(store.file("c"), `${deep}\n`);
    assert.equal((await runTool(store, "c", TODO)).ok, true);
    const offered = await runTool(store, "c", SUGGEST);
    assert.equal(offered.ok, true, JSON.stringify(offered));
    const { open } = await new SuggestionService({ store }).list("c");
    assert.deepEqual(
      open.map((s) => s.title),
      ["Follow up"],
    );
    assert.deepEqual(await store.readTextFrom("c", 2), [deep, ...(await store.readTextFrom("c", 3))], "the deep line is kept as it is");
  }));

test("through JsonlStore, a Start copies sandbox and approval exactly as the offering chat's file holds them", () =>
  inTempDir("oda-faults-", async (dir) => {
    const { SuggestionService } = await import("oda-tasks");
    const store = new JsonlStore(dir);
    const settings = '{"model":"m","permission":"auto","sandbox":{"limit":1e400,"big":18446744073709551615},"approval":[1.50,-0.0,1E2]}';
    const session = `{"type":"session","chatId":"c","workspace":"/w","scheduledTaskFolder":false,"agent":"top-level","settings":${settings}}`;
    fs.writeFileSync(store.file("c"), `${session}\n${J(OPEN_TURN)}\n`);
    const offered = await runTool(store, "c", SUGGEST);
    assert.equal(offered.ok, true, JSON.stringify(offered));
    const id = (await store.read("c")).at(-1).id;
    const { chatId } = await new SuggestionService({ store }).start("c", id);
    const [first] = fs.readFileSync(store.file(chatId), "utf8").split("\n");
    assert.ok(first.includes('"sandbox":{"limit":1e400,"big":18446744073709551615}'), first);
    assert.ok(first.includes('"approval":[1.50,-0.0,1E2]'), first);
    assert.deepEqual((await store.readTextFrom("c", 0)).slice(0, 2), [session, J(OPEN_TURN)], "readTextFrom gives the stored text");
  }));
