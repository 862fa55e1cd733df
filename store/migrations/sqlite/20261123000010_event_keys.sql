-- Every container, bill of lading and booking an event names (DCSA: an event applies to each
-- container it names, and an event that names only documents to every container of those
-- documents). Derivation finds the stored events of a shipment through this table by any key.
-- `transport_events.container_number`, `bill_of_lading` and `booking` keep only the first of each.
CREATE TABLE event_keys (
    account_id  TEXT NOT NULL,
    kind        TEXT NOT NULL,   -- 'container', 'bill_of_lading' or 'booking'
    value       TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    PRIMARY KEY (account_id, kind, value, event_id)
);
CREATE INDEX event_keys_event ON event_keys (event_id);

INSERT INTO event_keys (account_id, kind, value, event_id)
SELECT account_id, 'container', container_number, id FROM transport_events WHERE container_number IS NOT NULL;
INSERT INTO event_keys (account_id, kind, value, event_id)
SELECT account_id, 'bill_of_lading', bill_of_lading, id FROM transport_events WHERE bill_of_lading IS NOT NULL;
INSERT INTO event_keys (account_id, kind, value, event_id)
SELECT account_id, 'booking', booking, id FROM transport_events WHERE booking IS NOT NULL;

-- Links are diffed per re-derived event (stale links removed), which looks them up by event.
CREATE INDEX container_events_event ON container_events (event_id);
