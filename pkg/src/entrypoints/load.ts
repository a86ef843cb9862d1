// Loading the WebAssembly core: `init()` for browsers and bundlers, `initSync`
// for Node's entry; whether it is loaded is core/ready.ts.
import * as glue from "../../wasm/oda_tasks.js";
import { CORE_EXPORTS, CORE_IMPORTS, CORE_VERSION } from "../gen/wasm-interface.js";
import { EDGE_FIX, isReady, loadFailed, markReady, onWorkerd } from "../core/ready.js";

export { NOT_INITIALISED, isReady, loadFailed } from "../core/ready.js";

/**
 * Where {@link init} loads the core from: a URL (string or `URL`), a `Request`
 * or fetch `Response`, the `.wasm` bytes, or a compiled `WebAssembly.Module`.
 * Typed without DOM names, so a Node-only TypeScript project type-checks.
 *
 * @example
 * const source: WasmSource = new URL("/assets/oda_tasks_bg.wasm", location.href);
 */
export type WasmSource = glue.InitInput;

/**
 * What {@link initSync} takes: the `.wasm` bytes or a compiled module.
 *
 * @example
 * import { readFileSync } from "node:fs";
 * const bytes: WasmBytes = readFileSync(new URL(import.meta.resolve("oda-tasks/oda_tasks_bg.wasm")));
 */
export type WasmBytes = glue.SyncInitInput;

let loading: Promise<void> | undefined;
/** Set when the glue took a module and then failed to start it: it keeps that module, so no retry can work. */
let wedged: string | undefined;

/**
 * Loads the WebAssembly core. Node does this on import; in a browser call it
 * once before anything else. With no argument it fetches `oda_tasks_bg.wasm`
 * beside the package's files; a bundler that does not copy it needs its URL
 * passed in. Repeated calls share the first load. A failed load (a wrong
 * URL, bytes that are not this version's core) sets nothing, so it can be
 * retried with the right source.
 *
 * @example
 * import { init, todoWrite } from "oda-tasks";
 * await init();
 */
export async function init(source?: WasmSource | Promise<WasmSource>): Promise<void> {
  if (isReady()) return;
  loading ??= load(source).then(
    () => markReady(),
    (e: unknown) => {
      loading = undefined;
      throw e;
    },
  );
  return loading;
}

/**
 * Compiles and instantiates the core from its bytes as base64 (the `wasm-inline.js`
 * that Node's and the inlined entry import), at once; on a runtime that compiles no
 * WebAssembly from bytes (Cloudflare Workers) it records an `oda-tasks:` reason
 * naming the fix, which the first call throws.
 *
 * @example
 * import { readFileSync } from "node:fs";
 * loadInlined(readFileSync("oda_tasks_bg.wasm").toString("base64")); // then todoWrite(...) works
 */
export function loadInlined(wasmBase64: string): void {
  try {
    initSync(decodeBase64(wasmBase64));
  } catch (e) {
    loadFailed(
      `oda-tasks: the WebAssembly core could not be compiled from the inlined bytes (${e instanceof Error ? e.message : String(e)}); ` +
        "on Cloudflare Workers import the package with the `workerd` condition (wrangler does; esbuild: --conditions=workerd), " +
        "which imports the .wasm as a module",
    );
  }
}

