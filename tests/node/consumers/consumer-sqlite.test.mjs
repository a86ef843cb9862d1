// docs/stores.md's SQLite recipes and its worked example of the contract
// suite, as printed, in a fresh project that installed the packed tarball:
// the Map store with its bug fails storeContract under node:test and Vitest
// and passes with the printed fix; node:sqlite on Node 22 and 24; a Bun
// server on bun:sqlite; a Worker with D1 and a Durable Object per chat under
// `wrangler dev`, with nothing configured but the binding; and the packaged
// contract suite itself on D1 and in a Durable Object, inside workerd, with
// their change feeds (a delete heard as 0) and a database of schema version 1
// upgraded by migrate() (its trigger and index made through D1's and the
// object's own SQL).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { consumer, fileCleanup, packTarball, runtimes } from "../support/consumer.mjs";
import { printed, recipes } from "../support/recipes.mjs";
import { freePort, serveUntil } from "../support/serve.mjs";

const once = fileCleanup();

const bin = runtimes();
const NODES = { 20: process.execPath, 22: bin("node-22/bin/node"), 24: bin("node-24/bin/node") };

const files = recipes(
  "map-store.js",
  "map-store.test.js",
  "map-store.vitest.test.js",
  "map-store-fix.js",
  "chats-sqlite.js",
  "bun-server.js",
  "worker-d1.js",
  "wrangler-d1.toml",
  "worker-do.js",
  "wrangler-do.toml",
);
// Test-only: the packaged contract suite inside workerd, on D1 and in a Durable Object,
// with a `test` that collects the tests and runs them one after another.
const contractWorker = `import { DurableObject } from "cloudflare:workers";
import { storeContract } from "oda-tasks/testing";
import { SqliteStore } from "oda-tasks/sqlite";

const TABLES = ["oda_tasks_entries", "oda_tasks_chats", "oda_tasks_schema_migrations"];

// The tables as schema version 1 made them, with its record: a database an older version migrated.
const VERSION_1 = [
  "CREATE TABLE oda_tasks_chats (chat_id TEXT NOT NULL PRIMARY KEY, length INTEGER NOT NULL CHECK (length >= 0), epoch TEXT NOT NULL) WITHOUT ROWID",
  "CREATE TABLE oda_tasks_entries (chat_id TEXT NOT NULL, seq INTEGER NOT NULL CHECK (seq >= 0), entry TEXT NOT NULL, PRIMARY KEY (chat_id, seq)) WITHOUT ROWID",
  "CREATE TABLE oda_tasks_schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
  "INSERT INTO oda_tasks_schema_migrations VALUES (1, '001_init', '2026-01-01T00:00:00.000Z')",
];

/** On a database of version 1 (\`run\` runs one statement): chats made and one deleted, list refused, then migrate() and list. */
async function upgrade(store, run) {
  for (const table of TABLES) await run(\`DROP TABLE IF EXISTS \${table}\`);
  for (const sql of VERSION_1) await run(sql);
  for (const id of ["m", "z", "a", "gone"]) await store.create(id, [{ type: "session", chatId: id }]);
  const deleted = await store.delete("gone");
  const refused = await store.list().then(() => "listed", (e) => e.code);
  const applied = await store.migrate();
  await store.create("new", [{ type: "session", chatId: "new" }]);
  await run("INSERT INTO oda_tasks_chats (chat_id, length, epoch) VALUES ('older', 0, 'e')");
  const ids = (await store.list()).chats.map((chat) => chat.chatId);
  return { deleted, refused, applied, ids };
}

async function runContract(name, makeStore, reopen) {
  const tests = [];
  storeContract({ name, makeStore, reopen, test: (title, fn) => tests.push({ title, fn }) });
  const results = [];
  for (const { title, fn } of tests) {
    try {
      await fn();
      results.push({ title, ok: true });
    } catch (e) {
      results.push({ title, ok: false, error: String(e?.stack ?? e) });
    }
  }
  return results;
}

export class ContractObject extends DurableObject {
  // over: "storage" (ctx.storage, transactions by transactionSync) or "sql" (ctx.storage.sql alone).
  async contract(over) {
    const storage = this.ctx.storage;
    const db = over === "sql" ? storage.sql : storage;
    const fresh = async () => {
      for (const table of TABLES) storage.sql.exec(\`DROP TABLE IF EXISTS \${table}\`);
      const store = new SqliteStore(db);
      await store.migrate();
      return store;
    };
    return runContract(\`SqliteStore in a Durable Object (ctx.\${over === "sql" ? "storage.sql" : "storage"})\`, fresh, () => new SqliteStore(db));
  }

  // The change feed in the object: a write through another SqliteStore of it (ctx.storage.sql) heard at once.
  async watch() {
    const storage = this.ctx.storage;
    for (const table of TABLES) storage.sql.exec(\`DROP TABLE IF EXISTS \${table}\`);
    const store = new SqliteStore(storage);
    await store.migrate();
    const heard = [];
    const stop = store.watch("w", (length) => heard.push(length));
    await store.create("w", [{ type: "session" }]);
    await new SqliteStore(storage.sql).append("w", [{ type: "x" }, { type: "y" }]);
    await new SqliteStore(storage.sql).delete("w");
    const atOnce = heard.slice();
    await pause(300);
    stop();
    return { atOnce, heard };
  }

  async upgrade() {
    const sql = this.ctx.storage.sql;
    return upgrade(new SqliteStore(this.ctx.storage), (text) => sql.exec(text));
  }
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** D1's change feed: this binding's writes at once; another Worker's (rows the store did not write) by the poll of the lengths. */
async function d1Watch(env) {
  await env.DB.batch(TABLES.map((table) => env.DB.prepare(\`DROP TABLE IF EXISTS \${table}\`)));
  const store = new SqliteStore(env.DB, { watchPollMs: 50 });
  await store.migrate();
  const heard = [];
  const stop = store.watch("w", (length) => heard.push(length));
  await store.create("w", [{ type: "session" }]);
  const atOnce = heard.slice();
  await env.DB.batch([
    env.DB.prepare("INSERT INTO oda_tasks_entries (chat_id, seq, entry) VALUES ('w', 1, '{\\"type\\":\\"x\\"}')"),
    env.DB.prepare("UPDATE oda_tasks_chats SET length = 2 WHERE chat_id = 'w'"),
  ]);
  for (let waited = 0; heard.length < 2 && waited < 10_000; waited += 20) await pause(20);
  const length = (await store.read("w")).length;
  // Another Worker's delete: heard by the poll, which finds no row.
  await env.DB.batch([
    env.DB.prepare("DELETE FROM oda_tasks_entries WHERE chat_id = 'w'"),
    env.DB.prepare("DELETE FROM oda_tasks_chats WHERE chat_id = 'w'"),
  ]);
  for (let waited = 0; heard.length < 3 && waited < 10_000; waited += 20) await pause(20);
  await pause(300);
  stop();
  return { atOnce, heard, length };
}

export default {
  async fetch(request, env) {
    const path = new URL(request.url).pathname;
    if (path === "/d1-watch") return Response.json(await d1Watch(env));
    if (path === "/do-watch") return Response.json(await env.OBJ.get(env.OBJ.idFromName("watch")).watch());
    if (path === "/do-upgrade") return Response.json(await env.OBJ.get(env.OBJ.idFromName("upgrade")).upgrade());
    if (path === "/d1-upgrade") return Response.json(await upgrade(new SqliteStore(env.DB), (sql) => env.DB.prepare(sql).run()));
    if (path === "/d1") {
      const fresh = async () => {
        await env.DB.batch(TABLES.map((table) => env.DB.prepare(\`DROP TABLE IF EXISTS \${table}\`)));
        const store = new SqliteStore(env.DB);
        await store.migrate();
        return store;
      };
      return Response.json(await runContract("SqliteStore on D1", fresh, () => new SqliteStore(env.DB)));
    }
    const over = new URL(request.url).pathname === "/do-sql" ? "sql" : "storage";
    return Response.json(await env.OBJ.get(env.OBJ.idFromName(over)).contract(over));
  },
};
`;
const contractConfig = `name = "contract"
main = "contract-worker.js"
compatibility_date = "2026-11-17"
compatibility_flags = ["nodejs_compat"]

[[d1_databases]]
binding = "DB"
database_name = "contract"
database_id = "00000000-0000-0000-0000-000000000001"

[[durable_objects.bindings]]
name = "OBJ"
class_name = "ContractObject"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["ContractObject"]
`;

