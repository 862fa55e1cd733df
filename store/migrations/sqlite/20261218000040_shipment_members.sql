-- Each shipment's container ids, stored with the shipment (issue 16): the 16 bytes of each
-- container id one after the other, in container number order (its bytes: SQLite's default
-- collation, BINARY), then id. The PostgreSQL
-- migration of the same name says why.
ALTER TABLE shipments ADD COLUMN member_ids BLOB NOT NULL DEFAULT x'';

UPDATE shipments SET member_ids = COALESCE((
    SELECT unhex(group_concat(hex(c.id), '' ORDER BY c.number, c.id))
    FROM containers c
    WHERE c.account_id = shipments.account_id AND c.shipment_id = shipments.id
), x'');
