-- A log of replaced event versions (issue 16: a derivation reads back what its own files just
-- stored). `teu ingest` keeps the events of the files it stored, parsed, until their group is
-- derived, and uses them instead of reading and decoding their rows again, but only while
-- its version is still the stored one. A version is replaced by an update of `body`; each
-- replacement, by whatever writer, adds a row here in the replacing transaction, so a
-- derivation asks for the events replaced since a mark taken before its files were stored
-- (`Store::replacement_mark`, `Store::events_replaced_since`) and reads those from the table.
-- `seq` is AUTOINCREMENT: never reused, so a mark stays a point in the log; SQLite has one
-- writer, so rows commit in `seq` order.
CREATE TABLE event_replacements (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id  BLOB NOT NULL,   -- 16 bytes
    event_id    BLOB NOT NULL    -- 16 bytes, the replaced event's id
);
CREATE TRIGGER transport_events_replacement_logged
AFTER UPDATE OF body ON transport_events
WHEN old.body IS NOT new.body
BEGIN
    INSERT INTO event_replacements (account_id, event_id) VALUES (old.account_id, old.id);
END;
