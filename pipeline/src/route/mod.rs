//! A container's route for maps: ports, vessel legs, the vessel's position, simplified past
//! tracks and predicted legs (interface.md: `GET /containers/{id}/map_geojson`). One domain function
//! ([`container_route`]) builds it; `/v2` serves [`ContainerRoute::to_geojson`] and GraphQL
//! serves the same value and its typed parts.
//!
//! **Ports and legs** are the stops and legs of the container's [`crate::journey`] (transport
//! calls, not event times: a revised estimate never adds a port; each leg has the vessel that
//! carried the box): POL, TS1, TS2, …, POD. Per port, `inbound_eta_at` / `inbound_ata_at` are
//! the estimated and actual arrival of the vessel that brought the box, `outbound_etd_at` /
//! `outbound_atd_at` the departure of the vessel that took it on; `updated_at` is the latest
//! issue time of the events used. A leg is completed, in progress or not started by the
//! journey's rules.
//!
//! **Features** (spec order): `port` per port with coordinates; `past_vessel_locations` for
//! each completed or in-progress leg with AIS positions between its start (actual departure,
//! else actual load) and end (actual arrival, else actual discharge; open while in progress),
//! by the leg vessel's IMO, falling back to the MMSIs that reported that IMO, sorted by time,
//! consecutive duplicates removed, simplified by [`simplify`]; `current_vessel` at the latest
//! position of the (first) leg in progress, on that leg; `estimated_partial_leg` from that
//! position to the leg's next port along the sea lanes (first coordinate = the vessel's);
//! `estimated_full_legs` for legs not started only. Every longitude is within [-180, 180]: a
//! line that crosses the antimeridian is cut there into pieces ([`split_at_antimeridian`]),
//! each a feature with the leg's properties and its own `point_count`.

pub mod sealanes;
pub mod simplify;
pub mod tracks;

use chrono::{DateTime, SecondsFormat, Utc};
use geojson::{Feature, FeatureCollection, Geometry};
use serde_json::{json, Map, Value};
use uuid::Uuid;

use crate::ids;
use crate::journey::{self, LegState};
use crate::model::{Container, TransportEvent, VesselPosition};
use crate::store::{Store, StoreError};

/// One port on the route (interface.md: `port` feature).
#[derive(Debug, Clone, PartialEq)]
pub struct RoutePort {
    /// 1 = POL, last = POD.
    pub sequence: usize,
    pub locode: String,
    /// `location_id`: the port id (`ids::port_id`).
    pub location_id: Uuid,
    pub name: String,
    pub country_code: String,
    pub country: Option<String>,
    /// State or province and its postal abbreviation (US, Canada), when known.
    pub state: Option<String>,
    pub state_abbr: Option<String>,
    pub time_zone: Option<String>,
    /// `[lon, lat]`, degrees; `None` when the reference data has no coordinates.
    pub coordinates: Option<[f64; 2]>,
    /// POL, POD, TS1, TS2, …
    pub label: String,
    pub inbound_eta_at: Option<DateTime<Utc>>,
    pub inbound_ata_at: Option<DateTime<Utc>>,
    pub outbound_etd_at: Option<DateTime<Utc>>,
    pub outbound_atd_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
}

/// The vessel of a leg, from the container's events: the journey's [`journey::Vessel`].
pub use crate::journey::Vessel as LegVessel;

/// The vessel's position while the container is at sea (interface.md: `current_vessel`).
#[derive(Debug, Clone, PartialEq)]
pub struct CurrentVessel {
    /// Index into [`ContainerRoute::ports`] of the leg's departure port.
    pub from: usize,
    pub vessel: LegVessel,
    pub position: VesselPosition,
}

/// Kind of a route line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// Actual AIS track of a complete or in-progress leg (`past_vessel_locations`).
    Past,
    /// Predicted path of a leg not yet started (`estimated_full_legs`).
    EstimatedFull,
    /// Predicted path from the vessel's position to the next port (`estimated_partial_leg`).
    EstimatedPartial,
}

impl LineKind {
    /// The spec's `feature_type` value.
    pub fn feature_type(self) -> &'static str {
        match self {
            LineKind::Past => "past_vessel_locations",
            LineKind::EstimatedFull => "estimated_full_legs",
            LineKind::EstimatedPartial => "estimated_partial_leg",
        }
    }
}

