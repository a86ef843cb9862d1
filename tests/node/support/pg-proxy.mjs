// A TCP relay between the store and the real server that can cut a
// connection at one chosen protocol message: before or after handing it to
// the server. That is how a test loses a COMMIT's answer on purpose.
import { connect, createServer } from "node:net";

/** A simple-protocol COMMIT (how the store commits). */
export const isCommit = (m) => m.type === "Q" && m.text === "COMMIT\0";
/** A message (Parse or Bind) of the store's named statement `name`, e.g. "oda-tasks-append". */
export const isStatement = (name) => (m) => (m.type === "P" || m.type === "B") && m.text.split("\0").includes(name);

/**
 * Relays 127.0.0.1:<proxy.port> to 127.0.0.1:`targetPort`.
 * `proxy.arm(matches, how)`: the next client message `matches({ type, text })`
 * accepts cuts its connection; `how` = "before" (the server never gets it) or
 * "after" (the server gets it, up to the end of its query, and the client
 * never hears back). One-shot. `proxy.refuse = true` turns new connections
 * away. `proxy.count(matches)` counts the messages it accepts from then on.
 */
export async function startProxy(targetPort) {
  let armed = null;
  const counts = new Map(); // predicate -> count
  const open = new Set();
  const proxy = {
    refuse: false,
    cuts: 0,
    port: 0,
    arm(matches, how) {
      armed = { matches, how };
    },
    count(matches) {
      counts.set(matches, 0);
      return () => counts.get(matches);
    },
    close() {
      for (const s of open) s.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };

  const server = createServer((client) => {
    if (proxy.refuse) return client.destroy();
    const upstream = connect(targetPort, "127.0.0.1");
    open.add(client).add(upstream);
    let cut = false;
    let draining = false; // "after" an extended-protocol message: pass it on up to its Sync, then cut
    const drop = () => {
      cut = true;
      client.destroy();
    };
    upstream.on("data", (chunk) => {
      if (!cut) client.write(chunk);
    });
    upstream.on("close", () => client.destroy());
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.end());
    client.on("error", () => upstream.end());

    // Client → server: split into messages (the first, the startup packet, has no type byte).
    let pending = Buffer.alloc(0);
    let started = false;
    client.on("data", (chunk) => {
      if (cut) return;
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const head = started ? 1 : 0;
        if (pending.length < head + 4) return;
        const size = head + pending.readInt32BE(head);
        if (pending.length < size) return;
        const message = pending.subarray(0, size);
        pending = pending.subarray(size);
        const m = { type: started ? String.fromCharCode(message[0]) : "", text: message.subarray(head + 4).toString("utf8") };
        started = true;
        for (const [matches, n] of counts) if (matches(m)) counts.set(matches, n + 1);
        if (draining) {
          if (m.type !== "S") {
            upstream.write(message);
            continue;
          }
          upstream.end(message);
          drop();
          return;
        }
        if (armed?.matches(m)) {
          const { how } = armed;
          armed = null;
          proxy.cuts++;
          if (how === "after" && m.type !== "Q") {
            draining = true;
            upstream.write(message);
            continue;
          }
          // "after": the server gets the message, answers into the void and sees the connection end.
          if (how === "after") upstream.end(message);
          else upstream.end();
          drop();
          return;
        }
        upstream.write(message);
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.port = server.address().port;
  return proxy;
}
