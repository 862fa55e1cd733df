-- Event bodies compressed (issue 16, "compact storage"): the SQLite migration of the same
-- name says why. `transport_events.body` becomes BYTEA (`convert_to` keeps each stored text
-- as its UTF-8 bytes, which readers tell from a zstd frame by the magic number).

-- 1. The vessel a transport event names gets a column (read by `Store::event_imos`).
ALTER TABLE transport_events ADD COLUMN vessel_imo TEXT;
UPDATE transport_events SET vessel_imo = body::jsonb ->> 'vessel_imo'
WHERE body::jsonb ->> 'vessel_imo' IS NOT NULL;

-- 2. The trigger of migration 20 read the old body's key lists as JSON; it goes (PostgreSQL
--    refuses to change the type of a column a trigger's condition names) and its successor
--    keeps each replaced version for the writer (`Store::delete_replaced_keys`).
DROP TRIGGER transport_events_keys_replaced ON transport_events;
DROP FUNCTION transport_events_keys_replaced();
ALTER TABLE transport_events ALTER COLUMN body TYPE BYTEA USING convert_to(body, 'UTF8');

CREATE TABLE replaced_event_versions (
    event_id    TEXT NOT NULL,
    account_id  TEXT NOT NULL,
    body        BYTEA NOT NULL
);

CREATE FUNCTION transport_events_version_replaced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO replaced_event_versions (event_id, account_id, body)
    VALUES (OLD.id, OLD.account_id, OLD.body);
    RETURN NULL;
END
$$;

CREATE TRIGGER transport_events_version_replaced
AFTER UPDATE OF body ON transport_events
FOR EACH ROW WHEN (OLD.body IS DISTINCT FROM NEW.body)
EXECUTE FUNCTION transport_events_version_replaced();
