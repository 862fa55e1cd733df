-- teu schema, PostgreSQL. Ids are UUID text; timestamps are RFC 3339 UTC text (sortable);
-- `body` holds the full domain record as JSON (pipeline/src/model.rs), the other columns are
-- what queries filter, join and sort on. SQLite has the same tables in ../sqlite.

CREATE TABLE accounts (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    company_name  TEXT NOT NULL,
    routing_data  BIGINT NOT NULL DEFAULT 0,      -- 0 or 1 (sqlx Any has no SQLite BOOLEAN)
    created_at    TEXT NOT NULL
);

CREATE TABLE api_keys (
    key_hash    TEXT PRIMARY KEY,            -- SHA-256 hex of the key; keys are never stored
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    created_at  TEXT NOT NULL
);

CREATE TABLE ports (
    locode        TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    country_code  TEXT NOT NULL,
    country       TEXT,
    latitude      DOUBLE PRECISION,
    longitude     DOUBLE PRECISION,
    time_zone     TEXT
);

CREATE TABLE raw_events (
    id               TEXT PRIMARY KEY,
    account_id       TEXT NOT NULL REFERENCES accounts (id),
    source_event_id  TEXT NOT NULL,
    source_file      TEXT NOT NULL,
    source_index     BIGINT NOT NULL,
    payload          TEXT NOT NULL,
    issued_at        TEXT NOT NULL,   -- as transport_events.issued_at
    received_at      TEXT NOT NULL
);

CREATE TABLE transport_events (
    id                TEXT PRIMARY KEY,
    account_id        TEXT NOT NULL REFERENCES accounts (id),
    raw_event_id      TEXT NOT NULL,
    container_number  TEXT,
    bill_of_lading    TEXT,
    booking           TEXT,
    event_at          TEXT NOT NULL,
    issued_at         TEXT NOT NULL,   -- eventCreatedDateTime/eventUpdatedDateTime: newer versions win
    body              TEXT NOT NULL
);
CREATE INDEX transport_events_container ON transport_events (account_id, container_number);
CREATE INDEX transport_events_bill_of_lading ON transport_events (account_id, bill_of_lading);
CREATE INDEX transport_events_booking ON transport_events (account_id, booking);

CREATE TABLE shipments (
    id                     TEXT PRIMARY KEY,
    account_id             TEXT NOT NULL REFERENCES accounts (id),
    bill_of_lading_number  TEXT NOT NULL,
    tags                   TEXT NOT NULL DEFAULT '[]',
    created_at             TEXT NOT NULL,
    refreshed_at           TEXT NOT NULL,
    content_hash           TEXT NOT NULL,
    body                   TEXT NOT NULL
);
CREATE INDEX shipments_list ON shipments (account_id, refreshed_at DESC, created_at DESC, id DESC);
CREATE INDEX shipments_number ON shipments (account_id, bill_of_lading_number);

CREATE TABLE containers (
    id              TEXT PRIMARY KEY,
    account_id      TEXT NOT NULL REFERENCES accounts (id),
    shipment_id     TEXT NOT NULL,
    number          TEXT NOT NULL,
    current_status  TEXT NOT NULL,
    pod_locode      TEXT,
    created_at      TEXT NOT NULL,
    refreshed_at    TEXT NOT NULL,
    content_hash    TEXT NOT NULL,
    body            TEXT NOT NULL
);
CREATE INDEX containers_list ON containers (account_id, refreshed_at DESC, created_at DESC, id DESC);
CREATE INDEX containers_shipment ON containers (account_id, shipment_id);
CREATE INDEX containers_number ON containers (account_id, number);

CREATE TABLE container_events (
    container_id  TEXT NOT NULL,
    event_id      TEXT NOT NULL,
    account_id    TEXT NOT NULL,
    PRIMARY KEY (container_id, event_id)
);

CREATE TABLE quarantine (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    source_file  TEXT NOT NULL,
    row_index    BIGINT,
    pointer      TEXT NOT NULL,
    reason       TEXT NOT NULL,
    payload      TEXT,
    created_at   TEXT NOT NULL
);
CREATE INDEX quarantine_account ON quarantine (account_id, source_file);