/// One LineString of the route.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteLine {
    pub kind: LineKind,
    /// Indexes into [`ContainerRoute::ports`] of the leg's departure and arrival ports.
    pub from: usize,
    pub to: usize,
    pub vessel: LegVessel,
    /// `[lon, lat]` degrees; longitudes unwrapped across the antimeridian.
    pub coordinates: Vec<[f64; 2]>,
    /// Past lines: time of the first and last position.
    pub start_time: Option<DateTime<Utc>>,
    pub end_time: Option<DateTime<Utc>>,
    /// Past lines: positions before simplification.
    pub raw_point_count: usize,
}

/// Everything the map of one container shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContainerRoute {
    pub ports: Vec<RoutePort>,
    pub current_vessel: Option<CurrentVessel>,
    pub lines: Vec<RouteLine>,
}

/// A leg between two consecutive ports, before positions are attached.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedLeg {
    pub from: usize,
    pub to: usize,
    /// The vessel that carried (or is to carry) the box on this leg.
    pub vessel: LegVessel,
    /// Not started, in progress or completed ([`journey`] rules).
    pub state: LegState,
    /// Actual departure (else actual load) at `from`, UTC: where the AIS track starts.
    pub started_at: Option<DateTime<Utc>>,
    /// Actual arrival (else actual discharge) at `to`, UTC: where the AIS track ends.
    pub ended_at: Option<DateTime<Utc>>,
}

/// Ports and legs of a container from its events: the stops and legs of its
/// [`crate::journey`] (module documentation).
pub fn ports_and_legs(events: &[TransportEvent]) -> (Vec<RoutePort>, Vec<PlannedLeg>) {
    let rows: Vec<&crate::model::EventRow> = events.iter().map(|e| &e.event).collect();
    let journey = journey::journey(&rows);
    let stops: Vec<&journey::Stop> = if journey.stops.is_empty() {
        journey.arrival_only.iter().collect()
    } else {
        journey.stops.iter().collect()
    };
    let (ports_ref, _) = crate::reference::bundled();
    let n = stops.len();
    let ports: Vec<RoutePort> = stops
        .iter()
        .enumerate()
        .map(|(i, stop)| {
            let locode = &stop.locode;
            let reference = ports_ref.get(locode);
            let label = if i + 1 == n && (n > 1 || journey.stops.is_empty()) {
                "POD".to_string()
            } else if i == 0 {
                "POL".to_string()
            } else {
                format!("TS{i}")
            };
            let at_port = |e: &&TransportEvent| e.event.locode.as_deref() == Some(locode.as_str());
            RoutePort {
                sequence: i + 1,
                locode: locode.to_string(),
                location_id: ids::port_id(locode),
                name: reference
                    .map(|p| p.name.clone())
                    .or_else(|| {
                        events
                            .iter()
                            .filter(at_port)
                            .find_map(|e| e.event.location_name.clone())
                    })
                    .unwrap_or_else(|| locode.to_string()),
                country_code: locode.country().to_string(),
                country: reference.and_then(|p| p.country.clone()),
                state: reference.and_then(|p| p.state.clone()),
                state_abbr: reference.and_then(|p| p.state_abbr.clone()),
                time_zone: reference.and_then(|p| p.time_zone.clone()).or_else(|| {
                    events
                        .iter()
                        .filter(at_port)
                        .find_map(|e| e.timezone.clone())
                }),
                coordinates: reference.and_then(|p| Some([p.longitude?, p.latitude?])),
                label,
                inbound_eta_at: stop.arrival.estimated,
                inbound_ata_at: stop.arrival.actual,
                outbound_etd_at: stop.departure.estimated,
                outbound_atd_at: stop.departure.actual,
                updated_at: stop.updated_at,
            }
        })
        .collect();
    let legs = journey
        .legs
        .iter()
        .map(|leg| PlannedLeg {
            from: leg.from,
            to: leg.to,
            vessel: leg.vessel.clone(),
            state: leg.state,
            started_at: leg.started_at(&journey),
            ended_at: leg.ended_at(&journey),
        })
        .collect();
    (ports, legs)
}

