// Whether the WebAssembly core is loaded, and why not when an entry tried and
// failed. The loaders (entrypoints/load.ts) set it; every core export checks it
// first, so a call before loading says what to do instead of failing in the glue.

/**
 * The message thrown when the core is called in a browser before `await init()`.
 *
 * @example
 * try { todoWrite(log, input); } catch (e) { if (e instanceof Error && e.message.startsWith(NOT_INITIALISED)) await init(); }
 */
export const NOT_INITIALISED =
  "oda-tasks: the WebAssembly core is not initialised; call `await init()` once before using it " +
  '(Node, Deno, Bun, "oda-tasks/inline" and the `workerd` condition initialise it on import)';

/** Cloudflare Workers compile no WebAssembly from bytes: only a `.wasm` imported as a module loads there. */
export const EDGE_FIX =
  'On Cloudflare Workers import "oda-tasks" with the `workerd` condition, which loads the core on import ' +
  "(wrangler does; esbuild: --conditions=workerd --loader:.wasm=copy), or pass init() the .wasm imported as a module";

let ready = false;
/** Why the core is not loaded when the entry tried and failed (Node, bundled without the `.wasm`). */
let failure: string | undefined;

/** Whether this is Cloudflare's workerd, which says so in `navigator.userAgent`. */
export function onWorkerd(): boolean {
  return (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent === "Cloudflare-Workers";
}

/** Whether the core is loaded. */
export function isReady(): boolean {
  return ready;
}

/** Records that a loader has instantiated the core. */
export function markReady(): void {
  ready = true;
  failure = undefined;
}

/** Records why an entry could not load the core, for the error a later call throws. */
export function loadFailed(reason: string): void {
  if (!ready) failure = reason;
}

/** Throws the not-initialised error (or why loading failed) unless the core is loaded. */
export function assertReady(): void {
  if (!ready) throw new Error(failure ?? (onWorkerd() ? `${NOT_INITIALISED}. ${EDGE_FIX}` : NOT_INITIALISED));
}
