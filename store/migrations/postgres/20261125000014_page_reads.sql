-- Page reads without parsing documents (issue 16).
--
-- `transport_events.named_actual`: 1 when the event is an actual (ACT) event with a Terminal49
-- name (`teu_domain::event_names::is_named`), the events a container's `transport_events`
-- relationship lists; 0 otherwise. A `/v2` page reads it with the ids instead of parsing every
-- event body. Rows written before this migration start NULL and are filled at start-up by
-- `Store::backfill_named_actual` with the same Rust rule the event upsert uses.
ALTER TABLE transport_events ADD COLUMN named_actual BIGINT;
-- The rows still to fill, so that the start-up check reads an index of the unfilled rows (empty
-- once filled) instead of scanning every event.
CREATE INDEX transport_events_named_actual_unfilled ON transport_events (id) WHERE named_actual IS NULL;

-- Containers and shipments per account, kept by the triggers below in the transaction that
-- inserts or deletes the rows, so that an unfiltered page's total is one primary-key read
-- instead of a COUNT(*) over the account's rows. The triggers run once per statement over its
-- transition table; for INSERT … ON CONFLICT DO UPDATE that table holds only the rows actually
-- inserted, so a re-ingest counts nothing twice.
CREATE TABLE account_counts (
    account_id  TEXT PRIMARY KEY,
    containers  BIGINT NOT NULL DEFAULT 0,
    shipments   BIGINT NOT NULL DEFAULT 0
);
INSERT INTO account_counts (account_id, containers, shipments)
SELECT a.id,
       (SELECT COUNT(*) FROM containers c WHERE c.account_id = a.id),
       (SELECT COUNT(*) FROM shipments s WHERE s.account_id = a.id)
FROM accounts a;

CREATE FUNCTION account_counts_containers() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO account_counts AS a (account_id, containers)
    SELECT account_id, CASE TG_OP WHEN 'INSERT' THEN COUNT(*) ELSE -COUNT(*) END
    FROM changed GROUP BY account_id
    ON CONFLICT (account_id) DO UPDATE SET containers = a.containers + excluded.containers;
    RETURN NULL;
END
$$;
CREATE FUNCTION account_counts_shipments() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO account_counts AS a (account_id, shipments)
    SELECT account_id, CASE TG_OP WHEN 'INSERT' THEN COUNT(*) ELSE -COUNT(*) END
    FROM changed GROUP BY account_id
    ON CONFLICT (account_id) DO UPDATE SET shipments = a.shipments + excluded.shipments;
    RETURN NULL;
END
$$;
CREATE TRIGGER containers_count_insert AFTER INSERT ON containers
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION account_counts_containers();
CREATE TRIGGER containers_count_delete AFTER DELETE ON containers
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION account_counts_containers();
CREATE TRIGGER shipments_count_insert AFTER INSERT ON shipments
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION account_counts_shipments();
CREATE TRIGGER shipments_count_delete AFTER DELETE ON shipments
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION account_counts_shipments();
