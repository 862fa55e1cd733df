-- Events are found by id in two sorted runs instead of one unique index (issue 16: the store
-- stage of the million). Since migration 31 the rows are appended under their rowid (`seq`)
-- and `transport_events_id` indexed their ids, UUID v5: random. Every DCSA file's 44,000
-- events landed on random leaves of that index, so each file's commit rewrote most of it:
-- 26,933 of its 37,866 leaves (444 MB of the 746 MB a 2,002-container chunk wrote to the
-- write-ahead log) at the million (README and docs/NOTES.md, "Thirty-fifth session").
--
-- Now an event's id and `seq` are in one of two `WITHOUT ROWID` tables (SQLite manual, "The
-- WITHOUT ROWID Optimization"): `event_ids_recent` holds the ids stored since the last
-- merge and stays small, so a file's inserts touch its few leaves; when it holds a
-- sixteenth of the events (at least 131,072) the store moves it into `event_ids` in one
-- sorted pass, which writes each leaf of the large run once for many files
-- (`Store::upsert_events`). The writers keep an id in at most one of the two (a lookup in
-- both before every insert), so together they are the unique index; readers look in both
-- (`events::with_event_id_in`). PostgreSQL keeps its unique index: this migration is
-- SQLite's alone.
CREATE TABLE event_ids (
    id   BLOB PRIMARY KEY,   -- 16 bytes, the event's id
    seq  INTEGER NOT NULL    -- its `transport_events` rowid
) WITHOUT ROWID;
CREATE TABLE event_ids_recent (
    id   BLOB PRIMARY KEY,
    seq  INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO event_ids (id, seq) SELECT id, seq FROM transport_events ORDER BY id;
DROP INDEX transport_events_id;
