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
 * byte for byte, so two different ids never name one chat. Version 2: the
 * order of creation, for `list` (see {@link CREATED}).
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
  {
    version: 2,
    name: "002_chat_order",
    statements: [
      `ALTER TABLE ${CHATS} ADD COLUMN created INTEGER`,
      // The chats already there, in the order of their ids (the file kept no time of creation).
      `UPDATE ${CHATS} SET created = o.n
FROM (SELECT chat_id, row_number() OVER (ORDER BY chat_id) AS n FROM ${CHATS}) AS o
WHERE ${CHATS}.chat_id = o.chat_id`,
      `CREATE UNIQUE INDEX ${CHATS}_by_created ON ${CHATS} (created)`,
      `CREATE TRIGGER ${CHATS}_created AFTER INSERT ON ${CHATS} FOR EACH ROW WHEN NEW.created IS NULL
BEGIN
  UPDATE ${CHATS} SET created = (SELECT coalesce(max(created), 0) + 1 FROM ${CHATS}) WHERE chat_id = NEW.chat_id;
END`,
    ],
  },
];

// The order of creation (version 2). Each chat's row holds `created`, one
// more than the largest in the table when the row went in, set by a trigger
// inside the inserting transaction (so also for a chat made by a process
// still running an older version of the package, which does not name the
// column). Writes to the file take turns (BEGIN IMMEDIATE, a D1 batch, a
// Durable Object), so no two rows get the same number; a unique index holds
// them, and serves the listing of every chat newest first, a page at a time.
// A chat deleted and made again gets a new number: it lists as the newest.
// Only `list` reads it: every other operation also works on a database of
// version 1 (a deployment may run the new version before it migrates).
const CREATED = "created";

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
    { sql: `SELECT length, changes() AS changed, epoch FROM ${CHATS} WHERE chat_id = ?`, params: [chatId], rows: true },
  ];
}

// Delete: the entries, then the chat's row, in one transaction (a file's
// write lock from BEGIN IMMEDIATE, a D1 batch, a Durable Object's
// transactionSync), so no reader sees one without the other, and an append
// runs wholly before it (its entries go with the chat) or wholly after (it
// finds no row: its INSERT … SELECT writes no entry, and the append is
// store/missing-chat). The last statement's changes() says whether a chat was there.

/** The statements of a delete of chat `chatId`; the last answers `deleted` (1 or 0). */
export function deleteStatements(chatId: string): Statement[] {
  return [
    { sql: `DELETE FROM ${ENTRIES} WHERE chat_id = ?`, params: [chatId], rows: false },
    { sql: `DELETE FROM ${CHATS} WHERE chat_id = ?`, params: [chatId], rows: false },
    { sql: "SELECT changes() AS deleted", params: [], rows: true },
  ];
}

/**
 * Up to `count` chats of the ids in [`from`, `below`) (no bound for "" and
 * null) made before `before` (null: from the newest), newest first, each
 * with the text of its entry 0. With a range, the chats' primary key serves
 * it (a range of chat_id) and only the prefix's chats are sorted; without,
 * the index on `created`, read backwards, gives the page alone (SQLite's
 * planner picks; store-sqlite.test.mjs checks its plans). Only the page's
 * chats are joined to their entry 0.
 */
export function listStatement(from: string, below: string | null, before: number | null, count: number): Statement {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (from !== "") {
    where.push("c.chat_id >= ?");
    params.push(from);
  }
  if (below !== null) {
    where.push("c.chat_id < ?");
    params.push(below);
  }
  if (before !== null) {
    where.push(`c.${CREATED} < ?`);
    params.push(before);
  }
  return {
    // The page's chats first, then their entry 0: only the page's entries are read.
    sql: `SELECT p.chat_id AS chat_id, p.created AS created, e.entry AS first
FROM (
  SELECT c.chat_id, c.${CREATED} AS created FROM ${CHATS} c
  ${where.length === 0 ? "" : `WHERE ${where.join(" AND ")}\n  `}ORDER BY c.${CREATED} DESC
  LIMIT ?
) p LEFT JOIN ${ENTRIES} e ON e.chat_id = p.chat_id AND e.seq = 0
ORDER BY p.created DESC`,
    params: [...params, count],
    rows: true,
  };
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

/** The chat's length and epoch, no row when it does not exist. */
export function lengthOf(chatId: string): Statement {
  return { sql: `SELECT length, epoch FROM ${CHATS} WHERE chat_id = ?`, params: [chatId], rows: true };
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

/** The lengths of the chats `chatIds` (a JSON array of ids) that exist: rows of chat_id, length and epoch. */
export function lengthsOf(chatIds: string): Statement {
  return {
    sql: `SELECT chat_id, length, epoch FROM ${CHATS} WHERE chat_id IN (SELECT value FROM json_each(?))`,
    params: [chatIds],
    rows: true,
  };
}
