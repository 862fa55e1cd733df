-- Tracking requests in their native form (issue 16, "UUIDs as 16-byte BLOB, times as
-- integer milliseconds"), as the event and derived tables are since migrations 28 and 38:
-- the request's id, its account's and its shipment's as their 16 bytes (RFC 9562 byte
-- order), `created_at` and `updated_at` as milliseconds since 1970-01-01T00:00:00Z (UTC).
-- `Uuid::to_string` and `ts` wrote them as text (times to the millisecond), so the
-- conversion loses nothing, and the list keeps its order (a UUID's text sorts as its bytes
-- do). Linking a request to its shipment now copies the derived tables' id as it is. The
-- table is built again (SQLite changes a column's type no other way), in the column order
-- of migrations 5 and 12; the account's foreign key is left out, as on the event tables.
CREATE TABLE tracking_requests_native (
    id              BLOB NOT NULL PRIMARY KEY,   -- 16 bytes: UUID v5 of account, type, number, SCAC
    account_id      BLOB NOT NULL,               -- 16 bytes
    request_number  TEXT NOT NULL,
    request_type    TEXT NOT NULL,               -- container, bill_of_lading or booking
    scac            TEXT NOT NULL,
    status          TEXT NOT NULL,               -- pending, created, …
    shipment_id     BLOB,                        -- 16 bytes
    created_at      INTEGER NOT NULL,            -- ms since the epoch, UTC
    updated_at      INTEGER NOT NULL,            -- ms since the epoch, UTC
    ref_numbers     TEXT NOT NULL DEFAULT '[]',
    shipment_tags   TEXT NOT NULL DEFAULT '[]',
    failed_reason   TEXT
);
INSERT INTO tracking_requests_native
    (id, account_id, request_number, request_type, scac, status, shipment_id, created_at,
     updated_at, ref_numbers, shipment_tags, failed_reason)
SELECT unhex(replace(id, '-', '')), unhex(replace(account_id, '-', '')), request_number,
       request_type, scac, status, unhex(replace(shipment_id, '-', '')),
       CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER),
       CAST(round(unixepoch(updated_at, 'subsec') * 1000) AS INTEGER),
       ref_numbers, shipment_tags, failed_reason
FROM tracking_requests;
DROP TABLE tracking_requests;
ALTER TABLE tracking_requests_native RENAME TO tracking_requests;
CREATE INDEX tracking_requests_list ON tracking_requests (account_id, created_at DESC, id DESC);
CREATE INDEX tracking_requests_pending ON tracking_requests (account_id, status);
CREATE INDEX tracking_requests_number ON tracking_requests (account_id, request_number);
