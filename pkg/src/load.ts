// Loading the WebAssembly core: `init()` for browsers and bundlers, `initSync`
// for Node's entry. Every core export checks `isReady()` first, so a call
// before loading says what to do instead of failing inside the glue.
import * as glue from "../wasm/oda_tasks.js";

/** Thrown when the core is called in a browser before `await init()`. */
export const NOT_INITIALISED =
  "oda-tasks: the WebAssembly core is not initialised; call `await init()` once before using it (Node initialises it on import)";

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

let ready = false;
let loading: Promise<void> | undefined;
/** Why the core is not loaded when the entry tried and failed (Node, bundled without the `.wasm`). */
let failure: string | undefined;

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
  if (ready) return;
  loading ??= load(source).then(
    () => {
      ready = true;
      failure = undefined;
    },
    (e: unknown) => {
      loading = undefined;
      throw e;
    },
  );
  return loading;
}

async function load(source: WasmSource | Promise<WasmSource> | undefined): Promise<void> {
  if (source !== undefined) {
    await glue.default({ module_or_path: source });
    return;
  }
  const url = await defaultLocation();
  try {
    await glue.default({ module_or_path: url });
  } catch (e) {
    throw new Error(
      `oda-tasks: could not load the WebAssembly core from ${url} (${e instanceof Error ? e.message : String(e)}). ` +
        "A bundler that moved the package's files needs the .wasm's URL: " +
        '`import wasmUrl from "oda-tasks/oda_tasks_bg.wasm?url"` (Vite) or with a file loader (esbuild), ' +
        "then `await init(wasmUrl)`; with Vite's dev server, `optimizeDeps: { exclude: [\"oda-tasks\"] }` also works",
      { cause: e },
    );
  }
}

/**
 * The `.wasm` beside the package's files. One exception: Vite 5 and 6 serve
 * a dependency from their pre-bundle cache (`node_modules/.vite/deps/`),
 * where nothing sits beside it; there Vite's own resolver is asked for the
 * file's URL (`/@id/<specifier>?url`), the way an app's `?url` import would.
 */
async function defaultLocation(): Promise<string> {
  const here = import.meta.url;
  const cache = here.indexOf("/node_modules/.vite/deps");
  if (cache >= 0) {
    const asset = `${here.slice(0, cache)}/@id/oda-tasks/oda_tasks_bg.wasm?url`;
    try {
      const found = (await import(/* @vite-ignore */ asset)) as { default?: unknown };
      if (typeof found.default === "string") return new URL(found.default, here).href;
    } catch {
      // Not Vite's dev server after all: use the usual location.
    }
  }
  return new URL("../wasm/oda_tasks_bg.wasm", here).href;
}

/**
 * Initialises the core from the `.wasm` bytes at once (Node's entry uses this).
 *
 * @example
 * initSync(readFileSync(new URL("./oda_tasks_bg.wasm", import.meta.url)));
 */
export function initSync(bytes: WasmBytes): void {
  if (!ready) {
    glue.initSync({ module: bytes });
    ready = true;
    failure = undefined;
  }
}

/** Whether the core is loaded. */
export function isReady(): boolean {
  return ready;
}

/** Records why an entry could not load the core, for the error a later call throws. */
export function loadFailed(reason: string): void {
  if (!ready) failure = reason;
}

/** Throws the not-initialised error (or why loading failed) unless the core is loaded. */
export function assertReady(): void {
  if (!ready) throw new Error(failure ?? NOT_INITIALISED);
}
