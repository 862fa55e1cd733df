-- `transport_events` appends its rows (issue 16: the store stage at scale). Since migration 26
-- the rows lived in their primary key's B-tree (`WITHOUT ROWID`), keyed by the event's id, a
-- UUID v5: random. Every stored event was an insert at a random leaf of the database's
-- largest table (530 bytes a row, 1.2 GB at 100,000 containers), so a feed file of 44,000
-- events dirtied nearly as many leaves, each read back into SQLite's page cache and written to
-- the WAL whole; that is why a DCSA file's store time grew from 0.45 s on an empty database to
-- 2.7 s at 100,000 containers (README, twenty-sixth session).
--
-- Now the rows are kept in the order they are stored, under an integer rowid (`seq`; SQLite
-- manual, "ROWIDs and the INTEGER PRIMARY KEY"), and the id is a unique index beside them:
-- about 30 bytes an entry, a sixteenth of the table (61 MB beside 1,012 MB at 100,000
-- containers), so a file's inserts dirty its few appended pages and the leaves of a much
-- smaller tree. A file's events also sit together,
-- which is what its derivation reads back. Lookups by id probe the index, then the rowid. The
-- columns are migration 30's; PostgreSQL's tables are heaps already, so this migration is
-- SQLite's alone.
CREATE TABLE transport_events_appended (
    seq           INTEGER PRIMARY KEY,         -- the rowid: rows in the order stored
    id            BLOB NOT NULL,               -- 16 bytes; unique (index below)
    account_id    BLOB NOT NULL,               -- 16 bytes
    raw_event_id  BLOB NOT NULL,               -- 16 bytes
    event_at      INTEGER NOT NULL,            -- ms since the epoch, UTC
    issued_at     INTEGER NOT NULL,            -- ms; newer versions win (migration 28)
    body          BLOB NOT NULL,               -- the normalized event (migration 23)
    named_actual  BIGINT,                      -- migration 14
    vessel_imo    TEXT,                        -- migration 23
    payload       BLOB,                        -- the carrier's text (migration 19); NULL: none stored
    source_file   TEXT,                        -- where the payload was read: file and index
    source_index  BIGINT,
    received_at   INTEGER                      -- ms since the epoch, UTC
);
INSERT INTO transport_events_appended
    (id, account_id, raw_event_id, event_at, issued_at, body, named_actual, vessel_imo,
     payload, source_file, source_index, received_at)
SELECT id, account_id, raw_event_id, event_at, issued_at, body, named_actual, vessel_imo,
       payload, source_file, source_index, received_at
FROM transport_events ORDER BY received_at, source_file, source_index;
-- Dropping the table drops its index and its trigger; they are made again as they were.
DROP TABLE transport_events;
ALTER TABLE transport_events_appended RENAME TO transport_events;
CREATE UNIQUE INDEX transport_events_id ON transport_events (id);
CREATE INDEX transport_events_named_actual_unfilled ON transport_events (id) WHERE named_actual IS NULL;
-- As migration 28.
CREATE TRIGGER transport_events_version_replaced
AFTER UPDATE OF body ON transport_events
WHEN old.body IS NOT new.body
BEGIN
    INSERT INTO replaced_event_versions (event_id, account_id, body)
    VALUES (old.id, old.account_id, old.body);
END;
