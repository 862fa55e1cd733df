-- Tracking requests in their native form (issue 16, "UUIDs as uuid/16-byte BLOB, times as
-- timestamptz"), as the event and derived tables are since migrations 28 and 38: the
-- request's id, its account's and its shipment's as their 16 bytes (`BYTEA`, RFC 9562 byte
-- order), `created_at` and `updated_at` as `timestamptz`. `Uuid::to_string` and `ts` wrote
-- them as text (times to the millisecond), so the conversion loses nothing, and the list
-- keeps its order (a UUID's text sorts as its bytes do). Linking a request to its shipment
-- now copies the derived tables' id as it is. The account's foreign key goes with the type
-- change, as on the event tables; the indexes are rebuilt by the change itself.
ALTER TABLE tracking_requests DROP CONSTRAINT IF EXISTS tracking_requests_account_id_fkey;
ALTER TABLE tracking_requests
    ALTER COLUMN id TYPE BYTEA USING decode(replace(id, '-', ''), 'hex'),
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex'),
    ALTER COLUMN shipment_id TYPE BYTEA USING decode(replace(shipment_id, '-', ''), 'hex'),
    ALTER COLUMN created_at TYPE TIMESTAMPTZ USING created_at::timestamptz,
    ALTER COLUMN updated_at TYPE TIMESTAMPTZ USING updated_at::timestamptz;
ANALYZE tracking_requests;