const { tarball } = packTarball(once);
const dir = consumer(once, tarball, {
  deps: { vitest: "3.2.7", vite: "7.3.8", wrangler: "4.164.0" },
  files: { ...files, "contract-worker.js": contractWorker, "contract-wrangler.toml": contractConfig },
});

const pathFor = (node) => {
  const links = join(dir, `.bin-node-${node}`);
  mkdirSync(links, { recursive: true });
  if (!existsSync(join(links, "node"))) execFileSync("ln", ["-s", NODES[node], join(links, "node")]);
  if (!existsSync(join(links, "bun"))) execFileSync("ln", ["-s", bin("bun/bin/bun.exe"), join(links, "bun")]);
  return `${join(dir, "node_modules/.bin")}:${links}:${process.env.PATH}`;
};
const env = (node = 20) => {
  const { NODE_TEST_CONTEXT: _, ...rest } = process.env; // the consumer's node --test is a runner of its own
  return { ...rest, PATH: pathFor(node), WRANGLER_SEND_METRICS: "false", NO_COLOR: "1", CI: "1" };
};

/** Runs a printed command in the consumer project; resolves to its exit status and output. */
function run(command, { node = 20, cwd = dir } = {}) {
  printed(command);
  const r = spawnSync("bash", ["-c", command], { cwd, env: env(node), encoding: "utf8", timeout: 180_000 });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

const CREATE_TEST = "create is create-if-absent: the second create returns false and changes nothing";

test("the worked example: storeContract catches the Map store's bug under node:test and Vitest, and passes with the printed fix", () => {
  const commands = ["node --test map-store.test.js", "npx vitest run map-store.vitest.test.js"];
  for (const command of commands) {
    const { status, output } = run(command);
    assert.notEqual(status, 0, `${command} fails on the bug:\n${output}`);
    assert.ok(output.includes(CREATE_TEST), `${command} names the failing test:\n${output}`);
    // Only that test fails: the rest of the store is right.
    const failed = command.startsWith("node") ? Number(/# fail (\d+)/.exec(output)?.[1]) : Number(/Tests\s+(\d+) failed/.exec(output)?.[1]);
    assert.equal(failed, 1, output);
  }
  // The printed fix, before the write it guards.
  const source = readFileSync(join(dir, "map-store.js"), "utf8");
  const write = "    this.#chats.set(chatId, copies);\n";
  assert.equal(source.split(write).length, 2, "map-store.js writes in one place");
  writeFileSync(join(dir, "map-store.js"), source.replace(write, files["map-store-fix.js"] + write));
  try {
    for (const command of commands) {
      const { status, output } = run(command);
      assert.equal(status, 0, `${command} passes with the fix:\n${output}`);
      const passed = command.startsWith("node")
        ? Number(/# pass (\d+)/.exec(output)?.[1])
        : Number(/Tests\s+(\d+) passed/.exec(output)?.[1]);
      assert.ok(passed >= 15, `${command} ran the suite (${passed} tests):\n${output}`);
    }
  } finally {
    writeFileSync(join(dir, "map-store.js"), source);
  }
});

const todoOutput = "Updated todo list: 1 pending, 0 in progress, 0 completed\n";

for (const node of [22, 24]) {
  test(`an Electron-style Node app on node:sqlite (Node ${node}): the recipe as printed`, () => {
    const cwd = join(dir, `electron-${node}`);
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(cwd, "chats-sqlite.js"), files["chats-sqlite.js"]);
    writeFileSync(join(cwd, "package.json"), '{ "type": "module" }\n');
    execFileSync("ln", ["-sfn", join(dir, "node_modules"), join(cwd, "node_modules")]);
    const { status, output } = run("node chats-sqlite.js", { node, cwd });
    assert.equal(status, 0, output);
    assert.ok(output.startsWith(todoOutput), output);
    assert.ok(existsSync(join(cwd, "chats.db")), "the chats are in the app's file");
    assert.ok(existsSync(join(cwd, "chats.db-wal")) || readFileSync(join(cwd, "chats.db"))[18] === 2, "in WAL mode");
    rmSync(cwd, { recursive: true, force: true });
  });
}

test("a Bun server on bun:sqlite: the recipe as printed", async (t) => {
  printed("bun bun-server.js");
  const port = await freePort();
  // The printed server on a known free port instead of port 0.
  writeFileSync(join(dir, "bun-server-port.js"), files["bun-server.js"].replace("port: 0,", `port: ${port},`));
  const { value } = await serveUntil(t, {
    cwd: dir,
    env: env(),
    command: bin("bun/bin/bun.exe"),
    args: ["bun-server-port.js"],
    url: `http://127.0.0.1:${port}/?chat=b1`,
  });
  assert.deepEqual(value, { said: "Updated todo list: 0 pending, 1 in progress, 0 completed", entries: 4 });
  const again = await (await fetch(`http://127.0.0.1:${port}/?chat=b1`)).json();
  assert.equal(again.entries, 7, "the second request found the chat in the file");
});

for (const [label, config] of [
  ["a Worker with D1", "wrangler-d1.toml"],
  ["a Durable Object per chat", "wrangler-do.toml"],
]) {
  test(`${label} under wrangler dev (Node 22): nothing configured but the binding`, async (t) => {
    printed(`npx wrangler dev --config ${config}`);
    const port = await freePort();
    const command = `npx wrangler dev --config ${config} --ip 127.0.0.1 --port ${port} --persist-to .wrangler-${config}`;
    const { value, output } = await serveUntil(t, {
      cwd: dir,
      env: env(22),
      command: "bash",
      args: ["-c", command],
      url: `http://127.0.0.1:${port}/?chat=w1`,
    });
    assert.deepEqual(value, { said: "Updated todo list: 0 pending, 1 in progress, 0 completed", entries: 4 }, output());
    // Two chats at once, then the first again: each chat's log is its own and kept.
    const [a, b] = await Promise.all(["w1", "w2"].map(async (chat) => (await fetch(`http://127.0.0.1:${port}/?chat=${chat}`)).json()));
    assert.equal(a.entries, 7);
    assert.equal(b.entries, 4);
  });
}

test("the packaged contract suite passes on D1 and in a Durable Object, inside workerd (wrangler dev, Node 22)", async (t) => {
  const port = await freePort();
  const command = `npx wrangler dev --config contract-wrangler.toml --ip 127.0.0.1 --port ${port} --persist-to .wrangler-contract`;
  const d1 = await serveUntil(t, { cwd: dir, env: env(22), command: "bash", args: ["-c", command], url: `http://127.0.0.1:${port}/d1` });
  const object = await (await fetch(`http://127.0.0.1:${port}/do`)).json();
  const objectSql = await (await fetch(`http://127.0.0.1:${port}/do-sql`)).json();
  for (const [where, results] of [
    ["D1", d1.value],
    ["a Durable Object's ctx.storage", object],
    ["a Durable Object's ctx.storage.sql", objectSql],
  ]) {
    assert.deepEqual(
      results.filter((r) => !r.ok),
      [],
      `${where}: every contract test passes`,
    );
    assert.ok(results.length >= 17, `${where} ran the whole suite (${results.length} tests)`);
    assert.ok(
      results.some((r) => / reopen: a new store object over the same data/.test(r.title)),
      `${where} ran the reopen test`,
    );
    assert.ok(
      results.some((r) => /watch: writes through another store object over the same data are heard/.test(r.title)),
      `${where} ran the watch tests`,
    );
  }
  for (const [where, results] of [
    ["D1", d1.value],
    ["a Durable Object's ctx.storage", object],
  ]) {
    assert.ok(
      results.some((r) => /delete: appends racing a delete/.test(r.title)) && results.some((r) => /list: paging is stable/.test(r.title)),
      `${where} ran the delete and list tests`,
    );
  }
  // D1: this binding's writes heard at once; a write or delete the store did not make (another Worker's) by the poll of the lengths.
  assert.deepEqual(await (await fetch(`http://127.0.0.1:${port}/d1-watch`)).json(), { atOnce: [1], heard: [1, 2, 0], length: 2 });
  // A Durable Object: its own writes and deletes, through either of its stores, at once.
  assert.deepEqual(await (await fetch(`http://127.0.0.1:${port}/do-watch`)).json(), { atOnce: [1, 3, 0], heard: [1, 3, 0] });
  // A database of schema version 1: everything but list works; migrate() adds version 2 (index and trigger), the chats there by id.
  const upgraded = { deleted: true, refused: "store/not-migrated", applied: [2], ids: ["older", "new", "z", "m", "a"] };
  assert.deepEqual(await (await fetch(`http://127.0.0.1:${port}/d1-upgrade`)).json(), upgraded);
  assert.deepEqual(await (await fetch(`http://127.0.0.1:${port}/do-upgrade`)).json(), upgraded);
});