/// The positions of a leg, ready to draw: sorted by time, consecutive duplicates removed.
fn track_points(positions: &[VesselPosition]) -> Vec<[f64; 2]> {
    let mut pts: Vec<[f64; 2]> = positions
        .iter()
        .map(|p| [p.longitude, p.latitude])
        .collect();
    pts.dedup();
    pts
}

/// A vessel leg's AIS track as a map draws it: derived once from the positions
/// ([`LegTrack::of_positions`]) and kept by the store (`leg_tracks`) until the vessel's next
/// AIS positions arrive, so a map reads it instead of the raw positions.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LegTrack {
    /// `[lon, lat]` degrees, simplified by [`simplify::simplify_track`].
    pub coordinates: Vec<[f64; 2]>,
    /// Time of the first position, UTC.
    pub start_time: DateTime<Utc>,
    /// Time of the last position, UTC.
    pub end_time: DateTime<Utc>,
    /// Positions before simplification (consecutive duplicates removed).
    pub raw_point_count: usize,
    /// The latest position: the current vessel's while the leg is in progress.
    pub last: VesselPosition,
}

impl LegTrack {
    /// The track of `positions` (any order): sorted by time, consecutive duplicate points
    /// removed, simplified. `None` without positions.
    pub fn of_positions(mut positions: Vec<VesselPosition>) -> Option<LegTrack> {
        positions.sort_by_key(|p| p.observed_at);
        let pts = track_points(&positions);
        let (first, last) = (positions.first()?, positions.last()?);
        Some(LegTrack {
            coordinates: simplify::simplify_track(&pts),
            start_time: first.observed_at,
            end_time: last.observed_at,
            raw_point_count: pts.len(),
            last: last.clone(),
        })
    }
}

/// Builds the route from what the store holds (module documentation). `track_of(imo, from, to)`
/// returns the track of a vessel's AIS positions in a time window ([`LegTrack::of_positions`]),
/// `None` when it has none.
pub fn assemble(
    container: &Container,
    events: &[TransportEvent],
    mut track_of: impl FnMut(&str, Option<DateTime<Utc>>, Option<DateTime<Utc>>) -> Option<LegTrack>,
) -> ContainerRoute {
    let _ = container;
    let (ports, legs) = ports_and_legs(events);
    let lanes = sealanes::network();
    let mut lines = Vec::new();
    let mut current_vessel = None;
    for leg in &legs {
        let b = &ports[leg.to];
        match leg.state {
            LegState::Completed | LegState::InProgress => {
                let (Some(imo), Some(start)) = (leg.vessel.imo.as_deref(), leg.started_at) else {
                    continue;
                };
                let Some(track) = track_of(imo, Some(start), leg.ended_at) else {
                    continue;
                };
                lines.push(RouteLine {
                    kind: LineKind::Past,
                    from: leg.from,
                    to: leg.to,
                    vessel: leg.vessel.clone(),
                    coordinates: track.coordinates,
                    start_time: Some(track.start_time),
                    end_time: Some(track.end_time),
                    raw_point_count: track.raw_point_count,
                });
                if leg.state != LegState::InProgress || current_vessel.is_some() {
                    continue;
                }
                let last = track.last;
                let here = [last.longitude, last.latitude];
                if let Some(mut path) = b.coordinates.and_then(|to| lanes.route(here, to)) {
                    // The spec: the partial leg starts exactly at the vessel's position.
                    path[0] = here;
                    let mut coordinates = simplify::simplify_track(&path);
                    if let Some(first) = coordinates.first_mut() {
                        *first = here;
                    }
                    lines.push(RouteLine {
                        kind: LineKind::EstimatedPartial,
                        from: leg.from,
                        to: leg.to,
                        vessel: leg.vessel.clone(),
                        raw_point_count: path.len(),
                        coordinates,
                        start_time: None,
                        end_time: None,
                    });
                }
                current_vessel = Some(CurrentVessel {
                    from: leg.from,
                    vessel: leg.vessel.clone(),
                    position: last,
                });
            }
            LegState::NotStarted => {
                let (Some(from), Some(to)) = (ports[leg.from].coordinates, b.coordinates) else {
                    continue;
                };
                if let Some(path) = lanes.route(from, to) {
                    let coordinates = simplify::simplify_track(&path);
                    lines.push(RouteLine {
                        kind: LineKind::EstimatedFull,
                        from: leg.from,
                        to: leg.to,
                        vessel: leg.vessel.clone(),
                        raw_point_count: path.len(),
                        coordinates,
                        start_time: None,
                        end_time: None,
                    });
                }
            }
        }
    }
    let lines = lines.into_iter().flat_map(split_at_antimeridian).collect();
    ContainerRoute {
        ports,
        current_vessel,
        lines,
    }
}

