// Node's entry (also Deno's and Bun's): the same API as `index.ts`, with the
// core initialised on import from the .wasm inlined in the package's JS, so
// plain `import { todoWrite } from "oda-tasks"` works with no flags and no
// init, needs no file-read permission (Deno) and survives any bundler (esbuild
// for Node, ESM or CommonJS, copies no asset and needs none).
import { fileURLToPath } from "node:url";
import { init as initWeb, isReady, loadBytes, loadInlined, type WasmSource } from "./load.js";
import wasmBase64 from "./wasm-inline.js";

export * from "./index.js";

loadInlined(wasmBase64);

/**
 * Loads the WebAssembly core, which Node's entry already did on import
 * (so this resolves at once). Kept for code shared with browsers: `source`
 * may be a file path, a `file:` URL, the bytes or a module.
 *
 * @example
 * import { init } from "oda-tasks";
 * await init(); // a no-op on Node, Deno and Bun
 */
export async function init(source?: WasmSource | Promise<WasmSource>): Promise<void> {
  if (isReady()) return;
  const s = await source;
  const path = s === undefined ? undefined : filePath(s);
  if (path !== undefined) {
    let bytes: Uint8Array;
    try {
      // Imported here: on Node 22 and 24, node:fs/promises loads ten more of Node's own
      // modules (readline's among them), a cost every cold start would pay (docs/performance.md).
      const { readFile } = await import("node:fs/promises");
      bytes = await readFile(path);
    } catch (e) {
      throw new Error(
        `oda-tasks: init() could not read the .wasm at ${String(path)} (${e instanceof Error ? e.message : String(e)}); no init() is needed on Node, which loads the core on import`,
        { cause: e },
      );
    }
    loadBytes(bytes, `the .wasm at ${String(path)}`);
    return;
  }
  await initWeb(s);
}

/** The file a source names, or `undefined` when it is not a file (bytes, a module, an http URL). */
function filePath(source: WasmSource): string | URL | undefined {
  if (typeof source === "string") {
    if (source.startsWith("file:")) return fileURLToPath(source);
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(source) ? undefined : source;
  }
  if (source instanceof URL) return source.protocol === "file:" ? source : undefined;
  return undefined;
}
