-- `event_keys` in its native form (issue 16): ids as their 16 bytes, the kind a small integer
-- (0 container, 1 bill of lading, 2 booking). The SQLite migration of the same name says why.
-- BYTEA rather than `uuid`: the statements the two backends share bind ids as bytes.
CREATE TABLE event_keys_compact (
    account_id  BYTEA NOT NULL,
    kind        SMALLINT NOT NULL,
    value       TEXT NOT NULL,
    event_id    BYTEA NOT NULL,
    PRIMARY KEY (account_id, kind, value, event_id)
);
INSERT INTO event_keys_compact (account_id, kind, value, event_id)
SELECT decode(replace(account_id, '-', ''), 'hex'),
       CASE kind WHEN 'container' THEN 0 WHEN 'bill_of_lading' THEN 1 ELSE 2 END,
       value,
       decode(replace(event_id, '-', ''), 'hex')
FROM event_keys;
DROP TABLE event_keys;
ALTER TABLE event_keys_compact RENAME TO event_keys;
ALTER INDEX event_keys_compact_pkey RENAME TO event_keys_pkey;
