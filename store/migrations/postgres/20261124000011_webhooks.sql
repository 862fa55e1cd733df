-- Webhooks (POST /v2/webhooks) and their notifications, an outbox: a notification row is written
-- in the same transaction as the derived rows whose change caused it, then delivered by the
-- delivery workers (`teu serve`, `teu deliver`). Ids are UUID text, timestamps RFC 3339 UTC text
-- (milliseconds, `Z`, so they sort as text), booleans BIGINT 0/1, like the rest of the schema.

CREATE TABLE webhooks (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    url         TEXT NOT NULL,
    active      BIGINT NOT NULL,   -- 0 or 1
    events      TEXT NOT NULL,     -- JSON array of event names from the catalog
    headers     TEXT NOT NULL,     -- JSON array of {"name", "value"} sent with each delivery
    secret      TEXT NOT NULL,     -- HMAC-SHA256 key of X-T49-Webhook-Signature
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX webhooks_list ON webhooks (account_id, created_at DESC, id DESC);

CREATE TABLE webhook_notifications (
    id                  TEXT PRIMARY KEY,  -- the idempotency key sent as data.id
    account_id          TEXT NOT NULL,
    webhook_id          TEXT NOT NULL,
    event               TEXT NOT NULL,
    reference_type      TEXT NOT NULL,     -- tracking_request, transport_event, estimated_event, ...
    reference_id        TEXT NOT NULL,
    container_id        TEXT,
    shipment_id         TEXT,
    tracking_request_id TEXT,
    detail              TEXT NOT NULL,     -- JSON: what the rule saw (changeset, timestamp, location)
    body                TEXT,              -- the payload as first sent; every retry sends it again
    delivery_status     TEXT NOT NULL,     -- pending, succeeded or failed
    attempts            BIGINT NOT NULL,
    next_attempt_at     TEXT NOT NULL,
    locked_until        TEXT,              -- a worker's lease on the row while it delivers
    last_status_code    BIGINT,
    last_error          TEXT,
    created_at          TEXT NOT NULL,
    delivered_at        TEXT
);
CREATE INDEX webhook_notifications_list ON webhook_notifications (account_id, created_at DESC, id DESC);
CREATE INDEX webhook_notifications_due ON webhook_notifications (delivery_status, next_attempt_at);
