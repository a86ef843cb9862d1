// OpenTelemetry spans through `@opentelemetry/api`, an optional peer that is
// never imported: the first span asked for loads it where the runtime loads a
// package synchronously (Node's `process.getBuiltinModule("node:module")`), so
// with the package absent, or in a runtime without that (a browser, a
// Worker), no span is made and nothing else changes. With the API and no SDK
// registered, every span is the API's own no-op. The types below are the few
// shapes this package uses of the API, so no `.d.ts` of the package names it.

/** A span attribute's value. */
export type AttributeValue = string | number | boolean;

/** Span attributes by name. */
export type Attributes = Record<string, AttributeValue>;

/** An OpenTelemetry `Context`: immutable, values by symbol. */
export interface OtelContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): OtelContext;
  deleteValue(key: symbol): OtelContext;
}

/** What this package does with an OpenTelemetry `Span`. */
export interface OtelSpan {
  setAttribute(key: string, value: AttributeValue): unknown;
  setStatus(status: { code: number }): unknown;
  updateName(name: string): unknown;
  spanContext(): { traceId: string; spanId: string; traceFlags: number };
  isRecording(): boolean;
  end(): void;
}

/** How `propagation.extract` reads a carrier. */
export interface CarrierGetter<C> {
  keys(carrier: C): string[];
  get(carrier: C, key: string): string | string[] | undefined;
}

/** What this package does with an OpenTelemetry `Tracer`. */
interface OtelTracer {
  startSpan(name: string, options: { kind: number; attributes: Attributes }, context: OtelContext): OtelSpan;
}

/** What this package uses of `@opentelemetry/api`. */
interface OtelApi {
  trace: {
    getTracerProvider(): { getTracer(name: string): OtelTracer; getDelegateTracer?(name: string): OtelTracer | undefined };
    setSpan(context: OtelContext, span: OtelSpan): OtelContext;
    getSpan(context: OtelContext): OtelSpan | undefined;
  };
  context: { active(): OtelContext; with<T>(context: OtelContext, fn: () => T): T };
  propagation: { extract<C>(context: OtelContext, carrier: C, getter?: CarrierGetter<C>): OtelContext };
  metrics: { getMeter(name: string): OtelMeter };
  createContextKey(description: string): symbol;
}

/** What this package records with an OpenTelemetry `Meter`. */
export interface OtelMeter {
  createHistogram(
    name: string,
    options: { unit: string; description: string; advice?: { explicitBucketBoundaries: number[] } },
  ): { record(value: number, attributes: Attributes): void };
  createCounter(name: string, options: { description: string }): { add(value: number, attributes: Attributes): void };
  createUpDownCounter(name: string, options: { description: string }): { add(value: number, attributes?: Attributes): void };
}

/** The API's package, loaded by name. */
const API_PACKAGE = "@opentelemetry/api";

/** The instrumentation scope of every span of this package. */
const TRACER_NAME = "oda-tasks";

/** `SpanKind` and `SpanStatusCode` of the API, as numbers (stable across its 1.x releases). */
const KINDS = { internal: 0, server: 1 } as const;
const STATUS_ERROR = 2;

/** The loaded API, and the context key that marks this package's scope. */
interface Loaded {
  api: OtelApi;
  scope: symbol;
}

let loaded: Loaded | null | undefined;

/** The API, loaded on first use; `null` where it is absent or cannot be loaded. */
function otel(): Loaded | null {
  if (loaded === undefined) loaded = load();
  return loaded;
}

function load(): Loaded | null {
  try {
    const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
    if (typeof getBuiltin !== "function") return null;
    const module = getBuiltin("node:module") as { createRequire?: (from: string) => (id: string) => unknown } | undefined;
    if (typeof module?.createRequire !== "function" || typeof import.meta.url !== "string") return null;
    const api = module.createRequire(import.meta.url)(API_PACKAGE) as Partial<OtelApi> | null;
    if (
      typeof api?.trace?.getTracerProvider !== "function" ||
      typeof api.context?.with !== "function" ||
      typeof api.createContextKey !== "function"
    ) {
      return null;
    }
    // Every copy of the API makes the same key of a description (Symbol.for): spans of this package below mark the context.
    return { api: api as OtelApi, scope: api.createContextKey("oda-tasks scope") };
  } catch {
    return null;
  }
}

/**
 * A span of this package as the code around it sees it: attributes to set,
 * a failure to mark. Without the API (or with tracing off) it is
 * {@link NO_SPAN}, whose methods do nothing.
 */
export interface SpanHandle {
  /** Whether the span records (an SDK is registered and samples it); attributes that cost work to make are only made then. */
  readonly live: boolean;
  /** The trace id, or `""` without a span (or with the API's no-op, which has none). */
  readonly traceId: string;
  set(key: string, value: AttributeValue | undefined): void;
  /** Marks the span failed: `error.type` and the status ERROR (never an error's message: it may name a chat or a file). */
  fail(errorType: string): void;
  rename(name: string): void;
}

