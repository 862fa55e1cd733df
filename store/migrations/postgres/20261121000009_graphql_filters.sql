-- Filter and sort columns for the GraphQL containers and shipments connections (issue 7), and
-- the user's own tracking stop. Timestamps are RFC 3339 UTC text with milliseconds (sortable),
-- booleans BIGINT 0/1, like the rest of the schema.
--
-- Existing rows: the derived columns below start NULL and are filled at start-up by
-- `Store::backfill_filter_columns` (pipeline/src/store.rs) from each row's JSON `body`, with
-- the same Rust code the upserts use, so a backfilled row and a freshly written one hold the
-- same text (a SQL backfill from body would copy chrono's variable-precision timestamps, which
-- do not sort against the store's millisecond ones). Rows with `filters_at IS NULL` are the ones
-- still to fill. Shipment tags are backfilled here from the `tags` JSON column.

ALTER TABLE shipments ADD COLUMN pol_locode TEXT;
ALTER TABLE shipments ADD COLUMN pod_locode TEXT;
ALTER TABLE shipments ADD COLUMN shipping_line_scac TEXT;
ALTER TABLE shipments ADD COLUMN pod_eta_at TEXT;
ALTER TABLE shipments ADD COLUMN filters_at TEXT;        -- when the columns above were filled
-- stopTracking: when the user stopped tracking (NULL: not stopped by the user). It is kept
-- apart from `body` so that a re-derivation from the feeds never undoes it.
ALTER TABLE shipments ADD COLUMN user_stopped_at TEXT;
CREATE INDEX shipments_pol ON shipments (account_id, pol_locode);
CREATE INDEX shipments_pod ON shipments (account_id, pod_locode);
CREATE INDEX shipments_scac ON shipments (account_id, shipping_line_scac);
CREATE INDEX shipments_pod_eta ON shipments (account_id, pod_eta_at);

ALTER TABLE containers ADD COLUMN pickup_lfd TEXT;
ALTER TABLE containers ADD COLUMN has_holds BIGINT;      -- 0 or 1: any hold at the POD terminal
ALTER TABLE containers ADD COLUMN filters_at TEXT;
CREATE INDEX containers_status ON containers (account_id, current_status);
CREATE INDEX containers_lfd ON containers (account_id, pickup_lfd);
CREATE INDEX containers_holds ON containers (account_id, has_holds);

-- One row per tag of a shipment (the `tags` JSON column stays what reads return).
CREATE TABLE shipment_tags (
    account_id   TEXT NOT NULL,
    shipment_id  TEXT NOT NULL,
    tag          TEXT NOT NULL,
    PRIMARY KEY (shipment_id, tag)
);
CREATE INDEX shipment_tags_tag ON shipment_tags (account_id, tag);

INSERT INTO shipment_tags (account_id, shipment_id, tag)
SELECT s.account_id, s.id, j.value FROM shipments s, json_array_elements_text(s.tags::json) AS j(value)
ON CONFLICT DO NOTHING;
