-- Each container keeps its event links in event order as one value, `event_links` (issue 16:
-- "relationship ids come from an index, not from event bodies"). A `/v2` page of 30 containers
-- read ~1,200 `container_events` rows and concatenated them in SQL (`string_agg`); it now
-- reads 30 values. The format (33 bytes per link: event id, raw event id, `named_actual`) is
-- `teu_store::reads::encode_links`.
--
-- The derivation writes the value of every container it derives, after its link inserts and
-- stale-link deletes, from the links it produced. Any other change to a container's links
-- (a link deleted by another derivation's stale-link pass or with a stale container, a link
-- refreshed because its event was rewritten) clears the value through the triggers below;
-- a NULL value makes the reader fall back to `container_events`. Rows stored before this
-- migration start NULL, so they read as before until they are derived again.
ALTER TABLE containers ADD COLUMN event_links BYTEA;

CREATE FUNCTION container_events_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE containers SET event_links = NULL
    WHERE id = OLD.container_id AND event_links IS NOT NULL;
    RETURN NULL;
END
$$;

CREATE TRIGGER container_events_deleted AFTER DELETE ON container_events
FOR EACH ROW EXECUTE FUNCTION container_events_changed();

CREATE TRIGGER container_events_refreshed
AFTER UPDATE OF event_at, raw_event_id, named_actual ON container_events
FOR EACH ROW EXECUTE FUNCTION container_events_changed();

-- The container ids of a page's shipments, in number order, from the index alone (the table
-- lookup per container was 0.43 ms of the page on SQLite).
DROP INDEX containers_shipment;
CREATE INDEX containers_shipment ON containers (account_id, shipment_id, number, id);
