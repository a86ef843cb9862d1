// IndexedDbStore's change feed in real headless Chromium: two tabs of one
// origin, each hearing its own writes at once and the other tab's through
// the database's BroadcastChannel, each length once; other chats and other
// databases unheard; a stranger's message on the channel ignored; stop stops.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openTabs } from "./support/browser.mjs";

const page = `<!doctype html><meta charset="utf-8"><title>watch</title>
<script type="module">
  import { IndexedDbStore } from "/pkg/dist/entrypoints/browser.js";
  const stores = new Map();
  const stops = [];
  window.heard = [];
  window.store = (key, name) => {
    if (!stores.has(key)) stores.set(key, new IndexedDbStore(name));
    return stores.get(key);
  };
  window.watch = (name, chatId) => {
    stops.push(window.store(name, name).watch(chatId, (length) => window.heard.push([name, chatId, length])));
  };
  window.stopAll = () => {
    for (const stop of stops.splice(0)) stop();
  };
  window.ready = true;
</script>`;

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the tab has heard `count` notices (a bound for a lost one, not a timing), then a little more; answers them. */
async function heardIn(tab, count) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const heard = await tab.evaluate(() => window.heard);
    if (heard.length >= count) break;
    if (Date.now() > deadline) assert.fail(`heard ${JSON.stringify(heard)}, expected ${count} notices`);
    await pause(20);
  }
  await pause(300);
  return tab.evaluate(() => window.heard);
}

/** Runs a write in the tab through store `key` of database `name`; answers what it answered and what the tab had heard when it resolved. */
const write = (tab, key, name, method, args) =>
  tab.evaluate(
    async ([key, name, method, args]) => ({ value: await window.store(key, name)[method](...args), heard: window.heard.slice() }),
    [key, name, method, args],
  );

const entries = (n) => Array.from({ length: n }, (_, i) => ({ type: "x", i }));

test("IndexedDbStore.watch in Chromium: a tab hears its own writes at once and the other tab's through BroadcastChannel, each once", async (t) => {
  const { tabs, errors } = await openTabs(t, page, 2);
  const [a, b] = tabs;
  for (const tab of tabs) await tab.waitForFunction(() => window.ready === true, null, { timeout: 20_000 });
  for (const tab of tabs) await tab.evaluate(() => window.watch("w", "c"));

  const created = await write(a, "w", "w", "create", ["c", entries(1)]);
  assert.equal(created.value, true);
  assert.deepEqual(created.heard, [["w", "c", 1]], "the writing tab hears before create resolves");
  assert.deepEqual(await heardIn(b, 1), [["w", "c", 1]]);

  const appended = await write(b, "w", "w", "append", ["c", entries(2), 1]);
  assert.equal(appended.value, 3);
  assert.deepEqual(appended.heard.at(-1), ["w", "c", 3]);
  assert.deepEqual(await heardIn(a, 2), [
    ["w", "c", 1],
    ["w", "c", 3],
  ]);

  // Another IndexedDbStore object of the database in tab a: heard there at once.
  const again = await write(a, "another", "w", "append", ["c", entries(1)]);
  assert.deepEqual(again.heard.at(-1), ["w", "c", 4]);
  // Not heard: another chat, another database's chat of the same id, a refused write, and a stranger's message on the channel.
  await write(b, "w", "w", "create", ["d", entries(1)]);
  await write(b, "x", "x", "create", ["c", entries(1)]);
  await b.evaluate(() =>
    window
      .store("w", "w")
      .append("c", [{ type: "late" }], 1)
      .catch(() => "refused"),
  );
  await b.evaluate(() => {
    const channel = new BroadcastChannel("oda-tasks:indexeddb:w");
    for (const data of [
      null,
      "c",
      { chatId: "c", length: 9 },
      { odaTasks: 1, from: "x", chatId: "c", length: -1 },
      { odaTasks: 1, from: "x", chatId: 7, length: 9 },
    ]) {
      channel.postMessage(data);
    }
    channel.close();
  });
  const expected = [
    ["w", "c", 1],
    ["w", "c", 3],
    ["w", "c", 4],
  ];
  assert.deepEqual(await heardIn(a, 3), expected);
  assert.deepEqual(await heardIn(b, 3), expected);

  // Tab a stops: b's writes reach b alone.
  await a.evaluate(() => window.stopAll());
  await write(b, "w", "w", "append", ["c", entries(1)]);
  assert.deepEqual(await heardIn(b, 4), [...expected, ["w", "c", 5]]);
  assert.deepEqual(await a.evaluate(() => window.heard), expected, "a stopped tab hears nothing more");
  assert.deepEqual(errors, []);
});

