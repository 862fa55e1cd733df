-- Each container's event links carry what a page shows of the event: its time (the order of
-- the `transport_events` relationship), its raw event and whether it has a Terminal49 name
-- (`named_actual`). A page of 30 containers then reads its ~1,200 links as ranges of
-- `container_events` alone instead of one `transport_events` row per link (issue 16, "relationship
-- ids come from an index, not from event bodies"). The derivation's link insert fills them; the
-- event upsert refreshes them when an event is rewritten (a later version moves its time).
ALTER TABLE container_events ADD COLUMN event_at TEXT;
ALTER TABLE container_events ADD COLUMN raw_event_id TEXT;
ALTER TABLE container_events ADD COLUMN named_actual BIGINT;
UPDATE container_events
SET event_at = e.event_at, raw_event_id = e.raw_event_id, named_actual = e.named_actual
FROM transport_events e
WHERE e.id = container_events.event_id;
