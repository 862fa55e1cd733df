-- `event_keys` keeps its lists inside its pages (issue 16, "compact storage"). Since migration
-- 29 a key's row holds the ids of every event naming it, 16 bytes each: about 600 bytes for a
-- container, 800 for a bill of lading or booking at 5,000 simulated containers, up to 2.5 KB.
-- The table was `WITHOUT ROWID`, so its rows lived in an index B-tree, whose cells keep at most
-- about 1,000 bytes on a 4 KB page (SQLite file format, "B-tree Pages": a quarter of the page);
-- the rest of a longer row went to an overflow page of its own, mostly empty: 1,661 overflow
-- pages with 5.5 of their 6.8 MB unused, of a 13.3 MB table at 5,000 containers (138 of 272 MB
-- unused at 100,000).
--
-- Now the rows are a rowid table's, whose cells keep up to about 4,000 bytes on the page, and
-- the key is a unique index beside them (about 40 bytes a key), which the writers' `ON
-- CONFLICT (account_id, kind, value)` names as before. PostgreSQL keeps long values out of
-- line only past 2 KB, compressed (TOAST), so this migration is SQLite's alone.
CREATE TABLE event_keys_inline (
    seq         INTEGER PRIMARY KEY,  -- the rowid
    account_id  BLOB NOT NULL,        -- 16 bytes
    kind        INTEGER NOT NULL,     -- 0 container, 1 bill of lading, 2 booking
    value       TEXT NOT NULL,
    event_ids   BLOB NOT NULL         -- 16 bytes per event, concatenated
);
INSERT INTO event_keys_inline (account_id, kind, value, event_ids)
SELECT account_id, kind, value, event_ids FROM event_keys ORDER BY account_id, kind, value;
DROP TABLE event_keys;
ALTER TABLE event_keys_inline RENAME TO event_keys;
CREATE UNIQUE INDEX event_keys_key ON event_keys (account_id, kind, value);
