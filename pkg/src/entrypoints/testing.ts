// `oda-tasks/testing`: the Store contract suite, for an app's own store.
export { storeContract, expectConflict, HOSTILE_CHAT_IDS, type StoreContractOptions } from "../testing/contract.js";