/// Cuts a line whose (unwrapped, continuous) longitudes cross the antimeridian into pieces
/// that each stay within [-180, 180] (RFC 7946 §3.1.9): the crossing point is interpolated
/// and ends one piece at ±180 and starts the next at ∓180. Each piece keeps the line's
/// properties; a line that does not cross comes back as it was, its longitudes wrapped.
pub fn split_at_antimeridian(line: RouteLine) -> Vec<RouteLine> {
    let band = |lon: f64| ((lon + 180.0) / 360.0).floor();
    let mut pieces: Vec<Vec<[f64; 2]>> = vec![Vec::new()];
    for (i, &[lon, lat]) in line.coordinates.iter().enumerate() {
        if i > 0 {
            let [plon, plat] = line.coordinates[i - 1];
            let (b0, b1) = (band(plon), band(lon));
            if b0 != b1 {
                // The meridian crossed: 180 + 360·min(b0, b1) in the unwrapped frame.
                let edge = 180.0 + 360.0 * b0.min(b1);
                let f = (edge - plon) / (lon - plon);
                let y = plat + f * (lat - plat);
                let east = lon > plon;
                let here = if east { 180.0 } else { -180.0 };
                if let Some(piece) = pieces.last_mut() {
                    piece.push([here, y]);
                }
                pieces.push(vec![[-here, y]]);
            }
        }
        let wrapped = [sealanes::wrap_lon(lon), lat];
        if let Some(piece) = pieces.last_mut() {
            if piece.last() != Some(&wrapped) {
                piece.push(wrapped);
            }
        }
    }
    pieces.retain(|p| p.len() >= 2);
    if pieces.len() <= 1 {
        let coordinates = pieces.pop().unwrap_or_else(|| {
            line.coordinates
                .iter()
                .map(|&[lon, lat]| [sealanes::wrap_lon(lon), lat])
                .collect()
        });
        return vec![RouteLine {
            coordinates,
            ..line
        }];
    }
    pieces
        .into_iter()
        .map(|coordinates| RouteLine {
            coordinates,
            ..line.clone()
        })
        .collect()
}

/// A vessel (IMO) and a time window.
type Window = (String, Option<DateTime<Utc>>, Option<DateTime<Utc>>);

/// The route of the account's container `id`; `None` when the account has no such container.
/// The caller checks the Routing Data feature.
pub async fn container_route(
    store: &Store,
    account: Uuid,
    id: Uuid,
) -> Result<Option<ContainerRoute>, StoreError> {
    let Some(container) = store.container(account, id).await? else {
        return Ok(None);
    };
    let events = store
        .events_of_containers(account, &[id])
        .await?
        .remove(&id)
        .unwrap_or_default();
    let (_, legs) = ports_and_legs(&events);
    // The track of each departed leg, from the store's cache or derived once from the positions
    // and kept; then assemble without the store.
    let mut fetched: Vec<(Window, Option<LegTrack>)> = Vec::new();
    for leg in &legs {
        if leg.state == LegState::NotStarted {
            continue;
        }
        let (Some(imo), Some(atd)) = (
            leg.vessel.imo.as_deref().map(str::to_string),
            leg.started_at,
        ) else {
            continue;
        };
        let ata = leg.ended_at;
        let track = leg_track(store, &imo, atd, ata).await?;
        fetched.push(((imo, Some(atd), ata), track));
    }
    // A* over ~10,000 nodes and RDP take milliseconds: no need to leave the async worker.
    let route = assemble(&container, &events, |imo, from, to| {
        fetched
            .iter()
            .find(|((i, f, t), _)| i == imo && *f == from && *t == to)
            .and_then(|(_, track)| track.clone())
    });
    Ok(Some(route))
}

