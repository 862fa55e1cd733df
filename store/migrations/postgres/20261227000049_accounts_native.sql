-- Accounts, their API keys and inbound addresses in their native form (issue 16, "UUIDs as
-- uuid/16-byte BLOB, times as timestamptz"), the last tables to keep ids and times as text:
-- an account's id as its 16 bytes (`BYTEA`, RFC 9562 byte order), as every other table
-- names it since migrations 28 to 48, and the three tables' `created_at` as `timestamptz`.
-- `Uuid::to_string` and `ts` wrote them as text (times to the millisecond), so the
-- conversion loses nothing. A key is kept as the SHA-256 of its text (hex), an address as
-- its text: names, not UUIDs. The keys and addresses keep their foreign key to `accounts`:
-- dropped for the change and made again between columns of the same type.
ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_account_id_fkey;
ALTER TABLE inbound_addresses DROP CONSTRAINT IF EXISTS inbound_addresses_account_id_fkey;

ALTER TABLE accounts
    ALTER COLUMN id TYPE BYTEA USING decode(replace(id, '-', ''), 'hex'),
    ALTER COLUMN created_at TYPE TIMESTAMPTZ USING created_at::timestamptz;
ALTER TABLE api_keys
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex'),
    ALTER COLUMN created_at TYPE TIMESTAMPTZ USING created_at::timestamptz;
ALTER TABLE inbound_addresses
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex'),
    ALTER COLUMN created_at TYPE TIMESTAMPTZ USING created_at::timestamptz;

ALTER TABLE api_keys ADD CONSTRAINT api_keys_account_id_fkey
    FOREIGN KEY (account_id) REFERENCES accounts (id);
ALTER TABLE inbound_addresses ADD CONSTRAINT inbound_addresses_account_id_fkey
    FOREIGN KEY (account_id) REFERENCES accounts (id);

ANALYZE accounts;
ANALYZE api_keys;
ANALYZE inbound_addresses;
