// An event stream of chatHandler read as a browser reads it: one event at a
// time, `{ id, event, data, text }`, comments and the retry hint skipped.
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads a stream's events one at a time: `{ id, event, data, bytes }` (comments and the retry hint are skipped). */
export function sse(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const chunks = [];
  const next = async () => {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        if (event === undefined) continue;
        const id = /^id: (.*)$/m.exec(block)?.[1] ?? null;
        return { id, event, data: JSON.parse(/^data: (.*)$/m.exec(block)[1]), text: `${block}\n\n` };
      }
      const { done, value } = await reader.read();
      if (done) return null;
      chunks.push(value);
      buffer += decoder.decode(value, { stream: true });
    }
  };
  /** Whether no event comes within `ms` (the read stays pending for the next call). */
  let pending = null;
  const quietFor = async (ms) => {
    pending ??= next();
    const got = await Promise.race([pending, sleep(ms).then(() => "quiet")]);
    if (got === "quiet") return true;
    pending = null;
    return false;
  };
  return {
    reader,
    chunks,
    next: () => {
      if (pending === null) return next();
      const p = pending;
      pending = null;
      return p;
    },
    quietFor,
  };
}

/** Reads `s` until an event at `length` or later; resolves to it. */
export async function sseUntil(s, length) {
  for (;;) {
    const e = await s.next();
    if (e === null) throw new Error(`the stream ended before an event at ${length}`);
    if (Number(e.id) >= length) return e;
  }
}
