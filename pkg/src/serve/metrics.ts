// `serve`'s metrics: what its requests, MCP operations, tool calls, event
// streams, store operations and change feeds are told to have done, counted
// in memory and written in Prometheus' text format when `/metrics` is
// scraped (`--metrics-port`), and recorded with OpenTelemetry's meter when
// `serve` sends metrics over OTLP. Each label is of a bounded set (a route
// template, a method, a status, a tool of this package, an outcome): no chat
// id, owner or token. Recording adds to numbers of a fixed size; nothing is
// kept per request, so memory stays as it is however long nobody scrapes.
import type { Attributes, OtelMeter } from "../telemetry/otel.js";
import type { Observer, StoreOutcome, ToolOutcome } from "../telemetry/observe.js";

/** The buckets of every duration, in seconds (OpenTelemetry's advice for `http.server.request.duration`). */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** Most series one metric keeps; past it, new label sets count in one series labelled `otel_metric_overflow="true"`. */
export const MAX_SERIES = 1000;

/** The HTTP methods a label names (HTTP's semantic conventions); any other is `_OTHER`. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE"]);

/**
 * A method as a label says it: one of HTTP's, else `_OTHER`.
 *
 * @example
 * httpMethod("get"); // "GET"
 */
export function httpMethod(method: string): string {
  const upper = method.toUpperCase();
  return METHODS.has(upper) ? upper : "_OTHER";
}

type Labels = Record<string, string>;

/** One metric: its series by label set, each series a number or a histogram. */
class Family<S> {
  readonly #series = new Map<string, { labels: Labels; value: S }>();
  readonly #make: () => S;

  constructor(
    readonly name: string,
    readonly type: "counter" | "gauge" | "histogram",
    readonly help: string,
    make: () => S,
  ) {
    this.#make = make;
  }

