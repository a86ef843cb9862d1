// `GET chats/:chatId/events`: Server-Sent Events, the screen first and then
// only what changed, each event's `id:` the log length it reflects. A stream
// holds at most one event its client has not read: later changes wait as a
// mark, and the next read gets one change covering everything since the last
// event the client was given (or the screen). One timer per handler sends the
// keep-alives and closes a stream left unread for `staleMs`; the open streams
// are bounded per chat and in all. Streams opened together (a restart's
// reconnects) get their first keep-alive at phases spread over the second half
// of the period, so each tick writes a share of them rather than all at once.
import { type Mark, changeBytes, screenBytes } from "./changes.js";
import { type ChatFeed, type ChatFeeds, DELETED } from "./feeds.js";
import { failure } from "./replies.js";
import { tell } from "../../telemetry/observe.js";

/** Limits and timing of the event streams. */
export interface EventStreamLimits {
  pollMs: number;
  keepAliveMs: number;
  staleMs: number;
  perChat: number;
  total: number;
}

const encoder = new TextEncoder();
const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");
/** The golden ratio's fraction: the phases of streams opened one after another fill [0, 1) evenly, however many. */
const PHASE_STEP = 0.6180339887498949;

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
  readonly #streams = new Set<EventStream>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #lastPass = 0;
  /** The phase of the last stream opened, in [0, 1). */
  #phase = 0;
  /** Open streams whose first keep-alive is still ahead of the period (the tick looks further back while any is). */
  #early = 0;
  /** The retry hint every stream starts with. */
  readonly #retry: Uint8Array;

  constructor(
    private readonly feeds: ChatFeeds,
    private readonly limits: EventStreamLimits,
  ) {
    this.#retry = encoder.encode(`retry: ${Math.max(1000, limits.pollMs)}\n\n`);
  }

  /** Streams open now. */
  get open(): number {
    return this.#streams.size;
  }

  /** Hands `feed`'s new version or failure to each of its streams whose client has read what it was given. */
  changed(feed: ChatFeed): void {
    for (const s of feed.streams) (s as EventStream).deliver();
  }

  /** A stream of the chat of store key `chatId` (`prefix` its owner's), resumed from `Last-Event-ID` where it can be, or a 429 past the limits. */
  stream(chatId: string, prefix: string, request: Request): Response {
    const known = this.feeds.get(chatId);
    if (this.#streams.size >= this.limits.total || (known !== undefined && known.streams.size >= this.limits.perChat)) {
      return failure(429, "http/too-many-streams", "too many open event streams for this chat; close one first", { "retry-after": "5" });
    }
    const feed = this.feeds.open(chatId, prefix);
    const resumeAt = lastEventId(request);
    // A client at a length this feed still has the mark of gets only what is new since.
    const sent = resumeAt === null ? null : (feed.markAt(resumeAt) ?? null);
    const body = new ReadableStream<Uint8Array>(new EventStream(this, feed, sent, request.signal ?? null), { highWaterMark: 1 });
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

  /** `s` started: it is open, and the timer runs. */
  opened(s: EventStream): void {
    this.#streams.add(s);
    tell("eventStreams", 1);
    s.feed.streams.add(s);
    if (this.#timer === undefined) this.#timer = setInterval(() => this.#tick(), Math.min(this.limits.pollMs, 1000));
    keepAlive(this.#timer, true);
    // Its first keep-alive comes up to half a period early, at this stream's phase.
    this.#phase = (this.#phase + PHASE_STEP) % 1;
    s.early = Math.floor((this.#phase * this.limits.keepAliveMs) / 2);
    if (s.early > 0) this.#early++;
    // The retry hint first; what the client lacks follows when it reads it.
    s.write(this.#retry);
  }

  /** `s` was written to: to the end of the order the tick reads (a closed stream is not put back). */
  wrote(s: EventStream): void {
    if (this.#streams.delete(s)) this.#streams.add(s);
  }

  /** `s` closed: its chat is watched a little longer once it has no stream, so its client resumes by id. */
  closed(s: EventStream): void {
    this.#unearly(s);
    if (this.#streams.delete(s)) tell("eventStreams", -1);
    s.feed.streams.delete(s);
    if (s.feed.streams.size === 0) this.feeds.idle(s.feed);
  }

  /** `s`'s keep-alives are due a whole period after its last write from now on. */
  #unearly(s: EventStream): void {
    if (s.early === 0) return;
    s.early = 0;
    this.#early--;
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
    // to it while it waits), so the look stops at the first one not due for either (half a
    // period sooner while a first keep-alive may be early).
    const keepAliveMs = this.limits.keepAliveMs;
    const due = Math.min(this.#early > 0 ? keepAliveMs / 2 : keepAliveMs, this.limits.staleMs);
    for (const s of this.#streams) {
      if (now - s.lastWrite < due) break;
      if (s.waitingSince !== 0) {
        if (now - s.waitingSince >= this.limits.staleMs) s.close();
      } else if (now - s.lastWrite >= keepAliveMs - s.early) {
        this.#unearly(s);
        s.write(KEEP_ALIVE);
      }
    }
  }
}

/**
 * One event stream, its own body's source (a class, so ten thousand open
 * streams share its methods rather than hold closures of their own).
 */
class EventStream implements UnderlyingDefaultSource<Uint8Array> {
  #controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  #closed = false;
  /** The failure event last given, so each is given once. */
  #sentFailure: Uint8Array | null = null;
  /** When the event now queued was queued (0: the client has read everything). */
  waitingSince = 0;
  lastWrite = 0;
  /** How much sooner than a period after its last write its first keep-alive comes (ms; 0 once it came). */
  early = 0;

  constructor(
    private readonly owner: EventStreams,
    readonly feed: ChatFeed,
    /** What the client was given: the mark of the last screen or change (`null`: nothing yet, so a screen). */
    private sent: Mark | null,
    private readonly signal: AbortSignal | null,
  ) {}

  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.#controller = controller;
    this.owner.opened(this);
    if (this.signal?.aborted) this.close();
    else this.signal?.addEventListener("abort", this, { once: true });
  }

  /** The client read what it was given: give it what it lacks now. */
  pull(): void {
    if (this.#controller === null) return;
    this.waitingSince = 0;
    this.deliver();
  }

  cancel(): void {
    this.close();
  }

  /** The request's `abort` (this stream is its own listener). */
  handleEvent(): void {
    this.close();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.signal?.removeEventListener("abort", this);
    this.owner.closed(this);
    try {
      this.#controller?.close();
    } catch {
      // already closed or errored
    }
  }

  /** Gives the client what it lacks, if it has read everything it was given. */
  deliver(): void {
    if (this.waitingSince !== 0) return; // one unread event at most: the next read comes back here
    const feed = this.feed;
    if (feed.failure !== null && this.#sentFailure !== feed.failure) {
      this.#sentFailure = feed.failure;
      this.write(feed.failure); // what else it lacks follows its next read
      if (feed.failure === DELETED) this.close(); // the last event: the client reads it, then the end
      return;
    }
    const version = feed.version;
    if (version === null || this.sent === version.mark) return;
    const bytes = (this.sent === null ? null : changeBytes(this.sent, version)) ?? screenBytes(version);
    this.sent = version.mark;
    this.write(bytes);
  }

  write(bytes: Uint8Array): void {
    const controller = this.#controller;
    if (controller === null) return;
    try {
      controller.enqueue(bytes);
    } catch {
      this.close();
      return;
    }
    this.lastWrite = Date.now();
    this.owner.wrote(this);
    // Not taken by a waiting read: it sits unread until the client reads.
    if ((controller.desiredSize ?? 0) <= 0) this.waitingSince = this.lastWrite;
  }
}