/** The bytes of a base64 text, by the fastest decoder the runtime has (Node's Buffer is 15 times atob's loop). */
function decodeBase64(text: string): Uint8Array {
  const native = (Uint8Array as { fromBase64?: (text: string) => Uint8Array }).fromBase64;
  if (typeof native === "function") return native(text);
  const buffer = (globalThis as { Buffer?: { from(text: string, encoding: "base64"): Uint8Array } }).Buffer;
  if (buffer !== undefined) return buffer.from(text, "base64");
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The fix named when a source given to init() or initSync() is not the core. */
const GIVEN_FIX =
  "Pass the oda_tasks_bg.wasm that ships with this version of the package (its URL, a Response for it, its bytes or its compiled module), " +
  "or call init() with no argument to load it from beside the package's files";

/** The fix named when the default location does not hold the core. */
const DEFAULT_FIX =
  "A bundler that moved the package's files needs the .wasm's URL: " +
  '`import wasmUrl from "oda-tasks/oda_tasks_bg.wasm?url"` (Vite) or with a file loader (esbuild), ' +
  'then `await init(wasmUrl)`; with Vite\'s dev server, `optimizeDeps: { exclude: ["oda-tasks"] }` also works; ' +
  'a bundle that copies no assets can import "oda-tasks/inline" instead, which needs no init()';

async function load(source: WasmSource | Promise<WasmSource> | undefined): Promise<void> {
  if (wedged !== undefined) throw new Error(wedged);
  let given: WasmSource | undefined;
  try {
    given = await source;
  } catch (e) {
    throw loadError("the promise given to init() as the core's source rejected", e, GIVEN_FIX);
  }
  const [where, fix] = given === undefined ? [defaultLocation(), DEFAULT_FIX] : [given, GIVEN_FIX];
  const module = await compile(where, fix);
  checkInterface(module, sourceName(where), fix);
  try {
    await glue.default({ module_or_path: module });
  } catch (e) {
    throw startFailed(sourceName(where), e);
  }
}

/** Compiles what init() was given (fetching a URL or Request first) into a module, or says why it cannot. */
async function compile(source: WasmSource, fix: string): Promise<WebAssembly.Module> {
  if (source instanceof WebAssembly.Module) return source;
  if (isBytes(source)) return compiled("init()", source, () => WebAssembly.compile(source as BufferSource), fix);
  let response: unknown = source;
  if (typeof source === "string" || source instanceof URL || (typeof Request === "function" && source instanceof Request)) {
    const url = typeof source === "string" ? source : source instanceof URL ? source.href : (source as Request).url;
    try {
      response = await fetch(source as RequestInfo | URL);
    } catch (e) {
      throw loadError(`could not fetch the WebAssembly core from ${url}`, e, fix);
    }
  }
  if (typeof Response === "function" && response instanceof Response) {
    const name = sourceName(response);
    if (!response.ok)
      throw loadError(`could not load the WebAssembly core from ${name}`, `HTTP ${response.status} ${response.statusText}`.trim(), fix);
    const streaming = typeof WebAssembly.compileStreaming === "function" && response.headers.get("content-type") === "application/wasm";
    const wasmResponse = response;
    return compiled(
      name,
      undefined,
      async () => {
        if (streaming) return WebAssembly.compileStreaming(wasmResponse);
        // No `await` inside compile's arguments: Next.js's Edge dev build wraps each
        // WebAssembly.compile call in a plain function, where an await does not parse.
        const bytes = await wasmResponse.arrayBuffer();
        return WebAssembly.compile(bytes);
      },
      fix,
    );
  }
  throw new TypeError(
    "oda-tasks: init() takes the core's .wasm as a URL (a string or URL), a Request or Response, its bytes (an ArrayBuffer or a typed array) " +
      `or a compiled WebAssembly.Module (got ${describe(source)})`,
  );
}

/** `make()`'s module, or an `oda-tasks:` error saying `name` is not WebAssembly. */
async function compiled(name: string, bytes: unknown, make: () => Promise<WebAssembly.Module>, fix: string): Promise<WebAssembly.Module> {
  try {
    return await make();
  } catch (e) {
    throw loadError(`${name === "init()" ? `the ${byteCount(bytes)} given to init()` : name} could not be compiled as WebAssembly`, e, fix);
  }
}

/** Whether a value is bytes the engine can compile: an ArrayBuffer or a view over one. */
function isBytes(value: unknown): value is ArrayBuffer | ArrayBufferView {
  return (
    value instanceof ArrayBuffer ||
    ArrayBuffer.isView(value) ||
    (typeof SharedArrayBuffer === "function" && value instanceof SharedArrayBuffer)
  );
}

/** "12 bytes" of a buffer or view. */
function byteCount(bytes: unknown): string {
  const n = (bytes as { byteLength?: unknown } | null)?.byteLength;
  return typeof n === "number" ? `${n} bytes` : "bytes";
}

/** What a source is, for an error: its URL where it has one. */
function sourceName(source: unknown): string {
  if (typeof source === "string") return source;
  if (source instanceof URL) return source.href;
  if (typeof Response === "function" && source instanceof Response) return source.url === "" ? "the Response given to init()" : source.url;
  if (typeof Request === "function" && source instanceof Request) return source.url;
  if (source instanceof WebAssembly.Module) return "the WebAssembly.Module given";
  return `the ${byteCount(source)} given`;
}

/** A value's kind for a TypeError: `null`, `a number`, `an object`, `a Blob`. */
function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== "object") return `a ${typeof value}`;
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === "string" && name !== "" && name !== "Object" ? `a ${name}` : "an object";
}

/**
 * Refuses a module that is not this version's core (an empty module, a
 * stale build, another app's .wasm): its exports and imports must be exactly
 * the ones this package's glue was generated for.
 */
