-- The normalized events in their native form (issue 16, "UUIDs as uuid/16-byte BLOB, times as
-- timestamptz"): ids as their 16 bytes, as `event_keys` (migration 24) and `raw_events`
-- (migration 25) keep them, and the event and version times as `timestamptz`. The SQLite
-- migration of the same name says why. The account's foreign key goes with the type change,
-- as on the other event tables.
ALTER TABLE transport_events DROP CONSTRAINT IF EXISTS transport_events_account_id_fkey;
ALTER TABLE transport_events
    ALTER COLUMN id TYPE BYTEA USING decode(replace(id, '-', ''), 'hex'),
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex'),
    ALTER COLUMN raw_event_id TYPE BYTEA USING decode(replace(raw_event_id, '-', ''), 'hex'),
    ALTER COLUMN event_at TYPE TIMESTAMPTZ USING event_at::timestamptz,
    ALTER COLUMN issued_at TYPE TIMESTAMPTZ USING issued_at::timestamptz;

-- The replaced versions the writer drains (migration 23) name their event and account as the
-- event table does; the trigger function copies them as they are. Empty outside a writer's
-- transaction.
ALTER TABLE replaced_event_versions
    ALTER COLUMN event_id TYPE BYTEA USING decode(replace(event_id, '-', ''), 'hex'),
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex');

ALTER TABLE raw_events
    ALTER COLUMN issued_at TYPE TIMESTAMPTZ USING issued_at::timestamptz,
    ALTER COLUMN received_at TYPE TIMESTAMPTZ USING received_at::timestamptz;
