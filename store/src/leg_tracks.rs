//! The SQL of kept leg tracks (`migrations/*/20261126000015_leg_tracks.sql`; times native and
//! an open leg's end `NULL` since migration 44): the simplified AIS track of a vessel between
//! two times (UTC, to the millisecond), derived once by `teu_pipeline::route::leg_track` and
//! read by every later map, until the vessel's next AIS positions make it stale.
//!
//! Staleness is counted per IMO number: `track_versions.version` goes up in the transaction
//! that stores AIS positions of the vessel (reports that carry its IMO, or come from an MMSI
//! that has reported it: `vessel_identities`), and a kept track counts only when it was derived
//! at the vessel's current version. A map that derived a track while positions were being
//! stored keeps it at the version it read first, so it is derived again on the next read.

use chrono::{DateTime, Utc};

use super::{Result, Store};
use crate::db::RecordTime;

/// What [`Store::kept_leg_track`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptLegTrack {
    /// The vessel's current track version (0 before its first AIS positions).
    pub version: i64,
    /// The kept track's text when it was derived at `version`; `None` when there is none or
    /// it is stale.
    pub track: Option<String>,
}

/// The predicate on `ended_at` that finds a leg ending at `to` (`$3`), or under way (`None`:
/// `ended_at` is `NULL`, and `$3` is not named). Each form is served by its own unique index
/// (migration 44: `leg_tracks_ended`, `leg_tracks_under_way`).
fn ended(to: Option<DateTime<Utc>>) -> &'static str {
    if to.is_some() {
        "ended_at = $3"
    } else {
        "ended_at IS NULL"
    }
}

impl Store {
    /// The kept track of vessel `imo` from `from` to `to` (`None`: under way) and the
    /// vessel's current track version, in one statement.
    ///
    /// # Errors
    /// [`super::StoreError::Sql`] when the query fails.
    pub async fn kept_leg_track(
        &self,
        imo: &str,
        from: DateTime<Utc>,
        to: Option<DateTime<Utc>>,
    ) -> Result<KeptLegTrack> {
        let ended = ended(to);
        let sql = format!(
            "SELECT COALESCE((SELECT version FROM track_versions WHERE imo = $1), 0) AS current, \
             (SELECT version FROM leg_tracks WHERE imo = $1 AND started_at = $2 AND {ended}) AS kept, \
             (SELECT track FROM leg_tracks WHERE imo = $1 AND started_at = $2 AND {ended}) AS track"
        );
        let mut q = crate::db::query(&sql).bind(imo).bind(RecordTime(from));
        if let Some(to) = to {
            q = q.bind(RecordTime(to));
        }
        let row = q.fetch_one(self.pool()).await?;
        let version: i64 = row.try_get("current")?;
        let kept: Option<i64> = row.try_get("kept")?;
        let track: Option<String> = row.try_get("track")?;
        Ok(KeptLegTrack {
            version,
            track: track.filter(|_| kept == Some(version)),
        })
    }

    /// Keeps `track` (its text) as the track of vessel `imo` from `from` to `to`, derived at
    /// track version `version` (what [`Store::kept_leg_track`] returned before the positions
    /// were read), replacing an older one.
    ///
    /// # Errors
    /// [`super::StoreError::Sql`] when the statement fails.
    pub async fn keep_leg_track(
        &self,
        imo: &str,
        from: DateTime<Utc>,
        to: Option<DateTime<Utc>>,
        version: i64,
        track: &str,
    ) -> Result<()> {
        // The conflict target names the partial unique index of the leg's kind (migration 44).
        let target = if to.is_some() {
            "(imo, started_at, ended_at) WHERE ended_at IS NOT NULL"
        } else {
            "(imo, started_at) WHERE ended_at IS NULL"
        };
        crate::db::query(&format!(
            "INSERT INTO leg_tracks (imo, started_at, ended_at, version, track) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT {target} DO UPDATE SET version = excluded.version, \
             track = excluded.track"
        ))
        .bind(imo)
        .bind(RecordTime(from))
        .bind(to.map(RecordTime))
        .bind(version)
        .bind(track)
        .execute(self.writer())
        .await?;
        Ok(())
    }
}
