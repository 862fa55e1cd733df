//! Merging the two port files into [`Port`]s: coordinates checked and repaired, time zones from
//! sea-ports, from the coordinates or from the country (see the [module documentation](super)).

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use super::port_files::{
    is_valid_zone, parse_sea_ports, parse_searoute, state_abbreviation, LonLat, SeaPortEntry,
    SearouteEntry,
};
use super::ReferenceError;
use crate::model::{Port, UnLocode};

/// A coordinate candidate is plausible when another port of the same country lies this close.
const PLAUSIBLE_KM: f64 = 1_000.0;
/// A repaired coordinate (negated or swapped) must lie this close to another port of the country.
const REPAIRED_KM: f64 = 150.0;
/// Radii (degrees) probed around a point that tzf places at sea.
const PROBE_RADII_DEG: [f64; 6] = [0.02, 0.05, 0.1, 0.2, 0.35, 0.5];
/// Directions probed at each radius: N, NE, E, SE, S, SW, W, NW.
const PROBE_DIRECTIONS: [(f64, f64); 8] = [
    (0.0, 1.0),
    (1.0, 1.0),
    (1.0, 0.0),
    (1.0, -1.0),
    (0.0, -1.0),
    (-1.0, -1.0),
    (-1.0, 0.0),
    (-1.0, 1.0),
];

/// Where a port's time zone came from (for the tests' report).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ZoneSource {
    SeaPorts,
    Coordinates,
    Country,
    Missing,
}

/// Counts from one merge, for the tests.
#[derive(Debug, Default)]
pub(super) struct PortReport {
    /// UN/LOCODE → where its time zone came from.
    pub(super) zone_source: BTreeMap<String, ZoneSource>,
    /// Ports whose coordinates were repaired (negated or swapped) or taken from sea-ports
    /// because searoute's point failed the country check.
    pub(super) repaired: Vec<String>,
    /// Ports whose coordinates failed the country check and were kept as they are.
    pub(super) implausible: Vec<String>,
    /// (UN/LOCODE, sea-ports zone, zone used instead) where sea-ports' zone was contradicted by
    /// the coordinates.
    pub(super) zone_replaced: Vec<(String, String, String)>,
}

#[derive(Default)]
struct Draft {
    pub(super) sea: Option<SeaPortEntry>,
    routes: Vec<SearouteEntry>,
}

/// The tzf-rs finder, built on first use and shared by every load in the process.
fn tz_finder() -> &'static tzf_rs::DefaultFinder {
    static FINDER: OnceLock<tzf_rs::DefaultFinder> = OnceLock::new();
    FINDER.get_or_init(tzf_rs::DefaultFinder::new)
}

/// Whether two IANA zones keep the same clock: equal UTC offsets in mid-January and mid-July
/// 2025 (so `Asia/Calcutta` and `Asia/Kolkata` agree, `Asia/Bangkok` and `Asia/Tehran` do not).
pub(super) fn same_clock(a: &str, b: &str) -> bool {
    use chrono::{Offset, TimeZone};
    if a == b {
        return true;
    }
    let (Ok(a), Ok(b)) = (a.parse::<chrono_tz::Tz>(), b.parse::<chrono_tz::Tz>()) else {
        return false;
    };
    [(2025, 1, 15), (2025, 7, 15)].into_iter().all(|(y, m, d)| {
        let Some(at) =
            chrono::NaiveDate::from_ymd_opt(y, m, d).and_then(|d| d.and_hms_opt(12, 0, 0))
        else {
            return false;
        };
        a.offset_from_utc_datetime(&at).fix() == b.offset_from_utc_datetime(&at).fix()
    })
}

fn is_land_zone(name: &str) -> bool {
    !name.is_empty() && !name.starts_with("Etc/") && is_valid_zone(name)
}

