//! Ingest: one read feed batch into the store, then re-derivation of what it touched.
//!
//! 1. Accepted events are upserted as raw events (original JSON) and normalized events;
//!    quarantined rows are recorded with file, index, JSON pointer and reason.
//! 2. Under the account's derivation lock ([`crate::store::derive_lock`]), every stored event of the
//!    account that names a container, bill of lading or booking of the batch is loaded, and [`crate::normalize::derive`] recomputes those shipments and
//!    containers from the whole history, so a late file cannot undo newer facts. The terminal
//!    facts and tracking requests of the history's keys are read from the store meanwhile and
//!    applied to the derived records.
//! 3. Derived rows are upserted; unchanged rows are left as they were.
//! 4. The containers that changed (directly or through their shipment) and the tracking
//!    requests that became `created` are published to subscribers ([`crate::store::notify`]).
//!
//! Ids are deterministic (see [`crate::ids`]), so ingesting the same file again changes nothing.
//!
//! Step 1 is per file ([`store_file`], [`store_batch`]); steps 2 to 4 run for a set of keys
//! ([`derive_stored`]): those of one file ([`ingest_file`], [`ingest_batch`]) or of a group of
//! stored files gathered by [`PendingDerivation`] (`teu ingest --derive-every`), so that a
//! container several files name is derived once. The tables come out the same either way.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

pub mod email;

use crate::feeds::{self, FeedBatch, FeedError, FeedFormat, Quarantined};
use crate::ids;
use crate::model::{Account, Container, TransportEvent};
use crate::normalize::{self, NormalizeError, Refs};
use crate::reference;
use crate::store::payloads::EventForms;
use crate::store::{
    now as store_now, Backend, DerivationScope, DerivedChanges, DroppedKeys, NewEvent,
    ReplacementMark, Store, StoreError,
};
use crate::terminal_facts;

/// Ingest failures of one file.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error(transparent)]
    Feed(#[from] FeedError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Normalize(#[from] NormalizeError),
    #[error("the normalization worker failed: {0}")]
    Worker(String),
    /// A store, normalization or worker error while ingesting the file at `path` (feed errors
    /// name their file themselves and are not wrapped).
    #[error("{path}: {source}")]
    InFile {
        path: PathBuf,
        #[source]
        source: Box<IngestError>,
    },
    #[error("{path}: cannot list directory: {source}")]
    Walk {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileSummary {
    pub file: String,
    pub format: FeedFormat,
    /// Rows found in the file.
    pub rows_read: usize,
    /// Rows stored (events, terminal checks, line deadlines, AIS positions, emails).
    pub accepted: usize,
    /// Of `accepted`, the AIS positions (stored once for all accounts, never derived from).
    pub positions: usize,
    /// Rows quarantined, each with file, index, JSON pointer and reason.
    pub quarantined: Vec<Quarantined>,
    /// Shipments and containers (re)derived because of this file.
    pub shipments: usize,
    pub containers: usize,
    /// Stored events that name no shipment yet (a container-only event whose container has no
    /// known bill of lading or booking); they attach when a later feed names it.
    pub waiting: usize,
    /// Wall time of each stage.
    pub timings: StageTimings,
}

/// Wall time spent in each ingest stage of one file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StageTimings {
    /// Reading the file and parsing and validating its rows (zstd and JSON/CSV/MIME).
    pub read: Duration,
    /// Storing raw and normalized events, terminal checks, deadlines, AIS positions, emails and
    /// quarantined rows.
    pub store: Duration,
    /// Waiting for the derivation lock (another worker deriving the same account) or, in a
    /// derivation beside the store of later files, for a turn to write ([`WriteTurns`]).
    pub lock_wait: Duration,
    /// Reading the touched keys' linked stored history ([`linked_history`]: event ids, then
    /// each body once, decoded): the first part of a derivation.
    pub history: Duration,
    /// Deriving shipments and containers from that history (polars), with their terminal
    /// facts and tracking requests.
    pub derive: Duration,
    /// Writing derived shipments, containers and event links, linking tracking requests.
    pub write: Duration,
}

impl StageTimings {
    /// Adds `other`'s times to these.
    pub fn add(&mut self, other: &StageTimings) {
        self.read += other.read;
        self.store += other.store;
        self.lock_wait += other.lock_wait;
        self.history += other.history;
        self.derive += other.derive;
        self.write += other.write;
    }
}

/// The name of the ground-truth file `teu generate` writes beside a feed (`teu_synth::truth`);
/// directory walks skip it: it describes the feed, it is not one.
pub const TRUTH_FILE: &str = "truth.jsonl";

/// Expands the paths given on the command line: files as they are, directories recursively
/// (only `*.json`, `*.jsonl`, `*.ndjson`, `*.csv`, `*.zst`, `*.eml` and `*.mbox` files other
/// than [`TRUTH_FILE`], sorted by path).
pub fn expand_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, IngestError> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), IngestError> {
    let err = |source| IngestError::Walk {
        path: dir.to_path_buf(),
        source,
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(err)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(err)?;
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out)?;
        } else if p.file_name().is_some_and(|n| n == TRUTH_FILE) {
            continue;
        } else if p.extension().is_some_and(|e| {
            ["json", "jsonl", "ndjson", "csv", "zst", "eml", "mbox"]
                .iter()
                .any(|x| e.eq_ignore_ascii_case(x))
        }) {
            out.push(p);
        }
    }
    Ok(())
}

/// Reads and ingests one file for `account`: email (`.eml`, mbox, or content that starts like a
/// message, see [`email::is_email_file`]) goes to [`crate::email`], the rest to the
/// feed readers. The file is derived on its own ([`store_file`] then [`derive_stored`]).
pub async fn ingest_file(
    store: &Store,
    account: &Account,
    path: &Path,
) -> Result<FileSummary, IngestError> {
    let stored = store_file(store, account, path).await?;
    derive_one(store, account, stored)
        .await
        .map_err(|e| in_file(path, e))
}

/// Step 1 of the module documentation for one file: reads it and stores its rows, without
/// deriving. The returned [`Stored`] carries the keys the file touched; hand them to
/// [`PendingDerivation`] (several files, derived together) or [`derive_stored`].
///
/// # Errors
/// [`IngestError::Feed`] for an unreadable file (it names the file); store errors wrapped in
/// [`IngestError::InFile`]. Rows stored before a store error are kept.
pub async fn store_file(
    store: &Store,
    account: &Account,
    path: &Path,
) -> Result<Stored, IngestError> {
    let read = read_file(path, account.id)?;
    store_read(store, account, path, read).await
}

