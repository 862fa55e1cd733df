-- Event links stored once (issue 16: "no field stored twice"). Since migration 21 each
-- container's `event_links` value lists its links (event id, raw event id, `named_actual`, in
-- event order), and every read of a container's links reads it; `container_events` held the
-- same pairs again, with an index by event, to find the links a derivation no longer makes.
-- The derivation now writes each derived container's value whole, and derives again the
-- containers an event left (the keys its replaced version named), so no other write of links
-- remains: these triggers, which cleared a value when the table changed under it, go, and so
-- does the table's index by event.
--
-- Containers stored before migration 21 and never derived since have no value yet (NULL):
-- `Store::backfill_event_links` fills them from `container_events` when the store opens (it
-- needs `named_actual`, which start-up fills first), then empties the table. Nothing reads or
-- writes it after that.
DROP TRIGGER transport_events_moved ON transport_events;
DROP FUNCTION transport_events_moved();
DROP TRIGGER container_events_deleted ON container_events;
DROP FUNCTION container_events_changed();
DROP INDEX container_events_event;
