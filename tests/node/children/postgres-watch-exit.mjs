// A child process of store-postgres-watch.test.mjs: watches a chat on its
// own client (`pg` or `postgres.js`), hears one change, stops watching and
// ends its client. Nothing of the watch may keep the process alive after
// that: the parent times its exit.
import pg from "pg";
import postgres from "postgres";
import { PostgresStore } from "oda-tasks/postgres";

const [url, schema, driver, chatId] = process.argv.slice(2);
const client =
  driver === "postgres.js"
    ? postgres(url, { connection: { search_path: schema }, onnotice: () => undefined })
    : new pg.Pool({ connectionString: url, options: `-c search_path=${schema}` });
const store = new PostgresStore(client);
let stop;
const heard = await new Promise((resolve) => {
  // The feed may first tell the length it read once listening (1, if that read came before the
  // append committed): the write is heard when 2 is told.
  stop = store.watch(chatId, (length) => length === 2 && resolve(length));
  // A write of this process is heard at once; the LISTEN connection is open by then or soon.
  store.append(chatId, [{ type: "message", role: "user", text: "hello" }]);
});
await new Promise((resolve) => setTimeout(resolve, 300));
stop();
await client.end();
process.stdout.write(`${heard}\n`);
