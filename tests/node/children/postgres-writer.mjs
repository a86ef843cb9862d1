// A child process of store-postgres-watch.test.mjs, standing for another app
// server: its own client (`pg` or `postgres.js`) on the test server's schema,
// one append to a chat, its new length on stdout, then it exits.
import pg from "pg";
import postgres from "postgres";
import { PostgresStore } from "oda-tasks/postgres";

const [url, schema, driver, chatId, expected] = process.argv.slice(2);
const client =
  driver === "postgres.js"
    ? postgres(url, { connection: { search_path: schema }, onnotice: () => undefined })
    : new pg.Pool({ connectionString: url, options: `-c search_path=${schema}` });
const store = new PostgresStore(client);
const length = await store.append(chatId, [{ type: "message", role: "user", text: `from ${process.pid}` }], Number(expected));
process.stdout.write(`${length}\n`);
await client.end();
