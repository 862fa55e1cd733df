-- One `event_keys` row per key (issue 16: "write only what changed", "compact storage"): the
-- ids of the events naming a container, bill of lading or booking are one value, their 16
-- bytes each, concatenated (`event_ids`), instead of one row per (key, event). At 100,000
-- containers the table held 7.9 million rows of about 74 bytes for 185,000 keys (490 MB), and
-- each feed file inserted a row per key an event names at a random place of that B-tree; now
-- a file touches one row per key it names, appending to its list
-- (`Store::insert_event_keys`). The order of ids within a list means nothing.
CREATE TABLE event_key_lists (
    account_id  BLOB NOT NULL,     -- 16 bytes
    kind        INTEGER NOT NULL,  -- 0 container, 1 bill of lading, 2 booking
    value       TEXT NOT NULL,
    event_ids   BLOB NOT NULL,     -- 16 bytes per event, concatenated
    PRIMARY KEY (account_id, kind, value)
) WITHOUT ROWID;
INSERT INTO event_key_lists (account_id, kind, value, event_ids)
SELECT account_id, kind, value, unhex(group_concat(hex(event_id), ''))
FROM event_keys
GROUP BY account_id, kind, value;
DROP TABLE event_keys;
ALTER TABLE event_key_lists RENAME TO event_keys;
