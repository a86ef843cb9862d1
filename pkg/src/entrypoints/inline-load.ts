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
