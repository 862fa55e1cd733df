-- Terminal availability checks and shipping-line deadlines in their native form (issue 16,
-- "UUIDs as uuid/16-byte BLOB, times as timestamptz"), as the derived records are since
-- migration 38: the ids of `terminal_checks` (its own, its account's, its terminal's) and of
-- `line_deadlines` (its own, its account's) as their 16 bytes (RFC 9562 byte order), a
-- check's `checked_at` and a deadline's `issued_at` as `timestamptz`. As text an id was 36
-- bytes and a time 24, each compared by collation in the primary key and the account's
-- index, for every row a terminal feed writes. The times were written by `ts` to the
-- millisecond, which `timestamptz` keeps exactly.
--
-- The account's foreign keys go with the type change, as on the event and derived tables:
-- the column no longer has the type of `accounts.id`, and every writer names an account the
-- API key or the command line resolved (one lookup of `accounts` per inserted row saved).
ALTER TABLE terminal_checks DROP CONSTRAINT IF EXISTS terminal_checks_account_id_fkey;
ALTER TABLE line_deadlines DROP CONSTRAINT IF EXISTS line_deadlines_account_id_fkey;

ALTER TABLE terminal_checks
    ALTER COLUMN id TYPE BYTEA USING decode(replace(id, '-', ''), 'hex'),
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex'),
    ALTER COLUMN terminal_id TYPE BYTEA USING decode(replace(terminal_id, '-', ''), 'hex'),
    ALTER COLUMN checked_at TYPE TIMESTAMPTZ USING checked_at::timestamptz;

ALTER TABLE line_deadlines
    ALTER COLUMN id TYPE BYTEA USING decode(replace(id, '-', ''), 'hex'),
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex'),
    ALTER COLUMN issued_at TYPE TIMESTAMPTZ USING issued_at::timestamptz;

-- A type change removes the column's statistics (migration 38 says why that matters).
ANALYZE terminal_checks;
ANALYZE line_deadlines;
