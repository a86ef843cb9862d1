// `oda-tasks/sqlite`: the SQLite store over the app's own driver.
export { SqliteStore, type SqliteStoreOptions } from "../stores/sqlite/store.js";
export { SQLITE_TABLES } from "../stores/sqlite/sql.js";
export type {
  D1Like,
  D1PreparedLike,
  D1StatementLike,
  DurableObjectCursorLike,
  DurableObjectSqlLike,
  DurableObjectStorageLike,
  SqliteConnection,
  SqliteDatabase,
  SqlitePrepared,
} from "../stores/sqlite/drivers.js";
