-- `raw_events` in its native form (issue 16): ids as their 16 bytes, `source_event_id` gone
-- (the carrier's event id is in the payload and in the event's body). The SQLite migration of
-- the same name says why. The account's foreign key goes with the type change, as on every
-- other event table.
ALTER TABLE raw_events DROP CONSTRAINT IF EXISTS raw_events_account_id_fkey;
ALTER TABLE raw_events DROP COLUMN source_event_id;
ALTER TABLE raw_events
    ALTER COLUMN id TYPE BYTEA USING decode(replace(id, '-', ''), 'hex'),
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex');
