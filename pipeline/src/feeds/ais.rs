//! AIS position readers: NOAA MarineCadastre (2015–2023 and 2024+ headers), Danish Maritime
//! Authority, and the plain `ID,timestamp,longitude,latitude` track layout.
//!
//! | layout | header (first columns) | time format (UTC) |
//! |---|---|---|
//! | [`AisLayout::MarineCadastre`] | `MMSI,BaseDateTime,LAT,LON,SOG,COG,Heading,VesselName,IMO,...` | `2017-12-01T00:00:01` |
//! | [`AisLayout::MarineCadastre2024`] | `mmsi,base_date_time,longitude,latitude,sog,cog,heading,vessel_name,imo,...` (often zstd) | `2024-01-01 00:00:01` or with `T` |
//! | [`AisLayout::Dma`] | `# Timestamp,Type of mobile,MMSI,Latitude,Longitude,...,SOG,COG,Heading,IMO,Callsign,Name,...` | `01/01/2024 00:00:01` (day first) |
//! | [`AisLayout::Track`] | `ID,<timestamp column>,longitude,latitude` (e.g. the Suez 2021 sample) | `20/03/2021 00:22` (day first) or RFC 3339 |
//!
//! Columns are found by name (compared without case, spaces or punctuation), in any order; extra
//! columns are ignored. A zstd-compressed file is decompressed by [`crate::feeds::read_bytes`]
//! before it gets here.
//!
//! Rules (sources: ITU-R M.1371-5, NOAA MarineCadastre "AIS data dictionary", DMA AIS notes):
//! - latitude must lie in [-90, 90] and longitude in [-180, 180]; 91 and 181 are the AIS
//!   "not available" values. A row failing this, or with an unreadable vessel id or time, is
//!   quarantined with the file, row index, column and reason.
//! - an *impossible jump* is quarantined too: a position whose implied speed from the vessel's
//!   previous accepted position exceeds [`MAX_IMPLIED_SPEED_KNOTS`] (60 knots; no merchant ship
//!   does 40). Times closer than the layout's resolution (1 s, or 60 s for minute stamps) count
//!   as that resolution. A vessel's first position is checked against the next two as well: when
//!   they agree with each other and not with it, the first one is the outlier.
//! - heading 511 and COG 360 mean "not available" and become `None`; so do SOG 102.3 and any
//!   heading outside 0–359 or COG outside [-360, 360). Negative COG (seen in MarineCadastre
//!   files) is read modulo 360.
//! - IMO is kept as its 7 digits (`IMO9739666` → `9739666`); `0`, `IMO0000000`, `Unknown` and
//!   other non-7-digit values are `None`. Check digits are not enforced (see docs/NOTES.md).
//!
//! The accepted rows go through a polars frame with a fixed schema ([`positions_frame`]) that
//! sorts them by vessel and time for the jump check.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDateTime, Utc};
use polars::prelude::*;
use serde::{Deserialize, Serialize};

use super::{FeedError, Quarantined};
use crate::model::VesselPosition;

/// Largest speed a position may imply from the vessel's previous one, in knots.
pub const MAX_IMPLIED_SPEED_KNOTS: f64 = 60.0;

/// The AIS file layouts teu reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AisLayout {
    /// NOAA MarineCadastre daily files, 2015–2023 (`MMSI,BaseDateTime,LAT,LON,...`).
    MarineCadastre,
    /// NOAA MarineCadastre daily files from 2024 (`mmsi,base_date_time,longitude,latitude,...`).
    MarineCadastre2024,
    /// Danish Maritime Authority daily files (`# Timestamp,Type of mobile,MMSI,...`).
    Dma,
    /// A plain track: an anonymous vessel id, a timestamp, longitude and latitude.
    Track,
}

impl AisLayout {
    /// Time resolution of the layout's timestamps, in seconds.
    fn resolution_s(self) -> f64 {
        match self {
            AisLayout::Track => 60.0,
            _ => 1.0,
        }
    }
}

/// The columns an AIS reader looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Col {
    Mmsi,
    TrackId,
    Time,
    Lat,
    Lon,
    Sog,
    Cog,
    Heading,
    Name,
    Imo,
}

