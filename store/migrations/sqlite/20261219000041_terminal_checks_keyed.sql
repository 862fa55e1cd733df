-- Terminal checks keyed by what they are (issue 16, "Bulk writes"; the seventy-first session's
-- lead 2, docs/NOTES.md): the table's rows live in the B-tree of their natural key
-- `(account_id, container_number, terminal_id, checked_at)` (`WITHOUT ROWID`, SQLite manual,
-- "The WITHOUT ROWID Optimization"), and that key is the upsert's conflict target.
--
-- Since migration 39 a check was a row of a rowid table with two indexes written at random
-- places by every insert: the primary key on `id` and `terminal_checks_container`. `id` is
-- UUID v5 of the account, terminal, container number and `checked_at` at millisecond text
-- (`teu_domain::ids::scoped`), and `checked_at` is stored in milliseconds, so the natural key
-- names the same check as `id` does. Now an insert writes one B-tree; the reads of an
-- account's checks by container number (`Store::terminal_facts`) read the key's prefix, and a
-- container's checks sit together in it. At the SQLite million a check cost 73 µs to store
-- against 17 µs a DCSA event, and dropping `terminal_checks_container` alone halved it (one
-- try, docs/NOTES.md, "Seventy-first session").
--
-- `id` stays a column (what messages name a check by, and what PostgreSQL keys it by).
-- Should two stored rows share a natural key (ids made otherwise by an older build), the one
-- written last is kept, as a second ingest of the same check would keep it.
CREATE TABLE terminal_checks_keyed (
    account_id        BLOB NOT NULL,               -- 16 bytes
    container_number  TEXT NOT NULL,
    terminal_id       BLOB NOT NULL,               -- 16 bytes
    checked_at        INTEGER NOT NULL,            -- ms since the epoch, UTC
    id                BLOB NOT NULL,               -- 16 bytes: UUID v5 of account, terminal, container, checked_at
    terminal_locode   TEXT NOT NULL,
    source_file       TEXT NOT NULL,
    source_index      BIGINT NOT NULL,
    raw               BLOB NOT NULL,
    body              BLOB NOT NULL,
    PRIMARY KEY (account_id, container_number, terminal_id, checked_at)
) WITHOUT ROWID;
-- `WHERE true`: an `INSERT … SELECT` with an upsert clause needs a `WHERE` (SQLite manual,
-- "UPSERT", parsing ambiguity). Rows in the order they were written, so the last one wins.
INSERT INTO terminal_checks_keyed
    (account_id, container_number, terminal_id, checked_at, id, terminal_locode, source_file,
     source_index, raw, body)
SELECT account_id, container_number, terminal_id, checked_at, id, terminal_locode, source_file,
       source_index, raw, body
FROM terminal_checks WHERE true ORDER BY rowid
ON CONFLICT (account_id, container_number, terminal_id, checked_at) DO UPDATE SET
    id = excluded.id, terminal_locode = excluded.terminal_locode,
    source_file = excluded.source_file, source_index = excluded.source_index,
    raw = excluded.raw, body = excluded.body;
-- Dropping the table drops `terminal_checks_container`, whose work the key's prefix does.
DROP TABLE terminal_checks;
ALTER TABLE terminal_checks_keyed RENAME TO terminal_checks;
