-- One `event_keys` row per key, its events' 16-byte ids concatenated (`event_ids`); the
-- SQLite migration of the same name says why.
CREATE TABLE event_key_lists (
    account_id  BYTEA NOT NULL,
    kind        SMALLINT NOT NULL,
    value       TEXT NOT NULL,
    event_ids   BYTEA NOT NULL,
    PRIMARY KEY (account_id, kind, value)
);
INSERT INTO event_key_lists (account_id, kind, value, event_ids)
SELECT account_id, kind, value, string_agg(event_id, ''::bytea)
FROM event_keys
GROUP BY account_id, kind, value;
DROP TABLE event_keys;
ALTER TABLE event_key_lists RENAME TO event_keys;
ALTER INDEX event_key_lists_pkey RENAME TO event_keys_pkey;
