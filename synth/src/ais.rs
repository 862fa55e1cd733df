//! Synthetic AIS positions for the generated voyages, in the NOAA MarineCadastre 2015–2023 CSV
//! layout (`MMSI,BaseDateTime,LAT,LON,SOG,COG,Heading,VesselName,IMO,CallSign,VesselType,
//! Status,Length,Width,Draft,Cargo`), so that the demo's containers have tracks to draw.
//!
//! The real AIS samples (`data/ais/`) are of other vessels than the generated ones (whose IMOs
//! are synthetic), hence this generator. What it imitates:
//! - **itineraries**: each generated vessel (IMO) sails between the ports of its actual
//!   (`ACT`) `DEPA`/`ARRI` transport events, in time order; a vessel that has departed but not
//!   arrived by [`crate::dcsa::generator_now`] sails towards the port of its next planned or
//!   estimated arrival and reports up to "now";
//! - **paths** along the MARNET sea lanes ([`teu_pipeline::route::sealanes`]), with a small jitter
//!   (±0.002°, about 200 m) like GPS noise and lane-keeping;
//! - **speeds**: a service speed of 12–22 knots per passage (container ships slow-steam at
//!   14–18); when the schedule leaves time over, the vessel waits at anchor off the next port
//!   (SOG 0–0.5 kn, status "at anchor"); when it leaves too little, it sails faster than 22 kn,
//!   staying below the 60-knot quarantine limit;
//! - **report intervals** of 1–15 minutes (Class A at sea, as received by terrestrial and
//!   satellite stations, thinned), with 0–2 coverage **gaps** of 2–12 hours per passage;
//! - **fields**: MMSI `63` + the 7-digit IMO (a synthetic Liberian-style MID), COG along the
//!   path, heading = COG ± 3° or 511 (not available) for 5% of reports, VesselType 71
//!   (container ship), length/width of a 14,000 TEU ship.
//!
//! Deterministic: the same events and seed give byte-identical CSV.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::dcsa::{generator_now, GeneratedFile};
use teu_pipeline::geodesy::distance_nm;
use teu_pipeline::model::{Classifier, EventRow, EventType};
use teu_pipeline::route::sealanes;

/// The CSV header written (MarineCadastre 2015–2023).
pub const HEADER: &str =
    "MMSI,BaseDateTime,LAT,LON,SOG,COG,Heading,VesselName,IMO,CallSign,VesselType,Status,Length,Width,Draft,Cargo";

/// Generated AIS: the CSV text and counts.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedAis {
    /// File name to write it under.
    pub name: String,
    pub csv: String,
    pub positions: usize,
    pub vessels: usize,
    pub passages: usize,
}

/// One stop of a vessel's itinerary.
#[derive(Debug, Clone)]
struct Stop {
    locode: String,
    arrived: Option<DateTime<Utc>>,
    departed: Option<DateTime<Utc>>,
}

/// The DCSA events of generated files (read with the generator's "now").
pub fn events_of(files: &[GeneratedFile]) -> Vec<EventRow> {
    files
        .iter()
        .filter_map(|f| {
            teu_pipeline::feeds::dcsa::read_value_at(
                serde_json::Value::Array(f.events.clone()),
                &f.name,
                generator_now(),
            )
            .ok()
        })
        .flat_map(|b| b.events.into_iter().map(|e| e.row))
        .collect()
}

/// Counts of what [`write_ais`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AisCounts {
    /// Position reports (CSV rows, header excluded).
    pub positions: usize,
    /// Distinct vessels (IMO numbers) with at least one actual call.
    pub vessels: usize,
    /// Port-to-port passages sailed.
    pub passages: usize,
}

/// AIS positions for the voyages of `events` (module documentation), collected into one CSV
/// text. Holds every position in memory; [`write_ais`] streams them instead.
pub fn generate_ais(events: &[EventRow], seed: u64) -> GeneratedAis {
    let mut csv = String::new();
    let counts = write_ais(events, seed, |text, _| {
        csv.push_str(text);
        Ok::<(), std::convert::Infallible>(())
    })
    .unwrap_or_else(|never| match never {});
    GeneratedAis {
        name: "ais-generated.csv".into(),
        csv,
        positions: counts.positions,
        vessels: counts.vessels,
        passages: counts.passages,
    }
}

