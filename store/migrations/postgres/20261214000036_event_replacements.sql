-- A log of replaced event versions; the SQLite migration of the same name says why. Here
-- writers commit concurrently and in no order of any sequence, so a row carries the id of
-- its replacing transaction (`pg_current_xact_id`), and a mark is a snapshot
-- (`pg_current_snapshot`): the rows replaced since a mark are those whose transaction the
-- snapshot does not see (PostgreSQL manual, "Transaction ID and Snapshot Information
-- Functions"). Transactions older than the snapshot's xmin are all visible to it, hence the
-- index on `xid`.
CREATE TABLE event_replacements (
    xid         XID8 NOT NULL DEFAULT pg_current_xact_id(),
    account_id  BYTEA NOT NULL,   -- 16 bytes
    event_id    BYTEA NOT NULL    -- 16 bytes, the replaced event's id
);
CREATE INDEX event_replacements_xid ON event_replacements (xid);

CREATE FUNCTION transport_events_replacement_logged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_replacements (account_id, event_id) VALUES (OLD.account_id, OLD.id);
    RETURN NULL;
END
$$;

CREATE TRIGGER transport_events_replacement_logged
AFTER UPDATE OF body ON transport_events
FOR EACH ROW WHEN (OLD.body IS DISTINCT FROM NEW.body)
EXECUTE FUNCTION transport_events_replacement_logged();
