// The entry for edge runtimes that import a `.wasm` as a compiled module and
// compile no WebAssembly from bytes (the `workerd`, `worker` and `edge-light`
// conditions: Cloudflare Workers through wrangler or esbuild): initialises on
// import, so no `init()` is needed.
import wasmModule from "../../wasm/oda_tasks_bg.wasm";
import { initSync, loadFailed } from "./load.js";

export * from "./index.js";

try {
  initSync(wasmModule);
} catch (e) {
  loadFailed(
    `oda-tasks: the WebAssembly core could not be instantiated from the imported .wasm module (${e instanceof Error ? e.message : String(e)}); ` +
      "the bundler must import .wasm files as modules (wrangler does; esbuild: --loader:.wasm=copy, listed as a wasm module in workerd's config)",
  );
}