/// AIS positions for the voyages of `events` (module documentation), streamed: `out` gets the
/// header line first (with 0 rows), then the CSV lines of one passage at a time with their
/// row count, each line ending in `\n`. Memory holds the distinct vessel calls and one passage,
/// whatever the number of positions. Stops at, and returns, the first error of `out`. The same
/// events and seed give the same text, split the same way.
pub fn write_ais<E>(
    events: &[EventRow],
    seed: u64,
    mut out: impl FnMut(&str, usize) -> Result<(), E>,
) -> Result<AisCounts, E> {
    let now = generator_now();
    let (ports, _) = teu_pipeline::reference::bundled();
    // Distinct vessel calls: (imo, time, code, locode), actual and planned apart.
    let mut actual: BTreeMap<String, BTreeSet<(DateTime<Utc>, String, String)>> = BTreeMap::new();
    let mut planned: BTreeMap<String, BTreeSet<(DateTime<Utc>, String)>> = BTreeMap::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for e in events {
        let (Some(imo), Some(locode)) = (e.vessel_imo.as_deref(), e.locode.as_deref()) else {
            continue;
        };
        if e.event_type != EventType::Transport
            || !matches!(e.mode_of_transport.as_deref(), None | Some("VESSEL"))
        {
            continue;
        }
        if let Some(n) = &e.vessel_name {
            names.entry(imo.to_string()).or_insert_with(|| n.clone());
        }
        if e.classifier == Classifier::Act && e.event_at <= now {
            actual.entry(imo.to_string()).or_default().insert((
                e.event_at,
                e.code.clone(),
                locode.to_string(),
            ));
        } else if e.code == "ARRI" {
            planned
                .entry(imo.to_string())
                .or_default()
                .insert((e.event_at, locode.to_string()));
        }
    }
    let lanes = sealanes::network();
    let mut csv = String::from(HEADER);
    csv.push('\n');
    out(&csv, 0)?;
    let (mut positions, mut passages) = (0, 0);
    for (imo, calls) in &actual {
        // Stops: consecutive calls at one port merged.
        let mut stops: Vec<Stop> = Vec::new();
        for (at, code, locode) in calls {
            if stops
                .last()
                .is_none_or(|s| &s.locode != locode || (code == "ARRI" && s.departed.is_some()))
            {
                stops.push(Stop {
                    locode: locode.clone(),
                    arrived: None,
                    departed: None,
                });
            }
            if let Some(s) = stops.last_mut() {
                if code == "ARRI" {
                    s.arrived.get_or_insert(*at);
                } else {
                    s.departed = Some(*at);
                }
            }
        }
        // A vessel still at sea: head for the next planned arrival after its last departure.
        if let Some(last) = stops.last().and_then(|s| s.departed) {
            if let Some((eta, locode)) = planned
                .get(imo)
                .and_then(|p| p.iter().find(|(t, _)| *t > last))
            {
                stops.push(Stop {
                    locode: locode.clone(),
                    arrived: Some(*eta),
                    departed: None,
                });
            }
        }
        let name = names.get(imo).cloned().unwrap_or_default();
        let mmsi = format!("63{imo}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ imo.parse::<u64>().unwrap_or_default());
        for w in stops.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            let (Some(dep), Some(pa), Some(pb)) =
                (a.departed, ports.get(&a.locode), ports.get(&b.locode))
            else {
                continue;
            };
            let arr = b
                .arrived
                .or(b.departed.map(|d| d - chrono::Duration::hours(24)));
            let Some(arr) = arr.filter(|t| *t > dep) else {
                continue;
            };
            let (Some(from), Some(to)) = (
                pa.longitude.zip(pa.latitude).map(|(x, y)| [x, y]),
                pb.longitude.zip(pb.latitude).map(|(x, y)| [x, y]),
            ) else {
                continue;
            };
            let Some(path) = lanes.route(from, to) else {
                continue;
            };
            passages += 1;
            csv.clear();
            let n = sail(&mut csv, &mut rng, &path, dep, arr, now, &mmsi, imo, &name);
            positions += n;
            out(&csv, n)?;
        }
    }
    Ok(AisCounts {
        positions,
        vessels: actual.len(),
        passages,
    })
}

/// Cumulative distances (nm) along `path`.
fn cumulative(path: &[[f64; 2]]) -> Vec<f64> {
    let mut acc = vec![0.0];
    for w in path.windows(2) {
        let d = distance_nm(w[0][1], w[0][0], w[1][1], w[1][0]);
        acc.push(acc.last().copied().unwrap_or_default() + d);
    }
    acc
}

