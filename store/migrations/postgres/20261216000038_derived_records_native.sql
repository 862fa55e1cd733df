-- Derived containers and shipments in their native form (issue 16, "UUIDs as uuid/16-byte
-- BLOB, times as timestamptz"), as the event tables are since migration 28: the ids of
-- `containers` (its own, its account's, its shipment's) and `shipments` (its own, its
-- account's) as their 16 bytes (RFC 9562 byte order), their `created_at` and `refreshed_at`
-- as `timestamptz`. As text an id was 36 bytes and a time 24, compared by collation in each
-- table's eight indexes; `containers_list` alone (account, refreshed_at, created_at, id) held
-- about 124 bytes of key a row, now about 50.
-- `account_counts` and `shipment_tags` name the same accounts and shipments in the same
-- statements (a page's total, the tag filter), so their ids change with them.
--
-- The times were written by `ts` to the millisecond, which `timestamptz` keeps exactly. The
-- other times of these tables (`pod_eta_at`, `pickup_lfd`, `filters_at`, `user_stopped_at`)
-- stay RFC 3339 text for now, as does every id of the tables that keep ids as text
-- (`tracking_requests.shipment_id` among them: `Store::link_tracking_requests` prints a
-- shipment's id as that text).
--
-- The account's foreign keys go with the type change (as on the event tables): the column
-- no longer has the type of `accounts.id`, and every writer names an account the API key or
-- the command line resolved. They cost PostgreSQL one lookup of `accounts` per inserted row.
ALTER TABLE containers DROP CONSTRAINT IF EXISTS containers_account_id_fkey;
ALTER TABLE shipments DROP CONSTRAINT IF EXISTS shipments_account_id_fkey;

ALTER TABLE containers
    ALTER COLUMN id TYPE BYTEA USING decode(replace(id, '-', ''), 'hex'),
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex'),
    ALTER COLUMN shipment_id TYPE BYTEA USING decode(replace(shipment_id, '-', ''), 'hex'),
    ALTER COLUMN created_at TYPE TIMESTAMPTZ USING created_at::timestamptz,
    ALTER COLUMN refreshed_at TYPE TIMESTAMPTZ USING refreshed_at::timestamptz;

ALTER TABLE shipments
    ALTER COLUMN id TYPE BYTEA USING decode(replace(id, '-', ''), 'hex'),
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex'),
    ALTER COLUMN created_at TYPE TIMESTAMPTZ USING created_at::timestamptz,
    ALTER COLUMN refreshed_at TYPE TIMESTAMPTZ USING refreshed_at::timestamptz;

ALTER TABLE account_counts
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex');

ALTER TABLE shipment_tags
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex'),
    ALTER COLUMN shipment_id TYPE BYTEA USING decode(replace(shipment_id, '-', ''), 'hex');

-- Changing a column's type removes its statistics (PostgreSQL manual, "ALTER TABLE", SET DATA
-- TYPE, which recommends an ANALYZE after it), and the rewrite is not a change that
-- `Store::optimize` counts. Without statistics the planner guessed 25 rows for the account: on
-- the seed-8 5,000-container database it read the whole account through `containers_holds` and
-- sorted it for a page of 30 (10 ms, against 0.3 ms through `containers_list`).
ANALYZE containers;
ANALYZE shipments;
ANALYZE shipment_tags;
ANALYZE account_counts;
