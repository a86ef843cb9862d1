// Loading the WebAssembly core: `init()` for browsers and bundlers, `initSync`
// for Node's entry. Every core export checks `isReady()` first, so a call
// before loading says what to do instead of failing inside the glue.
import * as glue from "../wasm/oda_tasks.js";

/** Thrown when the core is called in a browser before `await init()`. */
export const NOT_INITIALISED =
  "oda-tasks: the WebAssembly core is not initialised; call `await init()` once before using it (Node initialises it on import)";

let ready = false;
let loading: Promise<unknown> | undefined;

/**
 * Loads the WebAssembly core. Node does this on import; in a browser call it
 * once before anything else. Repeated calls share the first load.
 *
 * @example
 * import { init, todoWrite } from "oda-tasks";
 * await init();
 */
export async function init(module?: glue.InitInput | Promise<glue.InitInput>): Promise<void> {
  if (!ready) {
    await (loading ??= glue.default(module === undefined ? undefined : { module_or_path: module }));
    ready = true;
  }
}

/** Initialises the core from the `.wasm` bytes at once (Node's entry uses this). */
export function initSync(bytes: BufferSource | WebAssembly.Module): void {
  if (!ready) {
    glue.initSync({ module: bytes });
    ready = true;
  }
}

/** Throws the not-initialised error unless the core is loaded. */
export function assertReady(): void {
  if (!ready) throw new Error(NOT_INITIALISED);
}