  /** The series of `labels` (made on first use; past {@link MAX_SERIES}, the overflow series). */
  at(labels: Labels): S {
    let key = JSON.stringify(labels);
    let series = this.#series.get(key);
    if (series === undefined) {
      if (this.#series.size >= MAX_SERIES) {
        labels = { otel_metric_overflow: "true" };
        key = JSON.stringify(labels);
        series = this.#series.get(key);
      }
      if (series === undefined) {
        series = { labels, value: this.#make() };
        this.#series.set(key, series);
      }
    }
    return series.value;
  }

  get size(): number {
    return this.#series.size;
  }

  series(): Iterable<{ labels: Labels; value: S }> {
    return this.#series.values();
  }
}

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

const histogram = (): Histogram => ({ counts: BUCKETS.map(() => 0), sum: 0, count: 0 });
const number = (): { value: number } => ({ value: 0 });

function observeIn(h: Histogram, seconds: number): void {
  for (let i = 0; i < BUCKETS.length; i++) if (seconds <= (BUCKETS[i] as number)) (h.counts[i] as number)++;
  h.sum += seconds;
  h.count++;
}

/**
 * The counts of one `serve`: `text()` for a scrape, `observer` for the
 * package's work, `httpRequest` for each answer. `prometheus: false` keeps
 * nothing in memory (only the meter records); `meter`: also record there.
 *
 * @example
 * const metrics = new ServeMetrics({ prometheus: true, meter: null, storeKind: "jsonl" });
 * metrics.httpRequest("GET", "/health", 200, 0.001);
 * console.log(metrics.text());
 */
export class ServeMetrics {
  readonly #http = new Family(
    "http_server_request_duration_seconds",
    "histogram",
    "Duration of HTTP server requests (event streams left out).",
    histogram,
  );
  readonly #mcp = new Family(
    "mcp_server_operation_duration_seconds",
    "histogram",
    "Duration of MCP requests and notifications.",
    histogram,
  );
  readonly #tools = new Family(
    "oda_tasks_tool_calls_total",
    "counter",
    "Tool calls, by tool and outcome (recorded, refused, failed).",
    number,
  );
  readonly #streams = new Family("oda_tasks_event_streams", "gauge", "Event streams open now.", number);
  readonly #store = new Family(
    "oda_tasks_store_operation_duration_seconds",
    "histogram",
    "Duration of store operations, by store kind, operation and outcome (ok, conflict, error).",
    histogram,
  );
  readonly #reconnects = new Family(
    "oda_tasks_change_feed_reconnects_total",
    "counter",
    "Times a store's change feed tried to listen again after its connection failed or was lost.",
    number,
  );
  readonly #prometheus: boolean;
  readonly #otel: OtelInstruments | null;
  /** What the package's work tells: add it with `observe()` (telemetry/observe.ts). */
  readonly observer: Observer;

  constructor({ prometheus, meter, storeKind }: { prometheus: boolean; meter: OtelMeter | null; storeKind: string }) {
    this.#prometheus = prometheus;
    this.#otel = meter === null ? null : otelInstruments(meter);
    if (prometheus) {
      // Present from the start, so a rate reads 0 rather than nothing.
      this.#streams.at({});
      this.#reconnects.at({ oda_tasks_store_kind: storeKind });
    }
    this.observer = {
      toolCall: (tool, outcome) => this.#toolCall(tool, outcome),
      storeOperation: (kind, operation, outcome, seconds) => this.#storeOperation(kind, operation, outcome, seconds),
      mcpOperation: (method, tool, errorType, seconds) => {
        const labels: Labels = { mcp_method_name: method };
        if (tool !== undefined) labels.gen_ai_tool_name = tool;
        if (errorType !== undefined) labels.error_type = errorType;
        if (this.#prometheus) observeIn(this.#mcp.at(labels), seconds);
        this.#otel?.mcp.record(seconds, dotted(labels));
      },
      eventStreams: (change) => {
        if (this.#prometheus) this.#streams.at({}).value += change;
        this.#otel?.streams.add(change);
      },
      feedReconnect: (kind) => {
        if (this.#prometheus) this.#reconnects.at({ oda_tasks_store_kind: kind }).value++;
        this.#otel?.reconnects.add(1, { "oda_tasks.store.kind": kind });
      },
    };
  }

  /** An HTTP answer: its method (any), route template (`""`: no route), status and duration. */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    const labels: Labels = { http_request_method: httpMethod(method), http_route: route, http_response_status_code: String(status) };
    if (this.#prometheus) observeIn(this.#http.at(labels), seconds);
    this.#otel?.http.record(seconds, {
      "http.request.method": labels.http_request_method as string,
      ...(route === "" ? {} : { "http.route": route }),
      "http.response.status_code": status,
    });
  }

  /** How many series the metrics hold now, in all (memory is bounded by {@link MAX_SERIES} a metric). */
  get series(): number {
    return [this.#http, this.#mcp, this.#tools, this.#streams, this.#store, this.#reconnects].reduce((n, f) => n + f.size, 0);
  }

  /**
   * The metrics in Prometheus' text format (version 0.0.4).
   *
   * @example
   * declare const metrics: ServeMetrics;
   * new Response(metrics.text(), { headers: { "content-type": PROMETHEUS_TYPE } });
   */
  text(): string {
    let out = "";
    for (const family of [this.#http, this.#mcp, this.#tools, this.#streams, this.#store, this.#reconnects] as Family<unknown>[]) {
      out += `# HELP ${family.name} ${family.help}\n# TYPE ${family.name} ${family.type}\n`;
      for (const { labels, value } of family.series()) {
        if (family.type !== "histogram") {
          out += `${family.name}${labelText(labels)} ${(value as { value: number }).value}\n`;
          continue;
        }
        const h = value as Histogram;
        BUCKETS.forEach((le, i) => {
          out += `${family.name}_bucket${labelText({ ...labels, le: String(le) })} ${h.counts[i]}\n`;
        });
        out += `${family.name}_bucket${labelText({ ...labels, le: "+Inf" })} ${h.count}\n`;
        out += `${family.name}_sum${labelText(labels)} ${h.sum}\n${family.name}_count${labelText(labels)} ${h.count}\n`;
      }
    }
    return out;
  }

  #toolCall(tool: string, outcome: ToolOutcome): void {
    if (this.#prometheus) this.#tools.at({ gen_ai_tool_name: tool, oda_tasks_outcome: outcome }).value++;
    this.#otel?.tools.add(1, { "gen_ai.tool.name": tool, "oda_tasks.outcome": outcome });
  }

  #storeOperation(kind: string, operation: string, outcome: StoreOutcome, seconds: number): void {
    const labels = { oda_tasks_store_kind: kind, oda_tasks_store_operation: operation, oda_tasks_outcome: outcome };
    if (this.#prometheus) observeIn(this.#store.at(labels), seconds);
    this.#otel?.store.record(seconds, dotted(labels));
  }
}

/** The content type of Prometheus' text format. */
export const PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Labels as Prometheus writes them: `{a="x",b="y"}`, values escaped. */
function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`);
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}

/** A label set as OpenTelemetry's attributes: the dotted names the labels were made of. */
function dotted(labels: Labels): Attributes {
  const names: Record<string, string> = {
    mcp_method_name: "mcp.method.name",
    gen_ai_tool_name: "gen_ai.tool.name",
    error_type: "error.type",
    oda_tasks_store_kind: "oda_tasks.store.kind",
    oda_tasks_store_operation: "oda_tasks.store.operation",
    oda_tasks_outcome: "oda_tasks.outcome",
  };
  return Object.fromEntries(Object.entries(labels).map(([k, v]) => [names[k] ?? k, v]));
}

/** The same metrics as OpenTelemetry instruments (OTLP): each name dotted, durations in seconds. */
interface OtelInstruments {
  http: { record(value: number, attributes: Attributes): void };
  mcp: { record(value: number, attributes: Attributes): void };
  tools: { add(value: number, attributes: Attributes): void };
  streams: { add(value: number, attributes?: Attributes): void };
  store: { record(value: number, attributes: Attributes): void };
  reconnects: { add(value: number, attributes: Attributes): void };
}

function otelInstruments(meter: OtelMeter): OtelInstruments {
  const duration = (name: string, description: string) =>
    meter.createHistogram(name, { unit: "s", description, advice: { explicitBucketBoundaries: BUCKETS } });
  return {
    http: duration("http.server.request.duration", "Duration of HTTP server requests (event streams left out)."),
    mcp: duration("mcp.server.operation.duration", "Duration of MCP requests and notifications."),
    tools: meter.createCounter("oda_tasks.tool.calls", { description: "Tool calls, by tool and outcome (recorded, refused, failed)." }),
    streams: meter.createUpDownCounter("oda_tasks.event_streams", { description: "Event streams open now." }),
    store: duration("oda_tasks.store.operation.duration", "Duration of store operations, by store kind, operation and outcome."),
    reconnects: meter.createCounter("oda_tasks.change_feed.reconnects", {
      description: "Times a store's change feed tried to listen again after its connection failed or was lost.",
    }),
  };
}
