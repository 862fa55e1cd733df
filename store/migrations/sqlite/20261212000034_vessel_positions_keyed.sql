-- AIS positions keyed by what identifies a report (issue 16: "AIS positions ≥ 200,000 rows/s",
-- "times as integer milliseconds", "no field stored twice"). Until now a position's row had a
-- random UUID v5 of (vessel_key, observed_at) as its primary key, the time as RFC 3339 text,
-- the MMSI twice (in `mmsi` and `vessel_key`), its source file and row, and three indexes
-- besides the key's: about 400 bytes a position, and every insert landed on a random leaf of
-- the id index, a B-tree far larger than SQLite's page cache (61,000 positions/s over the
-- 3,076,946 positions of the 5,000-container page feed).
--
-- Now the key is (vessel_key, observed_at) itself, the table `WITHOUT ROWID`, so a position is
-- one row in one B-tree, and a file's positions (read sorted by vessel and time,
-- `teu_feeds::ais::AisBatch`) go in along each vessel's run of it. `observed_at` is integer
-- milliseconds since 1970-01-01 UTC. `mmsi` is gone: `vessel_key` is the MMSI when the report
-- had one, else the anonymised track's `<file stem>:<id>`, which is never nine digits.
-- `source_file` and `source_index` are gone: nothing read them (quarantined rows keep theirs).
-- The one index left serves a vessel's positions by IMO number; by MMSI they are the key's.
CREATE TABLE vessel_positions_keyed (
    vessel_key   TEXT NOT NULL,     -- MMSI, or <file stem>:<id> for anonymised tracks
    observed_at  INTEGER NOT NULL,  -- milliseconds since 1970-01-01 UTC
    imo          TEXT,              -- 7 digits, without the IMO prefix
    vessel_name  TEXT,
    latitude     REAL NOT NULL,     -- degrees WGS84
    longitude    REAL NOT NULL,
    speed_knots  REAL,              -- SOG, knots; NULL = not available
    course_deg   REAL,              -- COG, degrees; NULL = not available (360)
    heading_deg  REAL,              -- degrees; NULL = not available (511)
    PRIMARY KEY (vessel_key, observed_at)
) WITHOUT ROWID;
-- Rows of one report (one id) are one row already; `OR IGNORE` keeps the first of any two
-- whose text times name the same millisecond.
INSERT OR IGNORE INTO vessel_positions_keyed (vessel_key, observed_at, imo, vessel_name,
    latitude, longitude, speed_knots, course_deg, heading_deg)
SELECT vessel_key, CAST(ROUND(unixepoch(observed_at, 'subsec') * 1000) AS INTEGER), imo,
    vessel_name, latitude, longitude, speed_knots, course_deg, heading_deg
FROM vessel_positions ORDER BY vessel_key, observed_at;
DROP TABLE vessel_positions;
ALTER TABLE vessel_positions_keyed RENAME TO vessel_positions;
CREATE INDEX vessel_positions_imo ON vessel_positions (imo, observed_at) WHERE imo IS NOT NULL;
