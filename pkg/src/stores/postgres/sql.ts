// The store's SQL: its tables, the statements of each operation, and the migration files.
import { readFile, readdir } from "node:fs/promises";

/**
 * The table names (in the first schema of the connection's `search_path`).
 *
 * @example
 * import pg from "pg";
 * await new pg.Pool().query(`SELECT count(*) FROM ${POSTGRES_TABLES.chats}`);
 */
export const POSTGRES_TABLES = {
  chats: "oda_tasks_chats",
  entries: "oda_tasks_entries",
  migrations: "oda_tasks_schema_migrations",
} as const;

export const { chats: CHATS, entries: ENTRIES, migrations: MIGRATIONS } = POSTGRES_TABLES;

/** Key of the advisory lock that makes concurrent `migrate()` calls take turns. */
export const MIGRATION_LOCK = 7_102_300_451_001; // "oda-tasks migrations"; any constant works, it just must not change

// The change feed. Every store's notices go to one channel; a notice's
// payload is "<oid of the chats table> <new length> <chat id>" (a chat id is
// at most 200 characters, so far below the 8,000-byte limit), and a store
// keeps only those of its own table: stores of other schemas share the channel.
export const CHANNEL = "oda_tasks";

// Concurrency. The chat's row in oda_tasks_chats holds its length. An append
// is `UPDATE ... SET length = length + n WHERE chat_id = $1 AND length =
// $expected RETURNING length`: the UPDATE row-locks the chat, and under READ
// COMMITTED a second appender waits for that lock, then re-checks its WHERE
// against the row the first one committed (PostgreSQL's re-check of updated
// rows), finds the length changed and updates nothing: one winner, the other
// a ConflictError. The winner writes entries at seq old .. new-1 in the same
// statement, so seqs have no gap and no duplicate; the (chat_id, seq) primary
// key would refuse a duplicate even if that reasoning were wrong.
export const APPEND = appendSql(true);

/**
 * The append, with or without its notice. The notice (see {@link CHANNEL})
 * is sent inside the append's transaction: PostgreSQL delivers it at COMMIT
 * and drops it on a rollback, so a watcher hears exactly the writes that stand.
 */
export function appendSql(notify: boolean): string {
  return `
WITH bumped AS (
  UPDATE ${CHATS} SET length = length + $3
  WHERE chat_id = $1 AND ($4::bigint IS NULL OR length = $4::bigint)
  RETURNING length, tableoid
), written AS (
  INSERT INTO ${ENTRIES} (chat_id, seq, entry)
  SELECT $1, bumped.length - $3 + t.i - 1, t.e::json
  FROM bumped, unnest($2::text[]) WITH ORDINALITY AS t(e, i)
)
SELECT length::text AS length, pg_current_xact_id()::text AS xid${notify ? `, ${notice("bumped.length")}` : ""} FROM bumped`;
}

// Create-if-absent: ON CONFLICT DO NOTHING waits for a concurrent creator of
// the same id to finish and then does nothing, so exactly one creator wins.
export const CREATE = createSql(true);

/** The create, with or without its notice; answers one row when this call created the chat, none when it existed. */
export function createSql(notify: boolean): string {
  return `
WITH made AS (
  INSERT INTO ${CHATS} (chat_id, length) VALUES ($1, $3)
  ON CONFLICT (chat_id) DO NOTHING
  RETURNING chat_id, length, tableoid
), written AS (
  INSERT INTO ${ENTRIES} (chat_id, seq, entry)
  SELECT made.chat_id, t.i - 1, t.e::json
  FROM made, unnest($2::text[]) WITH ORDINALITY AS t(e, i)
)
SELECT pg_current_xact_id()::text AS xid${notify ? `, ${notice("made.length")}` : ""} FROM made`;
}

function notice(length: string): string {
  return `pg_notify('${CHANNEL}', tableoid::text || ' ' || ${length}::text || ' ' || $1) AS notice`;
}

/** The oid of the chats table the connection's `search_path` names, as notices carry it. */
export const TABLE_OID = `SELECT '${CHATS}'::regclass::oid::text AS oid`;

/**
 * The watched chats' lengths and epochs, all in one query (a chat that does
 * not exist has no row). The epoch is as READ's below: a chat deleted and
 * made again between two reads has another.
 */
