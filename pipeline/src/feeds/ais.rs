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
//! Speed ([`read_tracks`]): a file without double quotes is split at line ends into chunks of
//! about 1 MiB parsed in parallel (rayon), each row with no allocation (vessel names and track
//! ids are stored once per file, MMSIs as numbers, the usual timestamp layouts read without a
//! format string); a file with quotes goes through the `csv` crate row by row. Both paths give
//! the same answer (tested). Rows are then sorted by vessel, time and row for the jump check.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDateTime, Utc};
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

/// One accepted AIS report in columnar form (no allocation per row): what [`AisTracks`] holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fix {
    /// Zero-based row index in the file.
    pub row: u32,
    /// When it was observed, milliseconds since the Unix epoch (UTC).
    pub at_ms: i64,
    /// Degrees, WGS84.
    pub latitude: f64,
    /// Degrees, WGS84.
    pub longitude: f64,
    /// Knots; NaN when not available.
    pub speed_knots: f64,
    /// Degrees clockwise from true north in [0, 360); NaN when not available.
    pub course_deg: f64,
    /// Degrees in [0, 360); NaN when not available.
    pub heading_deg: f64,
    /// IMO number (7 digits), 0 when the report has none.
    pub imo: u32,
    /// Index of the vessel name in [`AisTracks::names`], `u32::MAX` when there is none.
    pub name: u32,
}

/// One vessel's accepted reports, in time order.
#[derive(Debug, Clone, PartialEq)]
pub struct VesselTrack {
    /// The MMSI (9 digits) for MMSI-keyed layouts.
    pub mmsi: Option<String>,
    /// `<file stem>:<vessel id>` for [`AisLayout::Track`] files.
    pub track: Option<String>,
    /// The reports, sorted by time, then row.
    pub fixes: Vec<Fix>,
    /// `[longitude, latitude]` of each fix (degrees), in the same order: ready for
    /// [`crate::route::simplify::simplify_track`].
    pub coords: Vec<[f64; 2]>,
}

impl VesselTrack {
    /// The MMSI, else the track id (as [`VesselPosition::vessel_key`]).
    pub fn key(&self) -> &str {
        self.mmsi
            .as_deref()
            .or(self.track.as_deref())
            .unwrap_or_default()
    }
}

/// An AIS file read into per-vessel tracks: the fast form of [`AisBatch`] ([`read_tracks`]).
#[derive(Debug, Clone, PartialEq)]
pub struct AisTracks {
    pub layout: AisLayout,
    /// Data rows in the file (accepted + quarantined).
    pub rows_read: usize,
    /// One track per vessel, sorted by vessel key.
    pub vessels: Vec<VesselTrack>,
    /// Vessel names the fixes point to.
    pub names: Vec<String>,
    /// Rows refused, sorted by row.
    pub quarantined: Vec<Quarantined>,
}

impl AisTracks {
    /// Accepted positions.
    pub fn positions(&self) -> usize {
        self.vessels.iter().map(|v| v.fixes.len()).sum()
    }

    /// The accepted reports as [`VesselPosition`]s with their row index, sorted by vessel and
    /// time (the [`AisBatch`] form).
    pub fn into_batch(self) -> AisBatch {
        let mut positions = Vec::with_capacity(self.positions());
        for v in &self.vessels {
            for f in &v.fixes {
                positions.push((f.row as usize, position(v, f, &self.names)));
            }
        }
        AisBatch {
            layout: self.layout,
            rows_read: self.rows_read,
            positions,
            quarantined: self.quarantined,
        }
    }
}

fn some(v: f64) -> Option<f64> {
    (!v.is_nan()).then_some(v)
}

/// The [`VesselPosition`] of fix `f` of vessel `v`.
fn position(v: &VesselTrack, f: &Fix, names: &[String]) -> VesselPosition {
    VesselPosition {
        mmsi: v.mmsi.clone(),
        track: v.track.clone(),
        imo: (f.imo != 0).then(|| format!("{:07}", f.imo)),
        vessel_name: names.get(f.name as usize).cloned(),
        observed_at: DateTime::from_timestamp_millis(f.at_ms).unwrap_or_default(),
        latitude: f.latitude,
        longitude: f.longitude,
        speed_knots: some(f.speed_knots),
        course_deg: some(f.course_deg),
        heading_deg: some(f.heading_deg),
    }
}

