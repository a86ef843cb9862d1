// `GET chats/:chatId/events`: Server-Sent Events, the screen first and then
// only what changed, each event's `id:` the log length it reflects. A stream
// holds at most one event its client has not read: later changes wait as a
// mark, and the next read gets one change covering everything since the last
// event the client was given (or the screen). One timer per handler sends the
// keep-alives and closes a stream left unread for `staleMs`; the open streams
// are bounded per chat and in all.
import { type Mark, changeBytes, screenBytes } from "./changes.js";
import type { ChatFeed, ChatFeeds } from "./feeds.js";
import { failure } from "./replies.js";

/** Limits and timing of the event streams. */
export interface EventStreamLimits {
  pollMs: number;
  keepAliveMs: number;
  staleMs: number;
  perChat: number;
  total: number;
}

interface Stream {
  readonly feed: ChatFeed;
  readonly controller: ReadableStreamDefaultController<Uint8Array>;
  /** What the client was given: the mark of the last screen or change (`null`: nothing yet, so a screen). */
  sent: Mark | null;
  /** The failure event last given, so each is given once. */
  sentFailure: Uint8Array | null;
  /** When the event now queued was queued (0: the client has read everything). */
  waitingSince: number;
  lastWrite: number;
  close(): void;
}

const encoder = new TextEncoder();
const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");

/** Whether a timer keeps the process alive (Node's and Bun's have `ref`/`unref`; elsewhere nothing to do). */
function keepAlive(timer: unknown, on: boolean): void {
  const t = timer as { ref?: () => void; unref?: () => void } | undefined;
  if (on) t?.ref?.();
  else t?.unref?.();
}

/** A `Last-Event-ID` the handler can resume from: a log length, digits only. */
function lastEventId(request: Request): number | null {
  const text = request.headers.get("last-event-id");
  if (text === null || !/^\d{1,15}$/.test(text)) return null;
  return Number(text);
}

/** The event streams of one handler, fed by its `feeds`. */
export class EventStreams {
  readonly #streams = new Set<Stream>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #lastPass = 0;

  constructor(
    private readonly feeds: ChatFeeds,
    private readonly limits: EventStreamLimits,
  ) {}

  /** Streams open now. */
  get open(): number {
    return this.#streams.size;
  }

  /** Hands `feed`'s new version or failure to each of its streams whose client has read what it was given. */
  changed(feed: ChatFeed): void {
    for (const s of feed.streams) this.#deliver(s as Stream);
  }

  /** A stream of chat `chatId`, resumed from `Last-Event-ID` where it can be, or a 429 past the limits. */
  stream(chatId: string, request: Request): Response {
    const signal = request.signal;
    const known = this.feeds.get(chatId);
    if (this.#streams.size >= this.limits.total || (known !== undefined && known.streams.size >= this.limits.perChat)) {
      return failure(429, "http/too-many-streams", "too many open event streams for this chat; close one first", { "retry-after": "5" });
    }
    const feed = this.feeds.open(chatId);
    const resumeAt = lastEventId(request);
    let stream: Stream | undefined;
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          let closed = false;
          const onAbort = () => s.close();
          const s: Stream = {
            feed,
            controller,
            // A client at a length this feed still has the mark of gets only what is new since.
            sent: resumeAt === null ? null : (feed.markAt(resumeAt) ?? null),
            sentFailure: null,
            waitingSince: 0,
            lastWrite: 0,
            close: () => {
              if (closed) return;
              closed = true;
              signal?.removeEventListener("abort", onAbort);
              this.#streams.delete(s);
              feed.streams.delete(s);
              // Watched a little longer, so its client resumes by id when it reconnects.
              if (feed.streams.size === 0) this.feeds.idle(feed);
              try {
                controller.close();
              } catch {
                // already closed or errored
              }
            },
          };
          stream = s;
          this.#streams.add(s);
          feed.streams.add(s);
          if (this.#timer === undefined) this.#timer = setInterval(() => this.#tick(), Math.min(this.limits.pollMs, 1000));
          keepAlive(this.#timer, true);
          // The retry hint first; what the client lacks follows when it reads it.
          this.#write(s, encoder.encode(`retry: ${Math.max(1000, this.limits.pollMs)}\n\n`));
          if (signal?.aborted) return s.close();
          signal?.addEventListener("abort", onAbort, { once: true });
        },
        // The client read what it was given: give it what it lacks now.
        pull: () => {
          if (stream === undefined) return;
          stream.waitingSince = 0;
          this.#deliver(stream);
        },
        cancel: () => stream?.close(),
      },
      { highWaterMark: 1 },
    );
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

  /** Gives `s` what its client lacks, if its client has read everything it was given. */
  #deliver(s: Stream): void {
    if (s.waitingSince !== 0) return; // one unread event at most: the next read comes back here
    const feed = s.feed;
    if (feed.failure !== null && s.sentFailure !== feed.failure) {
      s.sentFailure = feed.failure;
      this.#write(s, feed.failure); // what else it lacks follows its next read
      return;
    }
    const version = feed.version;
    if (version === null || s.sent === version.mark) return;
    const bytes = (s.sent === null ? null : changeBytes(s.sent, version)) ?? screenBytes(version);
    s.sent = version.mark;
    this.#write(s, bytes);
  }

  #write(s: Stream, bytes: Uint8Array): void {
    try {
      s.controller.enqueue(bytes);
    } catch {
      s.close();
      return;
    }
    s.lastWrite = Date.now();
    // To the end of the order the tick reads (a closed stream is not put back).
    if (this.#streams.delete(s)) this.#streams.add(s);
    // Not taken by a waiting read: it sits unread until the client reads.
    if ((s.controller.desiredSize ?? 0) <= 0) s.waitingSince = s.lastWrite;
  }

  /** The one timer: the batched poll, keep-alives, and closing streams left unread for `staleMs`. */
  #tick(): void {
    const now = Date.now();
    this.feeds.sweep(now, this.limits.total);
    if (this.#streams.size === 0 && this.feeds.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    // Chats watched after their last stream keep no process alive by themselves.
    keepAlive(this.#timer, this.#streams.size > 0);
    // Half a tick of slack: a timer that fires a little early does not skip a pass.
    if (now - this.#lastPass >= this.limits.pollMs - Math.min(this.limits.pollMs, 1000) / 2) {
      this.#lastPass = now;
      void this.feeds.pass();
    }
    // The streams are in the order of their last write (a waiting one's too: nothing is written
    // to it while it waits), so the look stops at the first one not due for either.
    const due = Math.min(this.limits.keepAliveMs, this.limits.staleMs);
    for (const s of this.#streams) {
      if (now - s.lastWrite < due) break;
      if (s.waitingSince !== 0) {
        if (now - s.waitingSince >= this.limits.staleMs) s.close();
      } else if (now - s.lastWrite >= this.limits.keepAliveMs) {
        this.#write(s, KEEP_ALIVE);
      }
    }
  }
}
