-- Change notifications on SQLite (`teu_pipeline::notify`): an ingest appends what it changed
-- (JSON, one row per chunk of ids); every `teu serve` process polls for rows after the last
-- id it saw. AUTOINCREMENT so that an id is never reused after old rows are deleted.
-- PostgreSQL uses LISTEN/NOTIFY instead and has no such table.

CREATE TABLE updates (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at  TEXT NOT NULL,
    payload     TEXT NOT NULL
);
CREATE INDEX updates_created_at ON updates (created_at);
