// JsonlStore's change feed across real processes on one folder: fs.watch,
// the fallback that stats the watched files when fs.watch fails (a real
// EMFILE), watchMode "poll", each length heard once, and nothing left open.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { JsonlStore } from "oda-tasks/node";
import { feedOf } from "../../pkg/dist/stores/jsonl/watch.js";
import { entries, hearEachOther, heardAll, hintsStayHints, watchChild } from "./support/watch-child.mjs";
import { inTempDir } from "./support/temp-dir.mjs";

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test("JsonlStore.watch: two processes on one folder hear each other's writes through fs.watch, their own at once, each length once", () =>
  inTempDir("oda-jsonl-watch-", async (dir) => {
    const store = new JsonlStore(dir);
    const heard = [];
    const stop = store.watch("c", (length) => heard.push(length));
    assert.equal(feedOf(store.dir)?.watching, true, "one fs.watch on the folder");
    const child = await watchChild(["jsonl", dir]);
    try {
      await hearEachOther(store, heard, child, () => new JsonlStore(dir), 400);
    } finally {
      child.kill();
      stop();
    }
    assert.equal(feedOf(store.dir), undefined, "the last stop closes the folder's watch");
  }));

test("JsonlStore.watch: where fs.watch fails (EMFILE: no file descriptor left), the watched files' sizes are polled", () =>
  inTempDir("oda-jsonl-watch-", async (dir) => {
    const store = new JsonlStore(dir);
    const child = await watchChild(["jsonl", dir, JSON.stringify({ watchPollMs: 50 }), "exhaust"], { maxFiles: 64 });
    try {
      child.send("watch c");
      await child.expect("fs.watch failed with EMFILE");
      await child.expect("watching c");
      await store.create("c", entries(1));
      await child.expect("heard c 1");
      await store.append("c", entries(2), 1);
      await child.expect("heard c 3");
      child.send("append c 1");
      await child.expect("wrote c 4");
      await store.append("c", entries(1), 4);
      await child.expect("heard c 5");
      await pause(300);
      assert.deepEqual(await child.end(), [
        ["c", 1],
        ["c", 3],
        ["c", 4],
        ["c", 5],
      ]);
    } finally {
      child.kill();
    }
  }));

test('JsonlStore.watch: watchMode "poll" hears another process by polling, with no fs.watch', () =>
  inTempDir("oda-jsonl-watch-", async (dir) => {
    const store = new JsonlStore(dir, { watchMode: "poll", watchPollMs: 50 });
    const heard = [];
    const stops = [store.watch("c", (length) => heard.push(length)), store.watch("c", () => undefined)];
    assert.equal(feedOf(store.dir)?.watching, false);
    const child = await watchChild(["jsonl", dir]);
    try {
      child.send("create c 2");
      await child.expect("wrote c 2");
      await heardAll(heard, 1, "the create", 400);
      child.send("append c 3");
      await child.expect("wrote c 5");
      await heardAll(heard, 2, "the append", 400);
      assert.deepEqual(heard, [2, 5]);
      await child.end();
    } finally {
      child.kill();
      stops[0]();
      assert.notEqual(feedOf(store.dir), undefined, "one listener left: the feed stays");
      stops[1]();
    }
    assert.equal(feedOf(store.dir), undefined, "the last stop ends the timer");
  }));

test("JsonlStore.watch: a chat watched before it exists is heard when another process creates it; a file renamed over is counted again, as the chat made again when its first line differs", () =>
  inTempDir("oda-jsonl-watch-", async (dir) => {
    const store = new JsonlStore(dir);
    const heard = [];
    const stop = store.watch("late", (length) => heard.push(length));
    try {
      const child = await watchChild(["jsonl", dir]);
      child.send("create late 3");
      await child.expect("wrote late 3");
      await heardAll(heard, 1, "the create", 400);
      await child.end();
      // A program that takes no lock writes the whole file anew (renamed over): the watch counts it again.
      const file = store.file("late");
      const session = fs.readFileSync(file, "utf8").split("\n")[0];
      const renamedOver = (lines) => {
        fs.writeFileSync(`${file}.new`, lines.map((line) => `${line}\n`).join(""));
        fs.renameSync(`${file}.new`, file);
      };
      // The same first line (the chat's session): a restore, told with its length.
      renamedOver([session, JSON.stringify({ type: "x" })]);
      await heardAll(heard, 2, "the restored file", 400);
      assert.deepEqual(heard, [3, 2]);
      // Another first line: another chat in its place (deleted and made again between two looks), so its end first.
      renamedOver([JSON.stringify({ type: "session" })]);
      await heardAll(heard, 4, "the chat made again", 400);
      assert.deepEqual(heard, [3, 2, 0, 1]);
    } finally {
      stop();
    }
  }));

test("JsonlStore.watch: another process's file event is a hint: a touch tells nothing, a restore (a shorter file renamed over) is told with its length and the viewer gets its screen", () =>
  inTempDir("oda-jsonl-watch-", async (dir) => {
    const child = await watchChild(["jsonl", dir]);
    try {
      await hintsStayHints(new JsonlStore(dir), child, 400);
    } finally {
      child.kill();
    }
  }));

test("JsonlStore: watchMode and watchPollMs are checked before the folder is made", () =>
  inTempDir("oda-jsonl-watch-", async (dir) => {
    const target = path.join(dir, "never");
    for (const [options, message] of [
      [{ watchMode: "inotify" }, 'oda-tasks: invalid arguments of JsonlStore: `watchMode` must be "fs-watch" or "poll" (got "inotify")'],
      [{ watchPollMs: 0 }, "oda-tasks: invalid arguments of JsonlStore: `watchPollMs` must be a whole number >= 1 (got 0)"],
      [{ watchPollMs: "50" }, 'oda-tasks: invalid arguments of JsonlStore: `watchPollMs` must be a whole number >= 1 (got "50")'],
    ]) {
      assert.throws(() => new JsonlStore(target, options), { name: "TypeError", message });
    }
    assert.equal(fs.existsSync(target), false);
  }));
