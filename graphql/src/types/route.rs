//! GraphQL types of a container's route (`Container.route`), over
//! [`teu_pipeline::route::ContainerRoute`]: the same data as `/v2/containers/{id}/map_geojson`,
//! typed, plus that FeatureCollection itself as a `JSON` value.

use async_graphql::{ComplexObject, Enum, Json, Object, SimpleObject};
use teu_pipeline::route as model;

use super::{dt, DateTime};

/// A container's route for maps.
pub struct ContainerRoute(pub model::ContainerRoute);

/// A container's route for maps: ports, the vessel's position and legs with GeoJSON geometry.
#[Object]
impl ContainerRoute {
    /// Ports on the route, POL first, POD last.
    async fn ports(&self) -> Vec<RoutePort> {
        self.0.ports.iter().cloned().map(RoutePort::from).collect()
    }

    /// Where the container's vessel is, when it is at sea with the container (else null).
    async fn current_vessel(&self) -> Option<CurrentVessel> {
        let v = self.0.current_vessel.as_ref()?;
        let sequence = self.0.ports.get(v.from).map_or(1, |p| p.sequence);
        Some(CurrentVessel::new(v, sequence))
    }

    /// Lines of the route: actual tracks, predicted partial and full legs.
    async fn legs(&self) -> Vec<RouteLeg> {
        self.0
            .lines
            .iter()
            .map(|l| RouteLeg::new(l, self.0.ports.get(l.from), self.0.ports.get(l.to)))
            .collect()
    }

    /// The spec's FeatureCollection, exactly as `GET /v2/containers/{id}/map_geojson` serves it.
    async fn feature_collection(&self) -> Json<geojson::FeatureCollection> {
        Json(self.0.to_geojson())
    }
}