export const LENGTHS = `SELECT c.chat_id, c.length::text AS length,
  (SELECT f.xmin::text FROM ${ENTRIES} f WHERE f.chat_id = c.chat_id AND f.seq = 0) AS epoch
FROM ${CHATS} c WHERE c.chat_id = ANY($1::text[])`;

export const LENGTH = `SELECT length::text AS length FROM ${CHATS} WHERE chat_id = $1`;

// One statement, so one snapshot: the length and the entries agree. `epoch`
// is the id of the transaction that wrote the chat's first entry (entries are
// never updated): a chat deleted and written again (a restore) has another.
export const READ = `
SELECT c.length::text AS length, e.seq::text AS seq, e.entry::text AS entry,
  (SELECT f.xmin::text FROM ${ENTRIES} f WHERE f.chat_id = $1 AND f.seq = 0) AS epoch
FROM ${CHATS} c LEFT JOIN ${ENTRIES} e ON e.chat_id = c.chat_id AND e.seq >= $2
WHERE c.chat_id = $1
ORDER BY e.seq`;

// Delete, in one READ COMMITTED transaction of two statements. The first
// locks the chat's row (FOR UPDATE), so it waits for an append that holds
// it and commits; an append that comes later waits for the delete, then
// finds no row (its UPDATE matches none, so it writes no entry: the append
// is store/missing-chat). The second, with a snapshot taken after the lock,
// sees every entry and removes them with the row; the foreign key from the
// entries to the chat's row refuses an entry without its chat all the same.
export const DELETE_LOCK = `SELECT 1 AS found FROM ${CHATS} WHERE chat_id = $1 FOR UPDATE`;

export const DELETE = deleteSql(true);

/** The delete of the chat's entries and row, with or without its notice (length 0); one row when it removed the chat. */
export function deleteSql(notify: boolean): string {
  return `
WITH entries_gone AS (
  DELETE FROM ${ENTRIES} WHERE chat_id = $1
), gone AS (
  DELETE FROM ${CHATS} WHERE chat_id = $1
  RETURNING tableoid
)
SELECT pg_current_xact_id()::text AS xid${notify ? `, ${notice("0")}` : ""} FROM gone`;
}

/**
 * A page of the listing (schema version 2): up to `count` chats of the ids
 * in [`from`, `below`) (no bound for "" and null) made before `before` (null:
 * from the newest), newest first, each with the text of its entry 0. With a
 * range, the primary key's index serves it (chat_id is COLLATE "C", so a
 * range of it is a range of the index) and only the prefix's chats are
 * sorted; without one, the index on `created`, read backwards, gives the page
 * alone. Only the page's chats are joined to their entry 0. Each variant is
 * its own text, so a plan never has to serve another's.
 */
export function listQuery(from: string, below: string | null, before: string | null, count: number): { text: string; values: unknown[] } {
  const where: string[] = [];
  const values: unknown[] = [];
  const param = (value: unknown): string => `$${values.push(value)}`;
  if (from !== "") where.push(`c.chat_id >= ${param(from)}`);
  if (below !== null) where.push(`c.chat_id < ${param(below)}`);
  if (before !== null) where.push(`c.created < ${param(before)}::bigint`);
  // The page's chats first, then their entry 0: only the page's entries are read.
  const text = `SELECT p.chat_id, p.created::text AS created, e.entry::text AS first
FROM (
  SELECT c.chat_id, c.created FROM ${CHATS} c
  ${where.length === 0 ? "" : `WHERE ${where.join(" AND ")}\n  `}ORDER BY c.created DESC
  LIMIT ${param(count)}
) p LEFT JOIN ${ENTRIES} e ON e.chat_id = p.chat_id AND e.seq = 0
ORDER BY p.created DESC`;
  return { text, values };
}

export interface MigrationFile {
  version: number;
  name: string;
  sql: string;
}

/** The package's SQL files (`sql/NNN_name.sql`), oldest first. */
export async function migrationFiles(): Promise<MigrationFile[]> {
  const dir = new URL("../../../sql/", import.meta.url);
  const names = (await readdir(dir)).filter((n) => /^\d{3}_[a-z0-9_]+\.sql$/.test(n)).sort();
  return Promise.all(
    names.map(async (name) => ({ version: Number(name.slice(0, 3)), name, sql: await readFile(new URL(name, dir), "utf8") })),
  );
}
