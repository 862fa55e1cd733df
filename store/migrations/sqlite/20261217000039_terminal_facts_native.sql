-- Terminal availability checks and shipping-line deadlines in their native form (issue 16,
-- "UUIDs as 16-byte BLOB, times as integer milliseconds"), as the derived records are since
-- migration 38: the ids of `terminal_checks` (its own, its account's, its terminal's) and of
-- `line_deadlines` (its own, its account's) as their 16 bytes (RFC 9562 byte order), a
-- check's `checked_at` and a deadline's `issued_at` as milliseconds since
-- 1970-01-01T00:00:00Z (UTC), the precision `ts` wrote them in, so the conversion loses
-- nothing. The PostgreSQL migration of the same name says why.
--
-- Each table is built again: SQLite changes a column's type no other way. The account's
-- foreign key is left out (the column no longer has the type of `accounts.id`). `raw` and
-- `body`, zstd frames since migration 32 (or the text of rows written before it), are
-- declared BLOB now; a BLOB column keeps older text as text, which readers tell apart.
CREATE TABLE terminal_checks_native (
    id                BLOB NOT NULL PRIMARY KEY,   -- 16 bytes: UUID v5 of account, terminal, container, checked_at
    account_id        BLOB NOT NULL,               -- 16 bytes
    container_number  TEXT NOT NULL,
    terminal_id       BLOB NOT NULL,               -- 16 bytes
    terminal_locode   TEXT NOT NULL,
    checked_at        INTEGER NOT NULL,            -- ms since the epoch, UTC
    source_file       TEXT NOT NULL,
    source_index      BIGINT NOT NULL,
    raw               BLOB NOT NULL,
    body              BLOB NOT NULL
);
INSERT INTO terminal_checks_native
    (id, account_id, container_number, terminal_id, terminal_locode, checked_at, source_file,
     source_index, raw, body)
SELECT unhex(replace(id, '-', '')), unhex(replace(account_id, '-', '')), container_number,
       unhex(replace(terminal_id, '-', '')), terminal_locode,
       CAST(round(unixepoch(checked_at, 'subsec') * 1000) AS INTEGER),
       source_file, source_index, raw, body
FROM terminal_checks;
-- Dropping the table drops its index; it is made again below.
DROP TABLE terminal_checks;
ALTER TABLE terminal_checks_native RENAME TO terminal_checks;
CREATE INDEX terminal_checks_container ON terminal_checks (account_id, container_number);

CREATE TABLE line_deadlines_native (
    id                BLOB NOT NULL PRIMARY KEY,   -- 16 bytes: UUID v5 of account, container or bill of lading, issued_at
    account_id        BLOB NOT NULL,               -- 16 bytes
    container_number  TEXT,
    bill_of_lading    TEXT,
    issued_at         INTEGER NOT NULL,            -- ms since the epoch, UTC
    source_file       TEXT NOT NULL,
    source_index      BIGINT NOT NULL,
    raw               BLOB NOT NULL,
    body              BLOB NOT NULL
);
INSERT INTO line_deadlines_native
    (id, account_id, container_number, bill_of_lading, issued_at, source_file, source_index,
     raw, body)
SELECT unhex(replace(id, '-', '')), unhex(replace(account_id, '-', '')), container_number,
       bill_of_lading, CAST(round(unixepoch(issued_at, 'subsec') * 1000) AS INTEGER),
       source_file, source_index, raw, body
FROM line_deadlines;
DROP TABLE line_deadlines;
ALTER TABLE line_deadlines_native RENAME TO line_deadlines;
CREATE INDEX line_deadlines_container ON line_deadlines (account_id, container_number);
CREATE INDEX line_deadlines_bill_of_lading ON line_deadlines (account_id, bill_of_lading);
