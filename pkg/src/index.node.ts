// Node's entry: the same API as `index.ts`, with the core initialised on
// import (synchronously, from the `.wasm` beside the glue), so plain
// `import { todoWrite } from "oda-tasks"` works with no flags and no init.
import { readFileSync } from "node:fs";
import { initSync } from "./load.js";

export * from "./index.js";

initSync(readFileSync(new URL("../wasm/oda_tasks_bg.wasm", import.meta.url)));
