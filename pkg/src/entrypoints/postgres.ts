// `oda-tasks/postgres`: the PostgreSQL store over the app's own client (a `pg.Pool`, a postgres.js `Sql`, Drizzle's `db`) or a URL.
export * from "../stores/postgres/store.js";
