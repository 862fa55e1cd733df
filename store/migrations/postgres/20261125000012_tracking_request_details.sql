-- What a client attaches to a tracking request (Terminal49's POST /v2/tracking_requests
-- attributes `ref_numbers` and `shipment_tags`, JSON arrays of strings as text) and why a request
-- failed (`failed_reason`, Terminal49's enum; NULL while it has not failed).
ALTER TABLE tracking_requests ADD COLUMN ref_numbers TEXT NOT NULL DEFAULT '[]';
ALTER TABLE tracking_requests ADD COLUMN shipment_tags TEXT NOT NULL DEFAULT '[]';
ALTER TABLE tracking_requests ADD COLUMN failed_reason TEXT;
CREATE INDEX tracking_requests_number ON tracking_requests (account_id, request_number);
-- Reference numbers a user gave a shipment (PATCH /v2/shipments/{id}, or the tracking requests
-- that found it): JSON array of strings, NULL when none; served after the feeds' own.
ALTER TABLE shipments ADD COLUMN user_ref_numbers TEXT;