function checkInterface(module: WebAssembly.Module, name: string, fix: string): void {
  const exports = WebAssembly.Module.exports(module).map((d) => `${d.kind} ${d.name}`);
  const imports = WebAssembly.Module.imports(module).map((d) => `${d.kind} ${d.module} ${d.name}`);
  const missing = [...CORE_EXPORTS.filter((e) => !exports.includes(e)), ...CORE_IMPORTS.filter((i) => !imports.includes(i))];
  const extra = [...exports.filter((e) => !CORE_EXPORTS.includes(e)), ...imports.filter((i) => !CORE_IMPORTS.includes(i))];
  if (missing.length === 0 && extra.length === 0) return;
  const shown = (list: string[], what: string) =>
    list.length === 0
      ? []
      : [
          `${what} ${list
            .slice(0, 3)
            .map((d) => `\`${d.split(" ").at(-1)}\``)
            .join(", ")}${list.length > 3 ? ` and ${list.length - 3} more` : ""}`,
        ];
  const why = exports.length === 0 ? ["it exports nothing"] : [...shown(missing, "it lacks"), ...shown(extra, "it has the unexpected")];
  throw new Error(
    `oda-tasks: refused ${name}: it is not the WebAssembly core of oda-tasks ${CORE_VERSION} (${why.join("; ")}); nothing was loaded. ${fix}`,
  );
}

/** The error for a module the glue took and could not start; the glue keeps it, so later loads say so too. */
function startFailed(name: string, cause: unknown): Error {
  const message = cause instanceof Error ? cause.message : String(cause);
  wedged = `oda-tasks: the WebAssembly core from ${name} failed while starting (${message}); reload the page (or restart the process) to load it again`;
  return new Error(wedged, { cause });
}

/** An `oda-tasks:` error for a failed load that names the fix for this runtime. */
function loadError(what: string, cause: unknown, fix?: string): Error {
  const message = cause instanceof Error ? cause.message : String(cause);
  const edge = onWorkerd() || /code generation disallowed/i.test(message);
  return new Error(`oda-tasks: ${what} (${message}). ${edge ? EDGE_FIX : (fix ?? "Pass the .wasm's URL, bytes or module.")}`, { cause });
}

/**
 * The `.wasm` beside the package's files. Vite 5 and 6 dev servers serve the
 * package pre-bundled from `node_modules/.vite/deps/`, where nothing sits
 * beside it; that folder is two levels below `node_modules`, so the
 * package's own folder is `node_modules/oda-tasks/`. The other is a literal
 * `new URL(..., import.meta.url)`, which bundlers rewrite to the file's URL;
 * the Vite one is made from the module's URL at run time, so no bundler
 * (Turbopack, webpack) tries to resolve a file that is not beside this one.
 */
function defaultLocation(): string {
  // Cloudflare Workers give a module no import.meta.url: nothing is "beside" it there.
  if (typeof import.meta.url !== "string")
    throw new Error(`oda-tasks: this runtime gives the package no import.meta.url, so init() cannot find the .wasm. ${EDGE_FIX}`);
  return import.meta.url.includes("/node_modules/.vite/deps/")
    ? import.meta.url.replace(/\/\.vite\/deps\/[\s\S]*$/, "/oda-tasks/wasm/oda_tasks_bg.wasm")
    : new URL("../../wasm/oda_tasks_bg.wasm", import.meta.url).href;
}

/**
 * Initialises the core from the `.wasm` bytes or compiled module at once
 * (Node's entry uses this). Bytes that are not this version's core are an
 * `oda-tasks:` error and set nothing, so a later call with the right bytes works.
 *
 * @example
 * import { readFileSync } from "node:fs";
 * initSync(readFileSync(new URL(import.meta.resolve("oda-tasks/oda_tasks_bg.wasm"))));
 */
export function initSync(bytes: WasmBytes): void {
  loadBytes(bytes, undefined);
}

/**
 * {@link initSync} for an entry that knows where the bytes came from
 * (`from`: a file path, "the inlined bytes"), which its errors then name.
 */
export function loadBytes(bytes: WasmBytes, from: string | undefined): void {
  if (isReady()) return;
  if (wedged !== undefined) throw new Error(wedged);
  let module: WebAssembly.Module;
  if (bytes instanceof WebAssembly.Module) module = bytes;
  else if (isBytes(bytes)) {
    try {
      module = new WebAssembly.Module(bytes as BufferSource);
    } catch (e) {
      throw loadError(`${from ?? `the ${byteCount(bytes)} given to initSync()`} could not be compiled as WebAssembly`, e, GIVEN_FIX);
    }
  } else {
    throw new TypeError(
      "oda-tasks: initSync() takes the core's .wasm as bytes (an ArrayBuffer or a typed array) or a compiled WebAssembly.Module " +
        `(got ${describe(bytes)})`,
    );
  }
  const name =
    from ??
    (bytes instanceof WebAssembly.Module ? "the WebAssembly.Module given to initSync()" : `the ${byteCount(bytes)} given to initSync()`);
  checkInterface(module, name, GIVEN_FIX);
  try {
    glue.initSync({ module });
  } catch (e) {
    throw startFailed(name, e);
  }
  markReady();
}