/** The handle of no span. */
export const NO_SPAN: SpanHandle = { live: false, traceId: "", set: () => undefined, fail: () => undefined, rename: () => undefined };

/**
 * The meter of this package from the registered MeterProvider (the API's
 * no-op without one); `null` without the API.
 *
 * @example
 * meter()?.createCounter("oda_tasks.tool.calls", { description: "Tool calls" }).add(1, { "gen_ai.tool.name": "todo_write" });
 */
export function meter(): OtelMeter | null {
  return otel()?.api.metrics.getMeter(TRACER_NAME) ?? null;
}

/** The active context, or `null` without the API (a caller then makes no span). */
export function activeContext(): OtelContext | null {
  return otel()?.api.context.active() ?? null;
}

/** Whether the active context is inside a span of this package (store work there makes child spans). */
export function inScope(): boolean {
  const o = otel();
  return o !== null && o.api.context.active().getValue(o.scope) === true;
}

/**
 * The trace context a carrier holds (MCP's `_meta`, HTTP headers), read by
 * the propagator the app registered, over `base`.
 */
export function extractContext<C>(base: OtelContext, carrier: C, getter?: CarrierGetter<C>): OtelContext {
  const o = otel();
  if (o === null) return base;
  try {
    return o.api.propagation.extract(base, carrier, getter);
  } catch {
    return base;
  }
}

/** How a span of this package begins. */
export interface SpanStart {
  kind?: keyof typeof KINDS;
  attributes?: Attributes;
  /** The context to begin in (its span the parent); by default the active one. */
  parent?: OtelContext | null;
}

/** A span begun by {@link beginSpan}: its handle, the context it is active in, whether it was failed, and its end. */
export interface OpenSpan extends SpanHandle {
  readonly context: OtelContext;
  readonly failed: boolean;
  end(): void;
}

/** A span being made: one object, its methods shared (a span is made for every store operation of a call). */
class LiveSpan implements OpenSpan {
  readonly live: boolean;
  readonly traceId: string;
  failed = false;

  constructor(
    readonly span: OtelSpan,
    readonly context: OtelContext,
  ) {
    // A no-op span (the API without an SDK, or sampled out) is set nothing that costs work to make.
    this.live = span.isRecording();
    const { traceId } = span.spanContext();
    this.traceId = /^0*$/.test(traceId) ? "" : traceId;
  }

  set(key: string, value: AttributeValue | undefined): void {
    if (value !== undefined) this.span.setAttribute(key, value);
  }

  fail(errorType: string): void {
    this.failed = true;
    this.span.setAttribute("error.type", errorType);
    this.span.setStatus({ code: STATUS_ERROR });
  }

  rename(name: string): void {
    this.span.updateName(name);
  }

  end(): void {
    this.span.end();
  }
}

/** This package's tracer of the registered SDK, asked of the provider again only when another is registered. */
let tracer: { provider: unknown; tracer: OtelTracer } | undefined;

/**
 * The tracer of the SDK the app registered, or `null` while none is: the
 * API's own provider then hands out no-op spans, and making them (a context
 * each) would be work for nothing on every call.
 */
function tracerOf(api: OtelApi): OtelTracer | null {
  const provider = api.trace.getTracerProvider();
  if (tracer !== undefined && tracer.provider === provider) return tracer.tracer;
  // The API's provider is a proxy of the SDK's: without a delegate there is no SDK (yet: asked again each span).
  const delegate =
    typeof provider.getDelegateTracer === "function" ? provider.getDelegateTracer(TRACER_NAME) : provider.getTracer(TRACER_NAME);
  if (delegate === undefined) return null;
  tracer = { provider, tracer: delegate };
  return delegate;
}

/** Begins the span in `parent`: the context it is active in, marked as this package's scope; `null` with no SDK registered. */
function begin(o: Loaded, name: string, kind: number, attributes: Attributes, parent: OtelContext): LiveSpan | null {
  const span = tracerOf(o.api)?.startSpan(name, { kind, attributes }, parent);
  if (span === undefined) return null;
  const active = o.api.trace.setSpan(parent, span);
  return new LiveSpan(span, parent.getValue(o.scope) === true ? active : active.setValue(o.scope, true));
}

/**
 * Begins span `name` (its parent the active span, or `start.parent`'s) and
 * the context where it is active and marked as this package's scope; `null`
 * without the API or with no SDK registered. End it with `end()`.
 *
 * @example
 * const handle = async () => new Response("ok");
 * const span = beginSpan("initialize", { kind: "server", attributes: { "mcp.method.name": "initialize" } });
 * try { await (span === null ? handle() : runIn(span.context, handle)); } finally { span?.end(); }
 */
export function beginSpan(name: string, start: SpanStart): OpenSpan | null {
  const o = otel();
  if (o === null) return null;
  return begin(o, name, KINDS[start.kind ?? "internal"], start.attributes ?? {}, start.parent ?? o.api.context.active());
}

