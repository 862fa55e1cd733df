-- AIS vessel positions (pipeline/src/feeds/ais.rs). AIS is public broadcast data about vessels,
-- not about an account's cargo, so positions are stored once for everyone: no account_id, like
-- `ports`. An account reaches them only through the route of one of its own containers
-- (map_geojson, Routing Data feature). Quarantined AIS rows stay per account (`quarantine`).
-- `id` is UUID v5 of (vessel_key, observed_at): the same report read twice is stored once.
CREATE TABLE vessel_positions (
    id            TEXT PRIMARY KEY,
    vessel_key    TEXT NOT NULL,               -- MMSI, or <file stem>:<id> for anonymised tracks
    mmsi          TEXT,
    imo           TEXT,                        -- 7 digits, without the IMO prefix
    vessel_name   TEXT,
    observed_at   TEXT NOT NULL,               -- RFC 3339 UTC, milliseconds
    latitude      DOUBLE PRECISION NOT NULL,   -- degrees WGS84
    longitude     DOUBLE PRECISION NOT NULL,
    speed_knots   DOUBLE PRECISION,            -- SOG, knots; NULL = not available
    course_deg    DOUBLE PRECISION,            -- COG, degrees; NULL = not available (360)
    heading_deg   DOUBLE PRECISION,            -- degrees; NULL = not available (511)
    source_file   TEXT NOT NULL,
    source_index  BIGINT NOT NULL
);
CREATE INDEX vessel_positions_imo ON vessel_positions (imo, observed_at);
CREATE INDEX vessel_positions_mmsi ON vessel_positions (mmsi, observed_at);
CREATE INDEX vessel_positions_key ON vessel_positions (vessel_key, observed_at);
