-- `event_keys` in its native form (issue 16, "UUIDs as 16-byte BLOB"): 395,158 rows at 5,000
-- containers, 94 bytes each, of which the account and event ids were 36-character UUID text
-- and the kind a word. Ids become their 16 bytes (`Uuid::as_bytes`, big-endian as RFC 9562
-- writes them) and the kind a small integer (`teu_store::events::KeyKind`: 0 container,
-- 1 bill of lading, 2 booking). Nothing joins this table to another in SQL: the store reads
-- event ids from it and the events by primary key.
CREATE TABLE event_keys_compact (
    account_id  BLOB NOT NULL,     -- 16 bytes
    kind        INTEGER NOT NULL,  -- 0 container, 1 bill of lading, 2 booking
    value       TEXT NOT NULL,
    event_id    BLOB NOT NULL,     -- 16 bytes
    PRIMARY KEY (account_id, kind, value, event_id)
) WITHOUT ROWID;
INSERT INTO event_keys_compact (account_id, kind, value, event_id)
SELECT unhex(replace(account_id, '-', '')),
       CASE kind WHEN 'container' THEN 0 WHEN 'bill_of_lading' THEN 1 ELSE 2 END,
       value,
       unhex(replace(event_id, '-', ''))
FROM event_keys;
DROP TABLE event_keys;
ALTER TABLE event_keys_compact RENAME TO event_keys;
