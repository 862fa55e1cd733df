-- Event bodies compressed (issue 16, "compact storage"). `transport_events.body` was the
-- normalized event as JSON text, about 550 bytes a row and the largest column of the database
-- (75 of 260 MB at 5,000 containers). New and rewritten versions store it as one zstd frame
-- made with a dictionary trained on bodies (`teu_store::payloads::EVENT_BODIES`), about a
-- quarter of the text. The column keeps its TEXT declaration: a BLOB stays a BLOB in a
-- TEXT-affinity column; readers cast it to BLOB and tell a frame from the text of rows written
-- before this migration by the zstd magic number. Existing rows are not rewritten.
--
-- Two readers of the body in SQL need another source, since SQL cannot decompress:
--
-- 1. The vessel a transport event names (`Store::event_imos`, for vessel ids) gets a column.
ALTER TABLE transport_events ADD COLUMN vessel_imo TEXT;
UPDATE transport_events SET vessel_imo = json_extract(body, '$.vessel_imo')
WHERE json_valid(body) AND json_extract(body, '$.vessel_imo') IS NOT NULL;

-- 2. The keys of a replaced version (migration 20 deleted them in its trigger, from the
--    lists of the old body). The trigger now keeps the replaced version's body here, and the
--    writer, in the same transaction, deletes the keys it named that the new version does not
--    (`Store::delete_replaced_keys`) and empties the table before inserting the new keys. The
--    table is empty outside a writer's transaction.
CREATE TABLE replaced_event_versions (
    event_id    TEXT NOT NULL,
    account_id  TEXT NOT NULL,
    body        TEXT NOT NULL   -- as transport_events.body: a zstd frame or JSON text
);
DROP TRIGGER transport_events_keys_replaced;
CREATE TRIGGER transport_events_version_replaced
AFTER UPDATE OF body ON transport_events
WHEN old.body IS NOT new.body
BEGIN
    INSERT INTO replaced_event_versions (event_id, account_id, body)
    VALUES (old.id, old.account_id, old.body);
END;
