// One JSONL reader: ChatState.fromJsonl, the JSONL store's scanner and
// readJsonl (the preview's importer) all take their line rules from the core,
// so they agree on every byte sequence, however it is chunked.
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import assert from "node:assert/strict";
import { ChatState, clampPermission, readJsonl } from "oda-tasks";
import { JsonlScanner } from "../../pkg/dist/stores/jsonl/scanner.js";
import { prng } from "./support/random-log.mjs";

const enc = (s) => Buffer.from(s, "utf8");
const PIECES = [
  '{"type":"session","workspace":"/w"}',
  '{"type":"turn_started"}',
  '{"type":"app","n":1}',
  "{oops",
  "1",
  "[]",
  "",
  " ",
  "\t",
  '{"type":"todo_update","v":1,"todos":[{"content":"a","status":"pending"}]}',
  '{"type":"x","s":"\\u2028é😀"}',
  '{"type":"x","v":1e400}',
  '{"type":"a","type":"b"}',
];
const ENDS = ["\n", "\r\n", "\r"];

/** A random JSONL byte sequence: pieces, line ends, sometimes a BOM, bad UTF-8 or a torn tail. */
function randomBytes(rand) {
  const parts = [];
  if (rand() < 0.2) parts.push(Buffer.from([0xef, 0xbb, 0xbf]));
  const n = Math.floor(rand() * 12);
  for (let i = 0; i < n; i++) {
    parts.push(rand() < 0.07 ? Buffer.from([0xff, 0xfe]) : enc(PIECES[Math.floor(rand() * PIECES.length)]));
    parts.push(enc(ENDS[Math.floor(rand() * ENDS.length)]));
  }
  if (rand() < 0.3) parts.push(enc(rand() < 0.5 ? '{"type":"end"}' : '{"type":"to'));
  return Buffer.concat(parts);
}

