// `GET chats/:chatId/events`: Server-Sent Events that push the chat's first
// screen whenever it changes. One poll per chat, shared by all its streams,
// reads the store through the warm-state cache every `pollMs` (what is new
// only) and sends the screen when its text changed; the open streams are
// bounded per chat and in all, and a stream closes when its request is
// aborted or its reader cancels.
import { failure } from "./replies.js";

/** Limits and timing of the event streams. */
export interface EventStreamLimits {
  pollMs: number;
  heartbeatMs: number;
  perChat: number;
  total: number;
}

interface Subscriber {
  send(text: string): void;
  fresh: boolean;
}

interface Watch {
  subscribers: Set<Subscriber>;
  timer: ReturnType<typeof setInterval> | undefined;
  last: string | null;
  sinceBeat: number;
  /** Reads of this chat run one after another, so no older screen follows a newer one. */
  chain: Promise<void>;
}

const encoder = new TextEncoder();

/**
 * The event streams of one handler. `read` answers a chat's screen as
 * `{ event, data }` (a failure is an `error` event, the stream stays open).
 */
export class EventStreams {
  readonly #watches = new Map<string, Watch>();
  #open = 0;

  constructor(
    private readonly read: (chatId: string) => Promise<{ event: string; data: string }>,
    private readonly limits: EventStreamLimits,
  ) {}

  /** Streams open now. */
  get open(): number {
    return this.#open;
  }

  /** A stream of chat `chatId`'s screens, or a 429 past the limits. */
  stream(chatId: string, signal: AbortSignal | undefined): Response {
    let watch = this.#watches.get(chatId);
    if (this.#open >= this.limits.total || (watch !== undefined && watch.subscribers.size >= this.limits.perChat)) {
      return failure(429, "http/too-many-streams", "too many open event streams for this chat; close one first", { "retry-after": "5" });
    }
    if (watch === undefined) {
      watch = { subscribers: new Set(), timer: undefined, last: null, sinceBeat: 0, chain: Promise.resolve() };
      this.#watches.set(chatId, watch);
    }
    const w = watch;
    let subscriber: Subscriber | undefined;
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      signal?.removeEventListener("abort", onAbort);
      if (subscriber !== undefined && w.subscribers.delete(subscriber)) this.#open--;
      if (w.subscribers.size === 0) {
        clearInterval(w.timer);
        if (this.#watches.get(chatId) === w) this.#watches.delete(chatId);
      }
    };
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const onAbort = () => {
      close();
      try {
        controller.close();
      } catch {
        // already closed or errored
      }
    };
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
        subscriber = {
          fresh: true,
          send: (text) => {
            if (closed) return;
            try {
              c.enqueue(encoder.encode(text));
            } catch {
              close();
            }
          },
        };
        w.subscribers.add(subscriber);
        this.#open++;
        // The retry hint, then the screen as it is now.
        subscriber.send(`retry: ${Math.max(1000, this.limits.pollMs)}\n\n`);
        if (signal?.aborted) return onAbort();
        signal?.addEventListener("abort", onAbort, { once: true });
        if (w.timer === undefined) w.timer = setInterval(() => this.#poll(chatId, w), this.limits.pollMs);
        this.#poll(chatId, w);
      },
      cancel: () => close(),
    });
    return new Response(body, {
      status: 200,
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
        "x-accel-buffering": "no",
      },
    });
  }

  /** Reads the screen once (after any read under way) and sends it where it is new. */
  #poll(chatId: string, w: Watch): void {
    w.chain = w.chain.then(async () => {
      if (w.subscribers.size === 0) return;
      let read: { event: string; data: string };
      try {
        read = await this.read(chatId);
      } catch {
        read = { event: "error", data: JSON.stringify({ code: "http/internal", message: "internal error" }) };
      }
      const text = `event: ${read.event}\ndata: ${read.data}\n\n`;
      const changed = text !== w.last;
      w.last = text;
      w.sinceBeat += this.limits.pollMs;
      const beat = w.sinceBeat >= this.limits.heartbeatMs;
      if (beat) w.sinceBeat = 0;
      for (const s of w.subscribers) {
        if (changed || s.fresh) s.send(text);
        else if (beat) s.send(": keep-alive\n\n");
        s.fresh = false;
      }
    });
  }
}