/// `e` with the file's path, unless it names its file already (feed errors do).
fn in_file(path: &Path, e: IngestError) -> IngestError {
    match e {
        IngestError::Feed(_) | IngestError::Walk { .. } | IngestError::InFile { .. } => e,
        other => IngestError::InFile {
            path: path.to_path_buf(),
            source: Box::new(other),
        },
    }
}

/// A file read and parsed but not stored yet ([`read_file`]), for [`store_read`]. Reading is
/// CPU work without the store, so `teu ingest` reads the next files on another thread while
/// the current one is stored and derived.
#[derive(Debug)]
pub enum ReadFile {
    /// An email file (`.eml`, mbox, or content that starts like a message), as its bytes:
    /// [`email::ingest_email_bytes`] parses and stores it.
    Email { bytes: Vec<u8> },
    /// A feed file's rows, read and validated, with its events made ready to store
    /// ([`PreparedEvents`]); `read` is how long that took. Boxed: up to `teu ingest`'s
    /// read-ahead of these wait in a channel beside small emails.
    Feed {
        batch: FeedBatch,
        prepared: Box<PreparedEvents>,
        read: Duration,
    },
}

impl ReadFile {
    /// The rows read: a feed's rows (accepted or not), 1 for an email.
    pub fn rows(&self) -> usize {
        match self {
            ReadFile::Email { .. } => 1,
            ReadFile::Feed { batch, .. } => batch.rows_read,
        }
    }
}

/// A batch's events as the store takes them, made without the store: each with its ids
/// ([`ids::event_id`], [`ids::raw_event_id`] for the account) and its port's time zone, as
/// the store reads it back ([`crate::store::transport_event`]), and its payload and body in
/// their stored forms ([`crate::store::payloads::encode_events`]), in the batch's order.
///
/// The batch's events move into it: each event's row becomes its [`TransportEvent`] and the
/// carrier's text is compressed into its stored form and dropped, so that a file read ahead
/// of the store holds each event once (two large files may wait at once, `teu ingest`'s
/// read-ahead).
#[derive(Debug)]
pub struct PreparedEvents {
    events: Vec<TransportEvent>,
    forms: Vec<EventForms>,
    /// Each event's row index in its file.
    indexes: Vec<usize>,
}

impl PreparedEvents {
    /// Prepares `batch`'s events for `account`, taking them out of `batch` (its `events`
    /// are left empty).
    ///
    /// # Errors
    /// [`StoreError::Compress`] when zstd fails (a corrupt bundled dictionary).
    pub fn of(account: uuid::Uuid, batch: &mut FeedBatch) -> Result<Self, IngestError> {
        let read = std::mem::take(&mut batch.events);
        let forms =
            crate::store::payloads::encode_events(read.iter().map(|e| (e.raw.as_str(), &e.row)))
                .map_err(StoreError::Compress)?;
        let mut events = Vec::with_capacity(read.len());
        let mut indexes = Vec::with_capacity(read.len());
        for e in read {
            indexes.push(e.index);
            // As the store reads it back, so that it may stand for its row ([`KnownEvents`]).
            events.push(crate::store::transport_event(
                ids::event_id(account, &e.row.event_id),
                ids::raw_event_id(account, &e.row.event_id),
                e.row,
            ));
        }
        Ok(PreparedEvents {
            events,
            forms,
            indexes,
        })
    }
}

