//! Deterministic generator of realistic DCSA Track & Trace 2.2 event feeds.
//!
//! The output has exactly the JSON shape of a DCSA T&T 2.2 `GET /events` response (see
//! `data/dcsa/tnt-220-response.json` and the resolved OpenAPI `TNT_v2.2.0-resolved.yaml`): a JSON
//! array of `SHIPMENT`, `TRANSPORT` and `EQUIPMENT` events.
//!
//! What is real:
//! - carriers with their SCACs, bill-of-lading prefixes and their own BIC container owner codes
//!   (about 20% of the boxes are lessor boxes: Triton, Textainer, Florens, CAI, SeaCo, …);
//! - container numbers are valid ISO 6346 (owner code + `U` + 6-digit serial + check digit);
//! - port rotations of a dozen service loops with real UN/LOCODEs and real terminals (SMDG codes
//!   from the DCSA facility list), realistic sea days, port stays and schedule slippage;
//! - about 30% of shipments transship at a real hub (SGSIN, LKCMB, AEJEA, MAPTM, ESALG, PAMIT,
//!   KRPUS) onto another vessel and voyage of the same carrier;
//! - voyages are weekly and shared: every shipment on the same carrier, service, direction and
//!   week sails on the same vessel (valid IMO check digit), with the same `transportCallID`s and
//!   the same estimated and actual times.
//!
//! Everything happens relative to a fixed "now" ([`generator_now`], 2026-11-01T00:00:00Z): only
//! events created at or before it are emitted, `ACT` events are never after it, and future
//! milestones are `PLN`/`EST`. Shipments are spread from fully completed (empty returned) to
//! booked only.
//!
//! Layout choices: `LOAD`/`DISC` equipment events are located by their `transportCall` (vessel,
//! voyage, UN/LOCODE, SMDG terminal code), gate events by an `eventLocation` (terminal, or a depot
//! with its BIC facility code where the DCSA facility list has one); seals appear on the laden
//! gate-in at the POL. Transport and equipment events carry `documentReferences` (`BKG`, `TRD`);
//! transport events and `TRD`/`SRM` shipment events list every container as an `EQ` reference.
//!
//! Determinism: all randomness comes from `ChaCha8Rng::seed_from_u64(seed)` (shipment level) and
//! from ChaCha8 streams seeded by a hash of the seed and a voyage key (voyage level); event ids
//! are UUIDs built from those streams. The same [`GenOptions`] always give byte-identical JSON.
//!
//! Layout: `tables` loads the reference data (the CSV files under `synth/data/`); `network`
//! derives the routes of every service loop and the transshipment connections between them;
//! `voyages` holds the weekly voyages, their vessels and transport calls; `shipments` writes
//! every event of one bill of lading and its ground truth; `time` is the fixed clock and its
//! RFC 3339 formatting, `draws` the seeded hashing and random draws.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::Value;

mod draws;
mod network;
mod shipments;
mod tables;
#[cfg(test)]
mod tests;
mod time;
mod voyages;

use self::network::Ctx;
use self::shipments::Gen;
use self::time::NOW;

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenOptions {
    /// Number of shipments (bills of lading). Each has 1–6 containers (2.3 on average) and
    /// on average about 51 events (about 22 per container), so 20,000 shipments give about a
    /// million events. In memory a `serde_json::Value` event takes about 5.5 KB.
    pub shipments: usize,
    /// Seed of every random choice; the same options always give the same output.
    pub seed: u64,
    /// Split the output into files of about this many events, never splitting one shipment
    /// across files (a file holds more only when a single shipment is larger). `0` = one file.
    pub events_per_file: usize,
}

/// One generated feed file: a DCSA T&T 2.2 event array.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedFile {
    /// File name, `generated-0001.json`, `generated-0002.json`, … (1-based, 4 digits or more).
    pub name: String,
    /// The events, each a DCSA T&T 2.2 event object, grouped by shipment and, within a
    /// shipment, ordered by `eventCreatedDateTime`.
    pub events: Vec<Value>,
}

/// The fixed "now" of every generated feed, RFC 3339.
pub const GENERATOR_NOW: &str = "2026-11-01T00:00:00Z";

/// The fixed "now" of every generated feed (2026-11-01T00:00:00Z, the same for every seed):
/// no event is created after it and no `ACT` event happens after it.
pub fn generator_now() -> DateTime<Utc> {
    DateTime::from_timestamp(NOW, 0).expect("valid timestamp")
}

