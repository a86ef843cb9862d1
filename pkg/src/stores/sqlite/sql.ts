// Every SQL text of the SQLite store, once: the drivers run these same
// statements (a file database in a BEGIN IMMEDIATE transaction, D1 as one
// batch, a Durable Object in transactionSync).

/**
 * The table names of the SQLite store (the same as PostgreSQL's).
 *
 * @example
 * db.prepare(`SELECT count(*) AS n FROM ${SQLITE_TABLES.chats}`).all(); // [{ n: 3 }]
 */
export const SQLITE_TABLES = {
  chats: "oda_tasks_chats",
  entries: "oda_tasks_entries",
  migrations: "oda_tasks_schema_migrations",
} as const;

const { chats: CHATS, entries: ENTRIES, migrations: MIGRATIONS } = SQLITE_TABLES;

/** One statement and its values; `rows` when its rows are wanted (else its count of changes). */
export interface Statement {
  sql: string;
  params: (string | number | null)[];
  rows: boolean;
}

/** A schema version: its statements, run in order in one transaction with its record in oda_tasks_schema_migrations. */
export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

/**
 * The schema's versions, oldest first. Version 1: one row per chat (its
 * length and epoch, the id of this incarnation of the chat, so a warm
 * reader notices a chat deleted and made again) and one row per entry, its
 * JSON text kept as TEXT exactly as written. BINARY collation: ids compare
 * byte for byte, so two different ids never name one chat.
 */
export const MIGRATIONS_SQL: readonly Migration[] = [
  {
    version: 1,
    name: "001_init",
    statements: [
      `CREATE TABLE ${CHATS} (
  chat_id TEXT NOT NULL PRIMARY KEY,
  length INTEGER NOT NULL CHECK (length >= 0),
  epoch TEXT NOT NULL
) WITHOUT ROWID`,
      `CREATE TABLE ${ENTRIES} (
  chat_id TEXT NOT NULL,
  seq INTEGER NOT NULL CHECK (seq >= 0),
  entry TEXT NOT NULL,
  PRIMARY KEY (chat_id, seq)
) WITHOUT ROWID`,
    ],
  },
];

/** The migrations' own record: made first, outside any version. */
export const CREATE_MIGRATIONS = `CREATE TABLE IF NOT EXISTS ${MIGRATIONS} (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`;

/** The versions applied. */
export const MIGRATED: Statement = { sql: `SELECT version FROM ${MIGRATIONS} ORDER BY version`, params: [], rows: true };

/** Records a version (its primary key refuses a second record: a concurrent migrate rolls back). */
export function recordMigration(migration: Migration, at: string): Statement {
  return {
    sql: `INSERT INTO ${MIGRATIONS} (version, name, applied_at) VALUES (?, ?, ?)`,
    params: [migration.version, migration.name, at],
    rows: false,
  };
}

// The conditional append, as three statements of one transaction. The
// entries go in first, at seq length .. length+n-1, only where the chat's
// row still has the expected length; then the length moves, under the same
// condition, and its count of changes (1 or 0) says whether this append won.
// Inside the transaction nothing else writes (a file database holds its
// write lock from BEGIN IMMEDIATE; D1 and a Durable Object run one at a
// time), so both statements see the same row. The entries' texts travel as
// one JSON array of strings: json_each gives each text back exactly.

/** The statements of an append of `texts` (a JSON array of entry texts) with `expected` null for an unconditional one. */
export function appendStatements(chatId: string, texts: string, count: number, expected: number | null): Statement[] {
  return [
    {
      sql: `INSERT INTO ${ENTRIES} (chat_id, seq, entry)
SELECT c.chat_id, c.length + t.key, t.value FROM ${CHATS} c, json_each(?) t
WHERE c.chat_id = ? AND (? IS NULL OR c.length = ?)`,
      params: [texts, chatId, expected, expected],
      rows: false,
    },
    {
      sql: `UPDATE ${CHATS} SET length = length + ? WHERE chat_id = ? AND (? IS NULL OR length = ?)`,
      params: [count, chatId, expected, expected],
      rows: false,
    },
    // changes(): rows the UPDATE just changed, on this connection (1: this append won).
    { sql: `SELECT length, changes() AS changed FROM ${CHATS} WHERE chat_id = ?`, params: [chatId], rows: true },
  ];
}

// Create-if-absent: the chat's row goes in unless one is there; the entries
// follow only when the row holds this call's epoch (a fresh random id), that
// is, when this call made it; the last statement tells which epoch is there.

/** The statements of a create of `texts` (a JSON array of entry texts) under a new `epoch`. */
export function createStatements(chatId: string, texts: string, count: number, epoch: string): Statement[] {
  return [
    {
      sql: `INSERT INTO ${CHATS} (chat_id, length, epoch) VALUES (?, ?, ?) ON CONFLICT (chat_id) DO NOTHING`,
      params: [chatId, count, epoch],
      rows: false,
    },
    {
      sql: `INSERT INTO ${ENTRIES} (chat_id, seq, entry)
SELECT ?, t.key, t.value FROM json_each(?) t
WHERE (SELECT epoch FROM ${CHATS} WHERE chat_id = ?) = ?`,
      params: [chatId, texts, chatId, epoch],
      rows: false,
    },
    { sql: `SELECT epoch FROM ${CHATS} WHERE chat_id = ?`, params: [chatId], rows: true },
  ];
}

/** The chat's length, no row when it does not exist. */
export function lengthOf(chatId: string): Statement {
  return { sql: `SELECT length FROM ${CHATS} WHERE chat_id = ?`, params: [chatId], rows: true };
}

/**
 * The chat's length, epoch and entries from `from` on, in one statement (so
 * one snapshot: the length and the entries agree); no row when the chat does
 * not exist, one row with a null seq when it has no entries from `from`.
 */
export function readStatement(chatId: string, from: number): Statement {
  return {
    sql: `SELECT c.length AS length, c.epoch AS epoch, e.seq AS seq, e.entry AS entry
FROM ${CHATS} c LEFT JOIN ${ENTRIES} e ON e.chat_id = c.chat_id AND e.seq >= ?
WHERE c.chat_id = ?
ORDER BY e.seq`,
    params: [from, chatId],
    rows: true,
  };
}

// The change feed's reads (watch.ts): whether another connection committed,
// and the watched chats' lengths in one statement.

/** Changes when another connection commits to the file (the same connection's own commits leave it). */
export const DATA_VERSION: Statement = { sql: "PRAGMA data_version", params: [], rows: true };

/** The main database's file ("" for one in memory): connections to one file in one process share a feed. */
export const DATABASE_FILE: Statement = { sql: "SELECT file FROM pragma_database_list WHERE name = 'main'", params: [], rows: true };

/** The lengths of the chats `chatIds` (a JSON array of ids) that exist: rows of chat_id and length. */
export function lengthsOf(chatIds: string): Statement {
  return {
    sql: `SELECT chat_id, length FROM ${CHATS} WHERE chat_id IN (SELECT value FROM json_each(?))`,
    params: [chatIds],
    rows: true,
  };
}
