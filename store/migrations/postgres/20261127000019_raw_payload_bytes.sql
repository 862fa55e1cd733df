-- Raw carrier payloads are stored compressed: one zstd frame per payload, made with a bundled
-- dictionary (teu_store::payloads; issue 16, "raw carrier payloads compressed"). The column
-- becomes bytes; the rows already stored keep their text as UTF-8 bytes, which the reader tells
-- from a zstd frame by the frame's magic number.
ALTER TABLE raw_events ALTER COLUMN payload TYPE BYTEA USING convert_to(payload, 'UTF8');