/// Generates DCSA T&T 2.2 event arrays. Same options => byte-identical output.
///
/// Returns at least one file (an empty one when `opts.shipments` is 0). Shipments keep their
/// generation order across files; see [`GenOptions::events_per_file`] for the split. Never fails.
/// Booking, bill-of-lading and container serials are unique while there are fewer than
/// 10 million shipments and 1 million containers.
pub fn generate(opts: &GenOptions) -> Vec<GeneratedFile> {
    generate_inner(opts, false).0
}

/// [`generate`], and the ground truth of what the written events say about each container
/// ([`crate::truth`]: one JSON object per container, in generation order).
pub fn generate_with_truth(opts: &GenOptions) -> (Vec<GeneratedFile>, Vec<Value>) {
    generate_inner(opts, true)
}

fn generate_inner(opts: &GenOptions, truth: bool) -> (Vec<GeneratedFile>, Vec<Value>) {
    let ctx = Ctx::new();
    let mut g = Gen::new(&ctx, opts.seed);
    if truth {
        g.truth = Some(Vec::new());
    }
    let mut files: Vec<GeneratedFile> = Vec::new();
    let mut cur: Vec<Value> = Vec::new();
    for i in 0..opts.shipments {
        let evs = g.shipment(i as u64);
        if opts.events_per_file > 0
            && !cur.is_empty()
            && cur.len() + evs.len() > opts.events_per_file
        {
            let n = files.len() + 1;
            files.push(GeneratedFile {
                name: file_name(n),
                events: std::mem::take(&mut cur),
            });
        }
        cur.extend(evs);
    }
    if !cur.is_empty() || files.is_empty() {
        let n = files.len() + 1;
        files.push(GeneratedFile {
            name: file_name(n),
            events: cur,
        });
    }
    (files, g.truth.unwrap_or_default())
}

/// Generates shipments one at a time, in the order [`generate`] uses with the same `seed`,
/// until at least `containers` containers exist (the last shipment may take the count a few
/// boxes past it). Each shipment's events (DCSA T&T 2.2 objects, ordered by
/// `eventCreatedDateTime`) go to `sink` with the shipment's number of containers and the
/// ground truth of its containers ([`crate::truth`], one JSON object each); only one shipment
/// is held in memory, so any size streams. Stops at the first error of `sink` and returns it.
/// Returns the number of shipments generated.
pub fn stream_shipments<E>(
    seed: u64,
    containers: usize,
    mut sink: impl FnMut(Vec<Value>, usize, Vec<Value>) -> Result<(), E>,
) -> Result<usize, E> {
    let ctx = Ctx::new();
    let mut g = Gen::new(&ctx, seed);
    g.truth = Some(Vec::new());
    let mut k = 0u64;
    while (g.containers as usize) < containers {
        let before = g.containers;
        let events = g.shipment(k);
        k += 1;
        let truth = g.truth.as_mut().map(std::mem::take).unwrap_or_default();
        sink(events, (g.containers - before) as usize, truth)?;
    }
    Ok(k as usize)
}

/// Writes one file's events as a compact JSON array, one event per line (the layout of
/// [`write_to_dir`]) to `w`.
///
/// # Errors
/// Any I/O error of `w`.
pub fn write_events(events: &[Value], w: &mut impl Write) -> io::Result<()> {
    w.write_all(b"[")?;
    for (i, ev) in events.iter().enumerate() {
        w.write_all(if i == 0 { b"\n" } else { b",\n" })?;
        serde_json::to_writer(&mut *w, ev)?;
    }
    w.write_all(b"\n]\n")
}

/// Writes each file as a compact JSON array, one event per line, into `dir` (created if
/// missing, with its parents); returns the paths written, in order. Existing files of the same
/// name are overwritten.
///
/// # Errors
/// Any I/O error creating the directory or writing a file.
pub fn write_to_dir(files: &[GeneratedFile], dir: &Path) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir)?;
    let mut paths = Vec::with_capacity(files.len());
    for f in files {
        let path = dir.join(&f.name);
        let mut w = BufWriter::with_capacity(1 << 20, fs::File::create(&path)?);
        write_events(&f.events, &mut w)?;
        w.flush()?;
        paths.push(path);
    }
    Ok(paths)
}

/// Total number of events, handy for benchmarks.
pub fn event_count(files: &[GeneratedFile]) -> usize {
    files.iter().map(|f| f.events.len()).sum()
}

fn file_name(n: usize) -> String {
    format!("generated-{n:04}.json")
}
