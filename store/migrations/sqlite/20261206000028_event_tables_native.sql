-- The normalized events in their native form (issue 16, "UUIDs as 16-byte BLOB, times as
-- integer milliseconds"), as `event_keys` (migration 24) and `raw_events` (migration 25)
-- already are. `transport_events` keeps three ids a row (its own, its account's and its raw
-- event's) and two times; as text they were 36 bytes an id and 24 a time, about 150 bytes of
-- a row of 300, and every insert placed a 36-byte key in a B-tree far larger than the page
-- cache. Now the ids are their 16 bytes (RFC 9562 byte order) and the times milliseconds
-- since 1970-01-01T00:00:00Z (UTC), the precision `ts` wrote them in, so the conversion loses
-- nothing. The times of `raw_events` change with them (its ids did in migration 25).
--
-- Nothing joins `transport_events` by id in SQL but the one-time backfill from
-- `container_events` (migration 27), which converts that table's text ids as it reads them.
CREATE TABLE transport_events_native (
    id            BLOB NOT NULL PRIMARY KEY,   -- 16 bytes
    account_id    BLOB NOT NULL,               -- 16 bytes
    raw_event_id  BLOB NOT NULL,               -- 16 bytes
    event_at      INTEGER NOT NULL,            -- ms since the epoch, UTC
    issued_at     INTEGER NOT NULL,            -- ms; eventCreatedDateTime/eventUpdatedDateTime: newer versions win
    body          BLOB NOT NULL,               -- a zstd frame (migration 23) or, in older rows, JSON text
    named_actual  BIGINT,                      -- migration 14; NULL until `Store::backfill_named_actual`
    vessel_imo    TEXT                         -- migration 23
) WITHOUT ROWID;
INSERT INTO transport_events_native
    (id, account_id, raw_event_id, event_at, issued_at, body, named_actual, vessel_imo)
SELECT unhex(replace(id, '-', '')), unhex(replace(account_id, '-', '')),
       unhex(replace(raw_event_id, '-', '')),
       CAST(round(unixepoch(event_at, 'subsec') * 1000) AS INTEGER),
       CAST(round(unixepoch(issued_at, 'subsec') * 1000) AS INTEGER),
       body, named_actual, vessel_imo
FROM transport_events;
-- Dropping the table drops its index and its trigger; they are made again below.
DROP TABLE transport_events;
ALTER TABLE transport_events_native RENAME TO transport_events;
CREATE INDEX transport_events_named_actual_unfilled ON transport_events (id) WHERE named_actual IS NULL;

-- The replaced versions the writer drains (migration 23) name their event and account as the
-- event table does. The table is empty outside a writer's transaction.
DROP TABLE replaced_event_versions;
CREATE TABLE replaced_event_versions (
    event_id    BLOB NOT NULL,   -- 16 bytes
    account_id  BLOB NOT NULL,   -- 16 bytes
    body        BLOB NOT NULL    -- as transport_events.body
);
-- As migration 23.
CREATE TRIGGER transport_events_version_replaced
AFTER UPDATE OF body ON transport_events
WHEN old.body IS NOT new.body
BEGIN
    INSERT INTO replaced_event_versions (event_id, account_id, body)
    VALUES (old.id, old.account_id, old.body);
END;

CREATE TABLE raw_events_native (
    id            BLOB NOT NULL PRIMARY KEY,   -- 16 bytes
    account_id    BLOB NOT NULL,               -- 16 bytes
    source_file   TEXT NOT NULL,
    source_index  BIGINT NOT NULL,
    payload       BLOB NOT NULL,               -- a zstd frame (migration 19) or the text itself
    issued_at     INTEGER NOT NULL,            -- ms since the epoch, UTC
    received_at   INTEGER NOT NULL             -- ms since the epoch, UTC
) WITHOUT ROWID;
INSERT INTO raw_events_native (id, account_id, source_file, source_index, payload, issued_at, received_at)
SELECT id, account_id, source_file, source_index, payload,
       CAST(round(unixepoch(issued_at, 'subsec') * 1000) AS INTEGER),
       CAST(round(unixepoch(received_at, 'subsec') * 1000) AS INTEGER)
FROM raw_events;
DROP TABLE raw_events;
ALTER TABLE raw_events_native RENAME TO raw_events;
