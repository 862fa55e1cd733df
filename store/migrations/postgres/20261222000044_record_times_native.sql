-- The last times of the derived records and of kept leg tracks in their native form (issue
-- 16, "times as timestamptz"), as `created_at` and `refreshed_at` are since migration 38: a
-- container's `pickup_lfd` (the last free day's instant) and `filters_at`, a shipment's
-- `pod_eta_at`, `user_stopped_at` and `filters_at`, a leg track's `started_at` and
-- `ended_at`. `ts` wrote them as RFC 3339 text to the millisecond, which `timestamptz`
-- keeps exactly; `NULL` stays `NULL`. (PostgreSQL has no `updates` table: LISTEN/NOTIFY.)
--
-- The indexes on these columns (`containers_lfd`, `shipments_pod_eta`, the partial
-- `*_filters_unfilled`) are rebuilt by the type change itself.
ALTER TABLE containers
    ALTER COLUMN pickup_lfd TYPE TIMESTAMPTZ USING pickup_lfd::timestamptz,
    ALTER COLUMN filters_at TYPE TIMESTAMPTZ USING filters_at::timestamptz;

ALTER TABLE shipments
    ALTER COLUMN pod_eta_at TYPE TIMESTAMPTZ USING pod_eta_at::timestamptz,
    ALTER COLUMN user_stopped_at TYPE TIMESTAMPTZ USING user_stopped_at::timestamptz,
    ALTER COLUMN filters_at TYPE TIMESTAMPTZ USING filters_at::timestamptz;

-- A leg still under way had `ended_at` '' (a primary key column cannot be NULL); it is NULL
-- now, and each kind of leg has its own unique index in place of the primary key: an ended
-- leg by vessel, start and end, a leg under way by vessel and start.
ALTER TABLE leg_tracks DROP CONSTRAINT leg_tracks_pkey;
ALTER TABLE leg_tracks ALTER COLUMN ended_at DROP NOT NULL;
ALTER TABLE leg_tracks
    ALTER COLUMN started_at TYPE TIMESTAMPTZ USING started_at::timestamptz,
    ALTER COLUMN ended_at TYPE TIMESTAMPTZ USING NULLIF(ended_at, '')::timestamptz;
CREATE UNIQUE INDEX leg_tracks_ended ON leg_tracks (imo, started_at, ended_at)
    WHERE ended_at IS NOT NULL;
CREATE UNIQUE INDEX leg_tracks_under_way ON leg_tracks (imo, started_at) WHERE ended_at IS NULL;

-- A type change removes the column's statistics (migration 38 says why that matters).
ANALYZE containers;
ANALYZE shipments;
ANALYZE leg_tracks;