function chunked(bytes, rand) {
  const chunks = [];
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + Math.floor(rand() * 7);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

test("fromJsonl, the store's scanner and readJsonl agree on every entry of random JSONL, in any chunking", () => {
  const rand = prng(1234);
  for (let round = 0; round < 400; round++) {
    const bytes = randomBytes(rand);
    const whole = readJsonl(bytes);
    const state = ChatState.fromJsonl(chunked(bytes, rand));
    const report = state.endJsonl();
    assert.equal(state.length, whole.entries.length, `round ${round}: entries`);
    assert.deepEqual(
      report.unreadable.map((u) => u.line),
      whole.unreadable.map((u) => u.line),
      `round ${round}: unreadable lines`,
    );
    assert.equal(report.tornBytes, whole.tornBytes, `round ${round}: torn`);
    state.free();
    const scan = new JsonlScanner({ offset: 0, count: 0 }, 0);
    for (const chunk of chunked(bytes, rand)) scan.push(chunk);
    scan.end();
    assert.deepEqual(scan.texts, whole.texts, `round ${round}: texts`);
    assert.deepEqual(scan.entries, whole.entries, `round ${round}: entries`);
    assert.equal(scan.count, whole.entries.length);
    for (const text of whole.texts) assert.ok(bytes.includes(enc(text)), `round ${round}: ${text} is the stored bytes`);
  }
});

test("the scanner's checkpoint is just past the last line end, and a last line without its end stays open", () => {
  const bytes = enc('{"type":"a"}\r\n{"type":"b"}\r{"type":"c"}');
  const scan = new JsonlScanner({ offset: 0, count: 0 }, 1);
  scan.push(bytes.subarray(0, 13));
  assert.deepEqual(scan.checkpoint, { offset: 13, count: 1 });
  scan.push(bytes.subarray(13));
  scan.end();
  assert.deepEqual(scan.checkpoint, { offset: 27, count: 2 });
  assert.equal(scan.openLine, true);
  assert.equal(scan.count, 3);
  assert.deepEqual(scan.texts, ['{"type":"b"}', '{"type":"c"}']);
  // Resuming at the checkpoint reads on from there.
  const again = new JsonlScanner({ offset: 14, count: 1 }, 1);
  again.push(bytes.subarray(14));
  again.end();
  assert.deepEqual(again.texts, ['{"type":"b"}', '{"type":"c"}']);
});

test("a line the core reads as JSON but an app-wrapped JSON.parse refuses is store/read-failed, never an unreadable line", () => {
  // The package takes JSON.parse when it loads (core/entry-text.js); a wrapper
  // installed before load is the case to guard, so the load happens in a child.
  const scanner = new URL("../../pkg/dist/stores/jsonl/scanner.js", import.meta.url).href;
  const index = new URL("../../pkg/dist/entrypoints/index.node.js", import.meta.url).href;
  const child = `
    const original = JSON.parse;
    JSON.parse = (text, ...rest) => {
      if (typeof text === "string" && text.includes('"boom"')) throw new SyntaxError("the app refused it");
      return original(text, ...rest);
    };
    await import(${JSON.stringify(index)});
    const { JsonlScanner } = await import(${JSON.stringify(scanner)});
    const { StoreError } = await import(${JSON.stringify(index)});
    try {
      new JsonlScanner({ offset: 0, count: 0 }, 0, undefined, "chat-1").push(new TextEncoder().encode('{"type":"a"}\\n{"type":"boom"}\\n'));
      console.log("no error");
    } catch (e) {
      console.log(JSON.stringify({ code: e.code, chatId: e.chatId, isStoreError: e instanceof StoreError, message: e.message }));
    }`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", child], { encoding: "utf8" });
  const seen = JSON.parse(out);
  assert.equal(seen.code, "store/read-failed");
  assert.equal(seen.chatId, "chat-1");
  assert.equal(seen.isStoreError, true);
  assert.match(
    seen.message,
    /^oda-tasks: entry 1 is JSON to the core, but JSON.parse refused it \(SyntaxError: the app refused it|^oda-tasks: entry 1 is JSON to the core, but JSON.parse refused it \(the app refused it\)/,
  );
});

test("readJsonl and clampPermission read with JSON.parse as it was at load: a wrapper the app installs later changes nothing", () => {
  const original = JSON.parse;
  let called = 0;
  JSON.parse = (...args) => {
    called++;
    return { tampered: true, was: original(...args) };
  };
  try {
    const read = readJsonl(new TextEncoder().encode('{"type":"a","n":1}\n{"type":"b"}\n'));
    assert.deepEqual(read.entries, [{ type: "a", n: 1 }, { type: "b" }]);
    assert.deepEqual(read.texts, ['{"type":"a","n":1}', '{"type":"b"}']);
    assert.deepEqual(read.unreadable, []);
    assert.equal(clampPermission("full-access", "ask"), "ask");
  } finally {
    JSON.parse = original;
  }
  assert.equal(called, 0);
});

test("ChatState.ingestJsonl reads a chunk of several MiB as it reads the same bytes fed a few at a time", () => {
  // ingestJsonl hands the core 1 MiB at a time: a CRLF, a multi-byte
  // character or a line may straddle each slice's end, and the chunk may
  // start anywhere in its ArrayBuffer.
  const SLICE = 1 << 20;
  const rand = prng(99);
  const todo = (n) =>
    `{"type":"todo_update","v":1,"todos":[{"content":"tâche ${n} 😀","status":"pending"},{"content":"b${n}","status":"completed"}]}`;
  for (let round = 0; round < 4; round++) {
    const parts = [enc('{"type":"session","workspace":"/w"}\n'), enc('{"type":"turn_started"}\r\n')];
    let size = 0;
    for (let n = 0; size < 3 * SLICE + 1000; n++) {
      const pick = rand();
      const line =
        pick < 0.5
          ? todo(n)
          : pick < 0.9
            ? `{"type":"message","role":"user","text":"${"é日x".repeat(Math.floor(rand() * 300))}"}`
            : "{oops";
      const piece = enc(line + ENDS[Math.floor(rand() * ENDS.length)]);
      parts.push(piece);
      size += piece.length;
    }
    let bytes = Buffer.concat(parts);
    if (round === 0) {
      // A CRLF split exactly at the first slice's end: "\r" its last byte, "\n" the next slice's first.
      const head = enc('{"type":"message","role":"user","text":"');
      const tail = enc('"}\r\n');
      const fill = "x".repeat(SLICE - head.length - tail.length + 1);
      bytes = Buffer.concat([head, enc(fill), tail, bytes]);
      assert.equal(bytes[SLICE - 1], 0x0d);
      assert.equal(bytes[SLICE], 0x0a);
    }
    const backing = new Uint8Array(bytes.length + 13);
    backing.set(bytes, 7);
    const whole = ChatState.fromJsonl(new Uint8Array(backing.buffer, 7, bytes.length));
    const bit = ChatState.fromJsonl(chunked(bytes, rand));
    assert.ok(whole.length > 1000, `round ${round}: ${whole.length} entries`);
    assert.equal(whole.length, bit.length, `round ${round}: entries`);
    assert.deepEqual(whole.endJsonl(), bit.endJsonl(), `round ${round}: the report`);
    assert.deepEqual(whole.view({ cards: 3 }), bit.view({ cards: 3 }), `round ${round}: the screen`);
    assert.deepEqual(whole.cards(), bit.cards(), `round ${round}: every card`);
    whole.free();
    bit.free();
  }
});
