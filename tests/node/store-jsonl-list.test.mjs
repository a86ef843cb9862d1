// JsonlStore's list: the order by the files' birth times (measured on this
// machine's temp folder), ids read back from file names (and, for a name
// shortened with a hash, from the chat's session), what in the folder is not
// a chat, and what a page reads.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { JsonlStore } from "oda-tasks/node";
import { inTempDir } from "./support/temp-dir.mjs";

const ids = (page) => page.chats.map((chat) => chat.chatId);
const session = (chatId, more = {}) => ({ type: "session", chatId, ...more });

/** Whether files in the temp folder get a birth time (statx's btime): the order a listing needs. */
function birthTimes() {
  const probe = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "oda-birth-")), "probe");
  try {
    fs.writeFileSync(probe, "");
    return fs.statSync(probe, { bigint: true }).birthtimeNs !== 0n;
  } finally {
    fs.rmSync(path.dirname(probe), { recursive: true });
  }
}
const NO_BIRTH = birthTimes() ? false : "the temp folder's file system keeps no birth times (statx gives none)";

test(
  "JsonlStore.list: newest first by the files' birth times, whatever the names: 200 creates one after another, named against their order",
  { skip: NO_BIRTH },
  () =>
    inTempDir("oda-jsonl-list-", async (dir) => {
      const store = new JsonlStore(dir);
      // z199 first, z000 last: ties broken by name would put them the other way round.
      const made = Array.from({ length: 200 }, (_, i) => `z${String(199 - i).padStart(3, "0")}`);
      for (const id of made) await store.create(id, [session(id)]);
      const births = made.map((id) => fs.statSync(store.file(id), { bigint: true }).birthtimeNs);
      for (let i = 1; i < births.length; i++)
        assert.ok(births[i] > births[i - 1], "each file of this process is born after the one before");
      // What the clock gives files a program writes one after another, for comparison (the store's creates keep their order whatever it gives).
      const raw = Array.from({ length: 40 }, (_, i) => {
        const file = path.join(dir, `raw-${i}`);
        fs.writeFileSync(file, "");
        return String(fs.statSync(file, { bigint: true }).birthtimeNs);
      });
      for (let i = 0; i < 40; i++) fs.rmSync(path.join(dir, `raw-${i}`));
      console.log(
        `birth times: 200 creates of the store, ${new Set(births.map(String)).size} distinct; 40 files written by a program, ${new Set(raw).size} distinct`,
      );
      assert.deepEqual(ids(await store.list({ limit: 1000 })), [...made].reverse());
      // Neither an append nor a touch moves a chat; a file renamed over (a restore) is a new file, born now.
      await store.append("z199", [{ type: "x" }], 1);
      const now = new Date();
      fs.utimesSync(store.file("z100"), now, now);
      assert.deepEqual(ids(await store.list({ limit: 3 })), ["z000", "z001", "z002"]);
      fs.copyFileSync(store.file("z150"), `${dir}/restored`);
      fs.renameSync(`${dir}/restored`, store.file("z150"));
      assert.deepEqual(ids(await store.list({ limit: 2 })), ["z150", "z000"]);
    }),
);

test("JsonlStore.list: only chats' files are listed: not temp files, locks, other files, folders, names the store never writes, or links to nothing", () =>
  inTempDir("oda-jsonl-list-", async (dir) => {
    const store = new JsonlStore(dir);
    await store.create("c", [session("c")]);
    await store.create("Chat é", [session("Chat é")]);
    const put = (name, text = `${JSON.stringify(session(name))}\n`) => fs.writeFileSync(path.join(dir, name), text);
    put(".create-1-abc-def.tmp");
    put("notes.txt");
    put("Chat.jsonl"); // upper case: the store writes %43hat.jsonl
    put("%2F.jsonl"); // "/": no chat's id
    put("%00.jsonl"); // NUL: no chat's id
    put("a%2.jsonl"); // not an escape
    put("%c3%a9.jsonl"); // lower-case hex: the store writes %C3%A9
    put("%C3.jsonl"); // half a character
    put(".jsonl"); // no name
    put("~0123.jsonl"); // not a hash the store makes
    fs.mkdirSync(path.join(dir, "folder.jsonl"));
    fs.mkdirSync(path.join(dir, "c.jsonl.lock"));
    fs.symlinkSync(path.join(dir, "nowhere"), path.join(dir, "dangling.jsonl"));
    fs.symlinkSync(store.file("c"), path.join(dir, "linked.jsonl")); // a link to a chat's file is a chat, as for read
    put("hand.jsonl"); // a file written by hand under a name the store would give: a chat
    assert.deepEqual(ids(await store.list()).sort(), ["Chat é", "c", "hand", "linked"]);
    assert.deepEqual((await store.list({ prefix: "Chat" })).chats, [{ chatId: "Chat é", first: session("Chat é") }]);
  }));

