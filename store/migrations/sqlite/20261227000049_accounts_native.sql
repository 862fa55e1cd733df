-- Accounts, their API keys and inbound addresses in their native form (issue 16, "UUIDs as
-- 16-byte BLOB, times as integer milliseconds"), the last tables to keep ids and times as
-- text: an account's id as its 16 bytes (RFC 9562 byte order), as every other table names
-- it since migrations 28 to 48, and the three tables' `created_at` as milliseconds since
-- 1970-01-01T00:00:00Z (UTC). `Uuid::to_string` and `ts` wrote them as text (times to the
-- millisecond), so the conversion loses nothing. A key is kept as the SHA-256 of its text
-- (hex), an address as its text: names, not UUIDs.
--
-- Each table is built again (SQLite changes a column's type no other way). The keys and
-- addresses keep their foreign key to `accounts`, now of the same type. Since migrations 45
-- to 48 no other table references `accounts`, so the old table can be dropped once the new
-- keys and addresses (which reference the new table) replace the old ones; renaming the new
-- table renames the references to it (SQLite 3.26 and later).
CREATE TABLE accounts_native (
    id            BLOB NOT NULL PRIMARY KEY,   -- 16 bytes
    name          TEXT NOT NULL UNIQUE,
    company_name  TEXT NOT NULL,
    routing_data  BIGINT NOT NULL DEFAULT 0,   -- 0 or 1
    created_at    INTEGER NOT NULL             -- ms since the epoch, UTC
);
INSERT INTO accounts_native (id, name, company_name, routing_data, created_at)
SELECT unhex(replace(id, '-', '')), name, company_name, routing_data,
       CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER)
FROM accounts;

CREATE TABLE api_keys_native (
    key_hash    TEXT PRIMARY KEY,                                    -- SHA-256 hex of the key
    account_id  BLOB NOT NULL REFERENCES accounts_native (id),       -- 16 bytes
    created_at  INTEGER NOT NULL                                     -- ms since the epoch, UTC
);
INSERT INTO api_keys_native (key_hash, account_id, created_at)
SELECT key_hash, unhex(replace(account_id, '-', '')),
       CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER)
FROM api_keys;

CREATE TABLE inbound_addresses_native (
    address     TEXT PRIMARY KEY,                                    -- lower-case
    account_id  BLOB NOT NULL REFERENCES accounts_native (id),       -- 16 bytes
    created_at  INTEGER NOT NULL                                     -- ms since the epoch, UTC
);
INSERT INTO inbound_addresses_native (address, account_id, created_at)
SELECT address, unhex(replace(account_id, '-', '')),
       CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER)
FROM inbound_addresses;

DROP TABLE api_keys;
DROP TABLE inbound_addresses;
DROP TABLE accounts;
ALTER TABLE accounts_native RENAME TO accounts;
ALTER TABLE api_keys_native RENAME TO api_keys;
ALTER TABLE inbound_addresses_native RENAME TO inbound_addresses;
CREATE INDEX inbound_addresses_account ON inbound_addresses (account_id);
