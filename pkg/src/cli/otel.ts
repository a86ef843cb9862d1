// `serve`'s OpenTelemetry SDK, opt-in: with `OTEL_EXPORTER_OTLP_ENDPOINT` (or a
// signal's own endpoint) set, OpenTelemetry's Node SDK (`@opentelemetry/sdk-node`,
// an optional peer, loaded only then) sends the traces and metrics over OTLP
// as the standard `OTEL_*` variables configure it: the protocol
// (`http/protobuf`, `http/json`, `grpc`), the headers, the sampler, the
// resource. The service is named `oda-tasks` unless `OTEL_SERVICE_NAME` (or a
// `service.name` in `OTEL_RESOURCE_ATTRIBUTES`) names it.

/** The SDK started, and how to flush and stop it. */
export interface StartedSdk {
  shutdown(): Promise<void>;
}

/** The variables that turn the SDK on. */
const ENDPOINTS = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"];

/**
 * Whether `env` asks for the SDK: an OTLP endpoint is set and
 * `OTEL_SDK_DISABLED` is not `true`.
 *
 * @example
 * if (wantsSdk(process.env)) await startSdk(process.env, (message) => { throw new Error(message); });
 */
export function wantsSdk(env: NodeJS.ProcessEnv): boolean {
  return ENDPOINTS.some((name) => (env[name] ?? "").trim() !== "") && (env.OTEL_SDK_DISABLED ?? "").trim().toLowerCase() !== "true";
}

/**
 * Starts the Node SDK as `env` configures it; a missing package goes to
 * `fail` (one line, exit 2, as `jose` for `--auth jwt`).
 *
 * @example
 * const sdk = await startSdk(process.env, (message) => { console.error(message); process.exit(2); });
 * await sdk.shutdown(); // flushes what is left
 */
export async function startSdk(env: NodeJS.ProcessEnv, fail: (message: string) => never): Promise<StartedSdk> {
  let module: { NodeSDK: new (options: { serviceName?: string }) => StartedSdk & { start(): void } };
  try {
    const name = "@opentelemetry/sdk-node"; // by name: no bundle takes it in
    module = (await import(name)) as typeof module;
  } catch (e) {
    const { code } = e as { code?: unknown };
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      fail(
        "OTEL_EXPORTER_OTLP_ENDPOINT needs the `@opentelemetry/sdk-node` package: npm install @opentelemetry/sdk-node @opentelemetry/api",
      );
    }
    throw e;
  }
  const named = (env.OTEL_SERVICE_NAME ?? "").trim() !== "" || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? "");
  const sdk = new module.NodeSDK(named ? {} : { serviceName: "oda-tasks" });
  sdk.start();
  return sdk;
}
