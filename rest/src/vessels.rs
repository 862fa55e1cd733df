//! `GET /vessels/{id}`: a vessel by id or by IMO number (Terminal49 serves both on this one
//! path, API reference "Get a vessel using the id" / "using the IMO"), as the account knows it
//! ([`teu_pipeline::vessels`]): `name`, `imo`, `mmsi`, and the latest AIS report's `latitude`,
//! `longitude` (degrees), `nautical_speed_knots`, `navigational_heading_degrees` and
//! `position_timestamp` (UTC), null when no AIS report is stored.
//!
//! `show_positions[from_timestamp]` and `show_positions[to_timestamp]` (RFC 3339 or
//! `YYYY-MM-DD`, UTC) add `positions`, the AIS reports in that window (defaults: the last 7
//! days, up to now), each `{latitude, longitude, heading, timestamp, estimated: false}`.
//!
//! Vessel positions are Routing Data: an account without the feature gets 403 for every id
//! (Terminal49 documents the same 403), then an unknown id is 404.

use axum::extract::{OriginalUri, Path, State};
use axum::{Extension, Json};
use chrono::{Duration, Utc};
use serde_json::{json, Value};
use teu_pipeline::model::Account;

use crate::error::ApiError;
use crate::map::ROUTING_DATA_REQUIRED;
use crate::query::parse_time_filter;
use crate::RestState;

/// `show_positions[from_timestamp]`.
pub(crate) const FROM: &str = "show_positions[from_timestamp]";
/// `show_positions[to_timestamp]`.
pub(crate) const TO: &str = "show_positions[to_timestamp]";

/// `GET /vessels/{id}` (module documentation).
pub(crate) async fn get_vessel(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    Path(id): Path<String>,
    OriginalUri(uri): OriginalUri,
) -> Result<Json<Value>, ApiError> {
    if !account.routing_data {
        return Err(ApiError::Forbidden {
            detail: ROUTING_DATA_REQUIRED.into(),
        });
    }
    let (mut from, mut to) = (None, None);
    for (name, value) in form_urlencoded::parse(uri.query().unwrap_or("").as_bytes()) {
        match name.as_ref() {
            FROM => from = Some(parse_time_filter(FROM, &value, false)?),
            TO => to = Some(parse_time_filter(TO, &value, true)?),
            _ => {}
        }
    }
    let vessel = state
        .store
        .vessel(account.id, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("Vessel", &id))?;
    let fix = vessel.position;
    let mut attributes = json!({
        "name": vessel.name,
        "imo": vessel.imo,
        "mmsi": vessel.mmsi,
        "latitude": fix.map(|f| f.latitude),
        "longitude": fix.map(|f| f.longitude),
        "nautical_speed_knots": fix.and_then(|f| f.speed_knots),
        "navigational_heading_degrees": fix.and_then(|f| f.heading_deg),
        "position_timestamp": fix.map(|f| crate::resources::timestamp(&f.observed_at)),
    });
    if from.is_some() || to.is_some() {
        let to = to.unwrap_or_else(Utc::now);
        let from = from.unwrap_or(to - Duration::days(7));
        let positions: Vec<Value> = state
            .store
            .vessel_positions(&vessel.imo, Some(from), Some(to))
            .await?
            .iter()
            .map(|p| {
                json!({
                    "latitude": p.latitude,
                    "longitude": p.longitude,
                    "heading": p.heading_deg.or(p.course_deg),
                    "timestamp": crate::resources::timestamp(&p.observed_at),
                    "estimated": false,
                })
            })
            .collect();
        attributes["positions"] = Value::from(positions);
    }
    Ok(Json(json!({
        "data": {
            "id": vessel.id,
            "type": "vessel",
            "attributes": attributes,
        }
    })))
}