/// Reads an AIS CSV (`bytes` without a BOM, not compressed) named `source_file`.
///
/// Fails only when the header is not an AIS header; bad rows are quarantined. The same as
/// [`read_tracks`] followed by [`AisTracks::into_batch`].
pub fn read_csv(bytes: &[u8], source_file: &str) -> Result<AisBatch, FeedError> {
    read_tracks(bytes, source_file).map(AisTracks::into_batch)
}

/// How a row names its vessel before vessels are numbered across the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum VesselRef {
    /// A 9-digit MMSI (every 9-digit number fits in a `u32`).
    Mmsi(u32),
    /// Index of a track id in the chunk's [`Interner`].
    Track(u32),
}

/// A parsed row before vessels are numbered.
#[derive(Debug, Clone, Copy)]
struct Parsed {
    vessel: VesselRef,
    fix: Fix,
}

/// Strings seen in a chunk (track ids, vessel names), each stored once; remembers the last hit
/// because consecutive rows usually repeat it.
#[derive(Default)]
struct Interner {
    index: HashMap<String, u32>,
    strings: Vec<String>,
    last: Option<u32>,
}

impl Interner {
    fn get(&mut self, s: &str) -> u32 {
        if let Some(i) = self.last.filter(|&i| self.strings[i as usize] == s) {
            return i;
        }
        let i = match self.index.get(s) {
            Some(&i) => i,
            None => {
                let i = self.strings.len() as u32;
                self.strings.push(s.to_string());
                self.index.insert(s.to_string(), i);
                i
            }
        };
        self.last = Some(i);
        i
    }
}

/// What one chunk of rows gave.
#[derive(Default)]
struct Chunk {
    rows: usize,
    parsed: Vec<Parsed>,
    quarantined: Vec<Quarantined>,
    tracks: Interner,
    names: Interner,
}

/// The columns of the header, by the reader's column kinds.
struct Columns {
    index: HashMap<Col, usize>,
    layout: AisLayout,
    resolution_s: f64,
}

impl Columns {
    /// Field `c` of a row whose fields are given by `field` (trimmed, `None` when empty).
    fn get<'r>(&self, c: Col, field: &impl Fn(usize) -> Option<&'r str>) -> Option<&'r str> {
        self.index
            .get(&c)
            .and_then(|&i| field(i))
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }
}

/// Rows per parallel chunk of the fast path.
const CHUNK_BYTES: usize = 1 << 20;

/// Reads an AIS CSV into per-vessel tracks (module rules), without one allocation per row.
///
/// Files without a double quote are split at line ends and parsed in parallel chunks (rayon);
/// others go through the `csv` crate row by row. Both give the same answer. Fails only when
/// the header is not an AIS header; bad rows are quarantined with file, row, column and reason.
pub fn read_tracks(bytes: &[u8], source_file: &str) -> Result<AisTracks, FeedError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let unknown = |detail: String| FeedError::UnknownFormat {
        source_file: source_file.to_string(),
        detail,
    };
    let header_end = memchr::memchr(b'\n', bytes).unwrap_or(bytes.len());
    let mut header_reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(&bytes[..header_end]);
    let header = header_reader
        .headers()
        .map_err(|e| unknown(format!("unreadable CSV header: {e}")))?
        .clone();
    let header_line = header.iter().collect::<Vec<_>>().join(",");
    let layout = detect(&header_line).ok_or_else(|| {
        unknown(
            "not an AIS header: expected MMSI (or ID), a timestamp, latitude and longitude".into(),
        )
    })?;
    let mut index: HashMap<Col, usize> = HashMap::new();
    for (i, name) in header.iter().enumerate() {
        if let Some(c) = col_of(&super::fold_token(name)) {
            index.entry(c).or_insert(i);
        }
    }
    let columns = Columns {
        index,
        layout,
        resolution_s: layout.resolution_s(),
    };
    let stem = std::path::Path::new(source_file)
        .file_stem()
        .map(|s| s.to_string_lossy().trim_end_matches(".csv").to_string())
        .unwrap_or_else(|| source_file.to_string());
    let body = bytes.get(header_end + 1..).unwrap_or_default();
    let chunks = match std::str::from_utf8(body) {
        Ok(text) if memchr::memchr(b'"', body).is_none() => read_lines(text, &columns, source_file),
        _ => vec![read_records(body, &columns, source_file)],
    };
    Ok(assemble(chunks, &columns, &stem, source_file))
}

