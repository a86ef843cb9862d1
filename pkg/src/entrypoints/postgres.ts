// `oda-tasks/postgres`: the PostgreSQL store over an app's `pg.Pool`.
export * from "../stores/postgres/store.js";
