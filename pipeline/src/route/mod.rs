//! A container's route for maps: ports, vessel legs, the vessel's position, simplified past
//! tracks and predicted legs (spec: `GET /containers/{id}/map_geojson`). One domain function
//! ([`container_route`]) builds it; `/v2` serves [`ContainerRoute::to_geojson`] and GraphQL
//! serves the same value and its typed parts.
//!
//! **Ports** come from the container's vessel events (transport `ARRI`/`DEPA`, equipment
//! `LOAD`/`DISC` with a UN/LOCODE; rail and truck moves are not sea legs), in event-time
//! order, consecutive calls at the same port merged: the first is the POL, the last the POD,
//! the others TS1, TS2, …. Per port, `inbound_ata_at` / `outbound_atd_at` are the actual
//! `ARRI` / `DEPA` times and `inbound_eta_at` / `outbound_etd_at` the latest-issued estimated or
//! planned ones (none inbound at the POL, none outbound at the POD); `updated_at` is the latest
//! issue time of the port's events.
//!
//! **Legs** join consecutive ports. The vessel (IMO, name, voyage) is the one of the departure
//! (`DEPA`/`LOAD`) at the leg's first port, else of the arrival at its last. A leg is complete
//! when it has both `outbound_atd_at` and `inbound_ata_at` (spec: Rules); in progress when it
//! has only the departure; not started without a departure.
//!
//! **Features** (spec order): `port` per port with coordinates; `past_vessel_locations` for a
//! complete or in-progress leg with AIS positions between its departure and arrival (vessel by
//! IMO, falling back to the MMSIs that reported that IMO; sorted by time, consecutive duplicates
//! removed, simplified by [`simplify`]); `current_vessel` when the container is on a vessel at
//! sea (status `on_ship`), the leg has departed and not arrived, and a position is available
//! (the latest one); `estimated_partial_leg` from that position to the next port along the sea
//! lanes (first coordinate = the vessel's); `estimated_full_legs` for legs not yet started.

pub mod sealanes;
pub mod simplify;

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Map, Value};
use uuid::Uuid;

use crate::ids;
use crate::model::{
    Classifier, Container, ContainerStatus, EventType, TransportEvent, VesselPosition,
};
use crate::store::{Store, StoreError};

/// One port on the route (spec: `port` feature).
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

/// The vessel of a leg, from the container's events.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LegVessel {
    pub imo: Option<String>,
    pub name: Option<String>,
    pub voyage: Option<String>,
}

/// The vessel's position while the container is at sea (spec: `current_vessel`).
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
    pub vessel: LegVessel,
}

