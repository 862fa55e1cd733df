-- No field stored twice in the event tables (issue 16).
--
-- 1. `container_events` keeps the pairs alone. Migration 18 copied each link's event time, raw
--    event and `named_actual` beside it so that a page read the links without the events; since
--    migration 21 a page reads each container's `event_links` instead, and those three columns
--    were a third copy of what `transport_events` holds (about 60 of 150 bytes per link). The
--    table read (`Store::event_links_from_table`, for containers whose value is NULL) joins the
--    events again.
CREATE TABLE container_event_pairs (
    container_id  TEXT NOT NULL,
    event_id      TEXT NOT NULL,
    account_id    TEXT NOT NULL,
    PRIMARY KEY (container_id, event_id)
) WITHOUT ROWID;
INSERT INTO container_event_pairs (container_id, event_id, account_id)
SELECT container_id, event_id, account_id FROM container_events;
DROP TABLE container_events;
ALTER TABLE container_event_pairs RENAME TO container_events;
CREATE INDEX container_events_event ON container_events (event_id);

CREATE TRIGGER container_events_deleted AFTER DELETE ON container_events
BEGIN
    UPDATE containers SET event_links = NULL
    WHERE id = old.container_id AND event_links IS NOT NULL;
END;

-- A later version of an event that moves its time (the order of the links) or its
-- `named_actual` clears the stored `event_links` of every container linked to it, as the
-- refresh of migration 18's copies did through `container_events_refreshed` (migration 21).
-- The raw event id of an event never changes.
CREATE TRIGGER transport_events_moved
AFTER UPDATE OF event_at, named_actual ON transport_events
WHEN old.event_at IS NOT new.event_at OR old.named_actual IS NOT new.named_actual
BEGIN
    UPDATE containers SET event_links = NULL
    WHERE id IN (SELECT container_id FROM container_events WHERE event_id = new.id)
    AND event_links IS NOT NULL;
END;

-- 2. `transport_events` loses the first container, bill of lading and booking of each event:
--    `event_keys` (migration 10) holds every key of an event, the body names them all, and
--    nothing has read these columns since migration 16 dropped their indexes.
ALTER TABLE transport_events DROP COLUMN container_number;
ALTER TABLE transport_events DROP COLUMN bill_of_lading;
ALTER TABLE transport_events DROP COLUMN booking;
