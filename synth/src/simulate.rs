//! `teu simulate`: realistic feeds in every format teu reads, for any number of containers,
//! written chunk by chunk so that memory stays bounded whatever the size.
//!
//! For `containers` boxes and a `seed`, [`simulate`] streams the shipments of
//! [`crate::dcsa`] (same seed, same shipments as `teu generate`) and cuts them into chunks
//! of about [`SimOptions::containers_per_file`] containers. For chunk `NNNNN` it writes:
//!
//! | file | format | shapes imitated |
//! |---|---|---|
//! | `dcsa/events-NNNNN.json` | DCSA Track & Trace 2.2 event array | carriers' T&T feeds: shipment, transport and equipment events, transshipments, full-out and empty return ([`crate::dcsa`]) |
//! | `terminal/terminal-checks-NNNNN.csv` / `.jsonl` | terminal availability, CSV and JSON lines | US terminal web pages and APIs: holds, fees, last free day, full-out ([`crate::terminal`]) |
//! | `terminal/line-deadlines-NNNNN.csv` | line last free day per bill of lading | carrier deadline exports ([`crate::terminal`]) |
//! | `rail/rail-events-NNNNN.json` | DCSA T&T 2.2 rail events | US Class I railroads' ramp events ([`crate::terminal`]) |
//! | `email/NNNNN-KKKK.eml` | RFC 5322 `multipart/mixed`, text body and a one-page PDF | carriers' arrival notices: B/L, vessel, voyage, POD and ETA in the subject, the containers in the body, the notice as PDF |
//!
//! and at the end `ais/ais-positions-NNN.csv` ([`AIS_ROWS_PER_FILE`] rows each), AIS positions in the NOAA MarineCadastre layout for
//! every voyage of every chunk ([`crate::ais`], along the MARNET sea lanes), and
//! `MANIFEST`, a JSON file with the counts (no extension, so `teu ingest OUT_DIR` passes it by);
//! `truth.jsonl`, per container what its DCSA events imply ([`crate::truth`]; the rail, terminal
//! and email files are not part of it; `teu ingest` skips it). With [`SimOptions::zstd`] the DCSA, rail and AIS files are
//! written zstd-compressed (`.json.zst`, `.csv.zst`), as NOAA ships its 2024+ AIS files; every
//! reader of `teu ingest` takes them as they are.
//!
//! Memory: one chunk's events (about 22 events per container, about 5.5 KB each as JSON values)
//! plus one vessel call per distinct voyage stop for the AIS at the end, which is streamed one
//! passage at a time into files ([`ais::write_ais`]); 1,000,000 containers peaked at
//! 1.2 GB RSS. Output size: about 18 KB of uncompressed DCSA JSON per container.
//!
//! Deterministic: the same options give byte-identical files.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, SecondsFormat, Utc};
use mail_builder::headers::content_type::ContentType;
use mail_builder::headers::date::Date;
use mail_builder::mime::MimePart;
use mail_builder::MessageBuilder;
use serde::Serialize;
use serde_json::Value;

use crate::ais;
use crate::dcsa::{self, generator_now, GeneratedFile};
use crate::terminal;
use teu_pipeline::model::{Classifier, EventRow, EventType};

/// Most AIS positions per file (about 25 MB of CSV): bounds what `teu ingest` holds at once.
pub const AIS_ROWS_PER_FILE: usize = 250_000;

/// What to simulate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimOptions {
    /// Containers to simulate (the last shipment may add a few more).
    pub containers: usize,
    /// Seed of every random choice.
    pub seed: u64,
    /// About this many containers per chunk of files (at least 1).
    pub containers_per_file: usize,
    /// One arrival-notice email per this many shipments that have a POD arrival (0: none).
    pub email_every: usize,
    /// Write DCSA, rail and AIS files zstd-compressed.
    pub zstd: bool,
}