test("IndexedDbStore.watch in Chromium: another tab's message is a hint: forged, garbled or another version's messages never tell a length the database does not hold, nor silence the chat", async (t) => {
  const { tabs, errors } = await openTabs(t, page, 2);
  const [a, b] = tabs;
  for (const tab of tabs) await tab.waitForFunction(() => window.ready === true, null, { timeout: 20_000 });
  await a.evaluate(() => window.watch("h", "c"));
  assert.equal((await write(b, "h", "h", "create", ["c", entries(2)])).value, true);
  assert.deepEqual(await heardIn(a, 1), [["h", "c", 2]]);

  // Any script of the origin may post on the name: tab b forges notices of this version's shape and others.
  await b.evaluate((long) => {
    const channel = new BroadcastChannel("oda-tasks:indexeddb:h");
    for (const length of [999_999, -1, Number.NaN, 1e308, 1, 2 ** 53, "3"])
      channel.postMessage({ odaTasks: 1, from: "x", chatId: "c", length });
    channel.postMessage({ odaTasks: 1, from: "x", chatId: long, length: 999_999 });
    channel.postMessage({ odaTasks: 2, chat: "c", length: 999_999 });
    channel.postMessage("c 999999");
    channel.close();
  }, "c".repeat(201));
  await pause(500);
  assert.deepEqual(await a.evaluate(() => window.heard), [["h", "c", 2]], "no claimed length is told: the database still holds 2");

  // A later write of tab b is heard with the length it made.
  assert.equal((await write(b, "h", "h", "append", ["c", entries(1), 2])).value, 3);
  assert.deepEqual(await heardIn(a, 2), [
    ["h", "c", 2],
    ["h", "c", 3],
  ]);
  assert.deepEqual(errors, []);
});

test("IndexedDbStore.watch in Chromium: another tab's delete is heard as 0, a chat made again with its own lengths, also when deleted and made again between two reads", async (t) => {
  const { tabs, errors } = await openTabs(t, page, 2);
  const [a, b] = tabs;
  for (const tab of tabs) await tab.waitForFunction(() => window.ready === true, null, { timeout: 20_000 });
  // "old" exists before tab a watches it: its deletion is told all the same.
  assert.equal((await write(b, "d", "d", "create", ["old", entries(2)])).value, true);
  await a.evaluate(() => window.watch("d", "c"));
  await a.evaluate(() => window.watch("d", "old"));
  await a.evaluate(() => window.watch("d", "never"));
  await pause(300); // tab a's first look at "old"
  assert.equal((await write(b, "d", "d", "create", ["c", entries(2)])).value, true);
  assert.deepEqual(await heardIn(a, 1), [["d", "c", 2]]);
  const deleted = await write(b, "d", "d", "delete", ["c"]);
  assert.equal(deleted.value, true);
  assert.deepEqual(await heardIn(a, 2), [
    ["d", "c", 2],
    ["d", "c", 0],
  ]);
  // A delete that finds no chat is heard by nobody; "old", deleted, is heard as 0.
  assert.equal((await write(b, "d", "d", "delete", ["never"])).value, false);
  assert.equal((await write(b, "d", "d", "delete", ["old"])).value, true);
  assert.deepEqual(await heardIn(a, 3), [
    ["d", "c", 2],
    ["d", "c", 0],
    ["d", "old", 0],
  ]);
  // Made again: heard from its own lengths.
  assert.equal((await write(b, "d", "d", "create", ["c", entries(1)])).value, true);
  assert.deepEqual((await heardIn(a, 4)).at(-1), ["d", "c", 1]);
  // Deleted and made again at once, as long as the one before: tab a reads a chat of another epoch, so tells its end first.
  await b.evaluate(async () => {
    const store = window.store("d", "d");
    await store.delete("c");
    await store.create("c", [{ type: "x", i: 0 }]);
  });
  assert.deepEqual((await heardIn(a, 6)).slice(4), [
    ["d", "c", 0],
    ["d", "c", 1],
  ]);
  // A forged message claiming 0 for a chat that is there tells nothing.
  await b.evaluate(() => {
    const channel = new BroadcastChannel("oda-tasks:indexeddb:d");
    channel.postMessage({ odaTasks: 1, from: "x", chatId: "c", length: 0 });
    channel.postMessage("c deleted");
    channel.close();
  });
  await pause(500);
  assert.equal((await a.evaluate(() => window.heard)).length, 6, "no 0 the chat never had");
  assert.deepEqual(errors, []);
});
