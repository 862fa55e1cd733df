//! Vessels as an account sees them (Terminal49's `GET /v2/vessels/{id}` and by IMO): a vessel
//! is known to an account when one of its stored carrier events names the vessel's IMO number,
//! or when public AIS positions carry that IMO (`vessel_positions`, shared by every account).
//! Its name comes from the account's events first (what its carrier calls it), else from AIS;
//! its position is the latest AIS report.
//!
//! Lookups read event bodies (no vessel index exists yet): one account-scoped scan per request.
//! The store rebuild (issue 16) is where a vessel table belongs. The SQL is
//! `teu_store::vessels`.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::model::{Imo, Mmsi};

/// A vessel and its latest AIS report.
#[derive(Debug, Clone, PartialEq)]
pub struct Vessel {
    /// UUID v5 of the IMO number ([`ids::vessel_id`]): the id transport events link to.
    pub id: Uuid,
    /// IMO number, 7 digits.
    pub imo: Imo,
    /// The vessel's name, when any source gives one.
    pub name: Option<String>,
    /// MMSI of the latest AIS report.
    pub mmsi: Option<Mmsi>,
    /// The latest AIS report, if any.
    pub position: Option<Fix>,
}

/// One AIS report of a vessel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fix {
    /// Degrees WGS84.
    pub latitude: f64,
    /// Degrees WGS84.
    pub longitude: f64,
    /// Speed over ground, knots.
    pub speed_knots: Option<f64>,
    /// True heading, degrees (course over ground when the heading is not available).
    pub heading_deg: Option<f64>,
    /// When it was observed (UTC).
    pub observed_at: DateTime<Utc>,
}
