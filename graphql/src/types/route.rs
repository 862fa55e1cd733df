//! GraphQL types of a container's route (`Container.route`), over
//! [`teu_pipeline::route::ContainerRoute`]: the same data as `/v2/containers/{id}/map_geojson`,
//! typed, plus that FeatureCollection itself as a `JSON` value.

use async_graphql::{Enum, Json, Object};
use teu_pipeline::route as model;

use super::{dt, DateTime};

/// A container's route for maps.
pub struct ContainerRoute(pub model::ContainerRoute);

/// A container's route for maps: ports, the vessel's position and legs with GeoJSON geometry.
#[Object]
impl ContainerRoute {
    /// Ports on the route, POL first, POD last.
    async fn ports(&self) -> Vec<RoutePort> {
        self.0.ports.iter().map(|p| RoutePort(p.clone())).collect()
    }

    /// Where the container's vessel is, when it is at sea with the container (else null).
    async fn current_vessel(&self) -> Option<CurrentVessel> {
        self.0.current_vessel.as_ref().map(|v| CurrentVessel {
            inner: v.clone(),
            sequence: self.0.ports.get(v.from).map(|p| p.sequence).unwrap_or(1),
        })
    }

    /// Lines of the route: actual tracks, predicted partial and full legs.
    async fn legs(&self) -> Vec<RouteLeg> {
        self.0
            .lines
            .iter()
            .map(|l| RouteLeg {
                line: l.clone(),
                from: self.0.ports.get(l.from).cloned(),
                to: self.0.ports.get(l.to).cloned(),
            })
            .collect()
    }

    /// The spec's FeatureCollection, exactly as `GET /v2/containers/{id}/map_geojson` serves it.
    async fn feature_collection(&self) -> Json<geojson::FeatureCollection> {
        Json(self.0.to_geojson())
    }
}

/// One port on a route.
pub struct RoutePort(model::RoutePort);

/// One port on a route.
#[Object]
impl RoutePort {
    /// 1 = POL, last = POD.
    async fn sequence(&self) -> i32 {
        self.0.sequence as i32
    }
    /// UN/LOCODE.
    async fn locode(&self) -> &str {
        &self.0.locode
    }
    /// The port id (`location_id` in `/v2`).
    async fn location_id(&self) -> String {
        self.0.location_id.to_string()
    }
    async fn name(&self) -> &str {
        &self.0.name
    }
    /// ISO 3166-1 alpha-2.
    async fn country_code(&self) -> &str {
        &self.0.country_code
    }
    /// IANA time zone.
    async fn time_zone(&self) -> Option<&str> {
        self.0.time_zone.as_deref()
    }
    /// POL, POD, TS1, TS2, ...
    async fn label(&self) -> &str {
        &self.0.label
    }
    /// Degrees, WGS84; null when the reference data has no position for the port.
    async fn longitude(&self) -> Option<f64> {
        self.0.coordinates.map(|c| c[0])
    }
    /// Degrees, WGS84.
    async fn latitude(&self) -> Option<f64> {
        self.0.coordinates.map(|c| c[1])
    }
    async fn inbound_eta_at(&self) -> Option<DateTime> {
        dt(self.0.inbound_eta_at)
    }
    async fn inbound_ata_at(&self) -> Option<DateTime> {
        dt(self.0.inbound_ata_at)
    }
    async fn outbound_etd_at(&self) -> Option<DateTime> {
        dt(self.0.outbound_etd_at)
    }
    async fn outbound_atd_at(&self) -> Option<DateTime> {
        dt(self.0.outbound_atd_at)
    }
}

/// The vessel carrying the container, at its latest AIS position.
pub struct CurrentVessel {
    inner: model::CurrentVessel,
    sequence: usize,
}

/// The vessel carrying the container, at its latest AIS position.
#[Object]
impl CurrentVessel {
    /// Sequence of the port the vessel departed from.
    async fn ports_sequence(&self) -> i32 {
        self.sequence as i32
    }
    /// IMO number, 7 digits.
    async fn vessel_imo(&self) -> Option<&str> {
        self.inner
            .vessel
            .imo
            .as_deref()
            .or(self.inner.position.imo.as_deref())
    }
    async fn vessel_name(&self) -> Option<&str> {
        self.inner
            .vessel
            .name
            .as_deref()
            .or(self.inner.position.vessel_name.as_deref())
    }
    async fn voyage_number(&self) -> Option<&str> {
        self.inner.vessel.voyage.as_deref()
    }
    /// When the position was observed.
    async fn timestamp(&self) -> DateTime {
        DateTime(self.inner.position.observed_at)
    }
    /// Degrees, WGS84.
    async fn longitude(&self) -> f64 {
        self.inner.position.longitude
    }
    /// Degrees, WGS84.
    async fn latitude(&self) -> f64 {
        self.inner.position.latitude
    }
    /// Degrees 0–360 (true heading, else course over ground); null when not available.
    async fn heading(&self) -> Option<f64> {
        self.inner
            .position
            .heading_deg
            .or(self.inner.position.course_deg)
    }
    /// Speed over ground, knots.
    async fn speed(&self) -> Option<f64> {
        self.inner.position.speed_knots
    }
}

/// Kind of a route line (the `/v2` `feature_type`).
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteLegKind {
    /// `past_vessel_locations`: the vessel's actual (simplified) AIS track.
    PastVesselLocations,
    /// `estimated_partial_leg`: predicted path from the vessel's position to the next port.
    EstimatedPartialLeg,
    /// `estimated_full_legs`: predicted path of a leg not yet started.
    EstimatedFullLegs,
}

/// One line of a route, with its GeoJSON geometry.
pub struct RouteLeg {
    line: model::RouteLine,
    from: Option<model::RoutePort>,
    to: Option<model::RoutePort>,
}

/// One line of a route, with its GeoJSON geometry.
#[Object]
impl RouteLeg {
    async fn kind(&self) -> RouteLegKind {
        match self.line.kind {
            model::LineKind::Past => RouteLegKind::PastVesselLocations,
            model::LineKind::EstimatedPartial => RouteLegKind::EstimatedPartialLeg,
            model::LineKind::EstimatedFull => RouteLegKind::EstimatedFullLegs,
        }
    }
    /// Sequence of the leg's departure port.
    async fn ports_sequence(&self) -> i32 {
        self.from.as_ref().map(|p| p.sequence as i32).unwrap_or(0)
    }
    /// UN/LOCODE of the departure port.
    async fn from_locode(&self) -> Option<&str> {
        self.from.as_ref().map(|p| p.locode.as_str())
    }
    /// UN/LOCODE of the arrival port.
    async fn to_locode(&self) -> Option<&str> {
        self.to.as_ref().map(|p| p.locode.as_str())
    }
    async fn vessel_imo(&self) -> Option<&str> {
        self.line.vessel.imo.as_deref()
    }
    /// Past legs: time of the first position.
    async fn start_time(&self) -> Option<DateTime> {
        dt(self.line.start_time)
    }
    /// Past legs: time of the last position.
    async fn end_time(&self) -> Option<DateTime> {
        dt(self.line.end_time)
    }
    /// Coordinates in the (simplified) geometry.
    async fn point_count(&self) -> i32 {
        self.line.coordinates.len() as i32
    }
    /// GeoJSON LineString geometry, `[longitude, latitude]` WGS84.
    async fn geometry(&self) -> Json<geojson::Geometry> {
        Json(geojson::Geometry::new(geojson::Value::LineString(
            self.line.coordinates.iter().map(|c| c.to_vec()).collect(),
        )))
    }
}
