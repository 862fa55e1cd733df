-- Each shipment's container ids, stored with the shipment (issue 16, "relationship ids come
-- from an index, not from event bodies"): the 16 bytes of each container id (RFC 9562 byte
-- order) one after the other, in container number order, then id, as the `containers`
-- relationship of a `/v2` shipment and GraphQL's `Shipment.containers` list them. A page of
-- 30 shipments read them through a subquery per shipment on `containers_shipment` before:
-- 30 index descents and a heap visit per container (the visibility map is not kept without
-- autovacuum), about 0.12 ms of the server's time a page at 100,000 containers.
--
-- The derivation writes the value with the shipment (`Store::upsert_derived`): a shipment is
-- always derived from its whole connected history, so its derived containers are all of its
-- containers. The rows stored before are filled here from `containers`, in the order the
-- derivation writes: the numbers' bytes (collation "C", whatever the database's), then id.
ALTER TABLE shipments ADD COLUMN member_ids BYTEA NOT NULL DEFAULT ''::bytea;

UPDATE shipments s SET member_ids = m.ids
FROM (
    SELECT account_id, shipment_id, string_agg(id, ''::bytea ORDER BY number COLLATE "C", id) AS ids
    FROM containers GROUP BY account_id, shipment_id
) m
WHERE m.account_id = s.account_id AND m.shipment_id = s.id;
