-- Webhooks and their notifications in their native form (issue 16, "UUIDs as 16-byte BLOB,
-- times as integer milliseconds"), as the event and derived tables are since migrations 28
-- and 38: every id as its 16 bytes (RFC 9562 byte order), every time (the lease
-- `locked_until` too) as milliseconds since 1970-01-01T00:00:00Z (UTC). `Uuid::to_string`
-- and `ts` wrote them as text (times to the millisecond), so the conversion loses nothing,
-- and the lists keep their order: a UUID's text sorts as its bytes do. The JSON columns
-- (`events`, `headers`, `detail`) and the payload as first sent (`body`, whose bytes the
-- signature covers) stay text. Each table is built again (SQLite changes a column's type no
-- other way); the account's foreign key is left out, as on the event tables.
CREATE TABLE webhooks_native (
    id          BLOB NOT NULL PRIMARY KEY,   -- 16 bytes
    account_id  BLOB NOT NULL,               -- 16 bytes
    url         TEXT NOT NULL,
    active      BIGINT NOT NULL,             -- 0 or 1
    events      TEXT NOT NULL,               -- JSON array of event names from the catalog
    headers     TEXT NOT NULL,               -- JSON array of {"name", "value"} sent with each delivery
    secret      TEXT NOT NULL,               -- HMAC-SHA256 key of X-T49-Webhook-Signature
    created_at  INTEGER NOT NULL,            -- ms since the epoch, UTC
    updated_at  INTEGER NOT NULL             -- ms since the epoch, UTC
);
INSERT INTO webhooks_native
    (id, account_id, url, active, events, headers, secret, created_at, updated_at)
SELECT unhex(replace(id, '-', '')), unhex(replace(account_id, '-', '')), url, active, events,
       headers, secret, CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER),
       CAST(round(unixepoch(updated_at, 'subsec') * 1000) AS INTEGER)
FROM webhooks;
DROP TABLE webhooks;
ALTER TABLE webhooks_native RENAME TO webhooks;
CREATE INDEX webhooks_list ON webhooks (account_id, created_at DESC, id DESC);

CREATE TABLE webhook_notifications_native (
    id                  BLOB NOT NULL PRIMARY KEY,  -- 16 bytes (UUID v7): the idempotency key sent as data.id
    account_id          BLOB NOT NULL,              -- 16 bytes
    webhook_id          BLOB NOT NULL,              -- 16 bytes
    event               TEXT NOT NULL,
    reference_type      TEXT NOT NULL,              -- tracking_request, transport_event, estimated_event, ...
    reference_id        BLOB NOT NULL,              -- 16 bytes
    container_id        BLOB,                       -- 16 bytes
    shipment_id         BLOB,                       -- 16 bytes
    tracking_request_id BLOB,                       -- 16 bytes
    detail              TEXT NOT NULL,              -- JSON: what the rule saw (changeset, timestamp, location)
    body                TEXT,                       -- the payload as first sent; every retry sends it again
    delivery_status     TEXT NOT NULL,              -- pending, succeeded or failed
    attempts            BIGINT NOT NULL,
    next_attempt_at     INTEGER NOT NULL,           -- ms since the epoch, UTC
    locked_until        INTEGER,                    -- ms since the epoch, UTC: a worker's lease on the row
    last_status_code    BIGINT,
    last_error          TEXT,
    created_at          INTEGER NOT NULL,           -- ms since the epoch, UTC
    delivered_at        INTEGER                     -- ms since the epoch, UTC
);
INSERT INTO webhook_notifications_native
    (id, account_id, webhook_id, event, reference_type, reference_id, container_id, shipment_id,
     tracking_request_id, detail, body, delivery_status, attempts, next_attempt_at, locked_until,
     last_status_code, last_error, created_at, delivered_at)
SELECT unhex(replace(id, '-', '')), unhex(replace(account_id, '-', '')),
       unhex(replace(webhook_id, '-', '')), event, reference_type,
       unhex(replace(reference_id, '-', '')), unhex(replace(container_id, '-', '')),
       unhex(replace(shipment_id, '-', '')), unhex(replace(tracking_request_id, '-', '')),
       detail, body, delivery_status, attempts,
       CAST(round(unixepoch(next_attempt_at, 'subsec') * 1000) AS INTEGER),
       CAST(round(unixepoch(locked_until, 'subsec') * 1000) AS INTEGER),
       last_status_code, last_error,
       CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER),
       CAST(round(unixepoch(delivered_at, 'subsec') * 1000) AS INTEGER)
FROM webhook_notifications;
DROP TABLE webhook_notifications;
ALTER TABLE webhook_notifications_native RENAME TO webhook_notifications;
CREATE INDEX webhook_notifications_list ON webhook_notifications (account_id, created_at DESC, id DESC);
CREATE INDEX webhook_notifications_due ON webhook_notifications (delivery_status, webhook_id, next_attempt_at);