impl Col {
    fn label(self) -> &'static str {
        match self {
            Col::Mmsi => "MMSI",
            Col::TrackId => "ID",
            Col::Time => "timestamp",
            Col::Lat => "latitude",
            Col::Lon => "longitude",
            Col::Sog => "SOG",
            Col::Cog => "COG",
            Col::Heading => "heading",
            Col::Name => "vessel name",
            Col::Imo => "IMO",
        }
    }
}

fn col_of(name: &str) -> Option<Col> {
    Some(match name {
        "mmsi" => Col::Mmsi,
        "id" | "trackid" | "vesselid" | "boatid" => Col::TrackId,
        "basedatetime" | "timestamp" | "aispostimestamp" | "time" | "datetime" => Col::Time,
        "lat" | "latitude" => Col::Lat,
        "lon" | "long" | "longitude" => Col::Lon,
        "sog" => Col::Sog,
        "cog" => Col::Cog,
        "heading" | "trueheading" => Col::Heading,
        "vesselname" | "name" | "shipname" => Col::Name,
        "imo" => Col::Imo,
        _ => return None,
    })
}

/// The layout of a CSV whose first line is `header`, when it is an AIS file: it needs a vessel
/// id (MMSI or track id), a time, a latitude and a longitude column.
pub fn detect(header: &str) -> Option<AisLayout> {
    let names: Vec<String> = header.split(',').map(super::fold_token).collect();
    let cols: Vec<Option<Col>> = names.iter().map(|n| col_of(n)).collect();
    let has = |c: Col| cols.contains(&Some(c));
    if !(has(Col::Time) && has(Col::Lat) && has(Col::Lon)) {
        return None;
    }
    let raw = header.to_ascii_lowercase();
    if has(Col::Mmsi) {
        if raw.contains("base_date_time") {
            Some(AisLayout::MarineCadastre2024)
        } else if names.iter().any(|n| n == "basedatetime") {
            Some(AisLayout::MarineCadastre)
        } else if names.iter().any(|n| n == "typeofmobile") || raw.starts_with("# timestamp") {
            Some(AisLayout::Dma)
        } else {
            // Another MMSI-keyed export: read like MarineCadastre (names decide the columns).
            Some(AisLayout::MarineCadastre)
        }
    } else if has(Col::TrackId) {
        Some(AisLayout::Track)
    } else {
        None
    }
}

/// What the AIS reader made of one file.
#[derive(Debug, Clone, PartialEq)]
pub struct AisBatch {
    pub layout: AisLayout,
    /// Data rows in the file (accepted + quarantined).
    pub rows_read: usize,
    /// Accepted positions with their zero-based row index, sorted by vessel and time.
    pub positions: Vec<(usize, VesselPosition)>,
    pub quarantined: Vec<Quarantined>,
}

/// Reads an AIS CSV (`bytes` without a BOM, not compressed) named `source_file`.
///
/// Fails only when the header is not an AIS header; bad rows are quarantined.
pub fn read_csv(bytes: &[u8], source_file: &str) -> Result<AisBatch, FeedError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut rdr = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(bytes);
    let header = rdr
        .headers()
        .map_err(|e| FeedError::UnknownFormat {
            source_file: source_file.to_string(),
            detail: format!("unreadable CSV header: {e}"),
        })?
        .clone();
    let header_line = header.iter().collect::<Vec<_>>().join(",");
    let layout = detect(&header_line).ok_or_else(|| FeedError::UnknownFormat {
        source_file: source_file.to_string(),
        detail: "not an AIS header: expected MMSI (or ID), a timestamp, latitude and longitude"
            .into(),
    })?;
    let mut index: HashMap<Col, usize> = HashMap::new();
    for (i, name) in header.iter().enumerate() {
        if let Some(c) = col_of(&super::fold_token(name)) {
            index.entry(c).or_insert(i);
        }
    }
    let stem = std::path::Path::new(source_file)
        .file_stem()
        .map(|s| s.to_string_lossy().trim_end_matches(".csv").to_string())
        .unwrap_or_else(|| source_file.to_string());

    let mut quarantined = Vec::new();
    let mut rows: Vec<(usize, VesselPosition)> = Vec::new();
    let mut rows_read = 0;
    for (i, record) in rdr.records().enumerate() {
        rows_read += 1;
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                quarantined.push(quarantine(source_file, i, "row", e.to_string(), None));
                continue;
            }
        };
        let raw = record.iter().collect::<Vec<_>>().join(",");
        match parse_row(&record, &index, layout, &stem) {
            Ok(p) => rows.push((i, p)),
            Err((col, reason)) => {
                quarantined.push(quarantine(source_file, i, col.label(), reason, Some(raw)))
            }
        }
    }
    let (positions, jumps) = drop_impossible_jumps(rows, layout.resolution_s(), source_file)
        .map_err(|e| FeedError::UnknownFormat {
            source_file: source_file.to_string(),
            detail: format!("AIS frame: {e}"),
        })?;
    quarantined.extend(jumps);
    quarantined.sort_by_key(|q| q.index);
    Ok(AisBatch {
        layout,
        rows_read,
        positions,
        quarantined,
    })
}

