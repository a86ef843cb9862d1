-- oda-tasks PostgreSQL store, schema version 2: the order in which chats were
-- made, for listing them newest first a page at a time (PostgresStore.list).
-- Every other operation works with or without it, so servers of an older
-- version keep working on a migrated database: a chat they make gets its
-- number from the column's default.

-- Each chat's place in the order of creation: unique, larger for a chat made
-- later (a chat deleted and made again is a new row: it lists as the newest).
CREATE SEQUENCE oda_tasks_chats_created_seq AS bigint;

ALTER TABLE oda_tasks_chats ADD COLUMN created bigint;

-- The chats already there, numbered in a stable order: by the age of the
-- transaction that wrote each chat's first entry (entries are never updated,
-- so that is the transaction that made the chat), oldest first; chats of no
-- entries before them; ties by id.
UPDATE oda_tasks_chats c SET created = o.n
FROM (
  SELECT c.chat_id, row_number() OVER (ORDER BY age(f.xmin) DESC NULLS FIRST, c.chat_id) AS n
  FROM oda_tasks_chats c LEFT JOIN oda_tasks_entries f ON f.chat_id = c.chat_id AND f.seq = 0
) o
WHERE c.chat_id = o.chat_id;

SELECT setval('oda_tasks_chats_created_seq', coalesce(max(created), 0) + 1, false) FROM oda_tasks_chats;

ALTER TABLE oda_tasks_chats
  ALTER COLUMN created SET DEFAULT nextval('oda_tasks_chats_created_seq'),
  ALTER COLUMN created SET NOT NULL;

ALTER SEQUENCE oda_tasks_chats_created_seq OWNED BY oda_tasks_chats.created;

-- Every chat newest first: this index read backwards, a page at a time. One
-- prefix's chats (an owner's): the primary key's range of chat_id (COLLATE
-- "C", byte for byte), then only those chats sorted.
CREATE UNIQUE INDEX oda_tasks_chats_created ON oda_tasks_chats (created);