/// The fast path: `text` has no quotes, so every line is a row and every comma a separator.
/// Lines are cut into chunks of about [`CHUNK_BYTES`] at line ends and parsed in parallel.
fn read_lines(text: &str, columns: &Columns, source_file: &str) -> Vec<Chunk> {
    use rayon::prelude::*;
    let mut pieces = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let cut = if rest.len() <= CHUNK_BYTES {
            rest.len()
        } else {
            memchr::memchr(b'\n', &rest.as_bytes()[CHUNK_BYTES..])
                .map_or(rest.len(), |i| CHUNK_BYTES + i + 1)
        };
        let (piece, tail) = rest.split_at(cut);
        pieces.push(piece);
        rest = tail;
    }
    pieces
        .into_par_iter()
        .map(|piece| {
            let mut chunk = Chunk::default();
            let mut fields: Vec<&str> = Vec::with_capacity(32);
            for line in piece.split('\n') {
                let line = line.strip_suffix('\r').unwrap_or(line);
                if line.is_empty() {
                    continue;
                }
                fields.clear();
                fields.extend(line.split(','));
                let i = chunk.rows;
                chunk.rows += 1;
                let field = |k: usize| fields.get(k).copied();
                row(&mut chunk, columns, source_file, i, &field, || {
                    fields
                        .iter()
                        .map(|f| f.trim())
                        .collect::<Vec<_>>()
                        .join(",")
                });
            }
            chunk
        })
        .collect()
}

/// The general path: the `csv` crate reads quoted fields and reports broken rows.
fn read_records(body: &[u8], columns: &Columns, source_file: &str) -> Chunk {
    let mut rdr = csv::ReaderBuilder::new()
        .flexible(true)
        .has_headers(false)
        .trim(csv::Trim::All)
        .from_reader(body);
    let mut chunk = Chunk::default();
    let mut record = csv::StringRecord::new();
    loop {
        let i = chunk.rows;
        match rdr.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {
                chunk.rows += 1;
                let field = |k: usize| record.get(k);
                row(&mut chunk, columns, source_file, i, &field, || {
                    record.iter().collect::<Vec<_>>().join(",")
                });
            }
            Err(e) => {
                chunk.rows += 1;
                chunk
                    .quarantined
                    .push(quarantine(source_file, i, "row", e.to_string(), None));
            }
        }
    }
    chunk
}

/// Parses row `i` of a chunk into it, or quarantines it with the row's text (`raw`).
fn row<'r>(
    chunk: &mut Chunk,
    columns: &Columns,
    source_file: &str,
    i: usize,
    field: &impl Fn(usize) -> Option<&'r str>,
    raw: impl FnOnce() -> String,
) {
    match parse_row(columns, field, chunk) {
        Ok((vessel, mut fix)) => {
            fix.row = i as u32;
            chunk.parsed.push(Parsed { vessel, fix });
        }
        Err((col, reason)) => {
            chunk
                .quarantined
                .push(quarantine(source_file, i, col.label(), reason, Some(raw())))
        }
    }
}

