// A child process for the file-system refusal tests of JsonlStore, run as a
// user the folder refuses (or on a read-only mount): `<dir>`. Tries every
// operation of the store and of the chat helpers over it (the chat "c"'s
// delete last) and prints what each answered as one JSON line. With `vanish` after the folder, the folder is
// removed once the store is open, as an unmount or an `rm -r` would.
import fs from "node:fs";
import { SuggestionService, beginTurn, createChat, runTool } from "oda-tasks";
import { JsonlStore } from "oda-tasks/node";

const [dir, vanish] = process.argv.slice(2);
const store = new JsonlStore(dir, { lockWait: 2000 });
if (vanish === "vanish") fs.rmSync(dir, { recursive: true });
const service = new SuggestionService({ store });
const outcome = async (promise) => {
  try {
    const value = await promise;
    return { value: value?.texts ? value.texts.length : value };
  } catch (e) {
    return { code: e.code, name: e.name, message: e.message };
  }
};
const todo = { name: "todo_write", input: { todos: [{ content: "Ship it", status: "pending" }] } };
const report = {
  read: await outcome(store.read("c")),
  readFrom: await outcome(store.readFrom("c", 1)),
  readSince: await outcome(store.readSince("c", 0, null)),
  append: await outcome(store.append("c", [{ type: "refused" }], 2)),
  create: await outcome(store.create("d", [{ type: "session" }])),
  createChat: await outcome(createChat(store, "e", {})),
  beginTurn: await outcome(beginTurn(store, "c")),
  runTool: await outcome(runTool(store, "c", todo)),
  list: await outcome(service.list("c").then((l) => l.open.length)),
  dismiss: await outcome(service.dismiss("c", "s1")),
  listChats: await outcome(store.list().then((page) => page.chats.map((chat) => chat.chatId))),
  delete: await outcome(store.delete("c")),
};
process.stdout.write(JSON.stringify(report) + "\n");
