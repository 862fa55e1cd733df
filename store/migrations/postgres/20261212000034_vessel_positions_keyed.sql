-- AIS positions keyed by what identifies a report; the SQLite migration of the same name says
-- why. Times are integer milliseconds since 1970-01-01 UTC on both backends here: positions
-- are read through the shared statements of `Store::vessel_positions`, which compare and
-- return them as numbers.
CREATE TABLE vessel_positions_keyed (
    vessel_key   TEXT NOT NULL,              -- MMSI, or <file stem>:<id> for anonymised tracks
    observed_at  BIGINT NOT NULL,            -- milliseconds since 1970-01-01 UTC
    imo          TEXT,                       -- 7 digits, without the IMO prefix
    vessel_name  TEXT,
    latitude     DOUBLE PRECISION NOT NULL,  -- degrees WGS84
    longitude    DOUBLE PRECISION NOT NULL,
    speed_knots  DOUBLE PRECISION,           -- SOG, knots; NULL = not available
    course_deg   DOUBLE PRECISION,           -- COG, degrees; NULL = not available (360)
    heading_deg  DOUBLE PRECISION,           -- degrees; NULL = not available (511)
    PRIMARY KEY (vessel_key, observed_at)
);
INSERT INTO vessel_positions_keyed (vessel_key, observed_at, imo, vessel_name, latitude,
    longitude, speed_knots, course_deg, heading_deg)
SELECT vessel_key, round(extract(epoch FROM observed_at::timestamptz) * 1000)::bigint, imo,
    vessel_name, latitude, longitude, speed_knots, course_deg, heading_deg
FROM vessel_positions ORDER BY vessel_key, observed_at
ON CONFLICT DO NOTHING;
DROP TABLE vessel_positions;
ALTER TABLE vessel_positions_keyed RENAME TO vessel_positions;
ALTER TABLE vessel_positions RENAME CONSTRAINT vessel_positions_keyed_pkey TO vessel_positions_pkey;
CREATE INDEX vessel_positions_imo ON vessel_positions (imo, observed_at) WHERE imo IS NOT NULL;
