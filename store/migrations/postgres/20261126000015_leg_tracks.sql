-- Leg tracks derived once (issue 16): a map reads a vessel leg's simplified AIS track from
-- `leg_tracks` instead of the leg's raw positions (`pipeline/src/store/leg_tracks.rs`).

-- The MMSIs that have reported each IMO number (AIS static reports name both; many position
-- rows of MarineCadastre and DMA carry only the MMSI). The positions of a vessel are those of
-- its IMO and of these MMSIs. Filled from the stored positions once, then by every AIS ingest.
CREATE TABLE vessel_identities (
    mmsi  TEXT NOT NULL,
    imo   TEXT NOT NULL,
    PRIMARY KEY (mmsi, imo)
);
CREATE INDEX vessel_identities_imo ON vessel_identities (imo);
INSERT INTO vessel_identities (mmsi, imo)
SELECT DISTINCT mmsi, imo FROM vessel_positions WHERE mmsi IS NOT NULL AND imo IS NOT NULL;

-- Per IMO number, a count that goes up in every transaction storing positions of the vessel;
-- a kept track is current while its `version` equals this (absent: 0).
CREATE TABLE track_versions (
    imo      TEXT PRIMARY KEY,
    version  BIGINT NOT NULL
);

-- The track of a vessel from `started_at` to `ended_at` (RFC 3339 UTC text like the positions;
-- '' while the leg is under way), as JSON of `teu_pipeline::route::LegTrack` (`null` when the
-- window has no positions), derived at track version `version`.
CREATE TABLE leg_tracks (
    imo         TEXT NOT NULL,
    started_at  TEXT NOT NULL,
    ended_at    TEXT NOT NULL,
    version     BIGINT NOT NULL,
    track       TEXT NOT NULL,
    PRIMARY KEY (imo, started_at, ended_at)
);