/// Reads the file at `path` and parses it (feeds) or recognizes it as email, and prepares a
/// feed's events for `account` ([`PreparedEvents`]): the read stage of [`store_file`],
/// without the store (blocking: file I/O, zstd, JSON/CSV parsing, compression).
///
/// # Errors
/// [`IngestError::Feed`] naming the file when it cannot be read or is of no known format;
/// [`IngestError::Store`] ([`StoreError::Compress`]) when zstd fails on its events.
pub fn read_file(path: &Path, account: uuid::Uuid) -> Result<ReadFile, IngestError> {
    let started = Instant::now();
    let bytes = std::fs::read(path).map_err(|source| FeedError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if email::is_email_file(path, &bytes[..bytes.len().min(1024)]) {
        return Ok(ReadFile::Email { bytes });
    }
    let mut batch = feeds::read_bytes(&bytes, &path.display().to_string())?;
    drop(bytes);
    let prepared = PreparedEvents::of(account, &mut batch)?;
    Ok(ReadFile::Feed {
        batch,
        prepared: Box::new(prepared),
        read: started.elapsed(),
    })
}

/// Stores a file [`read_file`] read from `path` for `account`: step 1 of the module
/// documentation, as [`store_file`] after its read.
///
/// # Errors
/// Store errors wrapped in [`IngestError::InFile`] with `path`. Rows stored before a store
/// error are kept.
pub async fn store_read(
    store: &Store,
    account: &Account,
    path: &Path,
    read: ReadFile,
) -> Result<Stored, IngestError> {
    store_read_unnamed(store, account, path, read)
        .await
        .map_err(|e| in_file(path, e))
}

/// [`store_read`] without the path on its non-feed errors.
async fn store_read_unnamed(
    store: &Store,
    account: &Account,
    path: &Path,
    read: ReadFile,
) -> Result<Stored, IngestError> {
    match read {
        ReadFile::Email { bytes } => {
            let started = Instant::now();
            let source_file = path.display().to_string();
            let mut summary =
                email::ingest_email_bytes(store, account, bytes, &source_file).await?;
            summary.timings.store = started.elapsed();
            // Emails are stored for their shipments; they name no key to derive again.
            Ok(Stored {
                summary,
                keys: Keys::default(),
                known: KnownEvents::default(),
            })
        }
        ReadFile::Feed {
            batch,
            prepared,
            read,
        } => {
            let mut stored = store_prepared(store, account, batch, *prepared).await?;
            stored.summary.timings.read = read;
            Ok(stored)
        }
    }
}

/// Stores email files that [`read_file`] read ([`ReadFile::Email`]: each path with its bytes)
/// for `account`, all their messages in one transaction ([`email::ingest_email_files`]):
/// `teu ingest` gives it a run of email files read ahead, since a transaction of its own per
/// message cost more round trips to the database than the message's rows. Returns each
/// file's result, in order; each file's store time is its share of the whole.
///
/// When the files together fail, each is stored again on its own, so that an error names its
/// file and the other files are kept.
pub async fn store_emails(
    store: &Store,
    account: &Account,
    files: Vec<(PathBuf, Vec<u8>)>,
) -> Vec<Result<Stored, IngestError>> {
    let started = Instant::now();
    let (paths, files): (Vec<PathBuf>, Vec<email::EmailFile>) = files
        .into_iter()
        .map(|(path, bytes)| {
            let source_file = path.display().to_string();
            (path, email::EmailFile { source_file, bytes })
        })
        .unzip();
    let summaries = match email::ingest_email_files(store, account, &files).await {
        Ok(summaries) => summaries,
        Err(e) if files.len() == 1 => return vec![Err(in_file(&paths[0], e))],
        Err(_) => {
            let mut results = Vec::with_capacity(files.len());
            for (path, file) in paths.iter().zip(files) {
                let read = ReadFile::Email { bytes: file.bytes };
                results.push(store_read(store, account, path, read).await);
            }
            return results;
        }
    };
    let share = started.elapsed() / u32::try_from(summaries.len().max(1)).unwrap_or(u32::MAX);
    summaries
        .into_iter()
        .map(|mut summary| {
            summary.timings.store = share;
            // Emails are stored for their shipments; they name no key to derive again.
            Ok(Stored {
                summary,
                keys: Keys::default(),
                known: KnownEvents::default(),
            })
        })
        .collect()
}

/// Ingests one read batch for `account` (steps in the module documentation): [`store_batch`],
/// then [`derive_stored`] of its keys.
pub async fn ingest_batch(
    store: &Store,
    account: &Account,
    batch: FeedBatch,
) -> Result<FileSummary, IngestError> {
    let stored = store_batch(store, account, batch).await?;
    derive_one(store, account, stored).await
}

/// Derives the keys of one stored file and completes its summary (derived shipments,
/// containers, waiting events, history, derive and write times).
async fn derive_one(
    store: &Store,
    account: &Account,
    stored: Stored,
) -> Result<FileSummary, IngestError> {
    let Stored {
        mut summary,
        keys,
        known,
    } = stored;
    if keys.is_empty() {
        return Ok(summary);
    }
    let derived = derive_stored(
        store,
        account,
        &keys,
        known,
        &WriteTurns::default(),
        &mut summary.timings,
    )
    .await?;
    summary.shipments = derived.shipments;
    summary.containers = derived.containers;
    summary.waiting = derived.waiting;
    Ok(summary)
}

/// A file's rows stored ([`store_file`], [`store_batch`]) and what its derivation needs.
#[derive(Debug)]
pub struct Stored {
    /// What was read and stored (`shipments`, `containers` and `waiting` are 0: nothing was
    /// derived yet); `timings` has `read` and `store`.
    pub summary: FileSummary,
    /// The container numbers, bills of lading and bookings the stored rows name (empty for
    /// AIS positions and emails, which derive nothing).
    pub keys: Keys,
    /// The events whose versions the store took from this file, as it would read them back.
    pub known: KnownEvents,
}

/// Events kept in memory since their versions were stored, to stand for their rows in a
/// derivation's history ([`linked_history`]) instead of reading and decoding them again: a
/// group's history is mostly the events its own files just stored. Each is kept as the store
/// reads it back ([`crate::store::transport_event`]); the versions replaced since `mark`, by
/// whatever writer, are read from the store instead ([`Store::events_replaced_since`]), so
/// a derivation sees the stored versions either way.
///
/// Each file's events stay in the vector they were prepared in, found through an index by
/// event id: an event (several hundred bytes) is not moved again when a map of them grows or
/// when a group gathers its files' events, as it was in a map of the events themselves.
#[derive(Debug, Default)]
pub struct KnownEvents {
    /// Taken before the first of these versions was stored; `None` when none is kept.
    mark: Option<ReplacementMark>,
    /// The files' events, a vector a file; a slot is `None` once its event is taken, left out
    /// or stood for by a later version.
    files: Vec<Vec<Option<TransportEvent>>>,
    /// Where each kept event is: (index in `files`, index in that file's vector); foldhash's
    /// map, as the derivation looks up every event it reads here.
    at: foldhash::HashMap<uuid::Uuid, (usize, usize)>,
}

impl KnownEvents {
    /// The versions of `events` (a file's, as prepared and as the store reads them back:
    /// [`PreparedEvents`]) that the store wrote (`written`, from [`Store::upsert_events`]),
    /// with the `mark` the store took before writing them. An event the file gives twice is
    /// left out: which of its versions was written is the store's rule.
    fn of(
        mark: ReplacementMark,
        events: Vec<TransportEvent>,
        written: &std::collections::HashSet<uuid::Uuid>,
    ) -> Self {
        let mut given: foldhash::HashMap<uuid::Uuid, usize> =
            foldhash::HashMap::with_capacity_and_hasher(events.len(), Default::default());
        for e in &events {
            *given.entry(e.id).or_default() += 1;
        }
        let mut at = foldhash::HashMap::with_capacity_and_hasher(events.len(), Default::default());
        // Collected in place: the slots take the prepared vector's memory.
        let mut slots: Vec<Option<TransportEvent>> = events
            .into_iter()
            .enumerate()
            .map(|(i, e)| {
                (given[&e.id] == 1 && written.contains(&e.id)).then(|| {
                    at.insert(e.id, (0, i));
                    e
                })
            })
            .collect();
        if at.is_empty() {
            return KnownEvents::default();
        }
        // Mostly left out (a file ingested again): keep only what is kept.
        if at.len() * 2 < slots.len() {
            slots = slots.into_iter().flatten().map(Some).collect();
            for (i, e) in slots.iter().flatten().enumerate() {
                at.insert(e.id, (0, i));
            }
        }
        KnownEvents {
            mark: Some(mark),
            files: vec![slots],
            at,
        }
    }

    /// The events kept, in no particular order.
    pub fn events(&self) -> impl Iterator<Item = &TransportEvent> {
        self.files.iter().flatten().flatten()
    }

    /// How many events are kept.
    pub fn len(&self) -> usize {
        self.at.len()
    }

    /// Whether no event is kept.
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// Takes the kept event `id` out, if it is kept.
    fn remove(&mut self, id: &uuid::Uuid) -> Option<TransportEvent> {
        let (file, i) = self.at.remove(id)?;
        self.files.get_mut(file)?.get_mut(i)?.take()
    }

    /// Adds the events of `later`, stored after these (a later version of an event stands
    /// for it); the earlier mark is kept.
    fn extend(&mut self, later: KnownEvents) {
        if self.mark.is_none() {
            self.mark = later.mark;
        }
        let offset = self.files.len();
        self.at.reserve(later.at.len());
        for (id, (file, i)) in later.at {
            if let Some((was, j)) = self.at.insert(id, (file + offset, i)) {
                if let Some(slot) = self.files.get_mut(was).and_then(|f| f.get_mut(j)) {
                    *slot = None;
                }
            }
        }
        self.files.extend(later.files);
    }
}

/// Step 1 of the module documentation for a read batch: stores its events, terminal checks,
/// line deadlines, AIS positions and quarantined rows, and returns the keys they name.
pub async fn store_batch(
    store: &Store,
    account: &Account,
    mut batch: FeedBatch,
) -> Result<Stored, IngestError> {
    let started = Instant::now();
    let prepared = PreparedEvents::of(account.id, &mut batch)?;
    let mut stored = store_prepared(store, account, batch, prepared).await?;
    stored.summary.timings.store = started.elapsed();
    Ok(stored)
}

/// [`store_batch`] of a batch whose events were prepared already ([`read_file`] does it on
/// the reading thread).
async fn store_prepared(
    store: &Store,
    account: &Account,
    batch: FeedBatch,
    prepared: PreparedEvents,
) -> Result<Stored, IngestError> {
    let started = Instant::now();
    let mut timings = StageTimings::default();
    let new: Vec<NewEvent<'_>> = prepared
        .events
        .iter()
        .zip(&prepared.forms)
        .zip(&prepared.indexes)
        .map(|((event, forms), &source_index)| NewEvent {
            event,
            source_file: &batch.source_file,
            source_index,
            forms,
        })
        .collect();
    let upserted = store.upsert_events(account.id, &new).await?;
    drop(new);
    // AIS positions (or an empty file) name no key: nothing per account to re-derive; routes
    // are built from the positions when they are asked for.
    let mut keys = Keys::default();
    {
        // Each key once into the ordered sets: a file names each key in many events, and
        // cloning every named key and searching the ordered set for it was 1.2% of a
        // PostgreSQL worker's instructions (docs/NOTES.md, sixty-second session).
        let mut named: [foldhash::HashSet<&str>; 3] = Default::default();
        for e in &prepared.events {
            let [containers, bills, bookings] = &mut named;
            containers.extend(e.event.containers.iter().map(String::as_str));
            bills.extend(e.event.bills_of_lading.iter().map(String::as_str));
            bookings.extend(e.event.bookings.iter().map(String::as_str));
        }
        let [containers, bills, bookings] = named;
        keys.containers
            .extend(containers.into_iter().map(str::to_string));
        keys.bills.extend(bills.into_iter().map(str::to_string));
        keys.bookings
            .extend(bookings.into_iter().map(str::to_string));
    }
    let events = prepared.events.len();
    let known = KnownEvents::of(upserted.mark, prepared.events, &upserted.written);
    let dropped = upserted.dropped;
    store
        .upsert_terminal_checks(account.id, &batch.source_file, &batch.checks)
        .await?;
    store
        .upsert_line_deadlines(account.id, &batch.source_file, &batch.deadlines)
        .await?;
    store.upsert_vessel_positions(&batch.positions).await?;
    store
        .insert_quarantine(account.id, &batch.quarantined)
        .await?;
    timings.store = started.elapsed();

    // Keys that replaced versions named and no stored version names any more: what was
    // derived from them (a container an event left) is derived again without it.
    keys.extend_dropped(dropped);
    for (_, c, _) in &batch.checks {
        keys.containers.insert(c.container_number.to_string());
    }
    for (_, d, _) in &batch.deadlines {
        keys.containers
            .extend(d.container_number.as_ref().map(ToString::to_string));
        keys.bills.extend(d.bill_of_lading.clone());
    }
    Ok(Stored {
        summary: FileSummary {
            file: batch.source_file,
            format: batch.format,
            rows_read: batch.rows_read,
            accepted: events + batch.checks.len() + batch.deadlines.len() + batch.positions.len(),
            positions: batch.positions.len(),
            quarantined: batch.quarantined,
            shipments: 0,
            containers: 0,
            waiting: 0,
            timings,
        },
        keys,
        known,
    })
}

/// What one derivation ([`derive_stored`], [`PendingDerivation::derive`]) derived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Derived {
    /// Shipments and containers derived (each once, however many files named it).
    pub shipments: usize,
    pub containers: usize,
    /// Stored events that name no shipment yet (a container-only event whose container has no
    /// known bill of lading or booking); they attach when a later feed names it.
    pub waiting: usize,
}

