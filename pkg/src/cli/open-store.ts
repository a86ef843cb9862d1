// TEMPORARY (replaced at merge by the mcp branch's openStore)
import { JsonlStore } from "../stores/jsonl/store.js";
import type { Store } from "../stores/store.js";
export async function openStore(spec: string, _command: string): Promise<{ store: Store; close(): Promise<void> }> {
  return { store: new JsonlStore(spec), close: async () => undefined };
}
