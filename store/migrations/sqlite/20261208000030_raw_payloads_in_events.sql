-- A carrier's event and its normalized form in one row (issue 16: "no field stored twice",
-- and fewer random inserts per event). `raw_events` and `transport_events` were one to one:
-- both ids are UUID v5 of the account and the carrier's event id (`teu_domain::ids`), both
-- rows were written together and replaced together under the same rule. Each kept its own id,
-- account id and version time, and each was a B-tree keyed by a random id, so every event
-- stored was two inserts at random places: at 100,000 containers those inserts were most of
-- the ingest's store stage. The payload and its provenance move into `transport_events`;
-- `raw_event_id` stays the id the `/v2` raw-event resources carry.
CREATE TABLE transport_events_merged (
    id            BLOB NOT NULL PRIMARY KEY,   -- 16 bytes
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
) WITHOUT ROWID;
INSERT INTO transport_events_merged
SELECT e.id, e.account_id, e.raw_event_id, e.event_at, e.issued_at, e.body, e.named_actual,
       e.vessel_imo, r.payload, r.source_file, r.source_index, r.received_at
FROM transport_events e LEFT JOIN raw_events r ON r.id = e.raw_event_id;
DROP TABLE transport_events;
DROP TABLE raw_events;
ALTER TABLE transport_events_merged RENAME TO transport_events;
CREATE INDEX transport_events_named_actual_unfilled ON transport_events (id) WHERE named_actual IS NULL;
-- As migration 28.
CREATE TRIGGER transport_events_version_replaced
AFTER UPDATE OF body ON transport_events
WHEN old.body IS NOT new.body
BEGIN
    INSERT INTO replaced_event_versions (event_id, account_id, body)
    VALUES (old.id, old.account_id, old.body);
END;
