// `oda-tasks/browser`: the IndexedDB store, for browsers (and tabs sharing a chat).
export { IndexedDbStore, type IndexedDbStoreOptions, type LockRequester } from "../stores/indexeddb.js";