/// The track of vessel `imo` from `from` to `to` (open while the leg is under way): the
/// store's copy when it was derived since the vessel's last AIS positions arrived, else derived
/// now from the positions ([`LegTrack::of_positions`]) and kept. A kept copy that no longer
/// parses is derived again. `None` when the vessel has no positions in the window.
pub async fn leg_track(
    store: &Store,
    imo: &str,
    from: DateTime<Utc>,
    to: Option<DateTime<Utc>>,
) -> Result<Option<LegTrack>, StoreError> {
    let kept = store.kept_leg_track(imo, from, to).await?;
    if let Some(text) = &kept.track {
        if let Ok(track) = serde_json::from_str::<Option<LegTrack>>(text) {
            return Ok(track);
        }
    }
    let track = LegTrack::of_positions(store.vessel_positions(imo, Some(from), to).await?);
    let text = serde_json::to_string(&track).unwrap_or_default();
    store
        .keep_leg_track(imo, from, to, kept.version, &text)
        .await?;
    Ok(track)
}

/// RFC 3339 UTC with `Z`, whole seconds plus milliseconds when not zero: the `/v2` text.
fn ts(t: Option<DateTime<Utc>>) -> Value {
    t.map(|t| {
        let format = if t.timestamp_subsec_millis() == 0 {
            SecondsFormat::Secs
        } else {
            SecondsFormat::Millis
        };
        Value::String(t.to_rfc3339_opts(format, true))
    })
    .unwrap_or(Value::Null)
}

fn opt(s: &Option<String>) -> Value {
    s.as_ref()
        .map(|s| Value::String(s.clone()))
        .unwrap_or(Value::Null)
}

/// A GeoJSON feature (RFC 7946 §3.2) with every property present, `null` when unknown.
fn feature(geometry: geojson::Value, properties: Vec<(&str, Value)>) -> Feature {
    Feature {
        bbox: None,
        geometry: Some(Geometry::new(geometry)),
        id: None,
        properties: Some(
            properties
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect::<Map<String, Value>>(),
        ),
        foreign_members: None,
    }
}