/// Numbers the vessels across chunks, sorts by vessel, time and row, and drops impossible
/// jumps.
fn assemble(chunks: Vec<Chunk>, columns: &Columns, stem: &str, source_file: &str) -> AisTracks {
    use rayon::prelude::*;
    // Global track ids and names.
    let mut tracks = Interner::default();
    let mut names = Interner::default();
    let mut rows_read = 0usize;
    let mut quarantined = Vec::new();
    let mut parsed: Vec<Parsed> = Vec::with_capacity(chunks.iter().map(|c| c.parsed.len()).sum());
    for chunk in chunks {
        let offset = rows_read as u32;
        let track_ids: Vec<u32> = chunk.tracks.strings.iter().map(|s| tracks.get(s)).collect();
        let name_ids: Vec<u32> = chunk.names.strings.iter().map(|s| names.get(s)).collect();
        parsed.extend(chunk.parsed.into_iter().map(|mut p| {
            p.fix.row += offset;
            if let VesselRef::Track(t) = p.vessel {
                p.vessel = VesselRef::Track(track_ids[t as usize]);
            }
            if let Some(&n) = name_ids.get(p.fix.name as usize) {
                p.fix.name = n;
            }
            p
        }));
        quarantined.extend(chunk.quarantined.into_iter().map(|mut q| {
            q.index = q.index.map(|i| i + offset as usize);
            q
        }));
        rows_read += chunk.rows;
    }
    // Vessel keys in text order: MMSIs have 9 digits, so numeric order is text order; track ids
    // are ranked by their text.
    let mut by_text: Vec<u32> = (0..tracks.strings.len() as u32).collect();
    by_text.sort_unstable_by(|a, b| tracks.strings[*a as usize].cmp(&tracks.strings[*b as usize]));
    let mut rank = vec![0u32; by_text.len()];
    for (r, &t) in by_text.iter().enumerate() {
        rank[t as usize] = r as u32;
    }
    let vessel_rank = |v: VesselRef| match v {
        VesselRef::Mmsi(m) => m,
        VesselRef::Track(t) => rank[t as usize],
    };
    let mut order: Vec<(u32, i64, u32, u32)> = parsed
        .iter()
        .enumerate()
        .map(|(k, p)| (vessel_rank(p.vessel), p.fix.at_ms, p.fix.row, k as u32))
        .collect();
    if !order.windows(2).all(|w| w[0] <= w[1]) {
        order.par_sort_unstable();
    }
    let at = |k: usize| -> &Parsed { &parsed[order[k].3 as usize] };
    let key_of = |v: VesselRef| -> (Option<String>, Option<String>) {
        match v {
            VesselRef::Mmsi(m) => (Some(format!("{m:09}")), None),
            VesselRef::Track(t) => (None, Some(format!("{stem}:{}", tracks.strings[t as usize]))),
        }
    };
    let mut vessels: Vec<VesselTrack> = Vec::new();
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && order[end].0 == order[start].0 {
            end += 1;
        }
        let fixes: Vec<Fix> = (start..end).map(|k| at(k).fix).collect();
        let (mmsi, track) = key_of(at(start).vessel);
        let mut v = VesselTrack {
            mmsi,
            track,
            fixes,
            coords: Vec::new(),
        };
        let jumps =
            drop_impossible_jumps(&mut v, columns.resolution_s, source_file, &names.strings);
        quarantined.extend(jumps);
        v.coords = v.fixes.iter().map(|f| [f.longitude, f.latitude]).collect();
        vessels.push(v);
        start = end;
    }
    quarantined.sort_by_key(|q| q.index);
    AisTracks {
        layout: columns.layout,
        rows_read,
        vessels,
        names: names.strings,
        quarantined,
    }
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