/// The IANA time zone at `p` (see the module documentation), or `None`.
fn zone_at(p: LonLat) -> Option<String> {
    let finder = tz_finder();
    let here = finder.get_tz_name(p.lon, p.lat);
    if is_land_zone(here) {
        return Some(here.to_owned());
    }
    for radius in PROBE_RADII_DEG {
        for (dx, dy) in PROBE_DIRECTIONS {
            let lat = (p.lat + dy * radius).clamp(-90.0, 90.0);
            let mut lon = p.lon + dx * radius;
            if lon > 180.0 {
                lon -= 360.0;
            } else if lon < -180.0 {
                lon += 360.0;
            }
            let name = finder.get_tz_name(lon, lat);
            if is_land_zone(name) {
                return Some(name.to_owned());
            }
        }
    }
    (!here.is_empty() && is_valid_zone(here)).then(|| here.to_owned())
}

/// Whether another port of the same country (per `refs`, excluding `me`) lies within `km` of
/// `p`; `None` when the country has no other port with coordinates.
fn near_other_port(refs: &[(usize, LonLat)], me: usize, p: LonLat, km: f64) -> Option<bool> {
    let mut any = false;
    for &(id, q) in refs {
        if id == me {
            continue;
        }
        any = true;
        if p.km_to(q) <= km {
            return Some(true);
        }
    }
    any.then_some(false)
}