/// Steps 2 to 4 of the module documentation for `keys` (what stored files named): derives,
/// under the account's derivation lock, every shipment linked to them, writes the result and
/// publishes the changes, writing only in its turns of `turns` (pass `WriteTurns::default()`
/// when nothing else of this process writes meanwhile). The history is read from the store
/// but for the `known` events still stored as kept ([`KnownEvents`]; pass
/// `KnownEvents::default()` for none). Adds the lock wait (the derivation lock's and the
/// turns'), history, derive and write times to `timings`.
///
/// # Errors
/// Store and normalization errors; the stored rows stay stored, and the next derivation that
/// reaches their keys derives them.
pub async fn derive_stored(
    store: &Store,
    account: &Account,
    keys: &Keys,
    known: KnownEvents,
    turns: &WriteTurns,
    timings: &mut StageTimings,
) -> Result<Derived, IngestError> {
    let mut these = StageTimings::default();
    let derived = locked_derivation(store, account, keys, known, turns, &mut these).await;
    timings.add(&these);
    let derived = derived?;
    Ok(Derived {
        shipments: derived.shipments,
        containers: derived.containers.len(),
        waiting: derived.unattached,
    })
}

/// Stored files whose derivation is deferred, to derive them together: a container named by
/// several files of the group (its DCSA events, terminal checks, line deadlines, rail moves)
/// is read and derived once instead of once per file. The tables come out the same as file by
/// file, since a derivation reads the whole linked history of what it derives; what differs
/// is what is published: one change per record for the group, not one per file.
///
/// A group taken before the end ([`PendingDerivation::take_group_but_last`]) leaves the keys
/// of the last file added waiting with it: files about the same containers tend to come
/// together (a carrier's events, then the terminals' checks of the same boxes), so the files
/// after it are likely to name them again, and a container is then derived once with all of
/// them rather than once on each side of the cut.
#[derive(Debug, Default)]
pub struct PendingDerivation {
    /// Every key added, the last file's included.
    keys: Keys,
    files: Vec<String>,
    rows: usize,
    /// The events kept of the files added before the last one ([`KnownEvents`]).
    known: KnownEvents,
    /// The keys, feed rows and kept events of the last file added that named a key.
    last_keys: Keys,
    last_rows: usize,
    last_known: KnownEvents,
}

