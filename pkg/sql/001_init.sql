-- oda-tasks PostgreSQL store, schema version 1: one row per chat, one row per
-- log entry. chat_id leads every key, so a sharded PostgreSQL (Citus,
-- distributed by chat_id) can run the same schema. COLLATE "C": ids compare
-- byte for byte, so two different ids never name one chat.

-- The chat and its length: the row that an append locks (UPDATE ... WHERE
-- length = expected) before it writes entries at seq length .. length+n-1.
CREATE TABLE oda_tasks_chats (
  chat_id text COLLATE "C" NOT NULL PRIMARY KEY,
  length bigint NOT NULL CHECK (length >= 0)
);

-- The entries, oldest first by seq (0-based). `json`, not `jsonb`: the text is
-- kept exactly as written (jsonb reorders keys and refuses \u0000 and lone
-- surrogate escapes), so a read gives back what was appended.
CREATE TABLE oda_tasks_entries (
  chat_id text COLLATE "C" NOT NULL REFERENCES oda_tasks_chats (chat_id),
  seq bigint NOT NULL CHECK (seq >= 0),
  entry json NOT NULL,
  PRIMARY KEY (chat_id, seq)
);