impl Default for SimOptions {
    fn default() -> SimOptions {
        SimOptions {
            containers: 1_000,
            seed: 1,
            containers_per_file: 2_000,
            email_every: 20,
            zstd: false,
        }
    }
}

/// What was written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SimSummary {
    pub containers: usize,
    pub shipments: usize,
    pub dcsa_events: usize,
    pub terminal_files: usize,
    pub rail_files: usize,
    pub emails: usize,
    pub ais_positions: usize,
    pub ais_vessels: usize,
    pub chunks: usize,
    /// Bytes written, all files.
    pub bytes: u64,
    /// Every file written, in the order `teu ingest` would read them.
    pub files: Vec<PathBuf>,
}

/// Writes the simulated feeds into `out_dir` (module documentation), calling `progress` with
/// the number of containers generated so far after each shipment.
///
/// # Errors
/// Any I/O error creating a directory or writing a file; files written before it stay.
pub fn simulate(
    opts: &SimOptions,
    out_dir: &Path,
    mut progress: impl FnMut(usize),
) -> io::Result<SimSummary> {
    for sub in ["dcsa", "terminal", "rail", "email", "ais"] {
        fs::create_dir_all(out_dir.join(sub))?;
    }
    let mut w = Writer {
        out_dir,
        opts: *opts,
        summary: SimSummary::default(),
        calls: BTreeMap::new(),
        chunk: Vec::new(),
        chunk_containers: 0,
        shipments_with_arrival: 0,
    };
    let per_file = opts.containers_per_file.max(1);
    let mut truth = BufWriter::new(fs::File::create(
        out_dir.join(teu_pipeline::ingest::TRUTH_FILE),
    )?);
    let shipments = dcsa::stream_shipments(opts.seed, opts.containers, |events, boxes, t| {
        for record in t {
            serde_json::to_writer(&mut truth, &record)?;
            truth.write_all(b"\n")?;
        }
        w.chunk.push(events);
        w.chunk_containers += boxes;
        w.summary.containers += boxes;
        progress(w.summary.containers);
        if w.chunk_containers >= per_file {
            w.flush_chunk()?;
        }
        Ok::<(), io::Error>(())
    })?;
    w.flush_chunk()?;
    truth.flush()?;
    w.summary.shipments = shipments;
    w.write_ais()?;
    let manifest = out_dir.join("MANIFEST");
    let mut summary = w.summary;
    let text = serde_json::to_string_pretty(&serde_json::json!({
        "generator": "teu simulate",
        "seed": opts.seed,
        "containers_asked": opts.containers,
        "containers": summary.containers,
        "shipments": summary.shipments,
        "dcsa_events": summary.dcsa_events,
        "chunks": summary.chunks,
        "terminal_files": summary.terminal_files,
        "rail_files": summary.rail_files,
        "emails": summary.emails,
        "ais_positions": summary.ais_positions,
        "ais_vessels": summary.ais_vessels,
        "now": dcsa::GENERATOR_NOW,
    }))?;
    fs::write(&manifest, text)?;
    summary.files.sort();
    Ok(summary)
}

/// One distinct vessel call: (IMO, time, code, UN/LOCODE, actual).
type CallKey = (String, DateTime<Utc>, String, String, bool);

struct Writer<'a> {
    out_dir: &'a Path,
    opts: SimOptions,
    summary: SimSummary,
    /// Distinct vessel calls of every chunk so far, for the AIS at the end.
    calls: BTreeMap<CallKey, EventRow>,
    chunk: Vec<Vec<Value>>,
    chunk_containers: usize,
    shipments_with_arrival: usize,
}

