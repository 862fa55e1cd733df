//! teu-feeds: the first step of the flow (`docs/DESIGN.md`). Detects a file's format, reads it
//! into validated model rows ([`EventRow`]s, terminal checks, line deadlines, AIS positions) and
//! quarantines the rows that fail validation with their file, index, JSON pointer and reason;
//! [`email`] takes RFC 5322 messages and mboxes apart into their feed attachments.
//!
//! A file-level problem (unreadable, not JSON, unknown format) is a [`FeedError`]; a row-level
//! problem never is: the row goes to [`Quarantined`] and the good rows carry on.
//!
//! Depends on `teu-domain` only (the model, the code types, reference data); knows nothing of
//! polars, the store or HTTP. `teu-pipeline` re-exports it as `teu_pipeline::feeds` and
//! `teu_pipeline::email`.

pub mod ais;
pub mod dcsa;
pub mod email;
pub mod terminal;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use teu_domain::model::{EventRow, LineDeadline, TerminalCheck, VesselPosition};

/// The feed formats teu can detect and read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FeedFormat {
    /// DCSA Track & Trace 2.2: a JSON array of events.
    DcsaTnt22,
    /// DCSA Track & Trace 3.0: a JSON object `{"events": [...]}`.
    DcsaTnt30,
    /// Terminal availability CSV, or a shipping line's deadline CSV ([`terminal`]).
    TerminalCsv,
    /// Terminal availability JSON lines ([`terminal`]).
    TerminalJsonl,
    /// One RFC 5322 message (`.eml`), see [`crate::email`].
    Email,
    /// An mbox of RFC 5322 messages, see [`crate::email`].
    Mbox,
    /// AIS positions, NOAA MarineCadastre 2015–2023 layout ([`ais`]).
    AisMarineCadastre,
    /// AIS positions, NOAA MarineCadastre 2024+ layout ([`ais`]).
    AisMarineCadastre2024,
    /// AIS positions, Danish Maritime Authority layout ([`ais`]).
    AisDma,
    /// AIS positions, plain `ID,timestamp,longitude,latitude` track ([`ais`]).
    AisTrack,
}

impl FeedFormat {
    /// Human-readable name, used in summaries.
    pub fn label(self) -> &'static str {
        match self {
            FeedFormat::DcsaTnt22 => "DCSA T&T 2.2",
            FeedFormat::DcsaTnt30 => "DCSA T&T 3.0",
            FeedFormat::TerminalCsv => "terminal CSV",
            FeedFormat::TerminalJsonl => "terminal JSON lines",
            FeedFormat::Email => "email",
            FeedFormat::Mbox => "mbox",
            FeedFormat::AisMarineCadastre => "AIS MarineCadastre",
            FeedFormat::AisMarineCadastre2024 => "AIS MarineCadastre 2024",
            FeedFormat::AisDma => "AIS DMA",
            FeedFormat::AisTrack => "AIS track",
        }
    }
}

/// A row that failed validation: where it was and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quarantined {
    /// The file (path as given on the command line) or other source name.
    pub source_file: String,
    /// Zero-based index of the row in the file's event array, when it has one.
    pub index: Option<usize>,
    /// JSON pointer (RFC 6901) of the offending value within the file, e.g. `/2/eventID`.
    pub pointer: String,
    /// What is wrong, in words.
    pub reason: String,
    /// The row's text, when it has one: for a DCSA event as [`ReadEvent::raw`] keeps it (its
    /// own text without whitespace between tokens, or the tree written out when read from a
    /// tree); for a CSV or JSON-lines row, the row as read.
    pub payload: Option<String>,
}

impl Quarantined {
    /// Row `index` of `source_file` refused at `pointer` (a JSON pointer, or the column name of
    /// a CSV row) for `reason`, with the row's original text when there is one.
    pub fn row(
        source_file: &str,
        index: usize,
        pointer: &str,
        reason: String,
        payload: Option<String>,
    ) -> Self {
        Quarantined {
            source_file: source_file.to_string(),
            index: Some(index),
            pointer: pointer.to_string(),
            reason,
            payload,
        }
    }
}

/// One accepted row: its index in the file, the normalized event and the original JSON text.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadEvent {
    /// Zero-based index of the event in the file's event array.
    pub index: usize,
    /// The normalized event.
    pub row: EventRow,
    /// The carrier's event as JSON text: read from a file ([`dcsa::read_json`]), its own text
    /// without whitespace between tokens (members in the order written); read from a tree
    /// ([`dcsa::read_value`]), the tree written out.
    pub raw: String,
}

