// The entry with the core inlined (`oda-tasks/inline`, and the default for
// runtimes and bundles with no other condition, such as esbuild
// --platform=neutral): initialises on import from the bytes in the JS, so it
// needs no asset, no URL and no `init()`.
import { loadInlined } from "./inline-load.js";

export * from "./index.js";

loadInlined();