/// Point and course (degrees) at distance `d` nm along the path.
fn at_distance(path: &[[f64; 2]], cum: &[f64], d: f64) -> ([f64; 2], f64) {
    let i = cum
        .partition_point(|&c| c <= d)
        .clamp(1, path.len().max(2) - 1);
    let (a, b) = (path[i - 1], path[i]);
    let seg = (cum[i] - cum[i - 1]).max(1e-9);
    let t = ((d - cum[i - 1]) / seg).clamp(0.0, 1.0);
    let p = [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
    let (la1, la2) = (a[1].to_radians(), b[1].to_radians());
    let dl = (b[0] - a[0]).to_radians();
    let y = dl.sin() * la2.cos();
    let x = la1.cos() * la2.sin() - la1.sin() * la2.cos() * dl.cos();
    (p, y.atan2(x).to_degrees().rem_euclid(360.0))
}

/// Writes the reports of one passage; returns how many.
#[allow(clippy::too_many_arguments)]
fn sail(
    csv: &mut String,
    rng: &mut ChaCha8Rng,
    path: &[[f64; 2]],
    dep: DateTime<Utc>,
    arr: DateTime<Utc>,
    now: DateTime<Utc>,
    mmsi: &str,
    imo: &str,
    name: &str,
) -> usize {
    let cum = cumulative(path);
    let total_nm = cum.last().copied().unwrap_or_default();
    let span_h = (arr - dep).num_seconds() as f64 / 3600.0;
    if path.len() < 2 || span_h <= 0.0 {
        return 0;
    }
    let service: f64 = rng.random_range(12.0..22.0);
    let speed = service.max(total_nm / span_h).min(40.0);
    let sailing_h = total_nm / speed;
    let gaps: Vec<(f64, f64)> = (0..rng.random_range(0..=2))
        .map(|_| {
            let start = rng.random_range(0.1..0.9) * sailing_h;
            (start, start + rng.random_range(2.0..12.0))
        })
        .collect();
    let mut t_h = 0.0;
    let mut n = 0;
    let end_h = span_h.min((now - dep).num_seconds() as f64 / 3600.0);
    while t_h <= end_h {
        if !gaps.iter().any(|&(a, b)| t_h > a && t_h < b) {
            let sailing = t_h < sailing_h;
            let d = (t_h * speed).min(total_nm);
            let (p, cog) = at_distance(path, &cum, d);
            let jitter = if sailing { 0.002 } else { 0.0005 };
            let lat = (p[1] + rng.random_range(-jitter..jitter)).clamp(-90.0, 90.0);
            let lon = sealanes::wrap_lon(p[0] + rng.random_range(-jitter..jitter));
            let sog = if sailing {
                speed + rng.random_range(-0.5..0.5)
            } else {
                rng.random_range(0.0..0.5)
            };
            let heading = if rng.random_bool(0.05) {
                511.0
            } else {
                (cog + rng.random_range(-3.0..3.0))
                    .rem_euclid(360.0)
                    .floor()
            };
            let at = dep + chrono::Duration::seconds((t_h * 3600.0) as i64);
            let status = if sailing {
                "under way using engine"
            } else {
                "at anchor"
            };
            let _ = writeln!(
                csv,
                "{mmsi},{},{lat:.5},{lon:.5},{sog:.1},{cog:.1},{heading:.0},{name},IMO{imo},A8{},71,{status},366,51,14.5,71",
                at.format("%Y-%m-%dT%H:%M:%S"),
                &imo[imo.len().saturating_sub(3)..],
            );
            n += 1;
        }
        t_h += rng.random_range(1.0..15.0) / 60.0;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dcsa::{generate, GenOptions};

    #[test]
    fn streamed_passages_add_up_to_the_collected_text() {
        let files = generate(&GenOptions {
            shipments: 12,
            seed: 7,
            events_per_file: 0,
        });
        let events = events_of(&files);
        let (mut text, mut calls, mut rows) = (String::new(), 0, 0);
        let counts = write_ais(&events, 7, |lines, n| {
            calls += 1;
            rows += n;
            assert_eq!(lines.matches('\n').count(), if calls == 1 { 1 } else { n });
            text.push_str(lines);
            Ok::<(), ()>(())
        })
        .unwrap();
        let ais = generate_ais(&events, 7);
        assert_eq!(text, ais.csv);
        assert_eq!((counts.positions, rows), (ais.positions, ais.positions));
        assert_eq!(
            calls,
            counts.passages + 1,
            "the header, then one call per passage"
        );
        // The sink's error stops the stream.
        let mut seen = 0;
        let err = write_ais(&events, 7, |_, _| {
            seen += 1;
            if seen == 2 {
                Err("disk full")
            } else {
                Ok(())
            }
        });
        assert_eq!((err, seen), (Err("disk full"), 2));
    }

    #[test]
    fn generated_positions_are_valid_marinecadastre_ais() {
        let files = generate(&GenOptions {
            shipments: 12,
            seed: 7,
            events_per_file: 0,
        });
        let events = events_of(&files);
        let ais = generate_ais(&events, 7);
        assert!(ais.positions > 100, "{ais:?}");
        assert!(ais.passages > 0);
        assert_eq!(ais, generate_ais(&events, 7), "deterministic");
        let batch = teu_pipeline::feeds::ais::read_csv(ais.csv.as_bytes(), &ais.name).unwrap();
        assert_eq!(
            batch.layout,
            teu_pipeline::feeds::ais::AisLayout::MarineCadastre
        );
        assert_eq!(batch.rows_read, ais.positions);
        assert!(
            batch.quarantined.is_empty(),
            "{:?}",
            &batch.quarantined[..batch.quarantined.len().min(3)]
        );
        // Every vessel is a generated one: its IMO appears in the events.
        let imos: BTreeSet<_> = events.iter().filter_map(|e| e.vessel_imo.clone()).collect();
        assert!(batch
            .positions
            .iter()
            .all(|(_, p)| p.imo.as_deref().is_some_and(|i| imos.contains(i))));
    }
}