/// One row's vessel and fix (row index not yet set); names and track ids go to the chunk's
/// interners.
fn parse_row<'r>(
    columns: &Columns,
    field: &impl Fn(usize) -> Option<&'r str>,
    chunk: &mut Chunk,
) -> RowResult<(VesselRef, Fix)> {
    let get = |c: Col| columns.get(c, field);
    let vessel = if columns.layout == AisLayout::Track {
        let id = get(Col::TrackId).ok_or((Col::TrackId, "vessel id is missing".to_string()))?;
        VesselRef::Track(chunk.tracks.get(id))
    } else {
        let m = get(Col::Mmsi).ok_or((Col::Mmsi, "MMSI is missing".to_string()))?;
        match m.parse::<u32>() {
            Ok(n) if m.len() == 9 && m.bytes().all(|b| b.is_ascii_digit()) => VesselRef::Mmsi(n),
            _ => return Err((Col::Mmsi, format!("MMSI {m:?} is not 9 digits"))),
        }
    };
    let time = get(Col::Time).ok_or((Col::Time, "timestamp is missing".to_string()))?;
    let observed_at = parse_time(time, columns.layout).ok_or_else(|| {
        (
            Col::Time,
            format!("timestamp {time:?} is not a date and time"),
        )
    })?;
    let latitude = coordinate(get(Col::Lat), Col::Lat, 90.0, 91.0)?;
    let longitude = coordinate(get(Col::Lon), Col::Lon, 180.0, 181.0)?;
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
    let imo = get(Col::Imo)
        .and_then(|s| {
            let digits = s
                .strip_prefix("IMO")
                .or_else(|| s.strip_prefix("imo"))
                .unwrap_or(s)
                .trim();
            (digits.len() == 7 && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| digits.parse::<u32>().ok())
                .flatten()
        })
        .unwrap_or(0);
    let name = get(Col::Name).map_or(u32::MAX, |n| chunk.names.get(n));
    Ok((
        vessel,
        Fix {
            row: 0,
            at_ms: observed_at.timestamp_millis(),
            latitude,
            longitude,
            speed_knots: speed_knots.unwrap_or(f64::NAN),
            course_deg: course_deg.unwrap_or(f64::NAN),
            heading_deg: heading_deg.unwrap_or(f64::NAN),
            imo,
            name,
        },
    ))
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

/// `YYYY-MM-DD?HH:MM:SS` (year first, `?` a `T` or a space) or `DD/MM/YYYY HH:MM:SS` (day
/// first), the layouts' usual stamps, read without a format string; `None` for anything else.
fn fixed_time(s: &str, day_first: bool) -> Option<DateTime<Utc>> {
    let b = s.as_bytes();
    if b.len() != 19 {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        b[r].iter().try_fold(0u32, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
        })
    };
    let (y, m, d) = if day_first {
        if b[2] != b'/' || b[5] != b'/' || b[10] != b' ' {
            return None;
        }
        (num(6..10)?, num(3..5)?, num(0..2)?)
    } else {
        if b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') {
            return None;
        }
        (num(0..4)?, num(5..7)?, num(8..10)?)
    };
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let date = chrono::NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d)?;
    Some(
        date.and_hms_opt(num(11..13)?, num(14..16)?, num(17..19)?)?
            .and_utc(),
    )
}

/// Parses the time formats of the layouts; every AIS time is UTC.
fn parse_time(s: &str, layout: AisLayout) -> Option<DateTime<Utc>> {
    let day_first_layout = matches!(layout, AisLayout::Dma | AisLayout::Track);
    if let Some(t) = fixed_time(s, day_first_layout).or_else(|| fixed_time(s, !day_first_layout)) {
        return Some(t);
    }
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
    let naive = if day_first_layout {
        try_all(&day_first).or_else(|| try_all(&iso))
    } else {
        try_all(&iso).or_else(|| try_all(&day_first))
    }?;
    Some(naive.and_utc())
}

pub use teu_domain::geodesy::distance_nm;

/// Implied speed in knots from `a` to `b`, the distance (nm) and the time between them (s);
/// times closer than `resolution_s` seconds count as that resolution.
fn implied_knots(a: &Fix, b: &Fix, resolution_s: f64) -> (f64, f64, f64) {
    let dt = (b.at_ms - a.at_ms) as f64 / 1000.0;
    let nm = distance_nm(a.latitude, a.longitude, b.latitude, b.longitude);
    (nm / (dt.abs().max(resolution_s) / 3600.0), nm, dt)
}

