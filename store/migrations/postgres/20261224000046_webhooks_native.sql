-- Webhooks and their notifications in their native form (issue 16, "UUIDs as uuid/16-byte
-- BLOB, times as timestamptz"), as the event and derived tables are since migrations 28 and
-- 38: every id as its 16 bytes (`BYTEA`, RFC 9562 byte order), every time (the lease
-- `locked_until` too) as `timestamptz`. `Uuid::to_string` and `ts` wrote them as text (times
-- to the millisecond), so the conversion loses nothing, and the lists keep their order: a
-- UUID's text sorts as its bytes do. The JSON columns (`events`, `headers`, `detail`) and
-- the payload as first sent (`body`, whose bytes the signature covers: `jsonb` would not
-- keep them) stay text. The account's foreign key goes with the type change, as on the
-- event tables. The indexes on the changed columns are rebuilt by the change itself.
ALTER TABLE webhooks DROP CONSTRAINT IF EXISTS webhooks_account_id_fkey;
ALTER TABLE webhooks
    ALTER COLUMN id TYPE BYTEA USING decode(replace(id, '-', ''), 'hex'),
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex'),
    ALTER COLUMN created_at TYPE TIMESTAMPTZ USING created_at::timestamptz,
    ALTER COLUMN updated_at TYPE TIMESTAMPTZ USING updated_at::timestamptz;

ALTER TABLE webhook_notifications
    ALTER COLUMN id TYPE BYTEA USING decode(replace(id, '-', ''), 'hex'),
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex'),
    ALTER COLUMN webhook_id TYPE BYTEA USING decode(replace(webhook_id, '-', ''), 'hex'),
    ALTER COLUMN reference_id TYPE BYTEA USING decode(replace(reference_id, '-', ''), 'hex'),
    ALTER COLUMN container_id TYPE BYTEA USING decode(replace(container_id, '-', ''), 'hex'),
    ALTER COLUMN shipment_id TYPE BYTEA USING decode(replace(shipment_id, '-', ''), 'hex'),
    ALTER COLUMN tracking_request_id TYPE BYTEA
        USING decode(replace(tracking_request_id, '-', ''), 'hex'),
    ALTER COLUMN next_attempt_at TYPE TIMESTAMPTZ USING next_attempt_at::timestamptz,
    ALTER COLUMN locked_until TYPE TIMESTAMPTZ USING locked_until::timestamptz,
    ALTER COLUMN created_at TYPE TIMESTAMPTZ USING created_at::timestamptz,
    ALTER COLUMN delivered_at TYPE TIMESTAMPTZ USING delivered_at::timestamptz;

ANALYZE webhooks;
ANALYZE webhook_notifications;
