-- Nothing changes on SQLite: AIS positions' times are integer milliseconds since
-- 1970-01-01T00:00:00Z (UTC) since migration 34, SQLite's native form of a time in this
-- store. The PostgreSQL migration of the same name makes them `timestamptz` there. (sqlx
-- runs each backend's migrations by number; this one keeps the numbers of both alike.)
SELECT 1;