/// Quarantines each fix of one vessel's time-sorted track whose implied speed from the
/// vessel's previous accepted fix exceeds [`MAX_IMPLIED_SPEED_KNOTS`], keeping the rest in
/// `track.fixes`.
///
/// The check looks one position ahead for a vessel's first accepted position, which nothing
/// before it confirms: when the second position jumps from the first but agrees with the third,
/// and the third does not agree with the first, the first is the outlier and is quarantined
/// instead (otherwise one bad opening fix would quarantine the whole track behind it).
fn drop_impossible_jumps(
    track: &mut VesselTrack,
    resolution_s: f64,
    source_file: &str,
    names: &[String],
) -> Vec<Quarantined> {
    let fixes = std::mem::take(&mut track.fixes);
    let mut kept: Vec<Fix> = Vec::with_capacity(fixes.len());
    let mut jumps = Vec::new();
    let jump = |track: &VesselTrack, fix: &Fix, from_row: u32, (knots, nm, dt): (f64, f64, f64)| {
        quarantine(
            source_file,
            fix.row as usize,
            "latitude,longitude",
            format!(
                "impossible jump: {nm:.1} nm in {:.0} s from row {from_row} ({knots:.0} knots > {MAX_IMPLIED_SPEED_KNOTS} knots)",
                dt.abs()
            ),
            serde_json::to_string(&position(track, fix, names)).ok(),
        )
    };
    // Whether the last kept fix is the vessel's first (unconfirmed) one.
    let mut last_is_first = true;
    for (i, fix) in fixes.iter().enumerate() {
        let Some(prev) = kept.last().copied() else {
            kept.push(*fix);
            last_is_first = true;
            continue;
        };
        let from_prev = implied_knots(&prev, fix, resolution_s);
        if from_prev.0 <= MAX_IMPLIED_SPEED_KNOTS {
            kept.push(*fix);
            last_is_first = false;
            continue;
        }
        let prev_is_outlier = last_is_first
            && fixes.get(i + 1).is_some_and(|next| {
                implied_knots(fix, next, resolution_s).0 <= MAX_IMPLIED_SPEED_KNOTS
                    && implied_knots(&prev, next, resolution_s).0 > MAX_IMPLIED_SPEED_KNOTS
            });
        if prev_is_outlier {
            kept.pop();
            jumps.push(jump(
                track,
                &prev,
                fix.row,
                implied_knots(fix, &prev, resolution_s),
            ));
            kept.push(*fix);
            last_is_first = true;
        } else {
            jumps.push(jump(track, fix, prev.row, from_prev));
        }
    }
    track.fixes = kept;
    jumps
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
    fn the_fast_path_reads_what_the_csv_crate_reads() {
        let suez = String::from_utf8(sample("suez-2021-boat-positions.csv")).unwrap();
        // Bad rows among the good ones, CRLF line ends and blank lines.
        let mut lines: Vec<String> = suez.lines().map(str::to_string).collect();
        assert!(lines.len() > 3_000, "{}", lines.len());
        lines[10] = lines[10].replacen(",", ",x", 2);
        lines[20] = lines[20].replacen(",", ",,", 1);
        lines.insert(30, String::new());
        let mangled = lines.join("\r\n");
        for (text, name) in [
            (mangled, "mangled.csv"),
            (suez, "suez.csv"),
            (
                String::from_utf8(sample("marinecadastre-ten.csv")).unwrap(),
                "ten.csv",
            ),
        ] {
            let text = text.trim_start_matches('\u{feff}').to_string();
            let fast = read_tracks(text.as_bytes(), name).unwrap();
            let columns = {
                let header = text.lines().next().unwrap();
                let layout = detect(header).unwrap();
                let mut index = HashMap::new();
                for (i, h) in header.split(',').enumerate() {
                    if let Some(c) = col_of(&crate::feeds::fold_token(h)) {
                        index.entry(c).or_insert(i);
                    }
                }
                Columns {
                    index,
                    layout,
                    resolution_s: layout.resolution_s(),
                }
            };
            let body = &text.as_bytes()[text.find('\n').unwrap() + 1..];
            let chunk = read_records(body, &columns, name);
            let stem = std::path::Path::new(name)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .to_string();
            let slow = assemble(vec![chunk], &columns, &stem, name);
            assert_eq!(fast.rows_read, slow.rows_read, "{name}");
            assert_eq!(fast.quarantined, slow.quarantined, "{name}");
            assert_eq!(fast.names, slow.names, "{name}");
            assert_eq!(fast.vessels.len(), slow.vessels.len(), "{name}");
            for (a, b) in fast.vessels.iter().zip(&slow.vessels) {
                assert_eq!(a.key(), b.key(), "{name}");
                assert_eq!(a.fixes.len(), b.fixes.len(), "{name}");
                for (x, y) in a.fixes.iter().zip(&b.fixes) {
                    assert_eq!(format!("{x:?}"), format!("{y:?}"), "{name}");
                }
            }
            assert!(fast.positions() > 0, "{name}");
        }
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
        let coords = |b: &[(usize, VesselPosition)]| -> Vec<(f64, f64)> {
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