/// Ports and legs of a container from its events (module documentation).
pub fn ports_and_legs(events: &[TransportEvent]) -> (Vec<RoutePort>, Vec<PlannedLeg>) {
    let mut calls: Vec<&TransportEvent> = events
        .iter()
        .filter(|e| {
            let ev = &e.event;
            let sea = matches!(
                ev.mode_of_transport.as_deref(),
                None | Some("VESSEL") | Some("BARGE")
            );
            let call = match ev.event_type {
                EventType::Transport => matches!(ev.code.as_str(), "ARRI" | "DEPA"),
                EventType::Equipment => matches!(ev.code.as_str(), "LOAD" | "DISC"),
                EventType::Shipment => false,
            };
            sea && call && ev.locode.is_some()
        })
        .collect();
    calls.sort_by(|a, b| {
        (a.event.event_at, &a.event.event_id).cmp(&(b.event.event_at, &b.event.event_id))
    });
    // Ordered distinct ports (consecutive calls merged), with the events of each.
    let mut groups: Vec<(String, Vec<&TransportEvent>)> = Vec::new();
    for e in calls {
        let locode = e.event.locode.clone().unwrap_or_default();
        match groups.last_mut() {
            Some((l, evs)) if *l == locode => evs.push(e),
            _ => groups.push((locode, vec![e])),
        }
    }
    let (ports_ref, _) = crate::reference::bundled();
    let n = groups.len();
    let latest = |evs: &[&TransportEvent], code: &str, actual: bool| -> Option<DateTime<Utc>> {
        evs.iter()
            .filter(|e| {
                e.event.event_type == EventType::Transport
                    && e.event.code == code
                    && (e.event.classifier == Classifier::Act) == actual
            })
            .max_by_key(|e| {
                (
                    e.event.event_created_at.unwrap_or(e.event.event_at),
                    e.event.event_at,
                )
            })
            .map(|e| e.event.event_at)
    };
    let ports: Vec<RoutePort> = groups
        .iter()
        .enumerate()
        .map(|(i, (locode, evs))| {
            let reference = ports_ref.get(locode);
            let label = if i == 0 {
                "POL".to_string()
            } else if i + 1 == n {
                "POD".to_string()
            } else {
                format!("TS{i}")
            };
            let first = i == 0;
            let last = i + 1 == n;
            RoutePort {
                sequence: i + 1,
                locode: locode.clone(),
                location_id: ids::port_id(locode),
                name: reference
                    .map(|p| p.name.clone())
                    .or_else(|| evs.iter().find_map(|e| e.event.location_name.clone()))
                    .unwrap_or_else(|| locode.clone()),
                country_code: locode.get(..2).unwrap_or_default().to_string(),
                country: reference.and_then(|p| p.country.clone()),
                time_zone: reference
                    .and_then(|p| p.time_zone.clone())
                    .or_else(|| evs.iter().find_map(|e| e.timezone.clone())),
                coordinates: reference.and_then(|p| Some([p.longitude?, p.latitude?])),
                label,
                inbound_eta_at: (!first).then(|| latest(evs, "ARRI", false)).flatten(),
                inbound_ata_at: (!first).then(|| latest(evs, "ARRI", true)).flatten(),
                outbound_etd_at: (!last).then(|| latest(evs, "DEPA", false)).flatten(),
                outbound_atd_at: (!last).then(|| latest(evs, "DEPA", true)).flatten(),
                updated_at: evs
                    .iter()
                    .map(|e| e.event.event_created_at.unwrap_or(e.event.event_at))
                    .max(),
            }
        })
        .collect();
    let vessel_of = |e: &TransportEvent| LegVessel {
        imo: e.event.vessel_imo.clone(),
        name: e.event.vessel_name.clone(),
        voyage: e
            .event
            .export_voyage
            .clone()
            .or_else(|| e.event.import_voyage.clone()),
    };
    let legs = (0..n.saturating_sub(1))
        .map(|i| {
            let departing = groups[i]
                .1
                .iter()
                .filter(|e| matches!(e.event.code.as_str(), "DEPA" | "LOAD"));
            let arriving = groups[i + 1]
                .1
                .iter()
                .filter(|e| matches!(e.event.code.as_str(), "ARRI" | "DISC"));
            let vessel = departing
                .chain(arriving)
                .find(|e| e.event.vessel_imo.is_some())
                .map(|e| vessel_of(e))
                .unwrap_or_default();
            PlannedLeg {
                from: i,
                to: i + 1,
                vessel,
            }
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

/// Builds the route from what the store holds (module documentation). `positions(imo, from,
/// to)` returns the AIS positions of a vessel in a time window, oldest first.
pub fn assemble(
    container: &Container,
    events: &[TransportEvent],
    mut positions: impl FnMut(&str, Option<DateTime<Utc>>, Option<DateTime<Utc>>) -> Vec<VesselPosition>,
) -> ContainerRoute {
    let (ports, legs) = ports_and_legs(events);
    let lanes = sealanes::network();
    let mut lines = Vec::new();
    let mut current_vessel = None;
    for leg in &legs {
        let (a, b) = (&ports[leg.from], &ports[leg.to]);
        let departed = a.outbound_atd_at;
        let arrived = b.inbound_ata_at;
        if let Some(atd) = departed {
            let Some(imo) = leg.vessel.imo.as_deref() else {
                continue;
            };
            let mut track = positions(imo, Some(atd), arrived);
            track.sort_by_key(|p| p.observed_at);
            let pts = track_points(&track);
            if !pts.is_empty() {
                let coordinates = simplify::simplify_track(&pts);
                lines.push(RouteLine {
                    kind: LineKind::Past,
                    from: leg.from,
                    to: leg.to,
                    vessel: leg.vessel.clone(),
                    coordinates,
                    start_time: track.first().map(|p| p.observed_at),
                    end_time: track.last().map(|p| p.observed_at),
                    raw_point_count: pts.len(),
                });
            }
            let at_sea = arrived.is_none() && container.current_status == ContainerStatus::OnShip;
            if let (true, Some(last)) = (at_sea && current_vessel.is_none(), track.last()) {
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
                    position: last.clone(),
                });
            }
        } else if let (Some(from), Some(to)) = (a.coordinates, b.coordinates) {
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
    ContainerRoute {
        ports,
        current_vessel,
        lines,
    }
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
    let (ports, legs) = ports_and_legs(&events);
    // Fetch the positions each departed leg needs, then assemble without the store.
    let mut fetched: Vec<(Window, Vec<VesselPosition>)> = Vec::new();
    for leg in &legs {
        let (Some(imo), Some(atd)) = (leg.vessel.imo.clone(), ports[leg.from].outbound_atd_at)
        else {
            continue;
        };
        let ata = ports[leg.to].inbound_ata_at;
        let found = store.vessel_positions(&imo, Some(atd), ata).await?;
        fetched.push(((imo, Some(atd), ata), found));
    }
    // A* over ~10,000 nodes and RDP take milliseconds: no need to leave the async worker.
    let route = assemble(&container, &events, |imo, from, to| {
        fetched
            .iter()
            .find(|((i, f, t), _)| i == imo && *f == from && *t == to)
            .map(|(_, p)| p.clone())
            .unwrap_or_default()
    });
    Ok(Some(route))
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

fn feature(geometry: Value, properties: Map<String, Value>) -> Value {
    json!({"type": "Feature", "geometry": geometry, "properties": Value::Object(properties)})
}

fn props(pairs: Vec<(&str, Value)>) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

impl ContainerRoute {
    /// The spec's FeatureCollection: ports, then the current vessel, then the lines (past,
    /// estimated partial, estimated full), every listed property present (null when unknown).
    pub fn to_geojson(&self) -> Value {
        let total = self.ports.len();
        let mut features = Vec::new();
        for p in &self.ports {
            let Some(c) = p.coordinates else { continue };
            features.push(feature(
                json!({"type": "Point", "coordinates": c}),
                props(vec![
                    ("feature_type", json!("port")),
                    ("ports_sequence", json!(p.sequence)),
                    ("ports_total", json!(total)),
                    ("location_id", json!(p.location_id.to_string())),
                    ("location_type", json!("Port")),
                    ("name", json!(p.name)),
                    ("state_abbr", Value::Null),
                    ("state", Value::Null),
                    ("country_code", json!(p.country_code)),
                    ("country", json!(p.country.clone().unwrap_or_default())),
                    ("time_zone", json!(p.time_zone.clone().unwrap_or_default())),
                    ("label", json!(p.label)),
                    ("inbound_eta_at", ts(p.inbound_eta_at)),
                    ("inbound_ata_at", ts(p.inbound_ata_at)),
                    ("outbound_etd_at", ts(p.outbound_etd_at)),
                    ("outbound_atd_at", ts(p.outbound_atd_at)),
                    ("updated_at", ts(p.updated_at)),
                ]),
            ));
        }
        if let Some(cv) = &self.current_vessel {
            let dep = &self.ports[cv.from];
            let arr = self.ports.get(cv.from + 1);
            let pos = &cv.position;
            let imo = cv
                .vessel
                .imo
                .clone()
                .or_else(|| pos.imo.clone())
                .unwrap_or_default();
            let arr_s = |f: &dyn Fn(&RoutePort) -> Option<String>| {
                arr.and_then(f).map(Value::String).unwrap_or(Value::Null)
            };
            features.push(feature(
                json!({"type": "Point", "coordinates": [pos.longitude, pos.latitude]}),
                props(vec![
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
                    ("departure_port_state_abbr", Value::Null),
                    ("departure_port_state", Value::Null),
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
                    ("arrival_port_state_abbr", Value::Null),
                    ("arrival_port_state", Value::Null),
                    (
                        "arrival_port_country_code",
                        arr_s(&|p| Some(p.country_code.clone())),
                    ),
                    ("arrival_port_country", arr_s(&|p| p.country.clone())),
                    ("arrival_port_label", arr_s(&|p| Some(p.label.clone()))),
                    ("arrival_port_eta", ts(arr.and_then(|p| p.inbound_eta_at))),
                    ("arrival_port_time_zone", arr_s(&|p| p.time_zone.clone())),
                ]),
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
                let geometry = json!({"type": "LineString", "coordinates": l.coordinates});
                let count = json!(l.coordinates.len());
                let p = match kind {
                    LineKind::Past => props(vec![
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
                    ]),
                    LineKind::EstimatedFull => props(vec![
                        ("feature_type", json!(kind.feature_type())),
                        ("ports_sequence", json!(from.sequence)),
                        ("previous_port_id", json!(from.location_id.to_string())),
                        ("next_port_id", json!(to.location_id.to_string())),
                        ("point_count", count),
                    ]),
                    LineKind::EstimatedPartial => props(vec![
                        ("feature_type", json!(kind.feature_type())),
                        ("ports_sequence", json!(from.sequence)),
                        ("current_port_id", json!(from.location_id.to_string())),
                        ("next_port_id", json!(to.location_id.to_string())),
                        ("point_count", count),
                    ]),
                };
                features.push(feature(geometry, p));
            }
        }
        json!({"type": "FeatureCollection", "features": features})
    }
}
