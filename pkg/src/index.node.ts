// Node's entry: the same API as `index.ts`, with the core initialised on
// import (synchronously, from the `.wasm` beside the glue), so plain
// `import { todoWrite } from "oda-tasks"` works with no flags and no init.
// Bundled for Node, the `.wasm` may not be beside the bundle: then `init()`
// loads it from a path, a `file:` URL or the bytes.
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { init as initWeb, initSync, isReady, loadFailed, type WasmSource } from "./load.js";

export * from "./index.js";

/** Where the package keeps its `.wasm`, or `null` where the bundle has no location (CommonJS output). */
const wasmFile: URL | null = (() => {
  try {
    return new URL("../wasm/oda_tasks_bg.wasm", import.meta.url);
  } catch {
    return null;
  }
})();

try {
  if (wasmFile === null) throw new Error("this bundle has no import.meta.url");
  initSync(readFileSync(wasmFile));
} catch (e) {
  loadFailed(
    `oda-tasks: the WebAssembly core could not be loaded on import from ${wasmFile?.href ?? "the package"} ` +
      `(${e instanceof Error ? e.message : String(e)}); a bundle must load it once with \`await init(source)\`, ` +
      "source being the .wasm's path, file: URL or bytes",
  );
}

/**
 * Loads the WebAssembly core, which Node's entry already did on import
 * unless a bundler moved the package's files. `source` may be a file path, a
 * `file:` URL, the bytes or a module; with none, the package's own `.wasm`.
 *
 * @example
 * import { init } from "oda-tasks";
 * import wasm from "oda-tasks/oda_tasks_bg.wasm"; // esbuild --loader:.wasm=file
 * await init(new URL(wasm, import.meta.url));
 */
export async function init(source?: WasmSource | Promise<WasmSource>): Promise<void> {
  if (isReady()) return;
  const s = await source;
  const path = s === undefined ? wasmFile : filePath(s);
  if (path === null) throw new Error("oda-tasks: this bundle has no import.meta.url; pass the .wasm's path to init()");
  if (path !== undefined) {
    initSync(await readFile(path));
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
