// A child process for JsonlStore's delete tests across processes, forked with
// `<dir>` and the store's options as JSON.
//   { race: { chatId, worker, loops } }: runs `loops` append loops at once (pairs
//     of entries, every third loop a read → append(expectedLength) retried on a
//     conflict), each until the chat is gone (store/missing-chat, or nothing to
//     read); sends { appending: true } once its first append landed, then
//     { appended, failures } when every loop has ended.
//   { id, op, args }: runs store[op](...args) and sends back { id, value } or
//     { id, error: { code, message } }; "recreate" is delete, then create at once.
// Sends "ready" first; disconnect ends it.
import { JsonlStore } from "oda-tasks/node";

const [dir, optionsJson = "{}"] = process.argv.slice(2);
const store = new JsonlStore(dir, JSON.parse(optionsJson));

async function race({ chatId, worker, loops }) {
  let appended = 0;
  let told = false;
  const failures = [];
  const loop = async (loop) => {
    for (let i = 0; ; i++) {
      const pair = [
        { type: "a", worker, loop, i },
        { type: "b", worker, loop, i },
      ];
      try {
        if (loop % 3 === 0) {
          const log = await store.read(chatId);
          if (log === null) return;
          await store.append(chatId, pair, log.length);
        } else await store.append(chatId, pair);
        appended++;
        if (!told) {
          told = true;
          process.send({ appending: true });
        }
      } catch (e) {
        if (e?.code === "store/missing-chat") return;
        if (e?.code !== "store/conflict") {
          failures.push(`${e?.code ?? ""} ${e?.message ?? e}`);
          return;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: loops }, (_, i) => loop(i)));
  process.send({ appended, failures });
}

process.on("message", async (message) => {
  if (message.race !== undefined) return race(message.race);
  const { id, op, args } = message;
  try {
    let value;
    if (op === "recreate") {
      const [chatId, entries] = args;
      value = [await store.delete(chatId), await store.create(chatId, entries)];
    } else value = await store[op](...args);
    process.send({ id, value });
  } catch (e) {
    process.send({ id, error: { code: e?.code, message: e?.message ?? String(e) } });
  }
});
process.send("ready");