impl Writer<'_> {
    fn write(&mut self, path: PathBuf, bytes: &[u8], compress: bool) -> io::Result<()> {
        let path = if compress {
            let mut p = path.into_os_string();
            p.push(".zst");
            PathBuf::from(p)
        } else {
            path
        };
        let file = BufWriter::with_capacity(1 << 20, fs::File::create(&path)?);
        if compress {
            let mut enc = zstd::stream::write::Encoder::new(file, 3)?;
            enc.write_all(bytes)?;
            enc.finish()?.flush()?;
        } else {
            let mut file = file;
            file.write_all(bytes)?;
            file.flush()?;
        }
        self.summary.bytes += fs::metadata(&path)?.len();
        self.summary.files.push(path);
        Ok(())
    }

    fn flush_chunk(&mut self) -> io::Result<()> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        self.summary.chunks += 1;
        let n = self.summary.chunks;
        let shipments = std::mem::take(&mut self.chunk);
        self.chunk_containers = 0;
        let file = GeneratedFile {
            name: format!("events-{n:05}.json"),
            events: shipments.iter().flatten().cloned().collect(),
        };
        self.summary.dcsa_events += file.events.len();
        let mut json = Vec::with_capacity(file.events.len() * 900);
        dcsa::write_events(&file.events, &mut json)?;
        self.write(
            self.out_dir.join("dcsa").join(&file.name),
            &json,
            self.opts.zstd,
        )?;
        drop(json);
        let rows = ais::events_of(std::slice::from_ref(&file));
        for r in rows.iter().filter(|r| is_vessel_call(r)) {
            if let (Some(imo), Some(locode)) = (&r.vessel_imo, &r.locode) {
                let key = (
                    imo.to_string(),
                    r.event_at,
                    r.code.clone(),
                    locode.to_string(),
                    r.classifier == Classifier::Act,
                );
                self.calls.entry(key).or_insert_with(|| r.clone());
            }
        }
        for (name, content) in terminal::extra_feeds(std::slice::from_ref(&file), {
            self.opts.seed ^ (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        })
        .files
        {
            let (stem, ext) = name.split_once('.').unwrap_or((name.as_str(), ""));
            let numbered = format!("{stem}-{n:05}.{ext}");
            if stem.starts_with("rail") {
                self.summary.rail_files += 1;
                let path = self.out_dir.join("rail").join(numbered);
                self.write(path, content.as_bytes(), self.opts.zstd)?;
            } else {
                self.summary.terminal_files += 1;
                let path = self.out_dir.join("terminal").join(numbered);
                self.write(path, content.as_bytes(), false)?;
            }
        }
        drop(file);
        if self.opts.email_every > 0 {
            for (k, events) in shipments.iter().enumerate() {
                let Some(notice) = ArrivalNotice::of(events) else {
                    continue;
                };
                self.shipments_with_arrival += 1;
                if self.shipments_with_arrival % self.opts.email_every != 0 {
                    continue;
                }
                let message = notice.message(self.opts.seed).map_err(io::Error::other)?;
                let path = self
                    .out_dir
                    .join("email")
                    .join(format!("{n:05}-{k:04}.eml"));
                self.write(path, &message, false)?;
                self.summary.emails += 1;
            }
        }
        Ok(())
    }

    /// The AIS of every voyage seen, in files of at most [`AIS_ROWS_PER_FILE`] positions,
    /// streamed passage by passage: memory holds one file's text, not the whole track.
    fn write_ais(&mut self) -> io::Result<()> {
        let calls: Vec<EventRow> = std::mem::take(&mut self.calls).into_values().collect();
        let mut header = String::new();
        let mut text = String::new();
        let (mut rows, mut part) = (0usize, 0usize);
        let counts = ais::write_ais(&calls, self.opts.seed, |lines, n| -> io::Result<()> {
            if n == 0 && header.is_empty() {
                header = lines.to_string();
                text.push_str(&header);
                return Ok(());
            }
            let mut lines = lines;
            while !lines.is_empty() {
                let room = AIS_ROWS_PER_FILE - rows;
                // Byte offset just after the `room`-th line, or the whole rest.
                let cut = lines
                    .match_indices('\n')
                    .nth(room.saturating_sub(1))
                    .map_or(lines.len(), |(i, _)| i + 1);
                let (head, rest) = lines.split_at(cut);
                text.push_str(head);
                rows += head.matches('\n').count();
                lines = rest;
                if rows == AIS_ROWS_PER_FILE {
                    part += 1;
                    self.write_ais_part(part, &text)?;
                    text.clear();
                    text.push_str(&header);
                    rows = 0;
                }
            }
            Ok(())
        })?;
        if rows > 0 || part == 0 {
            part += 1;
            self.write_ais_part(part, &text)?;
        }
        self.summary.ais_positions = counts.positions;
        self.summary.ais_vessels = counts.vessels;
        Ok(())
    }

    /// Writes `ais/ais-positions-{part:03}.csv` (`.zst` with [`SimOptions::zstd`]).
    fn write_ais_part(&mut self, part: usize, text: &str) -> io::Result<()> {
        let path = self
            .out_dir
            .join("ais")
            .join(format!("ais-positions-{part:03}.csv"));
        self.write(path, text.as_bytes(), self.opts.zstd)
    }
}