fn quarantine(
    source_file: &str,
    index: usize,
    field: &str,
    reason: String,
    raw: Option<String>,
) -> Quarantined {
    Quarantined {
        source_file: source_file.to_string(),
        index: Some(index),
        pointer: field.to_string(),
        reason,
        payload: raw,
    }
}

type RowResult<T> = Result<T, (Col, String)>;

fn parse_row(
    record: &csv::StringRecord,
    index: &HashMap<Col, usize>,
    layout: AisLayout,
    stem: &str,
) -> RowResult<VesselPosition> {
    let get = |c: Col| {
        index
            .get(&c)
            .and_then(|&i| record.get(i))
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let (mmsi, track) = if layout == AisLayout::Track {
        let id = get(Col::TrackId).ok_or((Col::TrackId, "vessel id is missing".to_string()))?;
        (None, Some(format!("{stem}:{id}")))
    } else {
        let m = get(Col::Mmsi).ok_or((Col::Mmsi, "MMSI is missing".to_string()))?;
        if m.len() != 9 || !m.bytes().all(|b| b.is_ascii_digit()) {
            return Err((Col::Mmsi, format!("MMSI {m:?} is not 9 digits")));
        }
        (Some(m.to_string()), None)
    };
    let time = get(Col::Time).ok_or((Col::Time, "timestamp is missing".to_string()))?;
    let observed_at = parse_time(time, layout).ok_or_else(|| {
        (
            Col::Time,
            format!("timestamp {time:?} is not a date and time"),
        )
    })?;
    let lat = coordinate(get(Col::Lat), Col::Lat, 90.0, 91.0)?;
    let lon = coordinate(get(Col::Lon), Col::Lon, 180.0, 181.0)?;
    let num = |c: Col| {
        get(c)
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|v| v.is_finite())
    };
    let speed_knots = num(Col::Sog).filter(|v| (0.0..102.25).contains(v));
    let course_deg = num(Col::Cog)
        .filter(|v| (-360.0..360.0).contains(v))
        .map(|v| v.rem_euclid(360.0));
    let heading_deg = num(Col::Heading).filter(|v| (0.0..360.0).contains(v));
    let imo = get(Col::Imo).and_then(|s| {
        let digits = s
            .strip_prefix("IMO")
            .or_else(|| s.strip_prefix("imo"))
            .unwrap_or(s)
            .trim();
        (digits.len() == 7 && digits.bytes().all(|b| b.is_ascii_digit()) && digits != "0000000")
            .then(|| digits.to_string())
    });
    let vessel_name = get(Col::Name).map(str::to_string);
    Ok(VesselPosition {
        mmsi,
        track,
        imo,
        vessel_name,
        observed_at,
        latitude: lat,
        longitude: lon,
        speed_knots,
        course_deg,
        heading_deg,
    })
}

fn coordinate(text: Option<&str>, col: Col, limit: f64, sentinel: f64) -> RowResult<f64> {
    let text = text.ok_or((col, format!("{} is missing", col.label())))?;
    let v: f64 = text
        .parse()
        .map_err(|_| (col, format!("{} {text:?} is not a number", col.label())))?;
    if v == sentinel {
        return Err((
            col,
            format!("{} {v} means \"not available\" in AIS", col.label()),
        ));
    }
    if !v.is_finite() || v.abs() > limit {
        return Err((
            col,
            format!("{} {v} is outside [-{limit}, {limit}]", col.label()),
        ));
    }
    Ok(v)
}

