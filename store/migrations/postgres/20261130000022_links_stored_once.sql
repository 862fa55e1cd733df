-- No field stored twice in the event tables (issue 16).
--
-- 1. `container_events` keeps the pairs alone. Migration 18 copied each link's event time, raw
--    event and `named_actual` beside it so that a page read the links without the events; since
--    migration 21 a page reads each container's `event_links` instead, and those three columns
--    were a third copy of what `transport_events` holds. The table read
--    (`Store::event_links_from_table`, for containers whose value is NULL) joins the events
--    again. (PostgreSQL drops a column in the catalog; rows give the space back as they are
--    rewritten.)
DROP TRIGGER container_events_refreshed ON container_events;
ALTER TABLE container_events
    DROP COLUMN event_at,
    DROP COLUMN raw_event_id,
    DROP COLUMN named_actual;

-- A later version of an event that moves its time (the order of the links) or its
-- `named_actual` clears the stored `event_links` of every container linked to it, as the
-- refresh of migration 18's copies did through `container_events_refreshed` (migration 21).
-- The raw event id of an event never changes.
CREATE FUNCTION transport_events_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE containers SET event_links = NULL
    WHERE id IN (SELECT container_id FROM container_events WHERE event_id = NEW.id)
    AND event_links IS NOT NULL;
    RETURN NULL;
END
$$;

CREATE TRIGGER transport_events_moved
AFTER UPDATE OF event_at, named_actual ON transport_events
FOR EACH ROW
WHEN (OLD.event_at IS DISTINCT FROM NEW.event_at OR OLD.named_actual IS DISTINCT FROM NEW.named_actual)
EXECUTE FUNCTION transport_events_moved();

-- 2. `transport_events` loses the first container, bill of lading and booking of each event:
--    `event_keys` (migration 10) holds every key of an event, the body names them all, and
--    nothing has read these columns since migration 16 dropped their indexes.
ALTER TABLE transport_events
    DROP COLUMN container_number,
    DROP COLUMN bill_of_lading,
    DROP COLUMN booking;