/// A vessel's arrival or departure (what [`ais::generate_ais`] reads).
fn is_vessel_call(r: &EventRow) -> bool {
    r.event_type == EventType::Transport
        && matches!(r.mode_of_transport.as_deref(), None | Some("VESSEL"))
        && matches!(r.code.as_str(), "ARRI" | "DEPA")
}

/// The facts of one arrival notice, from a shipment's events.
struct ArrivalNotice {
    scac: String,
    bill_of_lading: String,
    vessel: String,
    voyage: String,
    pod: String,
    pod_name: String,
    eta: DateTime<Utc>,
    actual: bool,
    containers: Vec<String>,
    /// When the notice is sent: a day before the arrival, or the arrival's event time.
    sent: DateTime<Utc>,
}

impl ArrivalNotice {
    /// The notice for the last vessel arrival of a shipment's events, when it has one (and a
    /// bill of lading).
    fn of(events: &[Value]) -> Option<ArrivalNotice> {
        let file = GeneratedFile {
            name: "notice".into(),
            events: events.to_vec(),
        };
        let rows = ais::events_of(std::slice::from_ref(&file));
        let arrival = rows
            .iter()
            .filter(|r| is_vessel_call(r) && r.code == "ARRI")
            .max_by_key(|r| (r.transport_call_sequence, r.event_at))?;
        let bill_of_lading = rows
            .iter()
            .find_map(|r| r.bill_of_lading().map(str::to_string))?;
        let mut containers: Vec<String> = rows
            .iter()
            .flat_map(|r| r.containers.iter().cloned())
            .collect();
        containers.sort();
        containers.dedup();
        let now = generator_now();
        let sent = (arrival.event_at - chrono::Duration::days(1)).min(now);
        Some(ArrivalNotice {
            scac: rows
                .iter()
                .find_map(|r| r.carrier_scac.clone())
                .unwrap_or_else(|| "XXXX".into()),
            bill_of_lading,
            vessel: arrival.vessel_name.clone().unwrap_or_default(),
            voyage: arrival
                .import_voyage
                .clone()
                .or_else(|| arrival.export_voyage.clone())
                .unwrap_or_default(),
            pod: arrival
                .locode
                .as_deref()
                .map(str::to_string)
                .unwrap_or_default(),
            pod_name: arrival.location_name.clone().unwrap_or_default(),
            eta: arrival.event_at,
            actual: arrival.classifier == Classifier::Act,
            containers,
            sent,
        })
    }

    fn lines(&self) -> Vec<String> {
        let when = if self.actual { "Arrived" } else { "ETA" };
        let mut lines = vec![
            format!("ARRIVAL NOTICE - {}", self.scac),
            format!("Bill of lading: {}", self.bill_of_lading),
            format!("Vessel / voyage: {} / {}", self.vessel, self.voyage),
            format!("Port of discharge: {} {}", self.pod, self.pod_name),
            format!(
                "{when}: {}",
                self.eta.to_rfc3339_opts(SecondsFormat::Secs, true)
            ),
            format!("Containers ({}):", self.containers.len()),
        ];
        lines.extend(self.containers.iter().map(|c| format!("  {c}")));
        lines
    }