/// What a reader made of one file.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedBatch {
    pub source_file: String,
    pub format: FeedFormat,
    /// Rows found in the file (accepted + quarantined).
    pub rows_read: usize,
    pub events: Vec<ReadEvent>,
    /// Terminal availability checks: row index, check, original row text.
    pub checks: Vec<(usize, TerminalCheck, String)>,
    /// Shipping-line last free days: row index, deadline, original row text.
    pub deadlines: Vec<(usize, LineDeadline, String)>,
    /// AIS vessel positions: row index, position.
    pub positions: Vec<(usize, VesselPosition)>,
    pub quarantined: Vec<Quarantined>,
}

/// File-level failures: nothing of the file could be read.
#[derive(Debug, thiserror::Error)]
pub enum FeedError {
    #[error("{path}: cannot read file: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{source_file}: not valid JSON at line {line}, column {column}: {message}")]
    Json {
        source_file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{source_file}: cannot decompress zstd data: {message}")]
    Zstd {
        source_file: String,
        message: String,
    },
    #[error("{source_file}: unknown feed format: {detail}")]
    UnknownFormat { source_file: String, detail: String },
}

/// Reads one file from disk, detecting its format. See [`read_bytes`].
pub fn read_file(path: &Path) -> Result<FeedBatch, FeedError> {
    let bytes = std::fs::read(path).map_err(|source| FeedError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let name = path.display().to_string();
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    // An empty terminal file is a valid file with no rows; its extension says which kind.
    if bytes.iter().all(u8::is_ascii_whitespace) && matches!(ext.as_str(), "jsonl" | "ndjson") {
        let t = terminal::read_jsonl(&bytes, &name)?;
        return Ok(from_terminal(&name, FeedFormat::TerminalJsonl, t));
    }
    read_bytes(&bytes, &name)
}

/// Detects the format of `bytes` (named `source_file` in errors and quarantine records) and
/// reads it.
///
/// Detection: a JSON array is a DCSA T&T 2.2 event list; a JSON object with an `events` array is
/// a DCSA T&T 3.0 document; JSON objects one per line with container and terminal fields are
/// terminal availability JSON lines; text whose header names a container and a terminal or a
/// last free day is a terminal (or line deadline) CSV. Anything else is
/// [`FeedError::UnknownFormat`].
pub fn read_bytes(bytes: &[u8], source_file: &str) -> Result<FeedBatch, FeedError> {
    if bytes.starts_with(&ZSTD_MAGIC) {
        let plain = unzstd(bytes, source_file)?;
        return read_bytes(&plain, source_file);
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace()).copied();
    let first_line = std::str::from_utf8(&bytes[..bytes.len().min(64 * 1024)])
        .unwrap_or_default()
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    if first == Some(b'{') && terminal::looks_like_terminal_jsonl(first_line) {
        let t = terminal::read_jsonl(bytes, source_file)?;
        return Ok(from_terminal(source_file, FeedFormat::TerminalJsonl, t));
    }
    if !matches!(first, Some(b'[') | Some(b'{')) {
        if ais::detect(first_line).is_some() {
            let a = ais::read_csv(bytes, source_file)?;
            return Ok(from_ais(source_file, a));
        }
        if terminal::looks_like_terminal_csv(first_line) {
            let t = terminal::read_csv(bytes, source_file)?;
            return Ok(from_terminal(source_file, FeedFormat::TerminalCsv, t));
        }
        return Err(FeedError::UnknownFormat {
            source_file: source_file.to_string(),
            detail: "expected a DCSA Track & Trace JSON document (an event array or {\"events\": [...]}), \
                     terminal availability JSON lines, a terminal / line deadline CSV, or an AIS CSV"
                .into(),
        });
    }
    dcsa::read_json(bytes, source_file)
}

fn from_terminal(source_file: &str, format: FeedFormat, t: terminal::TerminalBatch) -> FeedBatch {
    FeedBatch {
        source_file: source_file.to_string(),
        format,
        rows_read: t.rows_read,
        events: Vec::new(),
        checks: t.checks,
        deadlines: t.deadlines,
        positions: Vec::new(),
        quarantined: t.quarantined,
    }
}

fn from_ais(source_file: &str, a: ais::AisBatch) -> FeedBatch {
    FeedBatch {
        source_file: source_file.to_string(),
        format: match a.layout {
            ais::AisLayout::MarineCadastre => FeedFormat::AisMarineCadastre,
            ais::AisLayout::MarineCadastre2024 => FeedFormat::AisMarineCadastre2024,
            ais::AisLayout::Dma => FeedFormat::AisDma,
            ais::AisLayout::Track => FeedFormat::AisTrack,
        },
        rows_read: a.rows_read,
        events: Vec::new(),
        checks: Vec::new(),
        deadlines: Vec::new(),
        positions: a.positions,
        quarantined: a.quarantined,
    }
}

/// The first bytes of a zstd frame (RFC 8878).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Largest decompressed size accepted from a zstd file: a daily MarineCadastre file is about
/// 0.8 GB of CSV; more than this is refused rather than exhausting memory.
pub const MAX_DECOMPRESSED_BYTES: u64 = 4 << 30;

/// Bytes reserved up front for decompressing `bytes`, a zstd file: its frame's content size
/// when the frame records one, else [`DECOMPRESSION_RATIO_ESTIMATE`] times its length, at most
/// [`DECOMPRESSION_RESERVE_MAX`]. Reserving once spares the doublings of a buffer grown from
/// empty: a 41 MB DCSA file (2.4 MB compressed) went through 13 of them, each copying what was
/// read so far into freshly faulted pages (about 105 MB touched for 41 MB kept). Reserved
/// pages that are never written cost address space, not memory.
fn decompressed_estimate(bytes: &[u8]) -> usize {
    let recorded = zstd::zstd_safe::get_frame_content_size(bytes)
        .ok()
        .flatten();
    let estimate =
        recorded.unwrap_or((bytes.len() as u64).saturating_mul(DECOMPRESSION_RATIO_ESTIMATE));
    // One byte over the limit is read to tell a file at the limit from one over it.
    usize::try_from(
        estimate
            .min(DECOMPRESSION_RESERVE_MAX)
            .min(MAX_DECOMPRESSED_BYTES + 1),
    )
    .unwrap_or(0)
}

/// How many times its size a zstd file without a recorded content size is expected to grow:
/// `teu simulate`'s DCSA files grow about 17-fold, its AIS CSV files about 8-fold, its rail
/// files about 14-fold.
const DECOMPRESSION_RATIO_ESTIMATE: u64 = 24;

/// The most reserved up front for one decompression (1 GiB): a larger file grows its buffer
/// as it reads rather than asking for address space it may not need.
const DECOMPRESSION_RESERVE_MAX: u64 = 1 << 30;

fn unzstd(bytes: &[u8], source_file: &str) -> Result<Vec<u8>, FeedError> {
    use std::io::Read;
    let err = |message: String| FeedError::Zstd {
        source_file: source_file.to_string(),
        message,
    };
    let decoder = zstd::stream::read::Decoder::new(bytes).map_err(|e| err(e.to_string()))?;
    let mut out = Vec::with_capacity(decompressed_estimate(bytes));
    decoder
        .take(MAX_DECOMPRESSED_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| err(e.to_string()))?;
    if out.len() as u64 > MAX_DECOMPRESSED_BYTES {
        return Err(err(format!(
            "more than {MAX_DECOMPRESSED_BYTES} bytes once decompressed"
        )));
    }
    Ok(out)
}

/// A column name or an enumerated value as the readers compare it: ASCII letters and digits
/// only, lower-cased (`"Container #"` → `"container"`, `"BaseDateTime"` → `"basedatetime"`,
/// `"On Hold"` → `"onhold"`). Shared by the terminal and AIS readers' header detection and the
/// terminal reader's availability, hold and fee names.
pub(crate) fn fold_token(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reserve for a zstd file is its frame's recorded size, else the ratio estimate, and
    /// the decompressed bytes are the original either way.
    #[test]
    fn zstd_files_decompress_into_a_reserve_sized_from_the_frame() {
        let text = "eventID,equipmentReference\n".repeat(2_000);
        // A one-shot compression records the content size in the frame header.
        let recorded = zstd::bulk::compress(text.as_bytes(), 3).expect("compress");
        assert_eq!(decompressed_estimate(&recorded), text.len());
        // A streaming encoder (as `teu simulate --zstd` writes) does not know the size.
        let mut streamed = zstd::stream::write::Encoder::new(Vec::new(), 3).expect("encoder");
        streamed.include_contentsize(false).expect("parameter");
        std::io::Write::write_all(&mut streamed, text.as_bytes()).expect("write");
        let streamed = streamed.finish().expect("finish");
        assert_eq!(
            decompressed_estimate(&streamed),
            streamed.len() * DECOMPRESSION_RATIO_ESTIMATE as usize
        );
        for file in [&recorded, &streamed] {
            assert_eq!(
                unzstd(file, "t.csv.zst").expect("decompress"),
                text.as_bytes()
            );
        }
        // Not a frame: nothing recorded, the estimate stands (the decoder reports the error).
        assert_eq!(decompressed_estimate(b"abc"), 3 * 24);
        assert!(unzstd(b"abc", "t.zst").is_err());
    }
}
