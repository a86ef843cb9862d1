// docs/integration.md's "Drizzle + postgres.js" recipe, as printed, in a fresh
// project that installed the packed tarball with drizzle-orm and postgres
// from the registry, against a real PostgreSQL server started for this file.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "../support/browser.mjs";
import { consumer, packTarball, sh } from "../support/consumer.mjs";
import { sharedPostgres } from "../support/postgres.mjs";
import { printed, recipes } from "../support/recipes.mjs";

const server = await sharedPostgres();

/** The exact version the repository tests with (root package.json), installed in the consumer too. */
const pinned = (name) => JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies[name];

test("Drizzle + postgres.js: the recipe as printed, from the tarball, over the app's own client", { timeout: 300_000 }, async (t) => {
  const files = recipes("chats-drizzle.js");
  printed("npm install oda-tasks drizzle-orm postgres");
  const command = printed("DATABASE_URL=postgres://localhost/app node chats-drizzle.js");
  const { tarball } = packTarball(t);
  const dir = consumer(t, tarball, { deps: { "drizzle-orm": pinned("drizzle-orm"), postgres: pinned("postgres") }, files });
  const [, script] = command.split(" node ");
  const output = sh(dir, process.execPath, [script], { env: { ...process.env, DATABASE_URL: server.url }, timeout: 60_000 });
  assert.equal(
    output,
    "chat-1 has 1 entries\nchat-1 has 2 entries\nchat-1 has 3 entries\nUpdated todo list: 1 pending, 0 in progress, 0 completed\nchat-1 has 4 entries\n",
  );
  // The chat is in the app's database, in the store's tables.
  const pool = server.pool({ max: 1 });
  const { rows } = await pool.query("SELECT length::int AS length FROM oda_tasks_chats WHERE chat_id = 'chat-1'");
  assert.deepEqual(rows, [{ length: 4 }]);
});
