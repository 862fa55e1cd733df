-- Raw carrier payloads are stored compressed: one zstd frame per payload, made with a bundled
-- dictionary (teu_store::payloads; issue 16, "raw carrier payloads compressed"). SQLite keeps a
-- BLOB as it is in a TEXT-affinity column, so `raw_events.payload` keeps its declaration: new
-- rows hold BLOBs, rows already stored keep their TEXT, and the reader casts both to bytes and
-- tells a zstd frame from text by the frame's magic number. This migration changes no table;
-- it marks the version from which payloads are compressed.
SELECT 1;
