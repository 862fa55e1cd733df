-- A carrier's event and its normalized form in one row; the SQLite migration of the same
-- name says why. Filling the new columns does not touch `body`, so the trigger of migration
-- 23 does not fire.
ALTER TABLE transport_events
    ADD COLUMN payload BYTEA,
    ADD COLUMN source_file TEXT,
    ADD COLUMN source_index BIGINT,
    ADD COLUMN received_at TIMESTAMPTZ;
UPDATE transport_events e
SET payload = r.payload, source_file = r.source_file, source_index = r.source_index,
    received_at = r.received_at
FROM raw_events r
WHERE r.id = e.raw_event_id;
DROP TABLE raw_events;
