-- AIS positions' times as `timestamptz` (issue 16, "times as timestamptz"), as every other
-- time on PostgreSQL is since migration 49. Migration 34 made them integer milliseconds
-- since 1970-01-01T00:00:00Z (UTC) on both backends, so that one statement read them alike;
-- the store now binds and reads a time in each backend's own form (`db::RecordTime`), so
-- SQLite keeps its integers and PostgreSQL gets its type. The conversion adds the
-- milliseconds to the epoch as an interval (PostgreSQL multiplies the interval by the count
-- as a double, exact for every count of microseconds below 2^53, some 285 years either side
-- of 1970). The primary key
-- (`vessel_key`, `observed_at`) and the index by IMO are rebuilt by the change itself.
ALTER TABLE vessel_positions
    ALTER COLUMN observed_at TYPE TIMESTAMPTZ
        USING TIMESTAMPTZ '1970-01-01 00:00:00+00' + observed_at * INTERVAL '1 millisecond';
ANALYZE vessel_positions;
