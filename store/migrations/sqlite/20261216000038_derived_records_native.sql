-- Derived containers and shipments in their native form (issue 16, "UUIDs as 16-byte BLOB,
-- times as integer milliseconds"), as the event tables are since migration 28: the ids of
-- `containers` (its own, its account's, its shipment's) and `shipments` (its own, its
-- account's) as their 16 bytes (RFC 9562 byte order), their `created_at` and `refreshed_at`
-- as milliseconds since 1970-01-01T00:00:00Z (UTC), the precision `ts` wrote them in, so the
-- conversion loses nothing. `account_counts` and `shipment_tags` name the same accounts and
-- shipments in the same statements, so their ids change with them. The PostgreSQL migration
-- of the same name says why, and what stays text.
--
-- Each table is built again: SQLite changes a column's type no other way. The account's
-- foreign key is left out (the column no longer has the type of `accounts.id`). The bodies,
-- zstd frames since migration 32, are declared BLOB now.
CREATE TABLE containers_native (
    id              BLOB NOT NULL PRIMARY KEY,   -- 16 bytes
    account_id      BLOB NOT NULL,               -- 16 bytes
    shipment_id     BLOB NOT NULL,               -- 16 bytes
    number          TEXT NOT NULL,
    current_status  TEXT NOT NULL,
    pod_locode      TEXT,
    created_at      INTEGER NOT NULL,            -- ms since the epoch, UTC
    refreshed_at    INTEGER NOT NULL,            -- ms since the epoch, UTC
    content_hash    TEXT NOT NULL,
    body            BLOB NOT NULL,               -- a zstd frame (migration 32) or older JSON text
    pickup_lfd      TEXT,                        -- migration 9
    has_holds       BIGINT,                      -- migration 9
    filters_at      TEXT,                        -- migration 9
    event_links     BLOB                         -- migration 21
);
INSERT INTO containers_native
    (id, account_id, shipment_id, number, current_status, pod_locode, created_at, refreshed_at,
     content_hash, body, pickup_lfd, has_holds, filters_at, event_links)
SELECT unhex(replace(id, '-', '')), unhex(replace(account_id, '-', '')),
       unhex(replace(shipment_id, '-', '')), number, current_status, pod_locode,
       CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER),
       CAST(round(unixepoch(refreshed_at, 'subsec') * 1000) AS INTEGER),
       content_hash, body, pickup_lfd, has_holds, filters_at, event_links
FROM containers;
-- Dropping the table drops its indexes and triggers; they are made again below.
DROP TABLE containers;
ALTER TABLE containers_native RENAME TO containers;
CREATE INDEX containers_list ON containers (account_id, refreshed_at DESC, created_at DESC, id DESC);
CREATE INDEX containers_number ON containers (account_id, number);
CREATE INDEX containers_status ON containers (account_id, current_status);
CREATE INDEX containers_lfd ON containers (account_id, pickup_lfd);
CREATE INDEX containers_holds ON containers (account_id, has_holds);
CREATE INDEX containers_filters_unfilled ON containers (id) WHERE filters_at IS NULL;
CREATE INDEX containers_shipment ON containers (account_id, shipment_id, number, id);

CREATE TABLE shipments_native (
    id                     BLOB NOT NULL PRIMARY KEY,   -- 16 bytes
    account_id             BLOB NOT NULL,               -- 16 bytes
    bill_of_lading_number  TEXT NOT NULL,
    tags                   TEXT NOT NULL DEFAULT '[]',
    created_at             INTEGER NOT NULL,            -- ms since the epoch, UTC
    refreshed_at           INTEGER NOT NULL,            -- ms since the epoch, UTC
    content_hash           TEXT NOT NULL,
    body                   BLOB NOT NULL,               -- as containers.body
    pol_locode             TEXT,                        -- migration 9
    pod_locode             TEXT,
    shipping_line_scac     TEXT,
    pod_eta_at             TEXT,
    filters_at             TEXT,
    user_stopped_at        TEXT,
    user_ref_numbers       TEXT,                        -- migration 12
    line_tracking_stopped  BIGINT NOT NULL DEFAULT 0    -- migration 32
);
INSERT INTO shipments_native
    (id, account_id, bill_of_lading_number, tags, created_at, refreshed_at, content_hash, body,
     pol_locode, pod_locode, shipping_line_scac, pod_eta_at, filters_at, user_stopped_at,
     user_ref_numbers, line_tracking_stopped)
SELECT unhex(replace(id, '-', '')), unhex(replace(account_id, '-', '')), bill_of_lading_number,
       tags,
       CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER),
       CAST(round(unixepoch(refreshed_at, 'subsec') * 1000) AS INTEGER),
       content_hash, body, pol_locode, pod_locode, shipping_line_scac, pod_eta_at, filters_at,
       user_stopped_at, user_ref_numbers, line_tracking_stopped
FROM shipments;
DROP TABLE shipments;
ALTER TABLE shipments_native RENAME TO shipments;
CREATE INDEX shipments_list ON shipments (account_id, refreshed_at DESC, created_at DESC, id DESC);
CREATE INDEX shipments_number ON shipments (account_id, bill_of_lading_number);
CREATE INDEX shipments_pol ON shipments (account_id, pol_locode);
CREATE INDEX shipments_pod ON shipments (account_id, pod_locode);
CREATE INDEX shipments_scac ON shipments (account_id, shipping_line_scac);
CREATE INDEX shipments_pod_eta ON shipments (account_id, pod_eta_at);
CREATE INDEX shipments_filters_unfilled ON shipments (id) WHERE filters_at IS NULL;

CREATE TABLE shipment_tags_native (
    account_id   BLOB NOT NULL,   -- 16 bytes
    shipment_id  BLOB NOT NULL,   -- 16 bytes
    tag          TEXT NOT NULL,
    PRIMARY KEY (shipment_id, tag)
);
INSERT INTO shipment_tags_native (account_id, shipment_id, tag)
SELECT unhex(replace(account_id, '-', '')), unhex(replace(shipment_id, '-', '')), tag
FROM shipment_tags;
DROP TABLE shipment_tags;
ALTER TABLE shipment_tags_native RENAME TO shipment_tags;
CREATE INDEX shipment_tags_tag ON shipment_tags (account_id, tag);

CREATE TABLE account_counts_native (
    account_id  BLOB PRIMARY KEY,   -- 16 bytes
    containers  BIGINT NOT NULL DEFAULT 0,
    shipments   BIGINT NOT NULL DEFAULT 0
);
INSERT INTO account_counts_native (account_id, containers, shipments)
SELECT unhex(replace(account_id, '-', '')), containers, shipments FROM account_counts;
DROP TABLE account_counts;
ALTER TABLE account_counts_native RENAME TO account_counts;

-- As migration 14.
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
