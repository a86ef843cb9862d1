// IndexedDbStore beside other tabs and other apps, in real Chromium: an open
// queued behind another tab's blocked deletion or upgrade is bounded by
// `openTimeout` and answers `store/blocked`; a database of the same name
// made by another app, or at a newer version, answers `store/incompatible`
// naming what was found. Each failure is retried on the next call.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openTabs } from "./support/browser.mjs";

const page = `<!doctype html><meta charset="utf-8"><script type="module">
  import { IndexedDbStore } from "/pkg/dist/entrypoints/browser.js";
  let raw;
  // A connection that ignores versionchange: an app's own, or an older library's.
  window.rawOpen = (name, version, stores = []) => new Promise((resolve, reject) => {
    const r = indexedDB.open(name, version);
    r.onupgradeneeded = () => stores.forEach((s) => r.result.createObjectStore(s));
    r.onsuccess = () => { raw = r.result; resolve(raw.version); };
    r.onerror = () => reject(r.error);
  });
  window.rawClose = () => raw.close();
  window.rawStores = () => Array.from(raw.objectStoreNames);
  window.pending = {};
  // Started and left pending: it is blocked while the other tab's connection stays open.
  window.startDelete = (name) => { const r = indexedDB.deleteDatabase(name); window.pending.delete = new Promise((ok) => { r.onsuccess = () => ok("deleted"); }); };
  window.startUpgrade = (name, version) => {
    const r = indexedDB.open(name, version);
    window.pending.upgrade = new Promise((ok) => { r.onsuccess = () => { r.result.close(); ok("upgraded"); }; });
  };
  window.storeCall = async (name, options, method, ...args) => {
    const started = performance.now();
    try {
      // A call still pending after 8 s counts as the unbounded wait this suite is about.
      const hung = new Promise((_, reject) => setTimeout(() => reject(Object.assign(new Error("still pending after 8 s"), { code: "hung" })), 8000));
      const value = await Promise.race([new IndexedDbStore(name, options)[method](...args), hung]);
      return { value, ms: performance.now() - started };
    } catch (e) {
      return { error: { name: e.name, code: e.code, chatId: e.chatId, message: e.message }, ms: performance.now() - started };
    }
  };
  window.ready = true;
</script>`;

async function twoTabs(t) {
  const { tabs, errors } = await openTabs(t, page, 2);
  for (const tab of tabs) await tab.waitForFunction(() => window.ready === true);
  return { a: tabs[0], b: tabs[1], errors };
}

test("a read queued behind a deletion another tab blocks answers store/blocked within openTimeout, and works once that tab lets go", async (t) => {
  const { a, b, errors } = await twoTabs(t);
  await a.evaluate(() => window.rawOpen("chats-del", 1, ["chats", "entries"]));
  await b.evaluate(() => window.startDelete("chats-del"));
  const blocked = await b.evaluate(() => window.storeCall("chats-del", { openTimeout: 400 }, "read", "c"));
  assert.equal(blocked.error?.code, "store/blocked", JSON.stringify(blocked));
  assert.equal(blocked.error.name, "StoreError");
  assert.equal(blocked.error.chatId, "c");
  assert.equal(
    blocked.error.message,
    'IndexedDB "chats-del" did not open within 400 ms: another tab holds it open while it is being deleted or upgraded; ' +
      "close the app's other tabs (or have that connection close on its versionchange event), then try again",
  );
  assert.ok(blocked.ms >= 350 && blocked.ms < 5000, `bounded: ${blocked.ms} ms`);
  await a.evaluate(() => window.rawClose());
  assert.equal(await b.evaluate(() => window.pending.delete), "deleted");
  assert.deepEqual(
    (await b.evaluate(() => window.storeCall("chats-del", { openTimeout: 400 }, "create", "c", [{ type: "session" }]))).value,
    true,
  );
  assert.deepEqual((await b.evaluate(() => window.storeCall("chats-del", {}, "read", "c"))).value, [{ type: "session" }]);
  assert.deepEqual(errors, []);
});

test("a write queued behind an upgrade another tab blocks answers store/blocked; after the upgrade, the newer version is store/incompatible", async (t) => {
  const { a, b, errors } = await twoTabs(t);
  await a.evaluate(() => window.rawOpen("chats-up", 1, ["chats", "entries"]));
  await b.evaluate(() => window.startUpgrade("chats-up", 3));
  const blocked = await b.evaluate(() => window.storeCall("chats-up", { openTimeout: 300 }, "append", "c", [{ type: "turn_started" }]));
  assert.equal(blocked.error?.code, "store/blocked", JSON.stringify(blocked));
  assert.ok(blocked.ms < 5000, `bounded: ${blocked.ms} ms`);
  await a.evaluate(() => window.rawClose());
  assert.equal(await b.evaluate(() => window.pending.upgrade), "upgraded");
  const newer = await b.evaluate(() => window.storeCall("chats-up", {}, "read", "c"));
  assert.equal(newer.error?.code, "store/incompatible", JSON.stringify(newer));
  assert.equal(
    newer.error.message,
    'IndexedDB "chats-up" is at version 3, newer than the version 2 this store writes (object stores "chats", "entries"): ' +
      "a newer oda-tasks or another app made it; use that version of the package, or give IndexedDbStore another name",
  );
  assert.deepEqual(errors, []);
});

test("a database of the same name made by another app is store/incompatible on every call, naming its object stores; nothing is written to it", async (t) => {
  const { a, b, errors } = await twoTabs(t);
  await a.evaluate(() => window.rawOpen("notes-app", 1, ["notes"]));
  await a.evaluate(() => window.rawClose());
  for (const [method, ...args] of [
    ["read", "c"],
    ["create", "c", [{ type: "session" }]],
    ["append", "c", [{ type: "turn_started" }]],
  ]) {
    const r = await b.evaluate(([m, a]) => window.storeCall("notes-app", {}, m, ...a), [method, args]);
    assert.equal(r.error?.code, "store/incompatible", `${method}: ${JSON.stringify(r)}`);
    assert.equal(
      r.error.message,
      'IndexedDB "notes-app" was not made by this store: it holds the object stores "notes", not "chats" and "entries" ' +
        "(another app uses that name); give IndexedDbStore another name",
    );
  }
  const stores = await a.evaluate(async () => {
    await window.rawOpen("notes-app", 1);
    return [...window.rawStores()];
  });
  assert.deepEqual(stores, ["notes"], "the other app's database is left as it was");
  assert.deepEqual(errors, []);
});

test("a newer version made in this tab: store/incompatible at once, not a bare VersionError", async (t) => {
  const { a, errors } = await twoTabs(t);
  await a.evaluate(() => window.rawOpen("chats-v3", 3, ["chats", "entries", "extra"]));
  await a.evaluate(() => window.rawClose());
  const r = await a.evaluate(() => window.storeCall("chats-v3", {}, "readFrom", "c", 0));
  assert.equal(r.error?.code, "store/incompatible", JSON.stringify(r));
  assert.match(
    r.error.message,
    /^IndexedDB "chats-v3" is at version 3, newer than the version 2 this store writes \(object stores "chats", "entries", "extra"\)/,
  );
  assert.deepEqual(errors, []);
});