    /// The notice as an RFC 5322 message (mail-builder) with the PDF attached.
    fn message(&self, seed: u64) -> io::Result<Vec<u8>> {
        let scac = self.scac.to_ascii_lowercase();
        let subject = format!(
            "Arrival Notice: B/L {} | {} {} | {} {}",
            self.bill_of_lading,
            self.vessel,
            self.voyage,
            self.pod,
            self.eta.format("%d-%b-%Y")
        );
        let body = format!(
            "Dear customer,\r\n\r\nPlease find attached the arrival notice for the shipment below.\r\n\r\n{}\r\n\r\nThis is an automated message; please do not reply.\r\n",
            self.lines().join("\r\n")
        );
        let pdf = pdf_page(&self.lines());
        // A boundary of our own: mail-builder's default is time-based, and the output must be
        // the same for the same seed.
        let boundary = format!("teu-sim-{}-{seed}", self.bill_of_lading);
        let body = MimePart::new(
            ContentType::new("multipart/mixed").attribute("boundary", boundary),
            vec![
                MimePart::new("text/plain", body),
                MimePart::new("application/pdf", pdf)
                    .attachment(format!("arrival-notice-{}.pdf", self.bill_of_lading)),
            ],
        );
        let message = MessageBuilder::new()
            .from((
                format!("{} Notifications", self.scac),
                format!("arrival-notice@{scac}.example.com"),
            ))
            .to(("Imports desk", "imports@consignee.example.com"))
            .subject(subject)
            .message_id(format!(
                "an-{}-{seed}@{scac}.example.com",
                self.bill_of_lading
            ))
            .date(Date::new(self.sent.timestamp()))
            .body(body);
        message.write_to_vec()
    }
}