/**
 * Runs `fn` with `context` active (a span of {@link beginSpan}'s, a context read by {@link extractContext}).
 *
 * @example
 * const span = beginSpan("tools/list", { kind: "server" });
 * if (span !== null) await runIn(span.context, async () => "listed");
 */
export function runIn<T>(context: OtelContext, fn: () => T): T {
  const o = otel();
  return o === null ? fn() : o.api.context.with(context, fn);
}

/**
 * Runs `work` in a new span `name`, active while it runs (so spans it
 * begins are its children) and marked as this package's scope; the span
 * ends when `work` settles. A throw fails the span with {@link errorTypeOf}
 * unless `work` failed it already. Without the API, `work(NO_SPAN)`.
 *
 * @example
 * await inSpan("oda_tasks.suggestion.dismiss", { attributes: { "oda_tasks.suggestion.id": id } }, () => service.dismiss(chatId, id));
 */
export function inSpan<T>(name: string, start: SpanStart, work: (span: SpanHandle) => Promise<T>): Promise<T> {
  const o = otel();
  const span =
    o === null ? null : begin(o, name, KINDS[start.kind ?? "internal"], start.attributes ?? {}, start.parent ?? o.api.context.active());
  return o === null || span === null ? work(NO_SPAN) : within(o, span, work);
}

/**
 * Times `work` as a leaf span `name` (kind INTERNAL), a child of the active
 * span, when that is a span of this package; else runs `work()` alone, no
 * span made. The leaf is not made active (`work` begins no span of this
 * package: a store's operation), which spares a context per operation.
 * `attributes` is made only for a span.
 *
 * @example
 * await inLeafSpan("oda_tasks.store.read", () => ({ "oda_tasks.store.kind": "memory" }), () => store.read("c1"));
 */
export function inLeafSpan<T>(name: string, attributes: () => Attributes, work: (span: SpanHandle | null) => Promise<T>): Promise<T> {
  const o = otel();
  if (o === null) return work(null);
  const parent = o.api.context.active();
  if (parent.getValue(o.scope) !== true) return work(null);
  const made = tracerOf(o.api)?.startSpan(name, { kind: KINDS.internal, attributes: attributes() }, parent);
  if (made === undefined) return work(null);
  const span = new LiveSpan(made, parent);
  let running: Promise<T>;
  try {
    running = work(span);
  } catch (e) {
    running = Promise.reject(e);
  }
  return ended(span, running);
}

/** `work` with `span` active; the span ends when it settles, failed by a throw it did not fail itself. */
function within<T>(o: Loaded, span: LiveSpan, work: (span: LiveSpan) => Promise<T>): Promise<T> {
  let running: Promise<T>;
  try {
    running = o.api.context.with(span.context, () => work(span));
  } catch (e) {
    running = Promise.reject(e);
  }
  return ended(span, running);
}

/** `running`, `span` ended when it settles, failed by a throw it did not fail itself. */
function ended<T>(span: LiveSpan, running: Promise<T>): Promise<T> {
  return running.then(
    (value) => {
      span.end();
      return value;
    },
    (e: unknown) => {
      if (!span.failed) span.fail(errorTypeOf(e));
      span.end();
      throw e;
    },
  );
}

/** The trace each request's work went to, noted by its first span of this package (a server's log line names it). */
const traces = new WeakMap<object, string>();

/**
 * Notes that `request`'s work went to trace `traceId`, unless a trace is noted already.
 *
 * @example
 * declare const request: Request;
 * noteTrace(request, "4bf92f3577b34da6a3ce929d0e0e4736");
 */
export function noteTrace(request: object, traceId: string): void {
  if (traceId !== "" && !traces.has(request)) traces.set(request, traceId);
}

/**
 * The trace `request`'s work went to, or `""`.
 *
 * @example
 * declare const request: Request;
 * show({ traceId: traceOf(request) || undefined });
 */
export function traceOf(request: object): string {
  return traces.get(request) ?? "";
}

/**
 * Runs `work` outside this package's scope: spans of the caller's stay its
 * parents, but no store work below makes a span (a tool call whose tracing
 * is off).
 */
export function outOfScope<T>(work: () => T): T {
  const o = otel();
  if (o === null) return work();
  const active = o.api.context.active();
  return active.getValue(o.scope) === undefined ? work() : o.api.context.with(active.deleteValue(o.scope), work);
}

/**
 * What `error.type` says of a thrown error: its code where it has one of
 * this package's shape (`store/contended`, `task-suggestion/not-open`), else
 * its name (`TypeError`), else `_OTHER`. Never its message.
 *
 * @example
 * errorTypeOf(new StoreError("store/unavailable", "…", "c1")); // "store/unavailable"
 */
export function errorTypeOf(e: unknown): string {
  const code = typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
  if (typeof code === "string" && /^[a-z][a-z-]{0,40}\/[a-z][a-z-]{0,60}$/.test(code)) return code;
  const name = e instanceof Error ? e.name : undefined;
  return typeof name === "string" && /^[A-Za-z][A-Za-z0-9_]{0,60}$/.test(name) ? name : "_OTHER";
}
