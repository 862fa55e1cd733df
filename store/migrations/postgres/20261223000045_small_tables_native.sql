-- Quarantined rows, the links table read once at start-up and the document schemas in their
-- native form (issue 16, "UUIDs as uuid/16-byte BLOB, times as timestamptz"), as the event
-- and derived tables are since migrations 28 and 38: ids as their 16 bytes (`BYTEA`, RFC
-- 9562 byte order), times as `timestamptz`. `Uuid::to_string` and `ts` wrote them as text
-- (times to the millisecond), so the conversion loses nothing. A document schema's id is its
-- full version (`<document_type>@<version>`), a name, and stays text. The account's foreign
-- key goes with the type change, as on the event tables (the column no longer has the type
-- of `accounts.id`; every writer names an account its caller resolved).
ALTER TABLE quarantine DROP CONSTRAINT IF EXISTS quarantine_account_id_fkey;
ALTER TABLE quarantine
    ALTER COLUMN id TYPE BYTEA USING decode(replace(id, '-', ''), 'hex'),
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex'),
    ALTER COLUMN created_at TYPE TIMESTAMPTZ USING created_at::timestamptz;

-- Rows written before migration 27 only, emptied when a store opens
-- (`Store::backfill_event_links`).
ALTER TABLE container_events
    ALTER COLUMN container_id TYPE BYTEA USING decode(replace(container_id, '-', ''), 'hex'),
    ALTER COLUMN event_id TYPE BYTEA USING decode(replace(event_id, '-', ''), 'hex'),
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex');

ALTER TABLE document_schemas
    ALTER COLUMN active_at TYPE TIMESTAMPTZ USING active_at::timestamptz,
    ALTER COLUMN created_at TYPE TIMESTAMPTZ USING created_at::timestamptz,
    ALTER COLUMN updated_at TYPE TIMESTAMPTZ USING updated_at::timestamptz;
