-- Leaner event tables (issue 16): fewer B-trees written per stored event.

-- Nothing reads transport_events by its first container, bill of lading or booking since
-- `event_keys` (migration 10) names every key of an event; their indexes cost three B-tree
-- inserts per event.
DROP INDEX transport_events_container;
DROP INDEX transport_events_bill_of_lading;
DROP INDEX transport_events_booking;