impl ContainerRoute {
    /// The spec's FeatureCollection: ports, then the current vessel, then the lines (past,
    /// estimated partial, estimated full), every listed property present (null when unknown).
    /// Positions are `[longitude, latitude]` in degrees (WGS 84, RFC 7946 §3.1.1).
    pub fn to_geojson(&self) -> FeatureCollection {
        let total = self.ports.len();
        let mut features = Vec::new();
        for p in &self.ports {
            let Some(c) = p.coordinates else { continue };
            features.push(feature(
                geojson::Value::Point(c.to_vec()),
                vec![
                    ("feature_type", json!("port")),
                    ("ports_sequence", json!(p.sequence)),
                    ("ports_total", json!(total)),
                    ("location_id", json!(p.location_id.to_string())),
                    ("location_type", json!("Port")),
                    ("name", json!(p.name)),
                    ("state_abbr", opt(&p.state_abbr)),
                    ("state", opt(&p.state)),
                    ("country_code", json!(p.country_code)),
                    ("country", json!(p.country.clone().unwrap_or_default())),
                    ("time_zone", json!(p.time_zone.clone().unwrap_or_default())),
                    ("label", json!(p.label)),
                    ("inbound_eta_at", ts(p.inbound_eta_at)),
                    ("inbound_ata_at", ts(p.inbound_ata_at)),
                    ("outbound_etd_at", ts(p.outbound_etd_at)),
                    ("outbound_atd_at", ts(p.outbound_atd_at)),
                    ("updated_at", ts(p.updated_at)),
                ],
            ));
        }
        if let Some(cv) = &self.current_vessel {
            let dep = &self.ports[cv.from];
            let arr = self.ports.get(cv.from + 1);
            let pos = &cv.position;
            let imo = cv
                .vessel
                .imo
                .as_deref()
                .or(pos.imo.as_deref())
                .unwrap_or_default()
                .to_string();
            let arr_s = |f: &dyn Fn(&RoutePort) -> Option<String>| {
                arr.and_then(f).map(Value::String).unwrap_or(Value::Null)
            };
            features.push(feature(
                geojson::Value::Point(vec![pos.longitude, pos.latitude]),
                vec![
                    ("feature_type", json!("current_vessel")),
                    ("ports_sequence", json!(dep.sequence)),
                    ("vessel_id", json!(ids::vessel_id(&imo).to_string())),
                    (
                        "vessel_name",
                        json!(cv
                            .vessel
                            .name
                            .clone()
                            .or_else(|| pos.vessel_name.clone())
                            .unwrap_or_default()),
                    ),
                    ("vessel_imo", json!(imo)),
                    ("voyage_number", opt(&cv.vessel.voyage)),
                    ("vessel_location_timestamp", ts(Some(pos.observed_at))),
                    (
                        "vessel_location_heading",
                        json!(pos.heading_deg.or(pos.course_deg)),
                    ),
                    ("vessel_location_speed", json!(pos.speed_knots)),
                    ("departure_port_id", json!(dep.location_id.to_string())),
                    ("departure_port_name", json!(dep.name)),
                    ("departure_port_state_abbr", opt(&dep.state_abbr)),
                    ("departure_port_state", opt(&dep.state)),
                    ("departure_port_country_code", json!(dep.country_code)),
                    (
                        "departure_port_country",
                        json!(dep.country.clone().unwrap_or_default()),
                    ),
                    ("departure_port_label", json!(dep.label)),
                    (
                        "departure_port_time_zone",
                        json!(dep.time_zone.clone().unwrap_or_default()),
                    ),
                    ("departure_port_atd", ts(dep.outbound_atd_at)),
                    (
                        "arrival_port_id",
                        arr_s(&|p| Some(p.location_id.to_string())),
                    ),
                    ("arrival_port_name", arr_s(&|p| Some(p.name.clone()))),
                    ("arrival_port_state_abbr", arr_s(&|p| p.state_abbr.clone())),
                    ("arrival_port_state", arr_s(&|p| p.state.clone())),
                    (
                        "arrival_port_country_code",
                        arr_s(&|p| Some(p.country_code.clone())),
                    ),
                    ("arrival_port_country", arr_s(&|p| p.country.clone())),
                    ("arrival_port_label", arr_s(&|p| Some(p.label.clone()))),
                    ("arrival_port_eta", ts(arr.and_then(|p| p.inbound_eta_at))),
                    ("arrival_port_time_zone", arr_s(&|p| p.time_zone.clone())),
                ],
            ));
        }
        let order = [
            LineKind::Past,
            LineKind::EstimatedPartial,
            LineKind::EstimatedFull,
        ];
        for kind in order {
            for l in self.lines.iter().filter(|l| l.kind == kind) {
                let from = &self.ports[l.from];
                let to = &self.ports[l.to];
                let geometry =
                    geojson::Value::LineString(l.coordinates.iter().map(|c| c.to_vec()).collect());
                let count = json!(l.coordinates.len());
                let p = match kind {
                    LineKind::Past => vec![
                        ("feature_type", json!(kind.feature_type())),
                        ("ports_sequence", json!(from.sequence)),
                        (
                            "vessel_id",
                            json!(ids::vessel_id(l.vessel.imo.as_deref().unwrap_or_default())
                                .to_string()),
                        ),
                        ("start_time", ts(l.start_time)),
                        ("end_time", ts(l.end_time)),
                        ("point_count", count),
                        ("outbound_atd_at", ts(from.outbound_atd_at)),
                        ("inbound_ata_at", ts(to.inbound_ata_at)),
                        ("inbound_eta_at", ts(to.inbound_eta_at)),
                    ],
                    LineKind::EstimatedFull => vec![
                        ("feature_type", json!(kind.feature_type())),
                        ("ports_sequence", json!(from.sequence)),
                        ("previous_port_id", json!(from.location_id.to_string())),
                        ("next_port_id", json!(to.location_id.to_string())),
                        ("point_count", count),
                    ],
                    LineKind::EstimatedPartial => vec![
                        ("feature_type", json!(kind.feature_type())),
                        ("ports_sequence", json!(from.sequence)),
                        ("current_port_id", json!(from.location_id.to_string())),
                        ("next_port_id", json!(to.location_id.to_string())),
                        ("point_count", count),
                    ],
                };
                features.push(feature(geometry, p));
            }
        }
        FeatureCollection {
            bbox: None,
            features,
            foreign_members: None,
        }
    }
}

#[cfg(test)]
mod antimeridian_tests {
    use super::*;

    fn line(coordinates: Vec<[f64; 2]>) -> RouteLine {
        RouteLine {
            kind: LineKind::Past,
            from: 0,
            to: 1,
            vessel: LegVessel::default(),
            raw_point_count: coordinates.len(),
            coordinates,
            start_time: None,
            end_time: None,
        }
    }

