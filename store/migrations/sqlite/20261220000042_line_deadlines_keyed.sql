-- Line deadlines keyed by what names them (issue 16, "Bulk writes"; the seventy-second
-- session's lead 1, docs/NOTES.md), as migration 41 keyed terminal checks: the table's rows
-- live in the B-tree of `(account_id, deadline_key, id)` (`WITHOUT ROWID`, SQLite manual,
-- "The WITHOUT ROWID Optimization"), and that key is the upsert's conflict target.
--
-- `deadline_key` is the deadline's container number, else its bill of lading, else the empty
-- text: the value its `id` is made of (UUID v5 of the account, that value, `issued_at` and the
-- line's pickup LFD, `teu_domain::ids::scoped`), so the key is one to one with `id`.
--
-- Since migration 39 a deadline was a row of a rowid table with three indexes. Two were
-- written at random places by every insert: the primary key on `id` and
-- `line_deadlines_bill_of_lading` (every simulated deadline is a bill of lading's, with no
-- container number). Now an insert writes one B-tree, and both reads of `Store::terminal_facts`
-- (a container's deadlines by number, a bill of lading's where no container is named) read a
-- prefix of its key. `container_number` and `bill_of_lading` stay columns, as on PostgreSQL.
CREATE TABLE line_deadlines_keyed (
    account_id        BLOB NOT NULL,               -- 16 bytes
    deadline_key      TEXT NOT NULL,               -- container_number, else bill_of_lading, else ''
    id                BLOB NOT NULL,               -- 16 bytes: UUID v5 of account, deadline_key, issued_at, LFD
    container_number  TEXT,
    bill_of_lading    TEXT,
    issued_at         INTEGER NOT NULL,            -- ms since the epoch, UTC
    source_file       TEXT NOT NULL,
    source_index      BIGINT NOT NULL,
    raw               BLOB NOT NULL,
    body              BLOB NOT NULL,
    PRIMARY KEY (account_id, deadline_key, id)
) WITHOUT ROWID;
INSERT INTO line_deadlines_keyed
    (account_id, deadline_key, id, container_number, bill_of_lading, issued_at, source_file,
     source_index, raw, body)
SELECT account_id, coalesce(container_number, bill_of_lading, ''), id, container_number,
       bill_of_lading, issued_at, source_file, source_index, raw, body
FROM line_deadlines;
-- Dropping the table drops `line_deadlines_container` and `line_deadlines_bill_of_lading`,
-- whose work the key's prefix does.
DROP TABLE line_deadlines;
ALTER TABLE line_deadlines_keyed RENAME TO line_deadlines;
