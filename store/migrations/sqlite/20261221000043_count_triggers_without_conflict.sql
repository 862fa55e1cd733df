-- The triggers that count an account's containers and shipments (migration 14, made again by
-- migration 38) added the account's `account_counts` row by `INSERT OR IGNORE`. A statement
-- that names a conflict rule (`INSERT OR FAIL`) imposes it on the statements of the triggers it
-- fires (SQLite manual, "CREATE TRIGGER"), and the writer now inserts new containers and
-- shipments with `OR FAIL`, which spares SQLite a statement journal (store/src/lib.rs,
-- `Store::insert_new`): the `IGNORE` would turn into `FAIL` and refuse every row after an
-- account's first. The row is now added only when it is missing, which meets no conflict
-- under any rule. The counts are unchanged.
DROP TRIGGER containers_count_insert;
CREATE TRIGGER containers_count_insert AFTER INSERT ON containers BEGIN
    INSERT INTO account_counts (account_id)
        SELECT NEW.account_id
        WHERE NOT EXISTS (SELECT 1 FROM account_counts WHERE account_id = NEW.account_id);
    UPDATE account_counts SET containers = containers + 1 WHERE account_id = NEW.account_id;
END;
DROP TRIGGER shipments_count_insert;
CREATE TRIGGER shipments_count_insert AFTER INSERT ON shipments BEGIN
    INSERT INTO account_counts (account_id)
        SELECT NEW.account_id
        WHERE NOT EXISTS (SELECT 1 FROM account_counts WHERE account_id = NEW.account_id);
    UPDATE account_counts SET shipments = shipments + 1 WHERE account_id = NEW.account_id;
END;
