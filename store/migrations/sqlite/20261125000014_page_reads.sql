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
-- instead of a COUNT(*) over the account's rows. An upsert that updates a row fires no INSERT
-- trigger, so a re-ingest counts nothing twice.
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

CREATE TRIGGER containers_count_insert AFTER INSERT ON containers BEGIN
    INSERT OR IGNORE INTO account_counts (account_id) VALUES (NEW.account_id);
    UPDATE account_counts SET containers = containers + 1 WHERE account_id = NEW.account_id;
END;
CREATE TRIGGER containers_count_delete AFTER DELETE ON containers BEGIN
    UPDATE account_counts SET containers = containers - 1 WHERE account_id = OLD.account_id;
END;
CREATE TRIGGER shipments_count_insert AFTER INSERT ON shipments BEGIN
    INSERT OR IGNORE INTO account_counts (account_id) VALUES (NEW.account_id);
    UPDATE account_counts SET shipments = shipments + 1 WHERE account_id = NEW.account_id;
END;
CREATE TRIGGER shipments_count_delete AFTER DELETE ON shipments BEGIN
    UPDATE account_counts SET shipments = shipments - 1 WHERE account_id = OLD.account_id;
END;