impl PendingDerivation {
    /// Adds a stored file's keys, rows (AIS positions do not count: they derive nothing) and
    /// kept events. A file that names no key (AIS positions, an email) leaves the group as it
    /// was.
    pub fn add(&mut self, stored: Stored) {
        if stored.keys.is_empty() {
            return;
        }
        let rows = stored.summary.accepted - stored.summary.positions;
        self.keys.extend(&stored.keys);
        self.files.push(stored.summary.file);
        self.rows += rows;
        self.last_keys = stored.keys;
        self.last_rows = rows;
        let earlier = std::mem::replace(&mut self.last_known, stored.known);
        self.known.extend(earlier);
    }

    /// Feed rows (not AIS positions) of the files waiting to be derived.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The files waiting to be derived, in the order they were added (files that named no key
    /// are not listed).
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// Whether no key waits to be derived.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Takes every key and file added so far as one [`DerivationGroup`] and starts a new,
    /// empty group; `None` when no key waits. For the end of an ingest.
    pub fn take_group(&mut self) -> Option<DerivationGroup> {
        let Self {
            keys,
            files,
            mut known,
            last_known,
            ..
        } = std::mem::take(self);
        known.extend(last_known);
        (!keys.is_empty()).then_some(DerivationGroup { keys, files, known })
    }

    /// Takes the files added before the last one as a [`DerivationGroup`] of their keys that
    /// the last file does not name; the last file and all its keys (those earlier files named
    /// too) stay, as the start of the next group. Takes everything, as
    /// [`PendingDerivation::take_group`], when the last file names every key that waits.
    /// `None` when no key waits. For a group cut before the end of an ingest.
    pub fn take_group_but_last(&mut self) -> Option<DerivationGroup> {
        let earlier = self.keys.without(&self.last_keys);
        if earlier.is_empty() {
            return self.take_group();
        }
        let mut files = std::mem::take(&mut self.files);
        let last_file = files.pop().into_iter().collect();
        let last_keys = std::mem::take(&mut self.last_keys);
        let known = std::mem::take(&mut self.known);
        let last_known = std::mem::take(&mut self.last_known);
        *self = Self {
            keys: last_keys.clone(),
            files: last_file,
            rows: self.last_rows,
            known: KnownEvents::default(),
            last_keys,
            last_rows: self.last_rows,
            last_known,
        };
        Some(DerivationGroup {
            keys: earlier,
            files,
            known,
        })
    }
}

/// The keys and files of stored files, taken from a [`PendingDerivation`] to be derived
/// together, possibly while the next files are stored (`teu ingest` does: see
/// [`WriteTurns`]).
#[derive(Debug)]
pub struct DerivationGroup {
    keys: Keys,
    files: Vec<String>,
    /// The events kept of the group's files.
    known: KnownEvents,
}

impl DerivationGroup {
    /// The files of the group, in the order they were stored (files that named no key are not
    /// listed).
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// Derives the group's keys ([`derive_stored`]), writing in its turns of `turns`. Returns
    /// what was derived, or the error (the files' rows stay stored and underived until a
    /// later derivation reaches their keys), with the stage times of the derivation. The
    /// caller refreshes the planner statistics first ([`Store::optimize`]) when the group's
    /// store grew the tables much (`teu ingest` does, between two files' stores, where it
    /// waits for no turn).
    pub async fn derive(
        self,
        store: &Store,
        account: &Account,
        turns: &WriteTurns,
    ) -> (Result<Derived, IngestError>, StageTimings) {
        let mut timings = StageTimings::default();
        let derived =
            derive_stored(store, account, &self.keys, self.known, turns, &mut timings).await;
        (derived, timings)
    }
}

/// Turns at writing among the tasks of one ingest, one at a time: `teu ingest` stores the next
/// files while a group of stored files is derived ([`DerivationGroup::derive`]), and each
/// takes a turn for its writes (a file's store; a derivation's written rows and published
/// changes, in one turn) while the derivation's reads and polars work go on beside the store.
/// SQLite has one writer (SQLite manual, "File Locking And Concurrency In SQLite Version 3"):
/// without turns a file's store and a derivation's write would meet at the database's lock,
/// and the one that waited past its busy timeout would fail. PostgreSQL takes concurrent
/// writers (row locks, MVCC), so [`WriteTurns::of`] a PostgreSQL store never waits: there a
/// derivation writes while the next file is stored, as two workers' stores and derivations
/// already do. Clones share the turns; [`WriteTurns::default`] always takes turns.
#[derive(Debug, Clone)]
pub struct WriteTurns(Option<std::sync::Arc<tokio::sync::Mutex<()>>>);

impl Default for WriteTurns {
    fn default() -> Self {
        Self(Some(Default::default()))
    }
}

impl WriteTurns {
    /// Turns for the writers of `store`: taken on SQLite, none on PostgreSQL.
    pub fn of(store: &Store) -> Self {
        match store.backend() {
            Backend::Sqlite => Self::default(),
            Backend::Postgres => Self(None),
        }
    }

    /// Waits for this task's turn to write; the turn lasts until the guard is dropped. `None`
    /// at once when the store needs no turns ([`WriteTurns::of`]).
    pub async fn take(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        match &self.0 {
            Some(turns) => Some(turns.lock().await),
            None => None,
        }
    }
}