pub(super) fn build_ports(
    sea_file: &str,
    sea_text: &str,
    route_file: &str,
    route_text: &str,
) -> Result<(Vec<Port>, PortReport), ReferenceError> {
    let sea = parse_sea_ports(sea_file, sea_text)?;
    let routes = parse_searoute(route_file, route_text)?;

    let mut drafts: BTreeMap<UnLocode, Draft> = BTreeMap::new();
    for entry in sea {
        let key = entry.locode.clone();
        drafts.entry(key).or_default().sea = Some(entry);
    }
    for entry in routes {
        drafts
            .entry(entry.locode.clone())
            .or_default()
            .routes
            .push(entry);
    }
    let drafts: Vec<(UnLocode, Draft)> = drafts.into_iter().collect();

    // Reference points per country: every in-range candidate point of every port.
    let mut refs: HashMap<&str, Vec<(usize, LonLat)>> = HashMap::new();
    for (id, (locode, draft)) in drafts.iter().enumerate() {
        let points = draft
            .sea
            .iter()
            .filter_map(|s| s.point)
            .chain(draft.routes.iter().filter_map(|r| r.point));
        for p in points.filter(|p| p.in_range()) {
            refs.entry(&locode[..2]).or_default().push((id, p));
        }
    }

    let mut report = PortReport::default();
    let mut ports: Vec<Port> = Vec::with_capacity(drafts.len());
    let mut sources: Vec<ZoneSource> = Vec::with_capacity(drafts.len());
    for (id, (locode, draft)) in drafts.iter().enumerate() {
        let sea_point = draft.sea.as_ref().and_then(|s| s.point);
        // The searoute feature to use: the one nearest sea-ports' point, else the first.
        let route = match sea_point.filter(|p| p.in_range()) {
            Some(sp) => draft
                .routes
                .iter()
                .filter(|r| r.point.is_some_and(LonLat::in_range))
                .min_by(|a, b| {
                    let da = a.point.map_or(f64::MAX, |p| p.km_to(sp));
                    let db = b.point.map_or(f64::MAX, |p| p.km_to(sp));
                    da.total_cmp(&db)
                })
                .or(draft.routes.first()),
            None => draft.routes.first(),
        };

        let country_refs = refs.get(&locode[..2]).map_or(&[][..], Vec::as_slice);
        let candidates: Vec<LonLat> = route
            .and_then(|r| r.point)
            .into_iter()
            .chain(sea_point)
            .collect();
        let plausible = |p: LonLat, km: f64| {
            p.in_range()
                && near_other_port(country_refs, id, p, km).unwrap_or(true)
                && zone_at(p).is_some_and(|zone| is_land_zone(&zone))
        };
        let mut point = candidates
            .iter()
            .copied()
            .find(|&p| plausible(p, PLAUSIBLE_KM));
        if point.is_none() {
            point = candidates
                .iter()
                .flat_map(|&LonLat { lon, lat }| {
                    [
                        LonLat { lon: -lon, lat },
                        LonLat { lon: lat, lat: lon },
                        LonLat { lon, lat: -lat },
                    ]
                })
                .find(|&p| plausible(p, REPAIRED_KM));
            match point {
                Some(_) => report.repaired.push(locode.to_string()),
                None if !candidates.is_empty() => {
                    report.implausible.push(locode.to_string());
                    point = candidates.iter().copied().find(|p| p.in_range());
                }
                None => {}
            }
        } else if point != candidates.first().copied() {
            report.repaired.push(locode.to_string());
        }

        let sea_zone = draft.sea.as_ref().and_then(|s| s.zone.clone());
        let here = point.and_then(zone_at);
        let (time_zone, source) = match (sea_zone, here) {
            (Some(zone), Some(here)) if is_land_zone(&here) && !same_clock(&zone, &here) => {
                // sea-ports' zone keeps a different clock from the one at the port's point. Ask
                // sea-ports' own point too: when it agrees with the zone, the point is the
                // suspect (e.g. USSTP); when it does not, the zone is wrong (THBKK).
                let own = sea_point.filter(|p| p.in_range()).and_then(zone_at);
                if own.is_some_and(|own| same_clock(&zone, &own)) {
                    (Some(zone), ZoneSource::SeaPorts)
                } else {
                    report
                        .zone_replaced
                        .push((locode.to_string(), zone, here.clone()));
                    (Some(here), ZoneSource::Coordinates)
                }
            }
            (Some(zone), _) => (Some(zone), ZoneSource::SeaPorts),
            (None, Some(here)) => (Some(here), ZoneSource::Coordinates),
            (None, None) => (None, ZoneSource::Missing),
        };

        let name = draft
            .sea
            .as_ref()
            .map(|s| s.name.clone())
            .or_else(|| route.and_then(|r| r.name.clone()))
            .or_else(|| draft.routes.iter().find_map(|r| r.name.clone()))
            .unwrap_or_else(|| locode.to_string());
        let country = draft
            .sea
            .as_ref()
            .and_then(|s| s.country.clone())
            .or_else(|| draft.routes.iter().find_map(|r| r.country.clone()));

        let state = draft.sea.as_ref().and_then(|s| s.province.clone());
        let state_abbr = state
            .as_deref()
            .and_then(|st| state_abbreviation(&locode[..2], st))
            .map(str::to_owned);
        ports.push(Port {
            locode: locode.clone(),
            name,
            country_code: locode[..2].to_owned(),
            country,
            latitude: point.map(|p| p.lat),
            longitude: point.map(|p| p.lon),
            time_zone,
            state,
            state_abbr,
        });
        sources.push(source);
    }

    // Ports without a zone (and without coordinates): the zone of at least 90% of the other
    // ports of the country that have a land zone.
    let mut country_zones: HashMap<&str, HashMap<&str, usize>> = HashMap::new();
    for port in &ports {
        if let Some(zone) = port.time_zone.as_deref().filter(|z| !z.starts_with("Etc/")) {
            *country_zones
                .entry(&port.country_code)
                .or_default()
                .entry(zone)
                .or_default() += 1;
        }
    }
    let dominant = |country: &str| -> Option<String> {
        let zones = country_zones.get(country)?;
        let total: usize = zones.values().sum();
        let (zone, count) = zones
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))?;
        (*count * 10 >= total * 9).then(|| (*zone).to_owned())
    };
    let fills: Vec<(usize, String)> = ports
        .iter()
        .enumerate()
        .filter(|(_, p)| p.time_zone.is_none() && p.latitude.is_none())
        .filter_map(|(i, p)| Some((i, dominant(&p.country_code)?)))
        .collect();
    for (i, zone) in fills {
        ports[i].time_zone = Some(zone);
        sources[i] = ZoneSource::Country;
    }

    for (port, source) in ports.iter().zip(sources) {
        report.zone_source.insert(port.locode.to_string(), source);
    }
    if !report.implausible.is_empty() {
        tracing::debug!(
            ports = ?report.implausible,
            "coordinates far from every other port of their country, kept as they are"
        );
    }
    Ok((ports, report))
}