/// Parses the time formats of the layouts; every AIS time is UTC.
fn parse_time(s: &str, layout: AisLayout) -> Option<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    let iso = [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ];
    let day_first = [
        "%d/%m/%Y %H:%M:%S%.f",
        "%d/%m/%Y %H:%M",
        "%d-%m-%Y %H:%M:%S",
        "%d.%m.%Y %H:%M:%S",
    ];
    let s = s.trim_end_matches('Z');
    let try_all = |fmts: &[&str]| {
        fmts.iter()
            .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
    };
    let naive = match layout {
        AisLayout::Dma | AisLayout::Track => try_all(&day_first).or_else(|| try_all(&iso)),
        _ => try_all(&iso).or_else(|| try_all(&day_first)),
    }?;
    Some(naive.and_utc())
}

/// Great-circle distance in nautical miles between two points given as latitude and longitude in
/// degrees: `geo`'s haversine on the mean Earth radius (6,371,008.8 m), divided by 1,852 m per
/// nautical mile. The one distance function of the AIS checks, the sea-lane weights and the
/// inland-destination rule.
pub fn distance_nm(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    use geo::{Distance, Haversine, Point};
    Haversine.distance(Point::new(lon1, lat1), Point::new(lon2, lat2)) / 1_852.0
}

/// The fixed schema of accepted AIS rows as a polars frame: `row` (u64, index in the file),
/// `vessel` (str: MMSI or track id), `at` (i64, ms since the epoch, UTC), `lat`, `lon` (f64,
/// degrees), sorted by vessel, time and row.
pub fn positions_frame(rows: &[(usize, VesselPosition)]) -> PolarsResult<LazyFrame> {
    let row: Vec<u64> = rows.iter().map(|(i, _)| *i as u64).collect();
    let pos: Vec<u64> = (0..rows.len() as u64).collect();
    let vessel: Vec<&str> = rows.iter().map(|(_, p)| p.vessel_key()).collect();
    let at: Vec<i64> = rows
        .iter()
        .map(|(_, p)| p.observed_at.timestamp_millis())
        .collect();
    let lat: Vec<f64> = rows.iter().map(|(_, p)| p.latitude).collect();
    let lon: Vec<f64> = rows.iter().map(|(_, p)| p.longitude).collect();
    let frame = df!(
        "pos" => pos,
        "row" => row,
        "vessel" => vessel,
        "at" => at,
        "lat" => lat,
        "lon" => lon,
    )?;
    Ok(frame.lazy().sort(
        ["vessel", "at", "row"],
        SortMultipleOptions::default().with_maintain_order(true),
    ))
}

/// Positions with their row index in the file.
type IndexedPositions = Vec<(usize, VesselPosition)>;

/// Implied speed in knots from `a` to `b`; times closer than `resolution_s` seconds count as
/// that resolution.
fn implied_knots(a: &VesselPosition, b: &VesselPosition, resolution_s: f64) -> (f64, f64, f64) {
    let dt = (b.observed_at - a.observed_at).num_milliseconds() as f64 / 1000.0;
    let nm = distance_nm(a.latitude, a.longitude, b.latitude, b.longitude);
    (nm / (dt.abs().max(resolution_s) / 3600.0), nm, dt)
}

