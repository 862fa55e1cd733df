-- `raw_events` in its native form (issue 16, "UUIDs as 16-byte BLOB", "no field stored
-- twice"). The ids become their 16 bytes, the table keeps its rows in its primary key's B-tree
-- (`WITHOUT ROWID`: the rowid table and the separate index on `id` were two copies of every
-- id, 5.2 MB of index at 5,000 containers), and `source_event_id` goes: the carrier's event id
-- is in the payload and in the normalized event's body. Nothing joins this table to another
-- in SQL (`transport_events.raw_event_id` is read, not joined), so its ids change alone.
CREATE TABLE raw_events_compact (
    id            BLOB NOT NULL PRIMARY KEY,   -- 16 bytes
    account_id    BLOB NOT NULL,               -- 16 bytes
    source_file   TEXT NOT NULL,
    source_index  BIGINT NOT NULL,
    payload       TEXT NOT NULL,               -- a zstd frame (migration 19) or the text itself
    issued_at     TEXT NOT NULL,
    received_at   TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO raw_events_compact (id, account_id, source_file, source_index, payload, issued_at, received_at)
SELECT unhex(replace(id, '-', '')), unhex(replace(account_id, '-', '')), source_file, source_index,
       payload, issued_at, received_at
FROM raw_events;
DROP TABLE raw_events;
ALTER TABLE raw_events_compact RENAME TO raw_events;
