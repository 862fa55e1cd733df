-- Quarantined rows, the links table read once at start-up and the document schemas in their
-- native form (issue 16, "UUIDs as 16-byte BLOB, times as integer milliseconds"), as the
-- event and derived tables are since migrations 28 and 38: ids as their 16 bytes (RFC 9562
-- byte order), times as milliseconds since 1970-01-01T00:00:00Z (UTC). `Uuid::to_string`
-- and `ts` wrote them as text (times to the millisecond), so the conversion loses nothing.
-- A document schema's id is its full version (`<document_type>@<version>`), a name, and stays
-- text. Each table is built again (SQLite changes a column's type no other way); the account's
-- foreign key is left out, as on the event tables (the column no longer has the type of
-- `accounts.id`; every writer names an account its caller resolved).
CREATE TABLE quarantine_native (
    id           BLOB NOT NULL PRIMARY KEY,   -- 16 bytes: UUID v5 of account, file, row, pointer
    account_id   BLOB NOT NULL,               -- 16 bytes
    source_file  TEXT NOT NULL,
    row_index    BIGINT,
    pointer      TEXT NOT NULL,
    reason       TEXT NOT NULL,
    payload      TEXT,
    created_at   INTEGER NOT NULL             -- ms since the epoch, UTC
);
INSERT INTO quarantine_native
    (id, account_id, source_file, row_index, pointer, reason, payload, created_at)
SELECT unhex(replace(id, '-', '')), unhex(replace(account_id, '-', '')), source_file,
       row_index, pointer, reason, payload,
       CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER)
FROM quarantine;
DROP TABLE quarantine;
ALTER TABLE quarantine_native RENAME TO quarantine;
CREATE INDEX quarantine_account ON quarantine (account_id, source_file);

-- Rows written before migration 27 only, emptied when a store opens
-- (`Store::backfill_event_links`).
CREATE TABLE container_events_native (
    container_id  BLOB NOT NULL,   -- 16 bytes
    event_id      BLOB NOT NULL,   -- 16 bytes
    account_id    BLOB NOT NULL,   -- 16 bytes
    PRIMARY KEY (container_id, event_id)
) WITHOUT ROWID;
INSERT INTO container_events_native (container_id, event_id, account_id)
SELECT unhex(replace(container_id, '-', '')), unhex(replace(event_id, '-', '')),
       unhex(replace(account_id, '-', ''))
FROM container_events;
DROP TABLE container_events;
ALTER TABLE container_events_native RENAME TO container_events;

CREATE TABLE document_schemas_native (
    id              TEXT PRIMARY KEY,         -- full_version: <document_type>@<version>
    document_type   TEXT NOT NULL,
    schema_version  TEXT NOT NULL,
    label           TEXT NOT NULL,
    description     TEXT NOT NULL,
    current_flag    BIGINT NOT NULL,          -- 0 or 1
    draft           BIGINT NOT NULL,          -- 0 or 1
    active_at       INTEGER,                  -- ms since the epoch, UTC
    schema_format   TEXT NOT NULL,
    schema_payload  TEXT NOT NULL,
    created_at      INTEGER NOT NULL,         -- ms since the epoch, UTC
    updated_at      INTEGER NOT NULL          -- ms since the epoch, UTC
);
INSERT INTO document_schemas_native
    (id, document_type, schema_version, label, description, current_flag, draft, active_at,
     schema_format, schema_payload, created_at, updated_at)
SELECT id, document_type, schema_version, label, description, current_flag, draft,
       CAST(round(unixepoch(active_at, 'subsec') * 1000) AS INTEGER), schema_format,
       schema_payload, CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER),
       CAST(round(unixepoch(updated_at, 'subsec') * 1000) AS INTEGER)
FROM document_schemas;
DROP TABLE document_schemas;
ALTER TABLE document_schemas_native RENAME TO document_schemas;
CREATE INDEX document_schemas_type ON document_schemas (document_type);