/// Sorts the rows by vessel and time (polars) and quarantines each position whose implied speed
/// from the vessel's previous accepted position exceeds [`MAX_IMPLIED_SPEED_KNOTS`].
///
/// The check looks one position ahead for a vessel's first accepted position, which nothing
/// before it confirms: when the second position jumps from the first but agrees with the third,
/// and the third does not agree with the first, the first is the outlier and is quarantined
/// instead (otherwise one bad opening fix would quarantine the whole track behind it).
fn drop_impossible_jumps(
    rows: IndexedPositions,
    resolution_s: f64,
    source_file: &str,
) -> PolarsResult<(IndexedPositions, Vec<Quarantined>)> {
    let sorted = positions_frame(&rows)?.select([col("pos")]).collect()?;
    let order: Vec<usize> = sorted
        .column("pos")?
        .u64()?
        .into_no_null_iter()
        .map(|p| p as usize)
        .collect();
    let mut slots: Vec<Option<(usize, VesselPosition)>> = rows.into_iter().map(Some).collect();
    let mut kept: IndexedPositions = Vec::with_capacity(slots.len());
    let mut jumps = Vec::new();
    // The previous accepted position of the current vessel, and whether it was the vessel's
    // first (unconfirmed) one.
    let mut last: Option<(usize, VesselPosition, bool)> = None;
    let jump = |row: usize,
                pos: &VesselPosition,
                from_row: usize,
                (knots, nm, dt): (f64, f64, f64)| {
        quarantine(
            source_file,
            row,
            "latitude,longitude",
            format!(
                "impossible jump: {nm:.1} nm in {:.0} s from row {from_row} ({knots:.0} knots > {MAX_IMPLIED_SPEED_KNOTS} knots)",
                dt.abs()
            ),
            serde_json::to_string(pos).ok(),
        )
    };
    for (i, &p) in order.iter().enumerate() {
        let Some((row, pos)) = slots.get_mut(p).and_then(Option::take) else {
            continue;
        };
        let same_vessel = last
            .as_ref()
            .is_some_and(|(_, l, _)| l.vessel_key() == pos.vessel_key());
        if !same_vessel {
            last = Some((row, pos.clone(), true));
            kept.push((row, pos));
            continue;
        }
        let Some((prev_row, prev, first)) = last.take() else {
            continue;
        };
        let from_prev = implied_knots(&prev, &pos, resolution_s);
        if from_prev.0 <= MAX_IMPLIED_SPEED_KNOTS {
            last = Some((row, pos.clone(), false));
            kept.push((row, pos));
            continue;
        }
        let next = order
            .get(i + 1)
            .and_then(|&n| slots.get(n))
            .and_then(Option::as_ref)
            .map(|(_, n)| n)
            .filter(|n| n.vessel_key() == pos.vessel_key());
        let prev_is_outlier = first
            && next.is_some_and(|n| {
                implied_knots(&pos, n, resolution_s).0 <= MAX_IMPLIED_SPEED_KNOTS
                    && implied_knots(&prev, n, resolution_s).0 > MAX_IMPLIED_SPEED_KNOTS
            });
        if prev_is_outlier {
            kept.pop();
            jumps.push(jump(
                prev_row,
                &prev,
                row,
                implied_knots(&pos, &prev, resolution_s),
            ));
            last = Some((row, pos.clone(), true));
            kept.push((row, pos));
        } else {
            jumps.push(jump(row, &pos, prev_row, from_prev));
            last = Some((prev_row, prev, first));
        }
    }
    Ok((kept, jumps))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(name: &str) -> Vec<u8> {
        std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../data/ais")
                .join(name),
        )
        .unwrap()
    }

    #[test]
    fn detects_the_layouts() {
        assert_eq!(
            detect("MMSI,BaseDateTime,LAT,LON,SOG,COG,Heading,VesselName,IMO,CallSign"),
            Some(AisLayout::MarineCadastre)
        );
        assert_eq!(
            detect("mmsi,base_date_time,longitude,latitude,sog,cog,heading,vessel_name,imo"),
            Some(AisLayout::MarineCadastre2024)
        );
        assert_eq!(
            detect("# Timestamp,Type of mobile,MMSI,Latitude,Longitude,Navigational status,ROT,SOG,COG,Heading,IMO,Callsign,Name"),
            Some(AisLayout::Dma)
        );
        assert_eq!(
            detect("ID,ais_pos_timestamp,longitude,latitude"),
            Some(AisLayout::Track)
        );
        assert_eq!(detect("container,terminal,available"), None);
    }

    #[test]
    fn marinecadastre_sample() {
        let b = read_csv(&sample("marinecadastre-ten.csv"), "marinecadastre-ten.csv").unwrap();
        assert_eq!(b.layout, AisLayout::MarineCadastre);
        assert_eq!(b.rows_read, 10);
        assert_eq!(b.positions.len(), 10, "{:?}", b.quarantined);
        let first = b.positions.iter().find(|(i, _)| *i == 0).unwrap();
        assert_eq!(first.1.imo.as_deref(), Some("9739666"));
        assert_eq!(first.1.mmsi.as_deref(), Some("477307901"));
        assert_eq!(first.1.heading_deg, Some(352.0));
        let second = b.positions.iter().find(|(i, _)| *i == 1).unwrap();
        assert_eq!(second.1.heading_deg, None, "511 is unknown");
        assert_eq!(second.1.imo, None);
        let fifth = b.positions.iter().find(|(i, _)| *i == 4).unwrap();
        assert_eq!(fifth.1.course_deg, Some(360.0 - 97.8));
    }

    #[test]
    fn track_sample_with_bom_and_minute_stamps() {
        let b = read_csv(
            &sample("suez-2021-boat-positions.csv"),
            "data/ais/suez-2021-boat-positions.csv",
        )
        .unwrap();
        assert_eq!(b.layout, AisLayout::Track);
        assert_eq!(b.rows_read, 22_287);
        assert_eq!(b.positions.len() + b.quarantined.len(), 22_287);
        assert!(b.quarantined.len() < 300, "{}", b.quarantined.len());
        assert_eq!(
            b.positions[0].1.track.as_deref(),
            Some("suez-2021-boat-positions:1")
        );
        assert!(b
            .quarantined
            .iter()
            .all(|q| q.reason.starts_with("impossible jump")));
    }

    #[test]
    fn a_wrong_first_position_does_not_take_the_track_with_it() {
        // The real Suez track sample, with a fix moved 20 degrees south: first the vessel's
        // opening fix (row 0), then one in the middle (row 2).
        let text = String::from_utf8(sample("suez-2021-boat-positions.csv")).unwrap();
        let rows_of = |b: &AisBatch| -> std::collections::BTreeSet<usize> {
            b.quarantined.iter().filter_map(|q| q.index).collect()
        };
        let clean = read_csv(text.as_bytes(), "suez.csv").unwrap();
        let moved = |row: usize| {
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            let mut f: Vec<String> = lines[row + 1].split(',').map(str::to_string).collect();
            f[3] = format!("{:.5}", f[3].parse::<f64>().unwrap() - 20.0);
            lines[row + 1] = f.join(",");
            read_csv(lines.join("\n").as_bytes(), "suez.csv").unwrap()
        };
        for row in [0, 2] {
            let b = moved(row);
            let mut expected = rows_of(&clean);
            assert!(!expected.contains(&row));
            expected.insert(row);
            assert_eq!(rows_of(&b), expected, "fix {row} moved");
            assert_eq!(b.positions.len(), clean.positions.len() - 1);
            let q = b.quarantined.iter().find(|q| q.index == Some(row)).unwrap();
            assert!(q.reason.starts_with("impossible jump"), "{}", q.reason);
        }
    }

    #[test]
    fn zstd_2024_layout_reads_like_the_plain_file() {
        // The real MarineCadastre track under the 2024+ snake_case header, compressed with zstd
        // as NOAA ships it.
        let text = String::from_utf8(sample("marinecadastre-track.csv")).unwrap();
        let mut lines = text.lines();
        lines.next();
        let mut csv = String::from("mmsi,base_date_time,longitude,latitude,sog,cog,heading,vessel_name,imo,call_sign,vessel_type,status,length,width,draft,cargo,transceiver\n");
        for l in lines {
            let f: Vec<&str> = l.split(',').collect();
            csv.push_str(&format!(
                "{},{},{},{},{},A\n",
                f[0],
                f[1],
                f[3],
                f[2],
                f[4..].join(",")
            ));
        }
        let plain = crate::feeds::read_bytes(csv.as_bytes(), "ais-2024-01-01.csv").unwrap();
        let packed = zstd::encode_all(csv.as_bytes(), 3).unwrap();
        let read = crate::feeds::read_bytes(&packed, "ais-2024-01-01.csv.zst").unwrap();
        assert!(!read.positions.is_empty());
        assert_eq!(read.positions, plain.positions);
        assert_eq!(read.rows_read, text.lines().count() - 1);
        let old = read_csv(text.as_bytes(), "track.csv").unwrap();
        let coords = |b: &IndexedPositions| -> Vec<(f64, f64)> {
            b.iter().map(|(_, p)| (p.latitude, p.longitude)).collect()
        };
        assert_eq!(coords(&read.positions), coords(&old.positions));
        // A truncated frame is a clear error, not a panic or an empty batch.
        let cut = &packed[..packed.len() / 2];
        let err = crate::feeds::read_bytes(cut, "cut.csv.zst").unwrap_err();
        assert!(err.to_string().contains("cut.csv.zst"), "{err}");
    }

    #[test]
    fn sentinels_ranges_and_jumps_are_quarantined() {
        let csv = "MMSI,BaseDateTime,LAT,LON,SOG,COG,Heading,VesselName,IMO\n\
            123456789,2024-01-01T00:00:00,10.0,20.0,12.0,360.0,511,A,IMO1234567\n\
            123456789,2024-01-01T00:10:00,91,20.0,12.0,90,90,A,IMO1234567\n\
            123456789,2024-01-01T00:20:00,10.0,181,12.0,90,90,A,IMO1234567\n\
            123456789,2024-01-01T00:30:00,-95.0,20.0,12.0,90,90,A,IMO1234567\n\
            123456789,2024-01-01T00:40:00,12.0,22.0,12.0,90,90,A,IMO1234567\n\
            123456789,2024-01-01T01:00:00,10.05,20.0,12.0,90,90,A,IMO1234567\n\
            12345,2024-01-01T01:00:00,10.05,20.0,12.0,90,90,A,\n\
            123456789,yesterday,10.05,20.0,12.0,90,90,A,\n";
        let b = read_csv(csv.as_bytes(), "t.csv").unwrap();
        assert_eq!(b.rows_read, 8);
        let reasons: Vec<(usize, &str, &str)> = b
            .quarantined
            .iter()
            .map(|q| (q.index.unwrap(), q.pointer.as_str(), q.reason.as_str()))
            .collect();
        assert_eq!(reasons.len(), 6, "{reasons:?}");
        assert!(reasons[0].2.contains("not available"), "{reasons:?}");
        assert_eq!(reasons[0].1, "latitude");
        assert_eq!(reasons[1].1, "longitude");
        assert!(reasons[2].2.contains("outside"));
        assert_eq!(reasons[3].0, 4);
        assert!(reasons[3].2.starts_with("impossible jump"), "{reasons:?}");
        assert_eq!(reasons[4].1, "MMSI");
        assert_eq!(reasons[5].1, "timestamp");
        assert_eq!(b.positions.len(), 2);
        assert_eq!(b.positions[0].1.heading_deg, None);
        assert_eq!(b.positions[0].1.course_deg, None);
    }

    #[test]
    fn dma_and_2024_layouts() {
        let dma = "# Timestamp,Type of mobile,MMSI,Latitude,Longitude,Navigational status,ROT,SOG,COG,Heading,IMO,Callsign,Name,Ship type\n\
            01/03/2024 00:00:01,Class A,219000001,55.5,10.5,Under way using engine,0,12.1,45.2,44,9321483,OXAB2,EMMA MAERSK,Cargo\n\
            01/03/2024 00:05:01,Class A,219000001,55.51,10.52,Under way using engine,0,12.1,45.2,,Unknown,OXAB2,EMMA MAERSK,Cargo\n";
        let b = read_csv(dma.as_bytes(), "aisdk-2024-03-01.csv").unwrap();
        assert_eq!(b.layout, AisLayout::Dma);
        assert_eq!(b.positions.len(), 2);
        assert_eq!(
            b.positions[0].1.observed_at.to_rfc3339(),
            "2024-03-01T00:00:01+00:00"
        );
        assert_eq!(b.positions[0].1.imo.as_deref(), Some("9321483"));
        assert_eq!(b.positions[1].1.imo, None);
        let mc =
            "mmsi,base_date_time,longitude,latitude,sog,cog,heading,vessel_name,imo,call_sign\n\
            367000001,2024-06-01 00:00:00,-74.0,40.6,10,90,511,EVER GIVEN,IMO9811000,X\n";
        let b = read_csv(mc.as_bytes(), "ais-2024-06-01.csv").unwrap();
        assert_eq!(b.layout, AisLayout::MarineCadastre2024);
        assert_eq!(b.positions[0].1.longitude, -74.0);
        assert_eq!(b.positions[0].1.latitude, 40.6);
    }
}
