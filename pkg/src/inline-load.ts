// Loads the core from the .wasm inlined in the package's JS (dist/wasm-inline.js):
// no file to find, no URL, no permission, so bundles that copy no assets work.
import wasmBase64 from "./wasm-inline.js";
import { initSync, loadFailed } from "./load.js";

/**
 * Compiles and instantiates the inlined core at once; on a runtime that
 * compiles no WebAssembly from bytes (Cloudflare Workers) it records an
 * `oda-tasks:` reason naming the fix, which the first call throws.
 *
 * @example
 * loadInlined(); // then todoWrite(...) works
 */
export function loadInlined(): void {
  try {
    const text = atob(wasmBase64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    initSync(bytes);
  } catch (e) {
    loadFailed(
      `oda-tasks: the WebAssembly core could not be compiled from the inlined bytes (${e instanceof Error ? e.message : String(e)}); ` +
        "on Cloudflare Workers import the package with the `workerd` condition (wrangler does; esbuild: --conditions=workerd), " +
        "which imports the .wasm as a module",
    );
  }
}
