// `--store <dir|url>` of the CLI's commands as a store: a folder of JSONL
// logs, a PostgreSQL connection string, or a SQLite file. Each store's code
// (and its driver) loads only when named; a bad spec is one line, no stack.
import { mkdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import type { SqliteDatabase } from "../stores/sqlite/drivers.js";
import type { Store } from "../stores/store.js";

/**
 * A store the CLI opened, and how to let it go (end a pool, close a file).
 *
 * @example
 * const { store, close } = await openStore("./chats");
 */
export interface OpenedStore {
  store: Store;
  close(): Promise<void>;
}

/**
 * A `--store` the CLI cannot open: its message is the one line printed.
 *
 * @example
 * try { await openStore("mysql://db"); } catch (e) { if (e instanceof StoreSpecError) console.error(e.message); }
 */
export class StoreSpecError extends Error {
  override name = "StoreSpecError";
}

/**
 * Opens `spec`: `postgres://` or `postgresql://` → `PostgresStore` over a
 * `pg` pool of its own (tables migrated); a path ending `.db`, `.sqlite` or
 * `.sqlite3` → `SqliteStore` over `node:sqlite` (Node ≥ 22.13) or
 * better-sqlite3 (tables migrated); anything else → `JsonlStore` on that
 * folder, created when missing. Rejects with a {@link StoreSpecError}.
 * `onWarning` hears what a store says while it runs (PostgreSQL's change
 * feed falling back to polling); by default it goes to `console.warn`.
 *
 * @example
 * const { store, close } = await openStore(process.env.DATABASE_URL ?? "./chats");
 */
export async function openStore(spec: string, onWarning?: (error: Error) => void): Promise<OpenedStore> {
  if (spec.trim() === "") throw new StoreSpecError("--store needs a folder, a .db/.sqlite file or a postgres:// URL");
  if (/^postgres(?:ql)?:\/\//i.test(spec)) return openPostgres(spec, onWarning);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) {
    throw new StoreSpecError(`--store ${scheme(spec)}://… is no store this CLI opens (a folder, a .db/.sqlite file or a postgres:// URL)`);
  }
  if (/\.(?:db|sqlite3?)$/i.test(spec)) return openSqlite(spec);
  return openJsonl(spec);
}

async function openJsonl(dir: string): Promise<OpenedStore> {
  const kind = statSync(dir, { throwIfNoEntry: false });
  if (kind !== undefined && !kind.isDirectory()) throw new StoreSpecError(`--store ${dir} is a file, not a folder of chats`);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new StoreSpecError(`--store ${dir}: cannot create the folder (${(e as NodeJS.ErrnoException).code ?? "failed"})`);
  }
  const { JsonlStore } = await import("../stores/jsonl/store.js");
  return { store: new JsonlStore(dir), close: async () => undefined };
}

async function openPostgres(url: string, onWarning: ((error: Error) => void) | undefined): Promise<OpenedStore> {
  const require = createRequire(import.meta.url);
  try {
    require.resolve("pg");
  } catch {
    throw new StoreSpecError("--store postgres://… needs the `pg` package: npm install pg");
  }
  const { PostgresStore } = await import("../stores/postgres/store.js");
  const store = new PostgresStore(url, onWarning === undefined ? {} : { onError: onWarning });
  try {
    await store.migrate();
  } catch (e) {
    await store.end().catch(() => undefined);
    throw new StoreSpecError(`--store ${redacted(url)}: cannot open the database (${codeOf(e)})`);
  }
  return { store, close: () => store.end() };
}

async function openSqlite(file: string): Promise<OpenedStore> {
  const db = await sqliteDatabase(file);
  const { SqliteStore } = await import("../stores/sqlite/store.js");
  const store = new SqliteStore(db);
  try {
    await store.migrate();
  } catch (e) {
    db.close();
    throw new StoreSpecError(`--store ${file}: cannot open the database (${codeOf(e)})`);
  }
  return { store, close: async () => db.close() };
}

/** A SQLite connection to `file`: node:sqlite where Node has it, else better-sqlite3 where installed. */
async function sqliteDatabase(file: string): Promise<SqliteDatabase & { close(): void }> {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  type Connection = new (file: string) => SqliteDatabase & { close(): void };
  try {
    if (major > 22 || (major === 22 && minor >= 13)) {
      const builtin = "node:sqlite"; // Node 20's types know no node:sqlite
      const { DatabaseSync } = (await import(builtin)) as { DatabaseSync: Connection };
      return new DatabaseSync(file);
    }
    const require = createRequire(import.meta.url);
    let Database: Connection;
    try {
      Database = require("better-sqlite3");
    } catch {
      throw new StoreSpecError(`--store ${file} needs Node 22.13+ (node:sqlite) or the better-sqlite3 package`);
    }
    return new Database(file);
  } catch (e) {
    if (e instanceof StoreSpecError) throw e;
    throw new StoreSpecError(`--store ${file}: cannot open the database (${codeOf(e)})`);
  }
}

function scheme(spec: string): string {
  return spec.slice(0, spec.indexOf(":"));
}

/** A connection string without its password, for an error line. */
function redacted(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@]*@/i, "$1:***@");
}

function codeOf(e: unknown): string {
  const code = typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : "failed";
}

/**
 * {@link openStore} for a command: a bad `--store` goes to `fail` (one line, no stack).
 *
 * @example
 * const { store, close } = await openStoreOr("./chats", (message) => { console.error(message); process.exit(2); });
 */
export async function openStoreOr(
  spec: string,
  fail: (message: string) => never,
  onWarning?: (error: Error) => void,
): Promise<OpenedStore> {
  try {
    return await openStore(spec, onWarning);
  } catch (e) {
    if (e instanceof StoreSpecError) fail(e.message);
    throw e;
  }
}
