// Loading the WebAssembly core: `init()` for browsers and bundlers, `initSync`
// for Node's entry; whether it is loaded is core/ready.ts.
import * as glue from "../../wasm/oda_tasks.js";
import { EDGE_FIX, isReady, markReady, onWorkerd } from "../core/ready.js";

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
 * const bytes: WasmBytes = readFileSync(wasmPath);
 */
export type WasmBytes = glue.SyncInitInput;

let loading: Promise<void> | undefined;


/**
 * Loads the WebAssembly core. Node does this on import; in a browser call it
 * once before anything else. With no argument it fetches `oda_tasks_bg.wasm`
 * beside the package's files; a bundler that does not copy it needs its URL
 * passed in. Repeated calls share the first load; a failed load can be retried.
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

async function load(source: WasmSource | Promise<WasmSource> | undefined): Promise<void> {
  if (source !== undefined) {
    try {
      await glue.default({ module_or_path: source });
    } catch (e) {
      throw loadError("could not load the WebAssembly core from the source given to init()", e);
    }
    return;
  }
  const url = defaultLocation();
  try {
    await glue.default({ module_or_path: url });
  } catch (e) {
    throw loadError(
      `could not load the WebAssembly core from ${url}`,
      e,
      "A bundler that moved the package's files needs the .wasm's URL: " +
        '`import wasmUrl from "oda-tasks/oda_tasks_bg.wasm?url"` (Vite) or with a file loader (esbuild), ' +
        "then `await init(wasmUrl)`; with Vite's dev server, `optimizeDeps: { exclude: [\"oda-tasks\"] }` also works; " +
        'a bundle that copies no assets can import "oda-tasks/inline" instead, which needs no init()',
    );
  }
}

/** An `oda-tasks:` error for a failed load that names the fix for this runtime. */
function loadError(what: string, cause: unknown, fix?: string): Error {
  const message = cause instanceof Error ? cause.message : String(cause);
  const edge = onWorkerd() || /code generation disallowed/i.test(message);
  return new Error(`oda-tasks: ${what} (${message}). ${edge ? EDGE_FIX : fix ?? "Pass the .wasm's URL, bytes or module."}`, { cause });
}

/**
 * The `.wasm` beside the package's files. Vite 5 and 6 dev servers serve the
 * package pre-bundled from `node_modules/.vite/deps/`, where nothing sits
 * beside it; that folder is two levels below `node_modules`, so the
 * package's own folder is `../../oda-tasks/`. Both are literal
 * `new URL(..., import.meta.url)`s, which bundlers rewrite to the file's URL.
 */
function defaultLocation(): string {
  // Cloudflare Workers give a module no import.meta.url: nothing is "beside" it there.
  if (typeof import.meta.url !== "string") throw new Error(`oda-tasks: this runtime gives the package no import.meta.url, so init() cannot find the .wasm. ${EDGE_FIX}`);
  return import.meta.url.includes("/node_modules/.vite/deps/")
    ? new URL("../../oda-tasks/wasm/oda_tasks_bg.wasm", import.meta.url).href
    : new URL("../../wasm/oda_tasks_bg.wasm", import.meta.url).href;
}

/**
 * Initialises the core from the `.wasm` bytes at once (Node's entry uses this).
 *
 * @example
 * initSync(readFileSync(new URL("./oda_tasks_bg.wasm", import.meta.url)));
 */
export function initSync(bytes: WasmBytes): void {
  if (!isReady()) {
    glue.initSync({ module: bytes });
    markReady();
  }
}