/// The keys a batch touched: container numbers, bills of lading and bookings, each once.
#[derive(Debug, Clone, Default)]
pub struct Keys {
    pub containers: BTreeSet<String>,
    pub bills: BTreeSet<String>,
    pub bookings: BTreeSet<String>,
}

impl Keys {
    /// Whether no key is named.
    pub fn is_empty(&self) -> bool {
        self.containers.is_empty() && self.bills.is_empty() && self.bookings.is_empty()
    }

    /// Adds the keys of `other`.
    pub fn extend(&mut self, other: &Keys) {
        self.containers.extend(other.containers.iter().cloned());
        self.bills.extend(other.bills.iter().cloned());
        self.bookings.extend(other.bookings.iter().cloned());
    }

    /// The keys of `self` that `other` does not name, kind by kind.
    pub fn without(&self, other: &Keys) -> Keys {
        Keys {
            containers: self
                .containers
                .difference(&other.containers)
                .cloned()
                .collect(),
            bills: self.bills.difference(&other.bills).cloned().collect(),
            bookings: self.bookings.difference(&other.bookings).cloned().collect(),
        }
    }

    /// Adds the keys replaced event versions named and their stored versions no longer name
    /// ([`Store::upsert_events`], [`Store::rewrite_events`]), so that what those versions
    /// were part of is derived again without them.
    pub fn extend_dropped(&mut self, dropped: DroppedKeys) {
        self.containers.extend(dropped.containers);
        self.bills.extend(dropped.bills_of_lading);
        self.bookings.extend(dropped.bookings);
    }
}

/// What [`derive_and_write`] derived and wrote.
struct Derivation {
    containers: Vec<Container>,
    shipments: usize,
    unattached: usize,
    changes: DerivedChanges,
    linked: Vec<uuid::Uuid>,
}

/// Every stored event of `account` linked to `keys` by any chain of shared keys: the events
/// that name a key, then the events that name any container, bill of lading or booking those
/// events name, and so on until nothing new is found. A shipment is always derived from its
/// whole connected history, whichever of its keys the current file named, so the same files
/// in any order give the same tables (issue: "Derived data that is right", item 2).
///
/// The events of `known` ([`KnownEvents`]) not replaced since they were kept stand for their
/// rows; the others are read from the store.
///
/// Returns the events (by event time, then id) and the [`DerivationScope`] they cover.
pub async fn linked_history(
    store: &Store,
    account: uuid::Uuid,
    keys: &Keys,
    known: KnownEvents,
) -> Result<(Vec<TransportEvent>, DerivationScope), StoreError> {
    let mut known = known;
    if let Some(mark) = known.mark.take() {
        for id in store.events_replaced_since(account, &mark).await? {
            known.remove(&id);
        }
    }
    // Every key asked for so far (the scope), by kind: each key an event names is looked up
    // here, so in foldhash's sets (the events' own strings), sorted once at the end.
    let mut seen: [foldhash::HashSet<String>; 3] = Default::default();
    let mut pending: [Vec<String>; 3] =
        [&keys.containers, &keys.bills, &keys.bookings].map(|k| k.iter().cloned().collect());
    for (s, p) in seen.iter_mut().zip(&pending) {
        s.extend(p.iter().cloned());
    }
    // Each event read once: its id in `found`, the event itself in `linked` (about a kilobyte
    // each, moved once into place instead of again at every rehash of a map holding it).
    let mut found: foldhash::HashSet<uuid::Uuid> = Default::default();
    let mut linked: Vec<TransportEvent> = Vec::new();
    while pending.iter().any(|p| !p.is_empty()) {
        // Ids first, then the bodies of the events not read yet: an event that names several
        // keys, or a key of an earlier round, is read and parsed once.
        let matching = store
            .event_ids_matching(account, &pending[0], &pending[1], &pending[2])
            .await?;
        let mut ids: Vec<uuid::Uuid> = Vec::new();
        let mut events: Vec<TransportEvent> = Vec::with_capacity(matching.len());
        for id in matching {
            if found.contains(&id) {
                continue;
            }
            match known.remove(&id) {
                Some(e) => events.push(e),
                None => ids.push(id),
            }
        }
        ids.sort_unstable();
        events.extend(store.events_by_id(account, &ids).await?);
        found.reserve(events.len());
        linked.reserve(events.len());
        // The next round asks for the keys these events name that no round asked for, each
        // once (taken into `seen` as they are met).
        let mut next: [Vec<String>; 3] = Default::default();
        for e in events {
            // An id listed twice (an event naming two keys of the round) is kept once.
            if !found.insert(e.id) {
                continue;
            }
            for (i, values) in [
                &e.event.containers,
                &e.event.bills_of_lading,
                &e.event.bookings,
            ]
            .into_iter()
            .enumerate()
            {
                for v in values {
                    if !seen[i].contains(v) {
                        seen[i].insert(v.clone());
                        next[i].push(v.clone());
                    }
                }
            }
            linked.push(e);
        }
        pending = next;
    }
    let mut events = linked;
    // Sorted by keys taken once and then put in place, so that each event (about a kilobyte)
    // moves about once instead of at every step of a merge sort.
    events.sort_by_cached_key(|e| (e.event.event_at, e.event.event_id.clone()));
    let [containers, bills, bookings] = seen.map(|s| {
        let mut keys: Vec<String> = s.into_iter().collect();
        keys.sort_unstable();
        keys
    });
    let scope = DerivationScope {
        shipment_keys: bills.into_iter().chain(bookings).collect(),
        containers,
    };
    Ok((events, scope))
}

/// Steps 2 to 4 of the module documentation: [`derive_and_write`] under the account's
/// derivation lock (its wait recorded as `lock_wait`), then the change notifications, in the
/// same turn of `turns` as the write (publishing writes too: SQLite keeps the updates in a
/// table), so that a derivation waits for the store of later files once, not twice.
async fn locked_derivation(
    store: &Store,
    account: &Account,
    keys: &Keys,
    known: KnownEvents,
    turns: &WriteTurns,
    timings: &mut StageTimings,
) -> Result<Derivation, IngestError> {
    let waited = Instant::now();
    let lock = store.lock_derivation(account.id).await?;
    timings.lock_wait += waited.elapsed();
    let derived = derive_and_write(store, account, keys, known, turns, timings).await;
    lock.release().await?;
    let (derived, _turn) = derived?;
    crate::store::notify::publish_ingest(
        store,
        account.id,
        &derived.containers,
        &derived.changes,
        derived.linked.clone(),
    )
    .await;
    Ok(derived)
}