test("JsonlStore.list: a name shortened with a hash is listed by the id its session names (or that id after the prefix); one whose session does not name it is left out", () =>
  inTempDir("oda-jsonl-list-", async (dir) => {
    const store = new JsonlStore(dir);
    const owner = "abcdefghijklmnopqrstuvwx.";
    const long = "\u00e9".repeat(150); // 300 bytes of UTF-8, 900 escaped: the name is hashed
    assert.match(path.basename(store.file(long)), /~[0-9a-f]{32}\.jsonl$/);
    await store.create(long, [session(long)]);
    await store.create(`${owner}${long}`, [session(long)]); // an owner's chat: its session names the id its owner uses
    await store.create(`${long}x`, [{ type: "session" }]); // names no id
    await store.create(`${long}y`, [session("someone else")]);
    await store.create(`${long}z`, []);
    assert.deepEqual(ids(await store.list()), [long]);
    assert.deepEqual(ids(await store.list({ prefix: "\u00e9" })), [long]);
    assert.deepEqual(ids(await store.list({ prefix: owner })), [`${owner}${long}`]);
    assert.deepEqual(ids(await store.list({ prefix: `${owner}\u00e9\u00e9` })), [`${owner}${long}`]);
    assert.deepEqual(ids(await store.list({ prefix: `${owner}x` })), []);
    assert.deepEqual((await store.list({ prefix: owner })).chats[0].first, session(long));
  }));

test("JsonlStore.list: a page reads the first entry of its chats only: a chat of 4 GiB after its session lists at once", () =>
  inTempDir("oda-jsonl-list-", async (dir) => {
    const store = new JsonlStore(dir);
    await store.create("big", [session("big")]);
    // 4 GiB of holes after the session line: one line of NUL bytes no read could get through in time.
    fs.truncateSync(store.file("big"), 4 * 1024 ** 3);
    await store.create("small", [session("small")]);
    const started = performance.now();
    assert.deepEqual(await store.list(), {
      chats: [
        { chatId: "small", first: session("small") },
        { chatId: "big", first: session("big") },
      ],
      next: null,
    });
    assert.ok(performance.now() - started < 5_000, `listed in ${performance.now() - started} ms`);
  }));

test("JsonlStore.list: a cursor carries the page's last birth time and file name, and refuses one that names no file of a chat", () =>
  inTempDir("oda-jsonl-list-", async (dir) => {
    const store = new JsonlStore(dir);
    for (const id of ["a", "b", "c"]) await store.create(id, [session(id)]);
    const page = await store.list({ limit: 1 });
    const [tag, body] = page.next.split(".");
    assert.equal(tag, "j1");
    const [prefix, birth, name] = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
    assert.deepEqual([prefix, name], ["", "c.jsonl"]);
    assert.equal(
      BigInt(birth),
      fs.statSync(store.file("c"), { bigint: true }).birthtimeNs || fs.statSync(store.file("c"), { bigint: true }).ctimeNs,
    );
    const forged = (position) => `j1.${Buffer.from(JSON.stringify(["", ...position])).toString("base64url")}`;
    for (const position of [
      [birth, "c.txt"],
      ["-1", "c.jsonl"],
      ["1.5", "c.jsonl"],
      [Number(birth), "c.jsonl"],
      [birth],
      [birth, "c.jsonl", 1],
    ]) {
      await assert.rejects(
        store.list({ cursor: forged(position) }),
        { code: "store/bad-cursor", message: "invalid cursor" },
        JSON.stringify(position),
      );
    }
    assert.deepEqual(ids(await store.list({ cursor: forged([birth, "c.jsonl"]) })), ["b", "a"], "a position made by hand is a position");
  }));

test(
  "JsonlStore.list over 10,000 chats, half of them under one prefix: each page is right, and what it takes is printed",
  { timeout: 120_000 },
  () =>
    inTempDir("oda-jsonl-list-", async (dir) => {
      const store = new JsonlStore(dir);
      const owner = "abcdefghijklmnopqrstuvwx.";
      // Written as a program would (the listing reads the folder, not how files came there), one after another.
      const made = [];
      for (let i = 0; i < 10_000; i++) {
        const id = `${i % 2 ? owner : ""}chat-${i}`;
        fs.writeFileSync(
          store.file(id),
          `${JSON.stringify(session(`chat-${i}`, { workspace: "/w" }))}\n${JSON.stringify({ type: "x", pad: "y".repeat(2000) })}\n`,
        );
        made.push(id);
      }
      const birth = new Map(made.map((id) => [id, fs.statSync(store.file(id), { bigint: true }).birthtimeNs]));
      const byBirth = [...made].sort((a, b) => {
        const [x, y] = [birth.get(a), birth.get(b)];
        return x === y ? (store.file(a) < store.file(b) ? 1 : -1) : x > y ? -1 : 1;
      });
      const runs = {
        "first page of 50, no prefix": { limit: 50 },
        "first page of 50, the half's prefix": { limit: 50, prefix: owner },
        "a page of 1000, no prefix": { limit: 1000 },
        "a prefix of 11 chats": { limit: 50, prefix: "chat-999" },
      };
      const times = {};
      for (const [what, options] of Object.entries(runs)) {
        const expected = byBirth.filter((id) => id.startsWith(options.prefix ?? "")).slice(0, options.limit);
        const took = [];
        for (let run = 0; run < 7; run++) {
          const started = performance.now();
          const page = await store.list(options);
          took.push(performance.now() - started);
          assert.deepEqual(ids(page), expected, what);
        }
        times[what] = `${took.sort((a, b) => a - b)[3].toFixed(0)} ms`;
      }
      console.log(`list over 10,000 chats (medians of 7): ${JSON.stringify(times)}`);
    }),
);