    #[test]
    fn a_pacific_crossing_is_cut_at_180_into_pieces_within_range() {
        // Yokohama towards Los Angeles, unwrapped: 170°E, 179°E, then 189° and 200° (= 171°W, 160°W).
        let pieces = split_at_antimeridian(line(vec![
            [170.0, 35.0],
            [179.0, 36.0],
            [189.0, 38.0],
            [200.0, 40.0],
        ]));
        assert_eq!(pieces.len(), 2);
        assert_eq!(
            pieces[0].coordinates,
            [[170.0, 35.0], [179.0, 36.0], [180.0, 36.2]]
        );
        assert_eq!(pieces[1].coordinates[0], [-180.0, 36.2]);
        assert_eq!(
            &pieces[1].coordinates[1..],
            [[-171.0, 38.0], [-160.0, 40.0]]
        );
        for p in &pieces {
            assert!(p
                .coordinates
                .iter()
                .all(|c| (-180.0..=180.0).contains(&c[0])));
            assert_eq!(p.kind, LineKind::Past);
        }
        // Westbound, from the other side.
        let pieces = split_at_antimeridian(line(vec![[-170.0, 10.0], [-190.0, 10.0]]));
        assert_eq!(pieces.len(), 2);
        assert_eq!(pieces[0].coordinates, [[-170.0, 10.0], [-180.0, 10.0]]);
        assert_eq!(pieces[1].coordinates, [[180.0, 10.0], [170.0, 10.0]]);
    }

    #[test]
    fn a_line_that_does_not_cross_stays_whole() {
        let l = line(vec![[4.0, 51.9], [-5.0, 49.0], [-74.0, 40.7]]);
        assert_eq!(split_at_antimeridian(l.clone()), vec![l]);
        // Unwrapped longitudes that stay on one side are only wrapped.
        let pieces = split_at_antimeridian(line(vec![[190.0, 1.0], [200.0, 2.0]]));
        assert_eq!(pieces.len(), 1);
        assert_eq!(pieces[0].coordinates, [[-170.0, 1.0], [-160.0, 2.0]]);
    }
}

#[cfg(test)]
mod leg_track_tests {
    use super::*;
    use proptest::prelude::*;

    fn position(lon: f64, lat: f64, minute: i64) -> VesselPosition {
        VesselPosition {
            track: Some("test:1".into()),
            mmsi: None,
            imo: None,
            vessel_name: None,
            observed_at: DateTime::from_timestamp(1_790_000_000 + minute * 60, 0)
                .unwrap_or_default(),
            latitude: lat,
            longitude: lon,
            speed_knots: Some(lat.abs() / 7.0),
            course_deg: None,
            heading_deg: Some(lon.abs() / 3.0),
        }
    }

    proptest! {
        /// A kept track is read back exactly as derived (serde_json with `float_roundtrip`):
        /// the map served from `leg_tracks` prints the digits the first map printed.
        #[test]
        fn kept_text_reads_back_bit_for_bit(
            points in prop::collection::vec((-540.0f64..540.0, -90.0f64..90.0), 1..60)
        ) {
            let positions: Vec<VesselPosition> = points
                .iter()
                .enumerate()
                .map(|(i, &(lon, lat))| position(lon, lat, i as i64))
                .collect();
            let track = LegTrack::of_positions(positions);
            prop_assert!(track.is_some());
            let text = serde_json::to_string(&track).expect("JSON");
            let back: Option<LegTrack> = serde_json::from_str(&text).expect("read back");
            prop_assert_eq!(back, track);
        }
    }

    #[test]
    fn a_track_is_sorted_deduplicated_and_knows_its_last_position() {
        let track = LegTrack::of_positions(vec![
            position(4.2, 51.9, 2),
            position(4.0, 51.9, 0),
            position(4.0, 51.9, 1),
        ])
        .expect("a track");
        assert_eq!(track.raw_point_count, 2, "consecutive duplicates removed");
        assert_eq!(track.coordinates.first(), Some(&[4.0, 51.9]));
        assert_eq!(track.last.longitude, 4.2);
        assert_eq!(
            track.end_time - track.start_time,
            chrono::Duration::minutes(2)
        );
        assert_eq!(LegTrack::of_positions(Vec::new()), None);
    }
}
