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
//! columns are ignored. A zstd-compressed file is decompressed by [`crate::read_bytes`]
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

use chrono::{DateTime, NaiveDateTime};
use serde::{Deserialize, Serialize};

use super::{FeedError, Quarantined};
use teu_domain::model::{Imo, Mmsi, VesselPosition};

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

/// Number of [`Col`] kinds (the length of [`Columns::index`]).
const COLS: usize = 10;

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
    pub mmsi: Option<Mmsi>,
    /// `<file stem>:<vessel id>` for [`AisLayout::Track`] files.
    pub track: Option<String>,
    /// The reports, sorted by time, then row.
    pub fixes: Vec<Fix>,
    /// `[longitude, latitude]` of each fix (degrees), in the same order: ready for
    /// `teu_pipeline::route::simplify::simplify_track`.
    pub coords: Vec<[f64; 2]>,
}

impl VesselTrack {
    /// The MMSI, else the track id (as [`VesselPosition::vessel_key`]).
    pub fn key(&self) -> &str {
        self.mmsi
            .as_ref()
            .map(Mmsi::as_str)
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
        imo: Imo::from_number(f.imo),
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
    /// Accepted rows per vessel (chunk-local vessel, its fixes in row order), vessels in the
    /// order of their first row.
    vessels: Vec<(VesselRef, Vec<Fix>)>,
    /// Index of each vessel in `vessels`.
    index: HashMap<VesselRef, u32>,
    /// The vessel of the last accepted row and its index (consecutive rows usually share it).
    last: Option<(VesselRef, u32)>,
    quarantined: Vec<Quarantined>,
    tracks: Interner,
    names: Interner,
}

impl Chunk {
    /// Adds an accepted row to its vessel's fixes.
    fn push(&mut self, vessel: VesselRef, fix: Fix) {
        let g = match self.last {
            Some((v, g)) if v == vessel => g,
            _ => {
                let vessels = &mut self.vessels;
                let g = *self.index.entry(vessel).or_insert_with(|| {
                    vessels.push((vessel, Vec::new()));
                    vessels.len() as u32 - 1
                });
                self.last = Some((vessel, g));
                g
            }
        };
        self.vessels[g as usize].1.push(fix);
    }
}

/// The columns of the header, by the reader's column kinds.
struct Columns {
    /// Field index of each column kind (`Col as usize`), the first column of that kind.
    index: [Option<usize>; COLS],
    layout: AisLayout,
    resolution_s: f64,
}

impl Columns {
    /// The columns of a header whose fields are `names`, read as `layout`.
    fn new<'h>(names: impl IntoIterator<Item = &'h str>, layout: AisLayout) -> Columns {
        let mut index = [None; COLS];
        for (i, name) in names.into_iter().enumerate() {
            if let Some(c) = col_of(&super::fold_token(name)) {
                index[c as usize].get_or_insert(i);
            }
        }
        Columns {
            index,
            layout,
            resolution_s: layout.resolution_s(),
        }
    }

    /// Field `c` of a row whose fields are given by `field` (trimmed, `None` when empty).
    fn get<'r>(&self, c: Col, field: &impl Fn(usize) -> Option<&'r str>) -> Option<&'r str> {
        self.index[c as usize]
            .and_then(field)
            .map(trim)
            .filter(|s| !s.is_empty())
    }
}

