// Type tests for `oda-tasks/postgres`: a real `pg.Pool` is what it takes.
import pg from "pg";
import type { Store, StoreErrorCode } from "oda-tasks";
import { POSTGRES_TABLES, PostgresStore } from "oda-tasks/postgres";

const pool = new pg.Pool({ connectionString: "postgres://localhost/app", max: 4 });
const store: Store = new PostgresStore(pool);
const owned = new PostgresStore("postgres://localhost/app", { attempts: 3 });
const applied: number[] = await owned.migrate();
void applied;
const tail = await store.readFrom?.("chat-1", 2);
void tail;
await owned.end();
const table: "oda_tasks_entries" = POSTGRES_TABLES.entries;
void table;
const codes: StoreErrorCode[] = ["store/unavailable", "store/outcome-unknown", "store/not-migrated", "store/database", "store/corrupt"];
void codes;

// @ts-expect-error a pool or a connection string, nothing else
new PostgresStore({ host: "localhost" });
// @ts-expect-error attempts is a number
new PostgresStore(pool, { attempts: "3" });

// The app's own clients, as their own typings declare them.
import postgres from "postgres";
import { Pool as NeonPool } from "@neondatabase/serverless";
const sql = postgres("postgres://localhost/app");
const overPostgresJs: Store = new PostgresStore(sql, { watchPollMs: 1000, onError: (e: Error) => console.error(e.message), notify: true });
// Drizzle's db (its typings do not pass this project's strict lib check): its $client shape.
const overDrizzle: Store = new PostgresStore({ $client: sql });
const overDrizzlePg: Store = new PostgresStore({ $client: pool });
const overNeon: Store = new PostgresStore(new NeonPool({ connectionString: "postgres://localhost/app" }));
void [overPostgresJs, overDrizzle, overDrizzlePg, overNeon];
const stop: () => void = store.watch?.("chat-1", (length: number) => void length) ?? (() => undefined);
stop();
// @ts-expect-error onError is a function
new PostgresStore(sql, { onError: "warn" });
