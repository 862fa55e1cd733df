-- Derived records and terminal facts compressed (issue 16, "compact storage"): the SQLite
-- migration of the same name says why. The compressed columns become BYTEA (`convert_to` keeps
-- each stored text as its UTF-8 bytes, which readers tell from a zstd frame by the magic
-- number). The `trackingStopped` filter reads `line_tracking_stopped` (0 or 1) instead of the
-- body, filled here from each row's JSON first.
ALTER TABLE shipments ADD COLUMN line_tracking_stopped BIGINT NOT NULL DEFAULT 0;
UPDATE shipments SET line_tracking_stopped = 1
WHERE jsonb_typeof(body::jsonb -> 'line_tracking_stopped_at') = 'string';
ALTER TABLE shipments ALTER COLUMN body TYPE BYTEA USING convert_to(body, 'UTF8');
ALTER TABLE containers ALTER COLUMN body TYPE BYTEA USING convert_to(body, 'UTF8');
ALTER TABLE terminal_checks
    ALTER COLUMN raw TYPE BYTEA USING convert_to(raw, 'UTF8'),
    ALTER COLUMN body TYPE BYTEA USING convert_to(body, 'UTF8');
ALTER TABLE line_deadlines
    ALTER COLUMN raw TYPE BYTEA USING convert_to(raw, 'UTF8'),
    ALTER COLUMN body TYPE BYTEA USING convert_to(body, 'UTF8');