/// `s.trim()`, without the Unicode tables when `s` starts and ends with a printable ASCII
/// character (none of which is white space).
#[inline]
fn trim(s: &str) -> &str {
    let printable = |c: Option<&u8>| c.is_some_and(|&c| c > b' ' && c < 0x80);
    if printable(s.as_bytes().first()) && printable(s.as_bytes().last()) {
        s
    } else {
        s.trim()
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
    let columns = Columns::new(header.iter(), layout);
    let stem = std::path::Path::new(source_file)
        .file_stem()
        .map(|s| s.to_string_lossy().trim_end_matches(".csv").to_string())
        .unwrap_or_else(|| source_file.to_string());
    let body = bytes.get(header_end + 1..).unwrap_or_default();
    let chunks = read_lines(body, &columns, source_file)
        .unwrap_or_else(|| vec![read_records(body, &columns, source_file)]);
    Ok(assemble(chunks, &columns, &stem, source_file))
}

/// The fast path, or `None` when `body` must take the general one (it has a double quote or is
/// not UTF-8): every line is a row and every comma a separator. Lines are cut into chunks of
/// about [`CHUNK_BYTES`] at line ends, each checked (UTF-8, no quote) and parsed in parallel;
/// a cut at a line end never splits a UTF-8 character, so the chunks are valid exactly when the
/// whole body is.
fn read_lines(body: &[u8], columns: &Columns, source_file: &str) -> Option<Vec<Chunk>> {
    use rayon::prelude::*;
    let mut pieces = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let cut = if rest.len() <= CHUNK_BYTES {
            rest.len()
        } else {
            memchr::memchr(b'\n', &rest[CHUNK_BYTES..]).map_or(rest.len(), |i| CHUNK_BYTES + i + 1)
        };
        let (piece, tail) = rest.split_at(cut);
        pieces.push(piece);
        rest = tail;
    }
    // Fields a row needs: up to the last column the reader uses.
    let needed = columns.index.iter().flatten().max().map_or(0, |&i| i + 1);
    pieces
        .into_par_iter()
        .map(|piece| {
            if memchr::memchr(b'"', piece).is_some() {
                return None;
            }
            let piece = std::str::from_utf8(piece).ok()?;
            let mut chunk = Chunk::default();
            let mut fields: Vec<&str> = Vec::with_capacity(needed);
            let mut start = 0;
            while start < piece.len() {
                let end = memchr::memchr(b'\n', &piece.as_bytes()[start..])
                    .map_or(piece.len(), |i| start + i);
                let line = &piece[start..end];
                start = end + 1;
                let line = line.strip_suffix('\r').unwrap_or(line);
                if line.is_empty() {
                    continue;
                }
                split_fields(line, needed, &mut fields);
                let i = chunk.rows;
                chunk.rows += 1;
                let field = |k: usize| fields.get(k).copied();
                row(&mut chunk, columns, source_file, i, &field, || {
                    line.split(',').map(str::trim).collect::<Vec<_>>().join(",")
                });
            }
            Some(chunk)
        })
        .collect()
}

/// The first `needed` comma-separated fields of `line` (fewer when it has fewer) into `fields`:
/// what `line.split(',')` starts with. Commas are found eight bytes at a time (a comma is one
/// byte and never part of a longer UTF-8 character, so every cut is at a character boundary).
#[inline]
fn split_fields<'l>(line: &'l str, needed: usize, fields: &mut Vec<&'l str>) {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const COMMAS: u64 = 0x2c2c_2c2c_2c2c_2c2c;
    fields.clear();
    if needed == 0 {
        return;
    }
    let b = line.as_bytes();
    let mut from = 0;
    let mut i = 0;
    while i + 8 <= b.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&b[i..i + 8]);
        let x = u64::from_le_bytes(word) ^ COMMAS;
        // The high bit of each byte of `x` that is zero (a comma), exactly: no carry crosses
        // bytes.
        let mut commas = !(((x & LOW7) + LOW7) | x | LOW7);
        while commas != 0 {
            let at = i + (commas.trailing_zeros() / 8) as usize;
            fields.push(&line[from..at]);
            if fields.len() == needed {
                return;
            }
            from = at + 1;
            commas &= commas - 1;
        }
        i += 8;
    }
    for (k, &c) in b[i..].iter().enumerate() {
        if c == b',' {
            fields.push(&line[from..i + k]);
            if fields.len() == needed {
                return;
            }
            from = i + k + 1;
        }
    }
    fields.push(&line[from..]);
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
            chunk.push(vessel, fix);
        }
        Err((col, reason)) => {
            chunk
                .quarantined
                .push(quarantine(source_file, i, col.label(), reason, Some(raw())))
        }
    }
}

