-- Tracking requests (POST /v2/tracking_requests): a number the account wants tracked. `status`
-- is `pending` until feed data for the number is stored, then `created` with `shipment_id` set.
-- Ids are UUID text, timestamps RFC 3339 UTC text, like the rest of the schema.

CREATE TABLE tracking_requests (
    id              TEXT PRIMARY KEY,
    account_id      TEXT NOT NULL REFERENCES accounts (id),
    request_number  TEXT NOT NULL,
    request_type    TEXT NOT NULL,   -- container, bill_of_lading or booking
    scac            TEXT NOT NULL,
    status          TEXT NOT NULL,   -- pending or created
    shipment_id     TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX tracking_requests_list ON tracking_requests (account_id, created_at DESC, id DESC);
CREATE INDEX tracking_requests_pending ON tracking_requests (account_id, status);