/// A count or a sequence number as a GraphQL `Int` (`i32::MAX` beyond it, which no route
/// reaches).
fn int(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// One port on a route.
#[derive(SimpleObject, Debug, Clone, PartialEq)]
pub struct RoutePort {
    /// 1 = POL, last = POD.
    sequence: i32,
    /// UN/LOCODE.
    locode: String,
    /// The port id (`location_id` in `/v2`).
    location_id: String,
    name: String,
    /// ISO 3166-1 alpha-2.
    country_code: String,
    /// IANA time zone.
    time_zone: Option<String>,
    /// POL, POD, TS1, TS2, ...
    label: String,
    /// Degrees, WGS84; null when the reference data has no position for the port.
    longitude: Option<f64>,
    /// Degrees, WGS84.
    latitude: Option<f64>,
    inbound_eta_at: Option<DateTime>,
    inbound_ata_at: Option<DateTime>,
    outbound_etd_at: Option<DateTime>,
    outbound_atd_at: Option<DateTime>,
}

impl From<model::RoutePort> for RoutePort {
    /// The GraphQL port of a route's port. Every model field is named here, so a field added
    /// to the model does not compile until it is served or left out on purpose.
    fn from(p: model::RoutePort) -> Self {
        let model::RoutePort {
            sequence,
            locode,
            location_id,
            name,
            country_code,
            country: _,
            state: _,
            state_abbr: _,
            time_zone,
            coordinates,
            label,
            inbound_eta_at,
            inbound_ata_at,
            outbound_etd_at,
            outbound_atd_at,
            updated_at: _,
        } = p;
        RoutePort {
            sequence: int(sequence),
            locode,
            location_id: location_id.to_string(),
            name,
            country_code,
            time_zone,
            label,
            longitude: coordinates.map(|c| c[0]),
            latitude: coordinates.map(|c| c[1]),
            inbound_eta_at: dt(inbound_eta_at),
            inbound_ata_at: dt(inbound_ata_at),
            outbound_etd_at: dt(outbound_etd_at),
            outbound_atd_at: dt(outbound_atd_at),
        }
    }
}

/// The vessel carrying the container, at its latest AIS position.
#[derive(SimpleObject, Debug, Clone, PartialEq)]
pub struct CurrentVessel {
    /// Sequence of the port the vessel departed from.
    ports_sequence: i32,
    /// IMO number, 7 digits.
    vessel_imo: Option<String>,
    vessel_name: Option<String>,
    voyage_number: Option<String>,
    /// When the position was observed.
    timestamp: DateTime,
    /// Degrees, WGS84.
    longitude: f64,
    /// Degrees, WGS84.
    latitude: f64,
    /// Degrees 0–360 (true heading, else course over ground); null when not available.
    heading: Option<f64>,
    /// Speed over ground, knots.
    speed: Option<f64>,
}

impl CurrentVessel {
    /// The vessel `v` at its latest position, having departed from the port numbered
    /// `sequence`: IMO number and name from the container's events, else from AIS.
    fn new(v: &model::CurrentVessel, sequence: usize) -> Self {
        let p = &v.position;
        CurrentVessel {
            ports_sequence: int(sequence),
            vessel_imo: v
                .vessel
                .imo
                .as_deref()
                .or(p.imo.as_deref())
                .map(str::to_string),
            vessel_name: v.vessel.name.clone().or_else(|| p.vessel_name.clone()),
            voyage_number: v.vessel.voyage.clone(),
            timestamp: DateTime(p.observed_at),
            longitude: p.longitude,
            latitude: p.latitude,
            heading: p.heading_deg.or(p.course_deg),
            speed: p.speed_knots,
        }
    }
}

/// Kind of a route line (the `/v2` `feature_type`).
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
#[graphql(remote = "model::LineKind")]
pub enum RouteLegKind {
    /// `past_vessel_locations`: the vessel's actual (simplified) AIS track.
    #[graphql(name = "PAST_VESSEL_LOCATIONS")]
    Past,
    /// `estimated_partial_leg`: predicted path from the vessel's position to the next port.
    #[graphql(name = "ESTIMATED_PARTIAL_LEG")]
    EstimatedPartial,
    /// `estimated_full_legs`: predicted path of a leg not yet started.
    #[graphql(name = "ESTIMATED_FULL_LEGS")]
    EstimatedFull,
}

/// One line of a route, with its GeoJSON geometry.
#[derive(SimpleObject, Debug, Clone, PartialEq)]
#[graphql(complex)]
pub struct RouteLeg {
    kind: RouteLegKind,
    /// Sequence of the leg's departure port.
    ports_sequence: i32,
    /// UN/LOCODE of the departure port.
    from_locode: Option<String>,
    /// UN/LOCODE of the arrival port.
    to_locode: Option<String>,
    vessel_imo: Option<String>,
    /// Past legs: time of the first position.
    start_time: Option<DateTime>,
    /// Past legs: time of the last position.
    end_time: Option<DateTime>,
    /// Coordinates in the (simplified) geometry.
    point_count: i32,
    // Not a field of the schema: what `geometry` is built from.
    #[graphql(skip)]
    coordinates: Vec<[f64; 2]>,
}

impl RouteLeg {
    /// The leg of line `l` from port `from` to port `to` (`None` when the line's index has no
    /// port: then the sequence is 0 and the UN/LOCODE null).
    fn new(
        l: &model::RouteLine,
        from: Option<&model::RoutePort>,
        to: Option<&model::RoutePort>,
    ) -> Self {
        RouteLeg {
            kind: l.kind.into(),
            ports_sequence: from.map_or(0, |p| int(p.sequence)),
            from_locode: from.map(|p| p.locode.clone()),
            to_locode: to.map(|p| p.locode.clone()),
            vessel_imo: l.vessel.imo.as_deref().map(str::to_string),
            start_time: dt(l.start_time),
            end_time: dt(l.end_time),
            point_count: int(l.coordinates.len()),
            coordinates: l.coordinates.clone(),
        }
    }
}

/// The field of a leg built on demand: its geometry.
#[ComplexObject]
impl RouteLeg {
    /// GeoJSON LineString geometry, `[longitude, latitude]` WGS84.
    async fn geometry(&self) -> Json<geojson::Geometry> {
        Json(geojson::Geometry::new(geojson::Value::LineString(
            self.coordinates.iter().map(|c| c.to_vec()).collect(),
        )))
    }
}
