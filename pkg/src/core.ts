// The core, as the package exports it: the wasm-bindgen glue's functions,
// guarded so that a call before the module is initialised says what to do
// instead of failing inside the glue.
import * as glue from "../wasm/oda_tasks.js";

export type * from "../wasm/oda_tasks.js";

/** Thrown when the core is called in a browser before `await init()`. */
export const NOT_INITIALISED =
  "oda-tasks: the WebAssembly core is not initialised; call `await init()` once before using it (Node initialises it on import)";

let ready = false;

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
let loading: Promise<unknown> | undefined;

/** Initialises the core from the `.wasm` bytes at once (Node's entry uses this). */
export function initSync(bytes: BufferSource | WebAssembly.Module): void {
  if (!ready) {
    glue.initSync({ module: bytes });
    ready = true;
  }
}

function guarded<F extends (...args: never[]) => unknown>(f: F): F {
  return ((...args: Parameters<F>) => {
    if (!ready) throw new Error(NOT_INITIALISED);
    return f(...args);
  }) as F;
}

export const todoWrite = guarded(glue.todoWrite);
export const replayTodos = guarded(glue.replayTodos);
export const suggestTask = guarded(glue.suggestTask);
export const replaySuggestions = guarded(glue.replaySuggestions);
export const settleSuggestion = guarded(glue.settleSuggestion);
export const planStart = guarded(glue.planStart);
export const startedChat = guarded(glue.startedChat);
export const clampPermission = guarded(glue.clampPermission);
export const checkGoal = guarded(glue.checkGoal);
