// A second process writing to the stores `npm run bench:live` watches: it
// opens the same JSONL folder, SQLite file or PostgreSQL database, says
// "ready", then for each line `chatId n` on stdin makes one todo_write and
// prints `chatId n <ms>`, the time (performance.timeOrigin + now) just before
// the write, so the bench measures from there to the event in its process.
import { createInterface } from "node:readline";
import { toolHandlers } from "oda-tasks";

const [kind, where, driver] = process.argv.slice(2);

async function open() {
  if (kind === "jsonl") {
    const { JsonlStore } = await import("oda-tasks/node");
    return new JsonlStore(where);
  }
  if (kind === "sqlite") {
    const { SqliteStore } = await import("oda-tasks/sqlite");
    const { openWith } = await import("../../tests/node/support/sqlite.mjs");
    return new SqliteStore(await openWith(driver, where), { busyTimeout: 20_000 });
  }
  if (kind === "postgres") {
    const { PostgresStore } = await import("oda-tasks/postgres");
    return new PostgresStore(where);
  }
  throw new Error(`unknown store kind ${kind}`);
}

const store = await open();
process.stdout.write("ready\n");
for await (const line of createInterface({ input: process.stdin })) {
  const [chatId, n] = line.split(" ");
  const at = performance.timeOrigin + performance.now();
  await toolHandlers({ store, chatId }).todo_write({
    todos: [
      { content: `Step ${n}`, status: "in_progress" },
      { content: "Ship", status: "pending" },
    ],
  });
  process.stdout.write(`${chatId} ${n} ${at}\n`);
}
process.exit(0);
