-- The last times of the derived records, of kept leg tracks and of change notifications in
-- their native form (issue 16, "times as integer milliseconds"), as `created_at` and
-- `refreshed_at` are since migration 38: a container's `pickup_lfd` (the last free day's
-- instant) and `filters_at`, a shipment's `pod_eta_at`, `user_stopped_at` and `filters_at`,
-- a leg track's `started_at` and `ended_at`, and `updates.created_at`, each as milliseconds
-- since 1970-01-01T00:00:00Z (UTC). `ts` wrote them as RFC 3339 text to the millisecond, so
-- `unixepoch(…, 'subsec')` (SQLite 3.42) loses nothing; `NULL` stays `NULL`.
--
-- `containers` and `shipments` are built again, as migration 38 built them (SQLite changes a
-- column's type no other way), with their indexes and the counting triggers of migrations 38
-- and 43. The column order is migration 38's, then migration 40's `member_ids`.
CREATE TABLE containers_native (
    id              BLOB NOT NULL PRIMARY KEY,   -- 16 bytes
    account_id      BLOB NOT NULL,               -- 16 bytes
    shipment_id     BLOB NOT NULL,               -- 16 bytes
    number          TEXT NOT NULL,
    current_status  TEXT NOT NULL,
    pod_locode      TEXT,
    created_at      INTEGER NOT NULL,            -- ms since the epoch, UTC
    refreshed_at    INTEGER NOT NULL,            -- ms since the epoch, UTC
    content_hash    TEXT NOT NULL,
    body            BLOB NOT NULL,               -- a zstd frame (migration 32) or older JSON text
    pickup_lfd      INTEGER,                     -- ms since the epoch, UTC
    has_holds       BIGINT,
    filters_at      INTEGER,                     -- ms since the epoch, UTC; NULL: not filled
    event_links     BLOB
);
INSERT INTO containers_native
    (id, account_id, shipment_id, number, current_status, pod_locode, created_at, refreshed_at,
     content_hash, body, pickup_lfd, has_holds, filters_at, event_links)
SELECT id, account_id, shipment_id, number, current_status, pod_locode, created_at,
       refreshed_at, content_hash, body,
       CAST(round(unixepoch(pickup_lfd, 'subsec') * 1000) AS INTEGER), has_holds,
       CAST(round(unixepoch(filters_at, 'subsec') * 1000) AS INTEGER), event_links
FROM containers;
-- Dropping the table drops its indexes and triggers; they are made again below.
DROP TABLE containers;
ALTER TABLE containers_native RENAME TO containers;
CREATE INDEX containers_list ON containers (account_id, refreshed_at DESC, created_at DESC, id DESC);
CREATE INDEX containers_number ON containers (account_id, number);
CREATE INDEX containers_status ON containers (account_id, current_status);
CREATE INDEX containers_lfd ON containers (account_id, pickup_lfd);
CREATE INDEX containers_holds ON containers (account_id, has_holds);
CREATE INDEX containers_filters_unfilled ON containers (id) WHERE filters_at IS NULL;
CREATE INDEX containers_shipment ON containers (account_id, shipment_id, number, id);
CREATE TRIGGER containers_count_insert AFTER INSERT ON containers BEGIN
    INSERT INTO account_counts (account_id)
        SELECT NEW.account_id
        WHERE NOT EXISTS (SELECT 1 FROM account_counts WHERE account_id = NEW.account_id);
    UPDATE account_counts SET containers = containers + 1 WHERE account_id = NEW.account_id;
END;
CREATE TRIGGER containers_count_delete AFTER DELETE ON containers BEGIN
    UPDATE account_counts SET containers = containers - 1 WHERE account_id = OLD.account_id;
END;

CREATE TABLE shipments_native (
    id                     BLOB NOT NULL PRIMARY KEY,   -- 16 bytes
    account_id             BLOB NOT NULL,               -- 16 bytes
    bill_of_lading_number  TEXT NOT NULL,
    tags                   TEXT NOT NULL DEFAULT '[]',
    created_at             INTEGER NOT NULL,            -- ms since the epoch, UTC
    refreshed_at           INTEGER NOT NULL,            -- ms since the epoch, UTC
    content_hash           TEXT NOT NULL,
    body                   BLOB NOT NULL,
    pol_locode             TEXT,
    pod_locode             TEXT,
    shipping_line_scac     TEXT,
    pod_eta_at             INTEGER,                     -- ms since the epoch, UTC
    filters_at             INTEGER,                     -- ms since the epoch, UTC; NULL: not filled
    user_stopped_at        INTEGER,                     -- ms since the epoch, UTC
    user_ref_numbers       TEXT,
    line_tracking_stopped  BIGINT NOT NULL DEFAULT 0,
    member_ids             BLOB NOT NULL DEFAULT x''    -- migration 40
);
INSERT INTO shipments_native
    (id, account_id, bill_of_lading_number, tags, created_at, refreshed_at, content_hash, body,
     pol_locode, pod_locode, shipping_line_scac, pod_eta_at, filters_at, user_stopped_at,
     user_ref_numbers, line_tracking_stopped, member_ids)
SELECT id, account_id, bill_of_lading_number, tags, created_at, refreshed_at, content_hash, body,
       pol_locode, pod_locode, shipping_line_scac,
       CAST(round(unixepoch(pod_eta_at, 'subsec') * 1000) AS INTEGER),
       CAST(round(unixepoch(filters_at, 'subsec') * 1000) AS INTEGER),
       CAST(round(unixepoch(user_stopped_at, 'subsec') * 1000) AS INTEGER),
       user_ref_numbers, line_tracking_stopped, member_ids
FROM shipments;
DROP TABLE shipments;
ALTER TABLE shipments_native RENAME TO shipments;
CREATE INDEX shipments_list ON shipments (account_id, refreshed_at DESC, created_at DESC, id DESC);
CREATE INDEX shipments_number ON shipments (account_id, bill_of_lading_number);
CREATE INDEX shipments_pol ON shipments (account_id, pol_locode);
CREATE INDEX shipments_pod ON shipments (account_id, pod_locode);
CREATE INDEX shipments_scac ON shipments (account_id, shipping_line_scac);
CREATE INDEX shipments_pod_eta ON shipments (account_id, pod_eta_at);
CREATE INDEX shipments_filters_unfilled ON shipments (id) WHERE filters_at IS NULL;
CREATE TRIGGER shipments_count_insert AFTER INSERT ON shipments BEGIN
    INSERT INTO account_counts (account_id)
        SELECT NEW.account_id
        WHERE NOT EXISTS (SELECT 1 FROM account_counts WHERE account_id = NEW.account_id);
    UPDATE account_counts SET shipments = shipments + 1 WHERE account_id = NEW.account_id;
END;
CREATE TRIGGER shipments_count_delete AFTER DELETE ON shipments BEGIN
    UPDATE account_counts SET shipments = shipments - 1 WHERE account_id = OLD.account_id;
END;

-- A leg still under way had `ended_at` '' (text sorts '' first and a key column cannot be
-- NULL on PostgreSQL); it is NULL now, and each kind of leg has its own unique index: an
-- ended leg by vessel, start and end, a leg under way by vessel and start (a unique index
-- takes NULLs as distinct, so one index would not make an open leg unique).
CREATE TABLE leg_tracks_native (
    imo         TEXT NOT NULL,
    started_at  INTEGER NOT NULL,   -- ms since the epoch, UTC
    ended_at    INTEGER,            -- ms since the epoch, UTC; NULL: the leg is under way
    version     BIGINT NOT NULL,
    track       TEXT NOT NULL
);
INSERT INTO leg_tracks_native (imo, started_at, ended_at, version, track)
SELECT imo, CAST(round(unixepoch(started_at, 'subsec') * 1000) AS INTEGER),
       CAST(round(unixepoch(NULLIF(ended_at, ''), 'subsec') * 1000) AS INTEGER), version, track
FROM leg_tracks;
DROP TABLE leg_tracks;
ALTER TABLE leg_tracks_native RENAME TO leg_tracks;
CREATE UNIQUE INDEX leg_tracks_ended ON leg_tracks (imo, started_at, ended_at)
    WHERE ended_at IS NOT NULL;
CREATE UNIQUE INDEX leg_tracks_under_way ON leg_tracks (imo, started_at) WHERE ended_at IS NULL;

-- `updates` keeps its rows and its AUTOINCREMENT sequence (a poller's last id must not be
-- handed out again), so its column is replaced in place rather than the table built again.
ALTER TABLE updates ADD COLUMN created_ms INTEGER NOT NULL DEFAULT 0;
UPDATE updates SET created_ms = CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER);
DROP INDEX updates_created_at;
ALTER TABLE updates DROP COLUMN created_at;
ALTER TABLE updates RENAME COLUMN created_ms TO created_at;
CREATE INDEX updates_created_at ON updates (created_at);
