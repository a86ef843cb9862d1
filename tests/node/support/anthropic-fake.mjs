// A local stand-in for the Anthropic Messages API, for the real Claude Code
// CLI the Claude Agent SDK spawns: it replays scripted assistant turns as
// the API's SSE stream (or JSON) and keeps every request, so a test reads
// what reached the model (tool results, tools offered, context) from the
// next request. A conversation is told by a marker in its first message; its
// step is how many assistant messages it already holds.
import { createServer } from "node:http";
import { join } from "node:path";

/** The largest request body kept (a CLI request carries its whole conversation). */
const MAX_BODY = 8 * 1024 * 1024;

/**
 * Starts the API on 127.0.0.1. `scripts[marker]` lists, per step, either the
 * content blocks of the reply (`{ type: "text", text }`, `{ type: "tool_use", id, name, input }`)
 * `{ status, message }` for an API error, `{ hold: true }` for a stream that starts and
 * never ends (until the client closes it), or a function of the request's body that
 * resolves to one of these (what happens while the model "thinks"). A request of no
 * script gets the text "ok".
 */
export async function startFakeAnthropic() {
  const scripts = new Map();
  const requests = [];
  const server = createServer((req, res) => {
    const chunks = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(c);
    });
    req.on("end", async () => {
      let body = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        // not JSON: answered 404 below
      }
      if (req.method !== "POST" || !req.url.startsWith("/v1/messages") || body === null || !Array.isArray(body.messages)) {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end('{"type":"error","error":{"type":"not_found_error","message":"no such route"}}');
        return;
      }
      const marker = [...scripts.keys()].find((m) => textOf(body.messages[0]).includes(m));
      const step = body.messages.filter((m) => m.role === "assistant").length;
      requests.push({ marker, step, body });
      const scripted = marker === undefined ? undefined : scripts.get(marker)[step];
      const reply = typeof scripted === "function" ? await scripted(body) : scripted;
      if (reply?.hold === true) {
        // A reply that never comes: the stream starts and stays open until the client goes.
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.write(sse([], body.model).split("\n\n")[0] + "\n\n");
        return;
      }
      if (reply !== undefined && !Array.isArray(reply)) {
        res.writeHead(reply.status, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: reply.message } }));
        return;
      }
      const blocks = reply ?? [{ type: "text", text: "ok" }];
      if (body.stream) {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.end(sse(blocks, body.model));
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ ...message(body.model, blocks), content: blocks }));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    requests,
    /** Sets the steps of the conversation whose first message holds `marker`. */
    script(marker, steps) {
      scripts.set(marker, steps);
    },
    /** The requests of that conversation, in order. */
    of(marker) {
      return requests.filter((r) => r.marker === marker);
    },
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  };
}

/**
 * Every tool result the model was sent, by tool-use id: its text (a string
 * content, or its text blocks joined) and whether it was marked an error.
 */
export function toolResults(requests) {
  const results = new Map();
  for (const { body } of requests) {
    for (const m of body.messages) {
      if (!Array.isArray(m.content)) continue;
      for (const c of m.content) {
        if (c.type !== "tool_result") continue;
        const text = typeof c.content === "string" ? c.content : c.content.map((b) => b.text).join("");
        results.set(c.tool_use_id, { text, isError: c.is_error === true });
      }
    }
  }
  return results;
}

/** Every text the request put before the model: its system prompt and its messages' text blocks. */
export function textsOf(body) {
  const system = typeof body.system === "string" ? [body.system] : (body.system ?? []).map((b) => b.text);
  return [...system, ...body.messages.flatMap((m) => (typeof m.content === "string" ? [m.content] : m.content.map((c) => c.text ?? "")))];
}

/**
 * The environment of the Claude Code CLI for a test: its config in `home`,
 * the model at the fake API `url`, a fake key, and no traffic of its own
 * (telemetry, updates, error reports).
 */
export function offlineEnv(home, url) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: "sk-ant-fake",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
  };
}

/** A tool_use block. */
export const toolUse = (id, name, input) => ({ type: "tool_use", id, name, input });

function textOf(m) {
  if (m === undefined) return "";
  return typeof m.content === "string" ? m.content : m.content.map((c) => c.text ?? "").join("\n");
}

function message(model, content) {
  const stop = content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  return {
    id: `msg_${Math.random().toString(36).slice(2)}`,
    type: "message",
    role: "assistant",
    model,
    content: [],
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}

/** The reply as the Messages API streams it. */
function sse(blocks, model) {
  const events = [];
  const send = (type, data) => events.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const start = message(model, blocks);
  send("message_start", { message: { ...start, stop_reason: null } });
  blocks.forEach((b, index) => {
    if (b.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      send("content_block_delta", { index, delta: { type: "text_delta", text: b.text } });
    } else {
      send("content_block_start", { index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
      send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
    }
    send("content_block_stop", { index });
  });
  send("message_delta", { delta: { stop_reason: start.stop_reason, stop_sequence: null }, usage: { output_tokens: 5 } });
  send("message_stop", {});
  return events.join("");
}