/// Steps 2 and 3 of the module documentation for the touched `keys`; the caller holds the
/// account's derivation lock. Reads and derives, then writes in a turn of `turns`, which it
/// returns still taken (for the caller's publishing). Records the `history`, `derive` and
/// `write` stage times in `timings`, and the wait for the turn as lock wait.
async fn derive_and_write<'t>(
    store: &Store,
    account: &Account,
    keys: &Keys,
    known: KnownEvents,
    turns: &'t WriteTurns,
    timings: &mut StageTimings,
) -> Result<(Derivation, Option<tokio::sync::MutexGuard<'t, ()>>), IngestError> {
    let started = Instant::now();
    let (ports, carriers) = reference::bundled();
    let (history, scope) = linked_history(store, account.id, keys, known).await?;
    timings.history += started.elapsed();
    let started = Instant::now();
    // The rows go to the blocking task and come back, moved rather than cloned.
    let (ids, rows): (Vec<_>, Vec<_>) = history
        .into_iter()
        .map(|e| ((e.id, e.raw_event_id, e.timezone), e.event))
        .unzip();
    let account_id = account.id;
    // polars is CPU-bound and may block: keep it off the async workers.
    let derivation = tokio::task::spawn_blocking(move || {
        let refs = Refs { ports, carriers };
        let derived = normalize::derive(account_id, &rows, &refs, store_now());
        (derived, rows)
    });
    // While polars derives, the terminal facts and the last tracking requests of every key the
    // history names are read: the derived containers' numbers and shipments' bills of lading
    // are among them (a derivation's records come from its events), so the store's round trips
    // no longer add to the time the derivation lock is held. Whatever the records name outside
    // the scope (the shipments' reference numbers) is read after, on its own.
    let in_scope: Vec<String> = scope
        .containers
        .iter()
        .chain(&scope.shipment_keys)
        .cloned()
        .collect();
    let (joined, facts, requested) = tokio::join!(
        derivation,
        store.terminal_facts(account.id, &scope.containers, &scope.shipment_keys),
        store.last_tracking_requests(account.id, &in_scope),
    );
    let (derived, rows) = joined.map_err(|e| IngestError::Worker(e.to_string()))?;
    let history: Vec<TransportEvent> = ids
        .into_iter()
        .zip(rows)
        .map(|((id, raw_event_id, timezone), event)| TransportEvent {
            id,
            raw_event_id,
            timezone,
            event,
        })
        .collect();
    let mut derived = derived?;
    let (mut checks, mut deadlines) = facts?;
    let mut requested = requested?;
    let in_scope: foldhash::HashSet<&str> = in_scope.iter().map(String::as_str).collect();
    let numbers = outside(
        &in_scope,
        derived.containers.iter().map(|c| c.number.as_str()),
    );
    let bls = outside(
        &in_scope,
        derived
            .shipments
            .iter()
            .map(|s| s.bill_of_lading_number.as_str()),
    );
    if !numbers.is_empty() || !bls.is_empty() {
        let (more_checks, more_deadlines) =
            store.terminal_facts(account.id, &numbers, &bls).await?;
        checks.extend(more_checks);
        deadlines.extend(more_deadlines);
    }
    let shipments: std::collections::HashMap<_, _> = derived
        .shipments
        .iter()
        .map(|s| (s.id, s.clone()))
        .collect();
    terminal_facts::apply_all(&mut derived.containers, &shipments, &checks, &deadlines);
    let mut tracked = numbers;
    tracked.extend(bls);
    tracked.extend(outside(
        &in_scope,
        derived
            .shipments
            .iter()
            .flat_map(|s| s.ref_numbers.iter().map(String::as_str)),
    ));
    if !tracked.is_empty() {
        requested.extend(store.last_tracking_requests(account.id, &tracked).await?);
    }
    crate::shipment_facts::apply(
        &mut derived.shipments,
        &mut derived.containers,
        &checks,
        &requested,
    );
    let links: Vec<_> = derived
        .links
        .iter()
        .map(|l| (l.container_id, history[l.event_index].id))
        .collect();
    timings.derive += started.elapsed();
    let waited = Instant::now();
    let turn = turns.take().await;
    timings.lock_wait += waited.elapsed();
    let written = Instant::now();
    let changes = store
        .upsert_derived(
            account.id,
            &derived.shipments,
            &derived.containers,
            &links,
            &scope,
            &history,
        )
        .await?;
    // The history (every event the derivation read, about a kilobyte each with its strings) is
    // freed on a blocking thread, not here under the account's derivation lock: freeing it was
    // an eighth of the lock's time outside polars (`docs/NOTES.md`, sixty-fifth session).
    tokio::task::spawn_blocking(move || drop(history));
    // Pending tracking requests for numbers that now have data become `created`.
    let linked = store.link_tracking_requests(account.id).await?;
    timings.write += written.elapsed();
    Ok((
        Derivation {
            shipments: derived.shipments.len(),
            unattached: derived.unattached.len(),
            containers: derived.containers,
            changes,
            linked,
        },
        turn,
    ))
}