/// Numbers the vessels across chunks, orders each vessel's fixes by time and row, and drops
/// impossible jumps (vessels in parallel).
fn assemble(mut chunks: Vec<Chunk>, columns: &Columns, stem: &str, source_file: &str) -> AisTracks {
    use rayon::prelude::*;
    // Global track ids and names, and where each chunk's rows start.
    let mut tracks = Interner::default();
    let mut names = Interner::default();
    let mut rows_read = 0usize;
    let mut quarantined = Vec::new();
    let mut first_row: Vec<u32> = Vec::with_capacity(chunks.len());
    let mut track_ids: Vec<Vec<u32>> = Vec::with_capacity(chunks.len());
    let mut name_ids: Vec<Vec<u32>> = Vec::with_capacity(chunks.len());
    for chunk in &mut chunks {
        let offset = rows_read as u32;
        first_row.push(offset);
        track_ids.push(chunk.tracks.strings.iter().map(|s| tracks.get(s)).collect());
        name_ids.push(chunk.names.strings.iter().map(|s| names.get(s)).collect());
        quarantined.extend(
            std::mem::take(&mut chunk.quarantined)
                .into_iter()
                .map(|mut q| {
                    q.index = q.index.map(|i| i + offset as usize);
                    q
                }),
        );
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
    // Each vessel's runs of fixes, chunk by chunk (so in row order), vessels in key order.
    type Runs = Vec<(usize, Vec<Fix>)>; // (chunk, the vessel's fixes there)
    let mut vessel_of: HashMap<u32, usize> = HashMap::new();
    let mut vessels: Vec<(u32, VesselRef, Runs)> = Vec::new();
    for (c, chunk) in chunks.iter_mut().enumerate() {
        for (v, fixes) in std::mem::take(&mut chunk.vessels) {
            let (v, r) = match v {
                VesselRef::Mmsi(m) => (VesselRef::Mmsi(m), m),
                VesselRef::Track(t) => {
                    let t = track_ids[c][t as usize];
                    (VesselRef::Track(t), rank[t as usize])
                }
            };
            let k = *vessel_of.entry(r).or_insert_with(|| {
                vessels.push((r, v, Vec::new()));
                vessels.len() - 1
            });
            vessels[k].2.push((c, fixes));
        }
    }
    vessels.sort_unstable_by_key(|v| v.0);
    let key_of = |v: VesselRef| -> (Option<Mmsi>, Option<String>) {
        match v {
            VesselRef::Mmsi(m) => (Mmsi::from_number(m), None),
            VesselRef::Track(t) => (None, Some(format!("{stem}:{}", tracks.strings[t as usize]))),
        }
    };
    // Per vessel, on both cores: its fixes with file-wide rows and names, in time order (then
    // row), the jump check, the coordinates.
    let done: Vec<(VesselTrack, Vec<Quarantined>)> = vessels
        .into_par_iter()
        .map(|(_, vessel, runs)| {
            // The vessel's runs joined in chunk order (the first one's buffer reused), rows
            // and names made file-wide.
            let total: usize = runs.iter().map(|(_, f)| f.len()).sum();
            let mut fixes: Vec<Fix> = Vec::new();
            for (c, mut run) in runs {
                let (offset, names) = (first_row[c], &name_ids[c]);
                for f in &mut run {
                    f.row += offset;
                    if let Some(&n) = names.get(f.name as usize) {
                        f.name = n;
                    }
                }
                if fixes.is_empty() {
                    fixes = run;
                    fixes.reserve_exact(total - fixes.len());
                } else {
                    fixes.extend_from_slice(&run);
                }
            }
            // Rows are unique and in row order, so a stable sort by time is the order by time,
            // then row.
            if !fixes.windows(2).all(|w| w[0].at_ms <= w[1].at_ms) {
                fixes.sort_by_key(|f| f.at_ms);
            }
            let (mmsi, track) = key_of(vessel);
            let mut v = VesselTrack {
                mmsi,
                track,
                fixes,
                coords: Vec::new(),
            };
            let jumps =
                drop_impossible_jumps(&mut v, columns.resolution_s, source_file, &names.strings);
            v.coords = v.fixes.iter().map(|f| [f.longitude, f.latitude]).collect();
            (v, jumps)
        })
        .collect();
    let mut vessels: Vec<VesselTrack> = Vec::with_capacity(done.len());
    for (v, jumps) in done {
        quarantined.extend(jumps);
        vessels.push(v);
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
    Quarantined::row(source_file, index, field, reason, raw)
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
        let id =
            get(Col::TrackId).ok_or_else(|| (Col::TrackId, "vessel id is missing".to_string()))?;
        VesselRef::Track(chunk.tracks.get(id))
    } else {
        let m = get(Col::Mmsi).ok_or_else(|| (Col::Mmsi, "MMSI is missing".to_string()))?;
        match m.parse::<u32>() {
            Ok(n) if m.len() == 9 && m.bytes().all(|b| b.is_ascii_digit()) => VesselRef::Mmsi(n),
            _ => return Err((Col::Mmsi, format!("MMSI {m:?} is not 9 digits"))),
        }
    };
    let time = get(Col::Time).ok_or_else(|| (Col::Time, "timestamp is missing".to_string()))?;
    let observed_at = parse_time(time, columns.layout).ok_or_else(|| {
        (
            Col::Time,
            format!("timestamp {time:?} is not a date and time"),
        )
    })?;
    let latitude = coordinate(get(Col::Lat), Col::Lat, 90.0, 91.0)?;
    let longitude = coordinate(get(Col::Lon), Col::Lon, 180.0, 181.0)?;
    let num = |c: Col| get(c).and_then(parse_f64).filter(|v| v.is_finite());
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
            at_ms: observed_at,
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

/// Powers of ten that are exact in an `f64` (10⁰ … 10²²).
const EXACT_POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `s.parse::<f64>().ok()`, faster for the plain decimals AIS files hold (`-12.34567`): with
/// at most 15 digits, the digits as an integer and the power of ten are both exact, so one
/// correctly rounded division gives the correctly rounded value, which is what the standard
/// library returns (Clinger's fast path). Anything else goes to the standard library.
#[inline]
fn parse_f64(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let (negative, digits) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    // Wrapping arithmetic: a mantissa of more than 15 digits is thrown away below.
    let mut mantissa: u64 = 0;
    let mut i = 0;
    while let Some(&c) = digits.get(i).filter(|c| c.is_ascii_digit()) {
        mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
        i += 1;
    }
    let integer_digits = i;
    let mut decimals = 0;
    if digits.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while let Some(&c) = digits.get(i).filter(|c| c.is_ascii_digit()) {
            mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
            i += 1;
        }
        decimals = i - start;
        if decimals == 0 {
            return s.parse().ok();
        }
    }
    let count = integer_digits + decimals;
    if i != digits.len() || count == 0 || count > 15 {
        return s.parse().ok();
    }
    let v = if decimals == 0 {
        mantissa as f64
    } else {
        mantissa as f64 / EXACT_POWERS_OF_TEN[decimals]
    };
    Some(if negative { -v } else { v })
}

fn coordinate(text: Option<&str>, col: Col, limit: f64, sentinel: f64) -> RowResult<f64> {
    let text = text.ok_or_else(|| (col, format!("{} is missing", col.label())))?;
    let v: f64 = parse_f64(text)
        .ok_or_else(|| (col, format!("{} {text:?} is not a number", col.label())))?;
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

/// Days from 1970-01-01 to `y`-`m`-`d` of the proleptic Gregorian calendar (a valid date;
/// H. Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `YYYY-MM-DD?HH:MM:SS` (year first, `?` a `T` or a space) or `DD/MM/YYYY HH:MM:SS` (day
/// first), the layouts' usual stamps, read without a format string: milliseconds since the
/// Unix epoch, or `None` for anything else, an impossible date (30 February) or time (24:00)
/// included, exactly where chrono's `from_ymd_opt` and `and_hms_opt` refuse.
fn fixed_time(s: &str, day_first: bool) -> Option<i64> {
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
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let month_days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if d == 0 || d > month_days {
        return None;
    }
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if h >= 24 || mi >= 60 || sec >= 60 {
        return None;
    }
    let seconds =
        days_from_civil(i64::from(y), m, d) * 86_400 + i64::from(h * 3_600 + mi * 60 + sec);
    Some(seconds * 1_000)
}

/// Parses the time formats of the layouts (every AIS time is UTC): milliseconds since the
/// Unix epoch, `None` when `s` is none of them.
fn parse_time(s: &str, layout: AisLayout) -> Option<i64> {
    let day_first_layout = matches!(layout, AisLayout::Dma | AisLayout::Track);
    if let Some(t) = fixed_time(s, day_first_layout).or_else(|| fixed_time(s, !day_first_layout)) {
        return Some(t);
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.timestamp_millis());
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
    Some(naive.and_utc().timestamp_millis())
}

pub use teu_domain::geodesy::distance_nm;

/// Implied speed in knots from `a` to `b`, the distance (nm) and the time between them (s);
/// times closer than `resolution_s` seconds count as that resolution.
fn implied_knots(a: &Fix, b: &Fix, resolution_s: f64) -> (f64, f64, f64) {
    let dt = (b.at_ms - a.at_ms) as f64 / 1000.0;
    let nm = distance_nm(a.latitude, a.longitude, b.latitude, b.longitude);
    (nm / (dt.abs().max(resolution_s) / 3600.0), nm, dt)
}

/// Nautical miles per radian of great circle on the sphere of [`distance_nm`] (`geo`'s mean
/// Earth radius, 6,371,008.8 m, over 1,852 m).
const NM_PER_RADIAN: f64 = 6_371_008.8 / 1_852.0;

/// Whether [`implied_knots`] from `a` to `b` is surely at most [`MAX_IMPLIED_SPEED_KNOTS`],
/// without the haversine, a division or a square root: the great-circle distance is at most
/// the length of the straight path in (latitude, longitude) radians, `√(Δφ² + Δλ²)` (a
/// parallel is never longer than the equator), so when that bound is within the distance the
/// limit allows in the time, with a relative margin of 10⁻⁶ on the squares (far more than the
/// roundings of both computations), so is the haversine. Only for points at most 90° apart in
/// that bound (the haversine is well conditioned there; `Δλ` is not wrapped, as in the
/// haversine). `false` says nothing: the exact check decides.
#[inline]
fn surely_possible(a: &Fix, b: &Fix, resolution_s: f64) -> bool {
    /// Nautical miles per degree of the bound, squared.
    const NM_PER_DEGREE_SQUARED: f64 = (NM_PER_RADIAN * std::f64::consts::PI / 180.0)
        * (NM_PER_RADIAN * std::f64::consts::PI / 180.0);
    let hours = ((b.at_ms - a.at_ms) as f64 / 1000.0)
        .abs()
        .max(resolution_s)
        * (1.0 / 3600.0);
    let reach_nm = MAX_IMPLIED_SPEED_KNOTS * hours;
    let dlat = b.latitude - a.latitude;
    let dlon = b.longitude - a.longitude;
    let degrees_squared = dlat * dlat + dlon * dlon;
    degrees_squared <= 90.0 * 90.0
        && degrees_squared * NM_PER_DEGREE_SQUARED <= reach_nm * reach_nm * (1.0 - 1e-6)
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
    // The kept fixes are compacted in place: `fixes[..kept]`, never ahead of the fix read.
    let mut fixes = std::mem::take(&mut track.fixes);
    let mut kept = 0usize;
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
    for i in 0..fixes.len() {
        let fix = fixes[i];
        if kept == 0 {
            fixes[kept] = fix;
            kept += 1;
            last_is_first = true;
            continue;
        }
        let prev = fixes[kept - 1];
        if surely_possible(&prev, &fix, resolution_s) {
            fixes[kept] = fix;
            kept += 1;
            last_is_first = false;
            continue;
        }
        let from_prev = implied_knots(&prev, &fix, resolution_s);
        if from_prev.0 <= MAX_IMPLIED_SPEED_KNOTS {
            fixes[kept] = fix;
            kept += 1;
            last_is_first = false;
            continue;
        }
        let prev_is_outlier = last_is_first
            && fixes.get(i + 1).is_some_and(|next| {
                implied_knots(&fix, next, resolution_s).0 <= MAX_IMPLIED_SPEED_KNOTS
                    && implied_knots(&prev, next, resolution_s).0 > MAX_IMPLIED_SPEED_KNOTS
            });
        if prev_is_outlier {
            jumps.push(jump(
                track,
                &prev,
                fix.row,
                implied_knots(&fix, &prev, resolution_s),
            ));
            // The outlier's place goes to this fix.
            fixes[kept - 1] = fix;
            last_is_first = true;
        } else {
            jumps.push(jump(track, &fix, prev.row, from_prev));
        }
    }
    fixes.truncate(kept);
    track.fixes = fixes;
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
                Columns::new(header.split(','), detect(header).unwrap())
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

    /// A placeholder [`Fix`].
    const EMPTY_FIX: Fix = Fix {
        row: 0,
        at_ms: 0,
        latitude: 0.0,
        longitude: 0.0,
        speed_knots: f64::NAN,
        course_deg: f64::NAN,
        heading_deg: f64::NAN,
        imo: 0,
        name: u32::MAX,
    };

    /// A fix at `lat`, `lon` (degrees), `at_ms` after the epoch.
    fn fix_at(lat: f64, lon: f64, at_ms: i64) -> Fix {
        Fix {
            latitude: lat,
            longitude: lon,
            at_ms,
            ..EMPTY_FIX
        }
    }

    #[test]
    fn the_quick_jump_bound_never_accepts_what_the_haversine_refuses() {
        // Pairs placed right at the limit: the bound must stay on the safe side of it, at any
        // latitude (poles included), across the antimeridian and for equal times.
        let mut accepted = 0;
        for lat in [-90.0, -89.999, -60.0, -1.0, 0.0, 33.3, 71.0, 89.9999, 90.0] {
            for lon in [-180.0, -179.99, 0.0, 12.5, 179.999, 180.0] {
                for heading in [0.0f64, 30.0, 90.0, 135.0, 270.0] {
                    for dt_ms in [0i64, 500, 1_000, 60_000, 3_600_000, 86_400_000] {
                        for res in [1.0, 60.0] {
                            // Degrees a 60-knot ship covers in that time, give or take.
                            let s = dt_ms.max((res * 1000.0) as i64) as f64 / 3.6e6 * 60.0 / 60.0;
                            for scale in [0.5, 0.999_999, 1.0, 1.000_001, 1.5] {
                                let d = s * scale;
                                let b_lat =
                                    (lat + d * heading.to_radians().cos()).clamp(-90.0, 90.0);
                                let b_lon = lon + d * heading.to_radians().sin();
                                let (a, b) = (fix_at(lat, lon, 0), fix_at(b_lat, b_lon, dt_ms));
                                if surely_possible(&a, &b, res) {
                                    accepted += 1;
                                    let knots = implied_knots(&a, &b, res).0;
                                    assert!(
                                        knots <= MAX_IMPLIED_SPEED_KNOTS,
                                        "{a:?} {b:?} {knots}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(accepted > 1_000, "{accepted}");
    }

    proptest::proptest! {
        #[test]
        fn the_quick_jump_bound_is_safe(
            lat in -90.0..=90.0f64,
            lon in -180.0..=180.0f64,
            dlat in -3.0..3.0f64,
            dlon in -3.0..3.0f64,
            dt_ms in -10_000_000i64..10_000_000,
            minutes in proptest::bool::ANY,
        ) {
            let res = if minutes { 60.0 } else { 1.0 };
            let a = fix_at(lat, lon, 0);
            let b = fix_at((lat + dlat).clamp(-90.0, 90.0), lon + dlon, dt_ms);
            if surely_possible(&a, &b, res) {
                proptest::prop_assert!(implied_knots(&a, &b, res).0 <= MAX_IMPLIED_SPEED_KNOTS);
            }
        }
    }

    #[test]
    fn the_fast_number_parser_reads_what_the_standard_library_reads() {
        for text in [
            "0",
            "-0",
            "0.0",
            "-0.0",
            "12",
            "-12.34567",
            "179.99999",
            "-180",
            "102.3",
            "511",
            "360.0",
            "0.1",
            "0.30000000000000004",
            "123456789012345",
            "1234567890123456",
            "99999999999999999999999",
            ".5",
            "-.5",
            "5.",
            "-",
            "",
            ".",
            "+1",
            "1e3",
            "1E-3",
            "nan",
            "NaN",
            "inf",
            "-infinity",
            "1.2.3",
            "12a",
            " 1",
            "1 ",
            "0x10",
            "--1",
            "000000000000012.5",
            "1.000000000000001",
            "9007199254740993",
        ] {
            let std = text.parse::<f64>().ok();
            let fast = parse_f64(text);
            assert_eq!(
                fast.map(f64::to_bits),
                std.map(f64::to_bits),
                "{text:?}: {fast:?} vs {std:?}"
            );
        }
    }

    #[test]
    fn the_fast_time_reader_agrees_with_chrono() {
        // The oracle: chrono's own parser with the layouts' format strings, independent of
        // the field split and the arithmetic under test.
        fn chrono_ms(s: &str, day_first: bool) -> Option<i64> {
            if s.len() != 19 {
                return None;
            }
            let format = if day_first {
                "%d/%m/%Y %H:%M:%S"
            } else if s.as_bytes()[10] == b' ' {
                "%Y-%m-%d %H:%M:%S"
            } else {
                "%Y-%m-%dT%H:%M:%S"
            };
            let t = chrono::NaiveDateTime::parse_from_str(s, format).ok()?;
            // chrono reads second 60 as a leap second; AIS stamps have none (refused).
            if t.and_utc().timestamp_subsec_nanos() >= 1_000_000_000 {
                return None;
            }
            Some(t.and_utc().timestamp_millis())
        }
        let mut checked = 0;
        for y in [
            0, 1, 4, 99, 100, 400, 1600, 1900, 1969, 1970, 2000, 2023, 2024, 2100, 9999,
        ] {
            for m in 0..=13 {
                for d in [0, 1, 15, 28, 29, 30, 31, 32] {
                    for (h, mi, sec) in
                        [(0, 0, 0), (23, 59, 59), (24, 0, 0), (12, 60, 0), (1, 2, 60)]
                    {
                        let iso = format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{sec:02}");
                        let dmy = format!("{d:02}/{m:02}/{y:04} {h:02}:{mi:02}:{sec:02}");
                        for (text, day_first) in [(&iso, false), (&dmy, true), (&iso, true)] {
                            assert_eq!(
                                fixed_time(text, day_first),
                                chrono_ms(text, day_first),
                                "{text}"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 10_000);
        assert_eq!(
            fixed_time("2024-01-01 00:00:01", false),
            Some(1_704_067_201_000)
        );
    }

    #[test]
    fn fields_are_split_as_split_splits_them() {
        let lines = [
            "",
            ",",
            ",,,,,,,,,,,,,,,,,,,,",
            "a",
            "a,b",
            "477307901,2017-12-01T00:00:01,31.90512,-76.32652,0.0,131.0,352.0,FIRST,IMO9739666,VRPJ6,1004,moored,337,,,",
            "x,-12.5,-,--,,é,ü,,日本,\t,end",
            "1234567,1234567,12345678,123456789",
        ];
        for line in lines {
            let all: Vec<&str> = line.split(',').collect();
            for needed in 1..=all.len() + 2 {
                let mut fields = Vec::new();
                split_fields(line, needed, &mut fields);
                assert_eq!(fields, all[..needed.min(all.len())], "{line:?} {needed}");
            }
        }
    }

    #[test]
    fn trim_is_str_trim() {
        for s in [
            "",
            " ",
            "a",
            " a",
            "a ",
            "\u{a0}a",
            "a\u{3000}",
            "\u{1f}a",
            "ab\u{7f}",
            "é",
        ] {
            assert_eq!(trim(s), s.trim(), "{s:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_fast_number_parser_is_the_standard_one(
            text in "-?[0-9]{0,18}(\\.[0-9]{0,18})?",
            v in proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL | proptest::num::f64::ZERO,
            decimals in 0usize..12,
        ) {
            proptest::prop_assert_eq!(
                parse_f64(&text).map(f64::to_bits),
                text.parse::<f64>().ok().map(f64::to_bits),
                "{:?}", text
            );
            let printed = format!("{v:.decimals$}");
            proptest::prop_assert_eq!(
                parse_f64(&printed).map(f64::to_bits),
                printed.parse::<f64>().ok().map(f64::to_bits),
                "{:?}", printed
            );
        }

        #[test]
        fn any_line_splits_as_split_splits_it(line in "[a-c,\\-é ]{0,40}", needed in 1usize..12) {
            let all: Vec<&str> = line.split(',').collect();
            let mut fields = Vec::new();
            split_fields(&line, needed, &mut fields);
            proptest::prop_assert_eq!(&fields[..], &all[..needed.min(all.len())]);
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
        let plain = crate::read_bytes(csv.as_bytes(), "ais-2024-01-01.csv").unwrap();
        let packed = zstd::encode_all(csv.as_bytes(), 3).unwrap();
        let read = crate::read_bytes(&packed, "ais-2024-01-01.csv.zst").unwrap();
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
        let err = crate::read_bytes(cut, "cut.csv.zst").unwrap_err();
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
