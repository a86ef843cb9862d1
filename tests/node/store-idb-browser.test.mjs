// IndexedDbStore in real headless Chromium: the Store contract, run in Node
// against store objects that live in two real tabs (real IndexedDB, real
// Web Locks), and transactions that abort half-way or die with their tab.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { ConflictError, StoreError } from "oda-tasks";
import { launch, serve } from "./support/browser.mjs";
import { contractOver } from "./support/contract.mjs";
import { abortThirdPut } from "./support/idb-faults.mjs";

const page = `<!doctype html><meta charset="utf-8"><title>store</title>
<script type="module">
  import { IndexedDbStore } from "/pkg/dist/entrypoints/browser.js";
  const stores = new Map();
  // The inverse of encode() in the test: values JSON cannot carry (functions, dates, bigints, lone surrogates).
  const decode = ([tag, x]) =>
    tag === "u" ? undefined : tag === "null" ? null : tag === "n" ? Number(x) : tag === "s" || tag === "b" ? x
    : tag === "su" ? String.fromCharCode(...x) : tag === "bi" ? BigInt(x) : tag === "f" ? function f() {}
    : tag === "d" ? new Date(x) : tag === "a" ? x.map(decode) : Object.fromEntries(x.map(([k, v]) => [k, decode(v)]));
  window.storeFor = (id, name) => {
    if (!stores.has(id)) stores.set(id, new IndexedDbStore(name));
    return stores.get(id);
  };
  window.call = async (id, name, method, args) => {
    try {
      return { value: await window.storeFor(id, name)[method](...args.map(decode)) };
    } catch (e) {
      const { name, message, code, chatId, expectedLength, actualLength } = e;
      return { error: { name, message, code, chatId, expectedLength, actualLength } };
    }
  };
  window.closeStores = (name) => {
    for (const [id, store] of stores) if (store.name === name) (store.close(), stores.delete(id));
  };
  window.ready = true;
</script>`;

function encode(v) {
  if (v === undefined) return ["u"];
  if (v === null) return ["null"];
  if (typeof v === "number") return ["n", Number.isFinite(v) ? v : String(v)];
  if (typeof v === "string") return v.isWellFormed() ? ["s", v] : ["su", Array.from(v, (_, i) => v.charCodeAt(i))];
  if (typeof v === "boolean") return ["b", v];
  if (typeof v === "bigint") return ["bi", String(v)];
  if (typeof v === "function") return ["f"];
  if (v instanceof Date) return ["d", v.getTime()];
  if (Array.isArray(v)) return ["a", v.map(encode)];
  return ["o", Object.entries(v).map(([k, x]) => [k, encode(x)])];
}

/** The page's error as the same class in Node. */
function rebuild({ name, message, code, chatId, expectedLength, actualLength }) {
  if (name === "ConflictError") return new ConflictError(chatId, expectedLength, actualLength);
  if (name === "StoreError") return new StoreError(code, message, chatId);
  if (name === "TypeError") return new TypeError(message);
  return Object.assign(new Error(message), { name });
}

let ids = 0;
/** A Store whose every call runs on one IndexedDbStore object in a real tab. */
class TabStore {
  constructor(tab, name) {
    this.tab = tab;
    this.name = name;
    this.id = ++ids;
  }
  async #call(method, args) {
    const r = await this.tab.evaluate(
      ([id, name, method, args]) => window.call(id, name, method, args),
      [this.id, this.name, method, args.map(encode)],
    );
    if (r.error) throw rebuild(r.error);
    return r.value;
  }
  read(chatId) {
    return this.#call("read", [chatId]);
  }
  readFrom(chatId, from) {
    return this.#call("readFrom", [chatId, from]);
  }
  readTextFrom(chatId, from) {
    return this.#call("readTextFrom", [chatId, from]);
  }
  readSince(chatId, from, mark) {
    return this.#call("readSince", [chatId, from, mark]);
  }
  delete(chatId) {
    return this.#call("delete", [chatId]);
  }
  list(options) {
    return this.#call("list", [options]);
  }
  append(chatId, entries, expectedLength) {
    return this.#call("append", [chatId, entries, expectedLength]);
  }
  create(chatId, entries) {
    return this.#call("create", [chatId, entries]);
  }
}