/// The values of `values` not in `known`, in their order, repeats kept: what a derivation's
/// records name that the store was not already asked about.
fn outside<'a>(
    known: &foldhash::HashSet<&str>,
    values: impl Iterator<Item = &'a str>,
) -> Vec<String> {
    values
        .filter(|v| !known.contains(v))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored file named `file` of `rows` feed rows naming `containers` and `bills`.
    fn stored(file: &str, rows: usize, containers: &[&str], bills: &[&str]) -> Stored {
        Stored {
            summary: FileSummary {
                file: file.to_string(),
                format: FeedFormat::DcsaTnt22,
                rows_read: rows,
                accepted: rows,
                positions: 0,
                quarantined: Vec::new(),
                shipments: 0,
                containers: 0,
                waiting: 0,
                timings: StageTimings::default(),
            },
            keys: Keys {
                containers: containers.iter().map(ToString::to_string).collect(),
                bills: bills.iter().map(ToString::to_string).collect(),
                bookings: BTreeSet::new(),
            },
            known: KnownEvents::default(),
        }
    }

    /// `stored` of one file that keeps one event (its `eventID` the file's name), stored after
    /// replacement mark `mark`.
    fn stored_keeping(file: &str, containers: &[&str], mark: i64) -> Stored {
        // The stored body's shape, absent fields left out (`EventRow`).
        let row: crate::model::EventRow = serde_json::from_value(serde_json::json!({
            "event_id": file,
            "event_type": "EQUIPMENT",
            "classifier": "ACT",
            "code": "LOAD",
            "event_at": "2026-03-01T08:00:00Z",
            "containers": containers,
        }))
        .expect("an equipment event");
        let account = uuid::Uuid::nil();
        let event = crate::store::transport_event(
            ids::event_id(account, file),
            ids::raw_event_id(account, file),
            row,
        );
        let written = [event.id].into();
        let mut stored = stored(file, 40, containers, &[]);
        stored.known = KnownEvents::of(ReplacementMark::Seq(mark), vec![event], &written);
        stored
    }

    /// The `eventID`s of the events `known` keeps, sorted.
    fn kept(known: &KnownEvents) -> Vec<String> {
        let mut ids: Vec<String> = known.events().map(|e| e.event.event_id.clone()).collect();
        ids.sort();
        ids
    }

    /// The events kept of each stored file go with its keys: a group cut before the last
    /// file takes the earlier files' events and their first mark, the last file's wait with
    /// it; an event the store did not write, or one a file gives twice, is not kept.
    #[test]
    fn kept_events_go_with_their_files() {
        let mut pending = PendingDerivation::default();
        pending.add(stored_keeping("events-00001", &["CMAU8552593"], 3));
        pending.add(stored("terminal-checks-00001", 5, &["CMAU8552593"], &[]));
        pending.add(stored_keeping("events-00002", &["MSKU1000016"], 7));
        let group = pending.take_group_but_last().expect("earlier files wait");
        assert_eq!(kept(&group.known), ["events-00001"]);
        assert_eq!(group.known.mark, Some(ReplacementMark::Seq(3)));
        pending.add(stored_keeping("events-00003", &["APZU4812090"], 9));
        let group = pending.take_group().expect("files wait");
        assert_eq!(kept(&group.known), ["events-00002", "events-00003"]);
        assert_eq!(group.known.mark, Some(ReplacementMark::Seq(7)));
        assert!(pending.take_group().is_none());

        let event = stored_keeping("events-00004", &[], 1)
            .known
            .events()
            .next()
            .cloned()
            .expect("one event");
        let written = [event.id].into();
        let none = KnownEvents::of(ReplacementMark::Seq(1), vec![event.clone()], &[].into());
        assert!(none.is_empty() && none.mark.is_none(), "not written");
        let twice = KnownEvents::of(
            ReplacementMark::Seq(1),
            vec![event.clone(), event],
            &written,
        );
        assert!(twice.is_empty(), "given twice");
    }

    fn names(set: &BTreeSet<String>) -> Vec<&str> {
        set.iter().map(String::as_str).collect()
    }

    /// Asserts that `group` holds these files, container numbers and bills of lading.
    fn assert_group(group: &DerivationGroup, files: &[&str], containers: &[&str], bills: &[&str]) {
        assert_eq!(group.files(), files);
        assert_eq!(names(&group.keys.containers), containers);
        assert_eq!(names(&group.keys.bills), bills);
    }

    /// The order of `teu simulate`'s chunks: a carrier's events, then the terminal's checks of
    /// the same containers; the cut falls at the next chunk's events, which wait for their own
    /// terminal file, so each container is derived in one group.
    #[test]
    fn a_cut_leaves_the_last_files_keys_waiting() {
        let mut pending = PendingDerivation::default();
        pending.add(stored(
            "events-00001",
            40,
            &["CMAU8552593", "BEAU7970164"],
            &["CMDUPTM7481389"],
        ));
        pending.add(stored("terminal-checks-00001", 5, &["CMAU8552593"], &[]));
        pending.add(stored("00001-notice.eml", 0, &[], &[]));
        pending.add(stored(
            "events-00002",
            40,
            &["MSKU1000016", "MSKU1000021"],
            &["MAEU240915487"],
        ));
        assert_eq!(pending.rows(), 85);
        let group = pending.take_group_but_last().expect("earlier files wait");
        assert_group(
            &group,
            &["events-00001", "terminal-checks-00001"],
            &["BEAU7970164", "CMAU8552593"],
            &["CMDUPTM7481389"],
        );
        // The last file waits, with its rows, as the start of the next group.
        assert_eq!(pending.files(), ["events-00002"]);
        assert_eq!(pending.rows(), 40);
        pending.add(stored("terminal-checks-00002", 5, &["MSKU1000021"], &[]));
        pending.add(stored("events-00003", 40, &["APZU4812090"], &[]));
        let group = pending.take_group_but_last().expect("earlier files wait");
        assert_group(
            &group,
            &["events-00002", "terminal-checks-00002"],
            &["MSKU1000016", "MSKU1000021"],
            &["MAEU240915487"],
        );
        // The end takes everything.
        let group = pending.take_group().expect("the last file waits");
        assert_group(&group, &["events-00003"], &["APZU4812090"], &[]);
        assert!(pending.is_empty() && pending.take_group().is_none());
    }

    /// A key the last file names waits with it even when an earlier file named it first; when
    /// the last file names every waiting key, the cut takes them all.
    #[test]
    fn keys_the_last_file_names_wait_and_a_cut_never_takes_nothing() {
        let mut pending = PendingDerivation::default();
        pending.add(stored(
            "events-00001",
            40,
            &["CMAU8552593", "BEAU7970164"],
            &[],
        ));
        pending.add(stored("terminal-checks-00001", 5, &["CMAU8552593"], &[]));
        let group = pending.take_group_but_last().expect("a key waits");
        assert_group(&group, &["events-00001"], &["BEAU7970164"], &[]);
        assert_eq!(names(&pending.keys.containers), ["CMAU8552593"]);
        // Only the last file's keys wait: the cut derives them rather than nothing.
        let group = pending.take_group_but_last().expect("a key waits");
        assert_group(&group, &["terminal-checks-00001"], &["CMAU8552593"], &[]);
        assert!(pending.is_empty() && pending.take_group_but_last().is_none());
        assert_eq!(pending.rows(), 0);
    }
}
