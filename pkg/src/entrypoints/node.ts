// `oda-tasks/node`: Node's file store. Importing Node's main entry first loads
// the core, which the store's JSONL scanner runs on.
import "./index.node.js";

export { JsonlStore, type JsonlStoreOptions } from "../stores/jsonl/store.js";