/// A one-page PDF 1.4 document (ISO 32000-1 §7: header, objects, cross-reference table,
/// trailer) showing `lines` in Helvetica 10 pt.
fn pdf_page(lines: &[String]) -> Vec<u8> {
    let mut text = String::from("BT /F1 10 Tf 12 TL 56 790 Td\n");
    for l in lines {
        let escaped: String = l
            .chars()
            .filter(char::is_ascii)
            .flat_map(|c| match c {
                '(' | ')' | '\\' => vec!['\\', c],
                c => vec![c],
            })
            .collect();
        text.push_str(&format!("({escaped}) Tj T*\n"));
    }
    text.push_str("ET\n");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>".to_string(),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
        format!("<< /Length {} >>\nstream\n{text}endstream", text.len()),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::with_capacity(objects.len());
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_files_and_every_format_reads() {
        let opts = SimOptions {
            containers: 300,
            seed: 7,
            containers_per_file: 120,
            email_every: 3,
            zstd: false,
        };
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let sa = simulate(&opts, a.path(), |_| {}).unwrap();
        let sb = simulate(&opts, b.path(), |_| {}).unwrap();
        assert!(
            sa.containers >= 300 && sa.containers < 306,
            "{}",
            sa.containers
        );
        assert_eq!(sa.chunks, 3);
        assert!(sa.emails > 0 && sa.rail_files > 0 && sa.terminal_files >= 3);
        assert!(sa.ais_positions > 1_000, "{}", sa.ais_positions);
        assert_eq!(sa.files.len(), sb.files.len());
        for (fa, fb) in sa.files.iter().zip(&sb.files) {
            assert!(
                fs::read(fa).unwrap() == fs::read(fb).unwrap(),
                "{}",
                fa.display()
            );
        }
        // Every file is read by teu's own readers without a quarantined row, and the DCSA
        // files hold exactly the containers counted.
        let mut boxes = std::collections::BTreeSet::new();
        for f in &sa.files {
            let bytes = fs::read(f).unwrap();
            let name = f.display().to_string();
            if name.ends_with(".eml") {
                let email = teu_pipeline::email::parse_message(&bytes).unwrap();
                assert_eq!(email.attachments.len(), 1);
                assert!(email.attachments[0].bytes.starts_with(b"%PDF-1.4"));
                let subject = email.subject.unwrap_or_default();
                assert!(subject.starts_with("Arrival Notice: B/L "), "{subject}");
                continue;
            }
            if name.ends_with("MANIFEST") {
                continue;
            }
            let batch = teu_pipeline::feeds::read_bytes(&bytes, &name).unwrap();
            if name.contains("/ais/") {
                // The generated AIS has rare impossible jumps (see docs/NOTES.md), which the
                // reader quarantines as it does in real AIS.
                assert!(batch.quarantined.len() * 10_000 < batch.rows_read, "{name}");
                assert!(batch
                    .quarantined
                    .iter()
                    .all(|q| q.reason.starts_with("impossible jump")));
            } else {
                assert!(
                    batch.quarantined.is_empty(),
                    "{name}: {:?}",
                    &batch.quarantined[..1]
                );
            }
            assert!(batch.rows_read > 0, "{name}");
            if name.contains("/dcsa/") {
                boxes.extend(
                    batch
                        .events
                        .iter()
                        .flat_map(|e| e.row.containers.iter().cloned()),
                );
            }
        }
        assert_eq!(boxes.len(), sa.containers);
    }

    /// `truth.jsonl` holds one record per container of the DCSA files, each naming a box
    /// that the DCSA files name.
    #[test]
    fn truth_describes_every_simulated_container() {
        let dir = tempfile::tempdir().unwrap();
        let opts = SimOptions {
            containers: 30,
            seed: 5,
            containers_per_file: 1_000,
            email_every: 0,
            zstd: false,
        };
        let summary = simulate(&opts, dir.path(), |_| {}).unwrap();
        let text = fs::read_to_string(dir.path().join(teu_pipeline::ingest::TRUTH_FILE)).unwrap();
        let records: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(records.len(), summary.containers);
        let mut named = std::collections::BTreeSet::new();
        for f in summary
            .files
            .iter()
            .filter(|f| f.display().to_string().contains("dcsa"))
        {
            for e in teu_pipeline::feeds::read_file(f).unwrap().events {
                named.extend(e.row.containers);
            }
        }
        for r in &records {
            let number = r["number"].as_str().unwrap();
            assert!(named.contains(number), "{number} is in the DCSA files");
            assert!(r["port_of_lading_locode"].is_string());
            assert!(r["current_status"].is_string());
        }
    }

    #[test]
    fn zstd_output_reads_the_same() {
        let plain = SimOptions {
            containers: 40,
            seed: 3,
            containers_per_file: 1_000,
            email_every: 0,
            zstd: false,
        };
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let sa = simulate(&plain, a.path(), |_| {}).unwrap();
        let sb = simulate(
            &SimOptions {
                zstd: true,
                ..plain
            },
            b.path(),
            |_| {},
        )
        .unwrap();
        assert!(sb.bytes < sa.bytes / 4, "{} vs {}", sb.bytes, sa.bytes);
        for (fa, fb) in sa.files.iter().zip(&sb.files) {
            if fa.ends_with("MANIFEST") {
                continue;
            }
            let ra = teu_pipeline::feeds::read_bytes(&fs::read(fa).unwrap(), "x").unwrap();
            let rb = teu_pipeline::feeds::read_bytes(&fs::read(fb).unwrap(), "x").unwrap();
            assert_eq!(ra.rows_read, rb.rows_read, "{}", fb.display());
            assert_eq!(ra.events.len(), rb.events.len());
            assert_eq!(ra.positions, rb.positions);
        }
    }
}