/** One browser for the whole file, two tabs of one profile (they share IndexedDB and Web Locks). */
let browser;
const pageErrors = [];
async function tabs() {
  browser ??= (async () => {
    const server = await serve({ "/page.html": page });
    const launched = await launch();
    const opened = [];
    for (let i = 0; i < 2; i++) {
      const tab = await launched.context.newPage();
      tab.on("pageerror", (e) => pageErrors.push(e.message));
      await tab.goto(`${server.url}/page.html`);
      await tab.waitForFunction(() => window.ready === true, null, { timeout: 20_000 });
      opened.push(tab);
    }
    return { server, launched, tabs: opened };
  })();
  return (await browser).tabs;
}
after(async () => {
  if (browser === undefined) return;
  const { server, launched } = await browser;
  await launched.close();
  await server.close();
});

let databases = 0;
contractOver("IndexedDbStore in Chromium", async () => {
  const [first, second] = await tabs();
  const name = `contract-${++databases}`;
  let opened = 0;
  return {
    // Each new store object lives in the other tab from the one before.
    open: () => new TabStore(opened++ % 2 === 0 ? first : second, name),
    done: async () => Promise.all([first, second].map((tab) => tab.evaluate((n) => window.closeStores(n), name))),
  };
});

test("IndexedDbStore in Chromium: a transaction that aborts half-way leaves the chat as it was", async () => {
  const [tab] = await tabs();
  await tab.evaluate(`window.abortThirdPut = ${abortThirdPut}`);
  const result = await tab.evaluate(async () => {
    const store = window.storeFor("aborts", "aborts");
    await store.create("c", [{ type: "a" }, { type: "b" }]);
    const faults = window.abortThirdPut(IDBObjectStore);
    const errors = [];
    try {
      await store.append("c", [{ type: "x" }, { type: "y" }, { type: "z" }], 2).catch((e) => errors.push(e.message));
      faults.again();
      await store.create("d", [{ type: "x" }, { type: "y" }, { type: "z" }]).catch((e) => errors.push(e.message));
    } finally {
      faults.restore();
    }
    return {
      errors,
      c: await store.read("c"),
      d: await store.read("d"),
      from2: await store.readFrom("c", 2),
      appended: await store.append("c", [{ type: "ok" }], 2),
    };
  });
  assert.deepEqual(result, {
    errors: ["oda-tasks: IndexedDB transaction aborted", "oda-tasks: IndexedDB transaction aborted"],
    c: [{ type: "a" }, { type: "b" }],
    d: null,
    from2: [],
    appended: 3,
  });
});

test("IndexedDbStore in Chromium: a tab closed in the middle of a large append leaves all of it or none", async () => {
  const [reader] = await tabs();
  const name = "closing";
  await new TabStore(reader, name).create("c", [{ type: "session" }]);
  for (let round = 0; round < 3; round++) {
    const doomed = await (await browser).launched.context.newPage();
    await doomed.goto(reader.url());
    await doomed.waitForFunction(() => window.ready === true);
    const before = (await new TabStore(reader, name).read("c")).length;
    // Started, not awaited: the tab goes away while the append is under way.
    await doomed.evaluate(
      ([name, round]) => {
        const entries = Array.from({ length: 20_000 }, (_, i) => ({ type: "bulk", round, i, pad: "x".repeat(50) }));
        void window.storeFor("doomed", name).append("c", entries);
      },
      [name, round],
    );
    await doomed.close();
    const store = new TabStore(reader, name);
    const log = await store.read("c");
    assert.ok(log.length === before || log.length === before + 20_000, `all or none (got ${log.length - before} of 20000)`);
    assert.deepEqual(await store.readFrom("c", log.length), []);
    // The chat's recorded length matches its entries: a conditional append at it succeeds.
    assert.equal(await store.append("c", [{ type: "after", round }], log.length), log.length + 1);
  }
});

test("IndexedDbStore in Chromium: nothing above left an uncaught error in a tab", () => {
  assert.deepEqual(pageErrors, []);
});
