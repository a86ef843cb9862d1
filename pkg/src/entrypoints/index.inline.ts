// The entry with the core inlined (`oda-tasks/inline`, the `edge-light`
// condition of Next.js Edge routes, and the default for runtimes and bundles
// with no other condition, such as esbuild --platform=neutral): initialises on
// import from the bytes in the JS, so it needs no asset, no URL and no `init()`.
import { loadInlined } from "./load.js";
import wasmBase64 from "./wasm-inline.js";

export * from "./index.js";

loadInlined(wasmBase64);
