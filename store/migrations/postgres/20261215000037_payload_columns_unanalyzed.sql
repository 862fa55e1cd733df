-- The stored payloads need no planner statistics: no query filters, joins or sorts on them,
-- yet ANALYZE detoasted and sorted each of them for every sampled row (30,000 rows per table
-- at the default target). A column's statistics target of 0 leaves it out of ANALYZE
-- (PostgreSQL manual, "ALTER TABLE", SET STATISTICS); the ingest analyzes a table each time
-- it has grown by a tenth (`Store::optimize`), so this was a sixth of the server's time in a
-- bulk load (docs/NOTES.md, forty-second session). Keys, times and filter columns keep theirs.
ALTER TABLE containers
    ALTER COLUMN body SET STATISTICS 0,
    ALTER COLUMN event_links SET STATISTICS 0,
    ALTER COLUMN content_hash SET STATISTICS 0;
ALTER TABLE shipments
    ALTER COLUMN body SET STATISTICS 0,
    ALTER COLUMN content_hash SET STATISTICS 0,
    ALTER COLUMN tags SET STATISTICS 0,
    ALTER COLUMN user_ref_numbers SET STATISTICS 0;
ALTER TABLE terminal_checks
    ALTER COLUMN raw SET STATISTICS 0,
    ALTER COLUMN body SET STATISTICS 0;
ALTER TABLE line_deadlines
    ALTER COLUMN raw SET STATISTICS 0,
    ALTER COLUMN body SET STATISTICS 0;
ALTER TABLE event_keys
    ALTER COLUMN event_ids SET STATISTICS 0;
ALTER TABLE transport_events
    ALTER COLUMN body SET STATISTICS 0,
    ALTER COLUMN payload SET STATISTICS 0;
