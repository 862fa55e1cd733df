-- Derived records and terminal facts compressed (issue 16, "compact storage"). At 5,000
-- simulated containers `containers.body` and `shipments.body` held the derived record as JSON,
-- about 1,560 and 1,250 bytes a row (the containers table was 19.8 MB, its bodies 7.8 MB), and
-- `terminal_checks` kept each check's original row (190 bytes) beside its reading as JSON
-- (350). New and rewritten rows store these values as zstd frames made with a dictionary per
-- table (`teu_store::payloads::CONTAINER_BODIES`, `SHIPMENT_BODIES`, `TERMINAL_CHECKS`,
-- `LINE_DEADLINES`): about a seventh of a record's text. As with the event bodies of
-- migration 23, the columns keep their TEXT declaration (a BLOB stays a BLOB in a
-- TEXT-affinity column), readers tell a frame from the text of rows written before by the
-- zstd magic number, and existing rows are not rewritten: a row is compressed when its content
-- next changes.
--
-- One reader of a body in SQL needs a column instead, since SQL cannot decompress: the
-- `trackingStopped` filter asked whether the derived body names a `line_tracking_stopped_at`.
-- That is now `line_tracking_stopped` (0 or 1), written with the row; rows written before are
-- filled here from their JSON. (Carrier inference's history read `shipping_line_scac` from the
-- body; it reads the filter column of migration 9 now.)
ALTER TABLE shipments ADD COLUMN line_tracking_stopped BIGINT NOT NULL DEFAULT 0;
UPDATE shipments SET line_tracking_stopped = 1
WHERE json_valid(body) AND json_type(body, '$.line_tracking_stopped_at') = 'text';
