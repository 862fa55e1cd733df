-- `transport_events` keeps its rows in its primary key's B-tree (`WITHOUT ROWID`; SQLite
-- manual, "The WITHOUT ROWID Optimization"), as `raw_events` (migration 25), `event_keys` and
-- `container_events` (migration 16) do. A rowid table with a TEXT primary key stored every id
-- twice, in the table and in its autoindex (5.2 MB at 5,000 containers), and each read by id
-- probed the index and then the table. With bodies compressed (migration 23) a row is about
-- 300 bytes, a dozen to a 4 KiB page. PostgreSQL's tables are heaps with a separate primary
-- key index whatever they declare, so this migration is SQLite's alone.
CREATE TABLE transport_events_by_id (
    id            TEXT NOT NULL PRIMARY KEY,
    account_id    TEXT NOT NULL,
    raw_event_id  TEXT NOT NULL,
    event_at      TEXT NOT NULL,
    issued_at     TEXT NOT NULL,   -- eventCreatedDateTime/eventUpdatedDateTime: newer versions win
    body          TEXT NOT NULL,   -- a zstd frame (migration 23) or, in older rows, JSON text
    named_actual  BIGINT,          -- migration 14; NULL until `Store::backfill_named_actual`
    vessel_imo    TEXT             -- migration 23
) WITHOUT ROWID;
INSERT INTO transport_events_by_id
    (id, account_id, raw_event_id, event_at, issued_at, body, named_actual, vessel_imo)
SELECT id, account_id, raw_event_id, event_at, issued_at, body, named_actual, vessel_imo
FROM transport_events;
-- Dropping the table drops its index and its two triggers; they are made again as they were.
DROP TABLE transport_events;
ALTER TABLE transport_events_by_id RENAME TO transport_events;

CREATE INDEX transport_events_named_actual_unfilled ON transport_events (id) WHERE named_actual IS NULL;

-- As migration 22.
CREATE TRIGGER transport_events_moved
AFTER UPDATE OF event_at, named_actual ON transport_events
WHEN old.event_at IS NOT new.event_at OR old.named_actual IS NOT new.named_actual
BEGIN
    UPDATE containers SET event_links = NULL
    WHERE id IN (SELECT container_id FROM container_events WHERE event_id = new.id)
    AND event_links IS NOT NULL;
END;

-- As migration 23.
CREATE TRIGGER transport_events_version_replaced
AFTER UPDATE OF body ON transport_events
WHEN old.body IS NOT new.body
BEGIN
    INSERT INTO replaced_event_versions (event_id, account_id, body)
    VALUES (old.id, old.account_id, old.body);
END;
