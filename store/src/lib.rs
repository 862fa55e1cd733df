//! teu-store: every SQL statement and migration of teu. sqlx over SQLite (the embedded
//! default, one file) or PostgreSQL, with migrations for each (`store/migrations/{sqlite,postgres}`).
//!
//! The pipeline (`teu-pipeline`: ingest, derivation) writes through it and both APIs read
//! through it; no other crate writes SQL. One module per table family:
//!
//! | module | tables |
//! |---|---|
//! | `events` | transport events with their carriers' payloads, their keys (`event_keys`), quarantine |
//! | `derived` | containers, shipments, their event links, the webhook outbox rows of a derivation |
//! | `reads`, `listing` | the pages and filters both APIs serve |
//! | `facts` | terminal availability, line deadlines, AIS positions |
//! | `leg_tracks`, `vessels` | derived leg geometry, vessels and their latest fixes |
//! | `tracking_requests`, `shipment_edits`, `inference` | user requests and edits, SCAC history |
//! | `email`, `document_schemas` | email submissions, their documents, the bundled schemas |
//! | `accounts`, `webhooks`, `outbox`, `notify` | API keys, webhooks, deliveries, change notices |
//! | `derive_lock`, `bulk_pg` | PostgreSQL's derivation lock and bulk (`UNNEST`, `COPY`) writes |
//! | `db` | no table: the native drivers' pools, connections, statements and rows |
//! | `memo` | no table: decoded container and shipment bodies kept by their stored bytes |
//! | `key_memo` | no table: the accounts of API keys already seen, for a minute |
//!
//! Both backends share one set of SQL statements (numbered `$n` placeholders, made anonymous
//! `?` on SQLite where that is safe: `Store::values`, `Store::list`, `Store::positional`;
//! `ON CONFLICT` upserts), bound and run through the native drivers, `sqlx::Sqlite` and
//! `sqlx::Postgres` (`db`: values become the driver's own arguments, rows are decoded in
//! place); PostgreSQL's bulk writes bind whole columns as arrays or stream rows by `COPY`
//! (`bulk_pg`), and SQLite's writes go through one writer connection (`Store::writer`).
//! The event tables (`transport_events`, which holds each event's carrier payload too since
//! migration 30, `event_keys`, one row per key since 29, and `replaced_event_versions`) keep
//! ids as their 16 bytes (RFC 9562 byte order) and times as integer milliseconds since the
//! epoch (UTC) on SQLite, `timestamptz` on PostgreSQL (migrations 24, 25, 28). On SQLite an
//! event's id leads to its row (its rowid `seq`) through `event_ids` and the small
//! `event_ids_recent`, merged now and then (migration 35:
//! `events::with_event_id_in`); PostgreSQL keeps a unique index on `transport_events.id`.
//! `event_replacements` logs every replaced event version, by any writer (migration 36: a
//! trigger), so that an ingest may derive from the versions it stored as it kept them in
//! memory, less those replaced since the mark its upsert took (`UpsertedEvents::mark`,
//! `Store::events_replaced_since`).
//! `vessel_positions` is keyed by transmitter and time (migration 34). Every other table keeps
//! its ids and times in the same native form since migrations 38 to 50 (the derived records,
//! terminal facts, leg tracks, quarantine, webhooks and their notifications, tracking
//! requests, email, accounts and their keys): ids as 16 bytes, times as integer milliseconds
//! on SQLite and `timestamptz` on PostgreSQL, bound and read as [`db::RecordId`] and
//! [`db::RecordTime`]. The only text ids are names: a document schema's
//! `<document_type>@<version>` and a message's Message-ID. JSON that is read or sent whole
//! stays text (webhook `events`, `headers`, `detail` and the `body` whose bytes a signature
//! covers; a submission's `body`; a leg track); `store/src/upgrade_tests.rs` checks the
//! schema and each conversion.
//! `containers.event_links` holds a container's event links in event order (33 bytes per
//! link, `reads::encode_links`). Domain records are stored whole as JSON in `body` (a transport
//! event's as one zstd frame of that JSON and the carrier's payload text, `payloads::EVENTS`;
//! rows written before that layout hold a frame of `payloads::EVENT_BODIES` and the payload
//! apart, a frame of `payloads::RAW_PAYLOADS`); the other columns are what queries filter, join
//! and sort on. Every query takes the account id: one account never reads another's rows.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use chrono::{DateTime, SecondsFormat, Utc};
use sha2::{Digest, Sha256};
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use uuid::Uuid;

use teu_domain::listing::STOPPED_BY_USER;
use teu_domain::model::{Account, Container, Port, Shipment, TransportEvent};

mod accounts;
mod bulk_pg;
pub mod db;
pub mod derive_lock;
mod derived;
mod document_schemas;
mod email;
mod events;
mod facts;
mod inference;
mod key_memo;
mod leg_tracks;
mod listing;
mod memo;
pub mod notify;
pub(crate) mod outbox;
pub mod payloads;
mod reads;
pub mod scratch;
mod shipment_edits;
mod tracking_requests;
mod vessels;
mod webhooks;

pub use email::NewEmail;
pub use events::{DroppedKeys, ReplacementMark, UpsertedEvents};
pub use leg_tracks::KeptLegTrack;
pub use listing::{ContainerPage, PageReads};
pub use reads::EventLink;
pub use tracking_requests::TrackingRequestError;
pub use webhooks::WebhookError;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod upgrade_tests;

/// Store failures.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("unsupported database URL {0:?}: use sqlite:PATH or postgres://...")]
    UnsupportedUrl(String),
    #[error("cannot connect to {url}: {source}")]
    Connect {
        url: String,
        #[source]
        source: sqlx::Error,
    },
    #[error("migrating the {backend} database failed: {source}")]
    Migrate {
        backend: &'static str,
        #[source]
        source: sqlx::migrate::MigrateError,
    },
    #[error("database error: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("stored {what} {id} is corrupt: {detail}")]
    Corrupt {
        what: &'static str,
        id: String,
        detail: String,
    },
    #[error("an account named {0:?} already exists")]
    AccountExists(String),
    #[error("no account named {0:?}")]
    UnknownAccount(String),
    #[error("the inbound address {0:?} belongs to another account")]
    InboundAddressTaken(String),
    #[error("{0}")]
    Tags(#[from] teu_domain::listing::TagError),
    /// A page cache size variable (`TEU_SQLITE_CACHE_MIB`, `TEU_SQLITE_WRITER_CACHE_MIB`) and
    /// its value, which is not a whole number of MiB from 1 to 65536.
    #[error("{0}={1:?}: expected a whole number of MiB from 1 to 65536")]
    CacheSize(&'static str, String),
    /// `upsert_derived` was given a link to an event that is not in its `history`.
    #[error("event link to {0}, which is not among the derivation's events")]
    LinkOutsideHistory(Uuid),
    /// zstd failed to compress a raw payload (`payloads`; out of memory, or a corrupt bundled
    /// dictionary).
    #[error("compressing a raw payload: {0}")]
    Compress(#[source] std::io::Error),
    /// A scratch database name that is not a plain identifier (`scratch::ScratchDatabase`).
    #[error("scratch database name {0:?}: use lower-case letters, digits and _, not starting with a digit")]
    ScratchName(String),
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Which database a store talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A connection pool to the teu database. Cheap to clone.
#[derive(Clone)]
pub struct Store {
    pool: db::Pool,
    /// SQLite: the one connection every write goes through ([`Store::writer`]), with a page
    /// cache of its own; `None` on PostgreSQL, whose pool serves both.
    writer: Option<db::Pool>,
    /// PostgreSQL: the pool the reads of pages run on ([`Store::reader`]), whose connections
    /// keep their plans; `None` on SQLite.
    reader: Option<db::Pool>,
    /// SQL statements run so far through this store (all clones share it); see
    /// [`Store::statement_count`].
    statements: Arc<AtomicU64>,
    notifier: crate::notify::Notifier,
    /// Idle connections of released derivation locks (PostgreSQL; `crate::derive_lock`).
    lock_connections: crate::derive_lock::LockConnections,
    /// Which due webhook a notification claim starts with (`outbox`; shared by clones).
    claim_turn: Arc<AtomicU64>,
    /// PostgreSQL: whether event upserts try a `COPY` first (`bulk_pg::FreshTries`; shared by
    /// clones).
    fresh_events: bulk_pg::FreshTries,
    /// PostgreSQL: the same for terminal checks ([`Store::upsert_terminal_checks`]).
    fresh_terminal_checks: bulk_pg::FreshTries,
    /// PostgreSQL: the same for a derivation's new shipments and containers
    /// ([`Store::upsert_derived`]).
    fresh_derived: bulk_pg::FreshTries,
    /// The accounts of API keys already seen ([`Store::authenticate`]; shared by clones).
    keys: key_memo::KeyMemo,
}

/// The current time at the store's precision (milliseconds), so that what is written and what
/// is read back compare equal.
pub fn now() -> DateTime<Utc> {
    let now = Utc::now();
    DateTime::from_timestamp_millis(now.timestamp_millis()).unwrap_or(now)
}

/// A time as RFC 3339 text, UTC, to the millisecond, with `Z`: the form the store kept every
/// time in before the native columns (migrations 24 to 49, which convert it), and still the
/// form a time takes in the natural keys that name a terminal check or a line deadline
/// (`teu_domain::ids::scoped`; changing it would change their ids).
pub fn ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A 16-byte id (as the event tables store ids since migrations 24, 25 and 28, RFC 9562 byte
/// order) read from a column holding `what`; [`StoreError::Corrupt`] with the bytes in hex
/// when it is not 16 bytes.
pub(crate) fn uuid_of_bytes(bytes: &[u8], what: &'static str) -> Result<Uuid> {
    Uuid::from_slice(bytes).map_err(|e| StoreError::Corrupt {
        what,
        id: hex::encode(bytes),
        detail: e.to_string(),
    })
}

fn parse_uuid(s: &str, what: &'static str) -> Result<Uuid> {
    Uuid::from_str(s).map_err(|e| StoreError::Corrupt {
        what,
        id: s.to_string(),
        detail: e.to_string(),
    })
}

/// A stored code column (`Some` text) parsed by its code type's rule (`teu_domain::codes`);
/// a value that breaks it is [`StoreError::Corrupt`].
fn parse_code<T: FromStr<Err = teu_domain::model::CodeError>>(
    s: Option<String>,
    what: &'static str,
) -> Result<Option<T>> {
    s.map(|s| {
        T::from_str(&s).map_err(|e| StoreError::Corrupt {
            what,
            id: s.clone(),
            detail: e.to_string(),
        })
    })
    .transpose()
}

pub(crate) fn from_json<T: serde::de::DeserializeOwned>(
    body: &str,
    what: &'static str,
    id: impl std::fmt::Display,
) -> Result<T> {
    serde_json::from_str(body).map_err(|e| StoreError::Corrupt {
        what,
        id: id.to_string(),
        detail: e.to_string(),
    })
}

/// SHA-256 hex of an API key: what the `api_keys` table holds. Keys are 160-bit random
/// strings, so a fast hash is enough (no password stretching needed).
pub fn hash_key(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// `$start, $start+1, ...` in groups of `width`: `($1, $2), ($3, $4)`.
/// One row per key for a multi-row upsert: of the rows sharing a key, the one `replaces` prefers
/// (`replaces(new, kept)` is true when a later row should replace the kept one), at the place of
/// the key's first row. PostgreSQL refuses an `INSERT … ON CONFLICT DO UPDATE` that meets one row
/// twice ("cannot affect row a second time"; SQLite applies them in turn), and a feed may repeat
/// a row, so every multi-row upsert with `DO UPDATE` goes through this.
fn one_per_key<K, T>(
    rows: impl IntoIterator<Item = (K, T)>,
    replaces: impl Fn(&T, &T) -> bool,
) -> Vec<(K, T)>
where
    K: Eq + std::hash::Hash + Clone,
{
    let mut at: HashMap<K, usize> = HashMap::new();
    let mut out: Vec<(K, T)> = Vec::new();
    for (k, row) in rows {
        match at.get(&k) {
            Some(&i) => {
                if replaces(&row, &out[i].1) {
                    out[i].1 = row;
                }
            }
            None => {
                at.insert(k.clone(), out.len());
                out.push((k, row));
            }
        }
    }
    out
}

/// The one or two statements of a multi-row upsert, made by [`Store::upsert`].
struct Upsert {
    /// The statement that always runs: on SQLite the insert of new rows only, on PostgreSQL
    /// the upsert.
    first: String,
    /// On SQLite, the upsert, run when `first` left some of the rows out.
    then: Option<String>,
}

impl Upsert {
    /// Runs the upsert of `rows` rows in `tx`, `bind` binding their parameters (in the order
    /// of the `VALUES` list) to a statement; on SQLite `bind` may be called twice.
    ///
    /// # Errors
    /// [`StoreError::Sql`] when a statement fails; the caller's transaction is then to be
    /// rolled back whole (the insert of new rows keeps no statement journal to undo itself).
    async fn run<'q>(
        &'q self,
        store: &Store,
        tx: &mut db::Conn,
        rows: usize,
        bind: impl Fn(db::Query<'q>) -> db::Query<'q>,
    ) -> Result<()> {
        let done = bind(db::query(&self.first))
            .execute(store.counted(tx))
            .await?;
        if let Some(upsert) = &self.then {
            if done.rows_affected() < rows as u64 {
                bind(db::query(upsert)).execute(store.counted(tx)).await?;
            }
        }
        Ok(())
    }
}

/// A SQLite `UPDATE OR FAIL` of `rows` rows of `table`, each found by its key column `key`
/// (its primary key or rowid), with the data of a `VALUES` list of `rows` rows of `width`
/// columns whose first is the row's key. `set(from)` is the statement's `SET` list and
/// `filter(from)`, when given, one more condition on the row, where `from` is the tail of a
/// subquery reading the row's own data: `(SELECT v.column2 {from})` is its second value,
/// `(SELECT v.column2, v.column3 {from})` a row value of two. Parameters are numbered: row
/// `i`'s values are `$(width·i+1)` (its key) to `$(width·i+width)`; bind them row by row.
///
/// The rows are found by `key IN (…)`, a list of constants that SQLite looks up key by key in
/// the key's B-tree, and each row's data is taken from the `VALUES` list by a correlated
/// subquery. An `UPDATE … FROM (VALUES …)` joined on the key leaves the join's order to the
/// planner, and SQLite 3.46 chose to scan the whole table and probe the list (`containers`
/// at the million: a second and more a statement; docs/NOTES.md, "Seventy-fourth session").
/// `OR FAIL`: no statement journal ([`Store::insert_new`]).
fn keyed_update(
    table: &str,
    key: &str,
    (rows, width): (usize, usize),
    set: impl Fn(&str) -> String,
    filter: Option<&dyn Fn(&str) -> String>,
) -> String {
    let from = format!(
        "FROM (VALUES {}) AS v WHERE v.column1 = {table}.{key}",
        values_placeholders(rows, width)
    );
    let keys = (0..rows)
        .map(|r| format!("${}", width * r + 1))
        .collect::<Vec<_>>()
        .join(", ");
    let filter = filter
        .map(|f| format!(" AND {}", f(&from)))
        .unwrap_or_default();
    format!(
        "UPDATE OR FAIL {table} SET {} WHERE {table}.{key} IN ({keys}){filter}",
        set(&from)
    )
}

/// The placeholders of a multi-row `VALUES` list of `rows` rows of `width` parameters each,
/// numbered from 1 (`$1`): `($1, $2), ($3, $4)`. See [`Store::values`] for statements whose only
/// parameters are the list.
fn values_placeholders(rows: usize, width: usize) -> String {
    let mut s = String::with_capacity(rows * width * 4);
    for r in 0..rows {
        if r > 0 {
            s.push_str(", ");
        }
        s.push('(');
        for c in 0..width {
            if c > 0 {
                s.push_str(", ");
            }
            s.push('$');
            s.push_str(&(r * width + c + 1).to_string());
        }
        s.push(')');
    }
    s
}

/// `sql` with its numbered parameters (`$1`, `$2`, …) made anonymous (`?`), when each number
/// appears exactly once and in increasing order from 1, so that binding in order stays right;
/// otherwise `None`. SQLite binds anonymous parameters by position; a numbered one costs a
/// linear search of the statement's parameter names per bound value.
fn anonymous_parameters(sql: &str) -> Option<String> {
    let mut out = String::with_capacity(sql.len());
    let mut next = 1usize;
    let mut rest = sql;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let digits = rest[at + 1..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        if digits == 0 {
            out.push('$');
            rest = &rest[at + 1..];
            continue;
        }
        let n: usize = rest[at + 1..at + 1 + digits].parse().ok()?;
        if n != next {
            return None;
        }
        next += 1;
        out.push('?');
        rest = &rest[at + 1 + digits..];
    }
    out.push_str(rest);
    Some(out)
}

/// A list of strings as the JSON text the store keeps (`ref_numbers`, `tags`, …).
pub(crate) fn json_list(items: &[String]) -> String {
    serde_json::Value::from(items.to_vec()).to_string()
}

/// `$from, ..., $(from + n - 1)` for an `IN (...)` list.
pub(crate) fn in_list(from: usize, n: usize) -> String {
    (from..from + n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// PostgreSQL tables that queries find rows of by primary key (`id IN (…)`, joins on `id`) or
/// scan whole for one account, plans that need the row count and the keys' distinct counts,
/// not value histograms: [`Store::optimize`] analyzes them at statistics target 10, a sample
/// of 3,000 rows (PostgreSQL's default, 100, samples 30,000 of these wide rows).
const KEYED_ONLY_TABLES: [&str; 1] = ["transport_events"];

/// The changed rows since its last `ANALYZE`, as a fraction of a PostgreSQL table's estimated
/// rows, past which [`Store::optimize`] analyzes it again (plus 50 rows): 1.0, once a table
/// has doubled. A table that only grows needs no new statistics for its size: the planner
/// scales the analyzed row count by the table's current pages (PostgreSQL manual, "Row
/// Estimation Examples"; `estimate_rel_size`), and the column statistics of a feed's rows
/// (distinct fractions, common values) change little as it grows. Autovacuum's default, 0.1
/// (PostgreSQL manual, "The Autovacuum Daemon"), analyzed each table 22–27 times in an ingest
/// of 100,000 simulated containers, 1.7 s a round at its end (README, "Forty-fifth session").
const ANALYZE_CHANGED_FRACTION: f64 = 1.0;

/// Rows per multi-row statement on PostgreSQL; keeps bind parameters far below its limit of
/// 65,535.
const CHUNK: usize = 400;

/// Bind parameters per statement on SQLite when they are anonymous (`?`, [`Store::values`],
/// [`Store::list`]): SQLite binds those by position, so a statement's cost grows with its rows,
/// not their square, and fewer, larger statements save the per-statement round trip to sqlx's
/// SQLite worker thread. SQLite's own limit is 32,766 (`SQLITE_MAX_VARIABLE_NUMBER`).
const SQLITE_ANONYMOUS_PARAMS: usize = 2_000;

/// Bind parameters per multi-row statement on SQLite with numbered parameters (`$N`). SQLite
/// finds a numbered parameter by a linear scan of the statement's parameter list, and sqlx
/// asks for the name of every parameter it binds (`sqlite3_bind_parameter_name`), so binding
/// one statement costs the square of its parameters: at 3,600 (400 events of 9 columns) that
/// lookup was 38% of the ingest's CPU time (perf, docs/NOTES.md). A few hundred keep the
/// lookup small and the statements few.
const SQLITE_PARAMS: usize = 250;

/// Page size of a new SQLite database, in bytes. SQLite's default is 4,096; its B-tree cells
/// hold at most about a quarter of a page before spilling into overflow pages, and a page split
/// leaves both halves partly empty. The stored events (about 400 bytes a row), the derived
/// records and `event_keys`' lists (600 to 2,500 bytes) fill 16 KiB pages better: 85.1 → 81.0
/// MB at 5,000 simulated containers, 1.70 → 1.60 GB at 100,000, ingest time within this
/// machine's spread (README, "Twenty-ninth session").
pub const SQLITE_PAGE_SIZE: u32 = 16_384;

/// SQLite page cache per reading connection, in MiB, when `TEU_SQLITE_CACHE_MIB` is not set: SQLite's
/// own default (2,000 KiB, rounded). A larger cache speeds the store stage of big ingests (256 MiB:
/// 16% at 100,000 containers) at the price of memory on each of the pool's connections (peak
/// RSS 543 MiB to 1.6 GiB); README, "Ingest at scale".
pub const SQLITE_CACHE_MIB: u32 = 2;

/// The SQLite page cache per reading connection in MiB: `TEU_SQLITE_CACHE_MIB` (1 to 65536) or
/// [`SQLITE_CACHE_MIB`]. Errors with [`StoreError::CacheSize`] naming the value when it is not a
/// number in that range.
fn sqlite_cache_mib() -> Result<u32> {
    cache_mib("TEU_SQLITE_CACHE_MIB", SQLITE_CACHE_MIB)
}

/// A page cache size in MiB from the environment variable `var` (1 to 65536), or `default`
/// when it is not set; [`StoreError::CacheSize`] naming the variable and value otherwise.
fn cache_mib(var: &'static str, default: u32) -> Result<u32> {
    match std::env::var(var) {
        Err(_) => Ok(default),
        Ok(v) => match v.trim().parse::<u32>() {
            Ok(n) if (1..=65536).contains(&n) => Ok(n),
            _ => Err(StoreError::CacheSize(var, v)),
        },
    }
}

/// SQLite page cache of the writer connection ([`Store::writer`]), in MiB, when
/// `TEU_SQLITE_WRITER_CACHE_MIB` is not set. Only the writer's own commits leave its cache
/// valid (SQLite discards a connection's cache when another connection has written, SQLite
/// manual, "Write-Ahead Logging", and sqlx hands out pooled connections in turn), so the
/// upper levels of the event and derived-record B-trees stay in memory from one file's
/// transaction to the next. 16 MiB: at 100,000 simulated containers 64 and 256 MiB were not
/// faster within this machine's spread, and cost peak RSS (README, "Thirty-first session").
pub const SQLITE_WRITER_CACHE_MIB: u32 = 16;

/// WAL size, in pages, at which a commit of the writer connection ([`Store::writer`]) copies the
/// log back into the database file (`PRAGMA wal_autocheckpoint`, SQLite manual; its default
/// is 1,000 pages). 131,072 pages of [`SQLITE_PAGE_SIZE`] are 2 GiB of log. A file's
/// transaction at scale dirties tens of thousands of pages (each DCSA file of a large feed
/// inserts 44,000 event ids at random places of the id index), so with the default every
/// commit was followed by a checkpoint that wrote each of those pages to the database again,
/// and the next file's transaction wrote most of the same index pages once more. With a
/// larger log the pages several transactions rewrote are copied back once. At 100,000
/// simulated containers the process wrote 11.6 → 7.9 GB to disk (README, "Thirty-second
/// session"). The log file keeps its largest size until the last connection closes, when
/// SQLite checkpoints and removes it.
pub const SQLITE_WRITER_AUTOCHECKPOINT_PAGES: u32 = 131_072;

/// The writer connection's page cache in MiB: `TEU_SQLITE_WRITER_CACHE_MIB` (1 to 65536) or
/// [`SQLITE_WRITER_CACHE_MIB`]; [`StoreError::CacheSize`] for another value.
fn sqlite_writer_cache_mib() -> Result<u32> {
    cache_mib("TEU_SQLITE_WRITER_CACHE_MIB", SQLITE_WRITER_CACHE_MIB)
}

/// The SQLite pool of at most `connections` connections to `url`, each set up as teu needs it:
/// page size, `synchronous`, a page cache of `cache_kib` KiB, and for the writer connection
/// (`writer`) [`SQLITE_WRITER_AUTOCHECKPOINT_PAGES`].
async fn sqlite_pool(
    url: &str,
    connections: u32,
    cache_kib: i64,
    writer: bool,
) -> std::result::Result<sqlx::SqlitePool, sqlx::Error> {
    let options = SqliteConnectOptions::from_str(url)?;
    SqlitePoolOptions::new()
        .max_connections(connections)
        .acquire_timeout(std::time::Duration::from_secs(10))
        .after_connect(move |conn, _| {
            Box::pin(async move {
                // Takes effect only on a database with no table yet (SQLite manual,
                // "PRAGMA page_size"); an existing file keeps its size.
                sqlx::query(&format!("PRAGMA page_size = {SQLITE_PAGE_SIZE}"))
                    .execute(&mut *conn)
                    .await?;
                // With WAL (set once by `Store::connect`), NORMAL syncs at checkpoints instead of
                // every commit: a killed process loses nothing committed, a power cut may lose
                // the last transactions (SQLite manual, "PRAGMA synchronous").
                sqlx::query("PRAGMA synchronous = NORMAL")
                    .execute(&mut *conn)
                    .await?;
                // A negative cache_size is in KiB (SQLite manual, "PRAGMA cache_size").
                sqlx::query(&format!("PRAGMA cache_size = -{cache_kib}"))
                    .execute(&mut *conn)
                    .await?;
                // Only commits check the log's size, and only the writer commits.
                if writer {
                    sqlx::query(&format!(
                        "PRAGMA wal_autocheckpoint = {SQLITE_WRITER_AUTOCHECKPOINT_PAGES}"
                    ))
                    .execute(&mut *conn)
                    .await?;
                }
                Ok(())
            })
        })
        .connect_with(options)
        .await
}

/// How the connections of a PostgreSQL pool plan a prepared statement
/// ([`postgres_pool`]'s `plans`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plans {
    /// `plan_cache_mode = force_custom_plan`: every execution planned with its values. For
    /// the ingest and everything that writes: a generic plan made while the tables were
    /// small kept scanning `transport_events` whole once they had grown (8 s per key lookup
    /// at 750,000 events, docs/NOTES.md, third session), and a long ingest refreshes the
    /// statistics only when a table doubles ([`Store::optimize`]).
    PerExecution,
    /// The server's own `plan_cache_mode` (`auto`, PostgreSQL manual, "PREPARE"): after five
    /// executions a statement keeps its generic plan unless that costs more than the plans
    /// made with the values. For the reads of pages ([`Store::reader`]): their statements
    /// look rows up by key or walk an index in order, and planning each execution was about
    /// a third of the server's CPU time of a `/v2` page of 30 containers (docs/NOTES.md,
    /// fifty-third session). A kept plan is planned again when the statistics of a table it
    /// reads are updated (the same manual page), so it cannot outlive a doubling of a table.
    Kept,
}

/// The PostgreSQL pool of at most `connections` connections to `url`, planning as `plans`
/// says and costing random reads as SSDs do. A pool of [`Plans::Kept`] connects on its first
/// use: `teu ingest` opens it only for reads by ids (`Store::select_in`).
async fn postgres_pool(
    url: &str,
    connections: u32,
    plans: Plans,
) -> std::result::Result<sqlx::PgPool, sqlx::Error> {
    let options = PgConnectOptions::from_str(url)?;
    let pool = PgPoolOptions::new()
        .max_connections(connections)
        .acquire_timeout(std::time::Duration::from_secs(10))
        .after_connect(move |conn, _| {
            Box::pin(async move {
                if plans == Plans::PerExecution {
                    sqlx::query("SET plan_cache_mode = force_custom_plan")
                        .execute(&mut *conn)
                        .await?;
                }
                // A random page read costs about what a sequential one does on the SSDs
                // teu runs on (PostgreSQL manual, "random_page_cost": 1.1 suits them);
                // with the default 4 the planner read all of `container_events` in
                // parallel for a page's 30 containers (21 ms) instead of their links
                // by primary key (8 ms; docs/NOTES.md, fourteenth session).
                sqlx::query("SET random_page_cost = 1.1")
                    .execute(&mut *conn)
                    .await?;
                Ok(())
            })
        });
    match plans {
        Plans::PerExecution => pool.connect_with(options).await,
        Plans::Kept => Ok(pool.connect_lazy_with(options)),
    }
}

/// The shipments and containers an [`Store::upsert_derived`] inserted or changed (rows whose
/// `content_hash` was unchanged are not listed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DerivedChanges {
    /// Shipment ids.
    pub shipments: Vec<Uuid>,
    /// Container ids.
    pub containers: Vec<Uuid>,
    /// Webhook notifications written with the rows (`teu_domain::webhooks::outbox`).
    pub notifications: usize,
}

/// Reads containers by id (`container_row`'s columns); `IN (…)` follows.
const CONTAINER_SELECT: &str =
    "SELECT id, created_at, refreshed_at, body FROM containers WHERE account_id = $1 AND id IN";
/// Reads shipments by id (`shipment_row`'s columns); `IN (…)` follows.
const SHIPMENT_SELECT: &str =
    "SELECT id, created_at, refreshed_at, tags, user_stopped_at, user_ref_numbers, body \
     FROM shipments WHERE account_id = $1 AND id IN";

/// What one re-derivation read (see [`Store::upsert_derived`]): the stored events of the
/// connected history and every key they name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DerivationScope {
    /// Every bill of lading and booking the events name (the possible shipment keys).
    pub shipment_keys: Vec<String>,
    /// Every container number the events name.
    pub containers: Vec<String>,
}

/// The `id` column of `RETURNING id` rows of `containers` or `shipments` (a
/// [`db::RecordId`]).
fn returned_ids(rows: Vec<db::DbRow>) -> Result<Vec<Uuid>> {
    rows.iter()
        .map(|r| record_id(r, "id", "returned id"))
        .collect()
}

/// Column `column` of row `r`, a [`db::RecordId`] (an id in `containers`, `shipments`,
/// `shipment_tags`, `account_counts`, `terminal_checks` or `line_deadlines`: 16 bytes); `what`
/// names the record in errors ([`uuid_of_bytes`]).
pub(crate) fn record_id(r: &db::DbRow, column: &str, what: &'static str) -> Result<Uuid> {
    uuid_of_bytes(r.try_get::<&[u8], _>(column)?, what)
}

/// Column `column` of row `r`, an optional [`db::RecordId`] (`NULL` is `None`); `what` names
/// the record in errors, as [`record_id`] does.
pub(crate) fn record_id_or_null(
    r: &db::DbRow,
    column: &str,
    what: &'static str,
) -> Result<Option<Uuid>> {
    r.try_get::<Option<&[u8]>, _>(column)?
        .map(|b| uuid_of_bytes(b, what))
        .transpose()
}

/// Column `column` of row `r`, a list of 16-byte ids one after the other: [`db::RecordId`]s
/// aggregated by `Store::record_id_aggregate` or stored so (`shipments.member_ids`, migration
/// 40), or event ids aggregated by PostgreSQL's `string_agg` of `event_keys` lists (`NULL`,
/// no row aggregated, is the empty list); `what` names the records in errors:
/// [`StoreError::Corrupt`] with the bytes in hex when their length is not a multiple of 16.
pub(crate) fn record_id_list(r: &db::DbRow, column: &str, what: &'static str) -> Result<Vec<Uuid>> {
    let Some(bytes) = r.try_get::<Option<&[u8]>, _>(column)? else {
        return Ok(Vec::new());
    };
    let ids = bytes.chunks_exact(16);
    if !ids.remainder().is_empty() {
        return Err(StoreError::Corrupt {
            what,
            id: hex::encode(bytes),
            detail: format!(
                "column {column}: {} bytes, not a list of 16-byte ids",
                bytes.len()
            ),
        });
    }
    ids.map(|id| uuid_of_bytes(id, what)).collect()
}

/// Column `column` of row `r`, a [`db::RecordTime`] (`created_at`, `refreshed_at` of
/// `containers` and `shipments`), in UTC ([`db::DbRow::record_time`]).
pub(crate) fn record_time(r: &db::DbRow, column: &str) -> Result<DateTime<Utc>> {
    Ok(r.record_time(column)?)
}

/// A stored event ready to write: the event, where it came from (file and row index), and
/// the event with its original JSON in their stored form, one frame
/// ([`payloads::encode_events`] of the carrier's text and `event.event`).
pub struct NewEvent<'a> {
    pub event: &'a TransportEvent,
    pub source_file: &'a str,
    pub source_index: usize,
    pub forms: &'a payloads::EventForms,
}

impl Store {
    /// The backend's aggregate that joins text values with a separator, `ORDER BY` allowed
    /// inside its call: `group_concat` on SQLite (3.44 and later), `string_agg` on PostgreSQL.
    fn string_aggregate(&self) -> &'static str {
        match self.backend() {
            Backend::Sqlite => "group_concat",
            Backend::Postgres => "string_agg",
        }
    }

    /// The backend's aggregate of the [`db::RecordId`]s `expr` of a group in `order`, read back
    /// with [`record_id_list`]: the 16-byte values one after the other, through
    /// their hex digits on SQLite (whose `group_concat` makes text), by `string_agg` of the
    /// bytes on PostgreSQL.
    fn record_id_aggregate(&self, expr: &str, order: &str) -> String {
        match self.backend() {
            Backend::Sqlite => format!("unhex(group_concat(hex({expr}), '' ORDER BY {order}))"),
            Backend::Postgres => format!("string_agg({expr}, ''::bytea ORDER BY {order})"),
        }
    }

    /// Rows per multi-row statement (or keys per `IN` list) of `width` bind parameters each:
    /// [`CHUNK`] on PostgreSQL, [`SQLITE_PARAMS`] / `width` (at least 1) on SQLite.
    fn rows_per_statement(&self, width: usize) -> usize {
        match self.backend() {
            Backend::Sqlite => (SQLITE_PARAMS / width.max(1)).max(1),
            Backend::Postgres => CHUNK,
        }
    }

    /// Rows per statement (or keys per `IN` list) of `width` bind parameters each, for a
    /// statement whose only parameters are the list ([`Store::values`], [`Store::list`]):
    /// [`CHUNK`] on PostgreSQL, [`SQLITE_ANONYMOUS_PARAMS`] / `width` (at least 1) on SQLite.
    fn rows_per_list(&self, width: usize) -> usize {
        match self.backend() {
            Backend::Sqlite => (SQLITE_ANONYMOUS_PARAMS / width.max(1)).max(1),
            Backend::Postgres => CHUNK,
        }
    }

    /// How an `INSERT` of rows the writer's transaction knows to be new begins:
    /// `INSERT OR FAIL INTO` on SQLite, `INSERT INTO` on PostgreSQL.
    ///
    /// SQLite keeps a statement journal (a copy of every page a statement changes, in a
    /// temporary file once past 64 KiB) for a statement of several rows that may abort
    /// halfway: one that may break a constraint under the default `ABORT` rule, which undoes
    /// the statement's own rows and keeps the transaction's earlier ones (SQLite manual, "The
    /// ON CONFLICT Clause", and "Temporary Files Used By SQLite", 2.5). teu never continues a
    /// transaction after a failed statement: the error returns and the transaction rolls
    /// back whole. Under `FAIL` nothing needs undoing, so SQLite keeps no statement journal;
    /// at the million, in a 15-s sample, the statement journals took twice the bytes the
    /// writer wrote to the log (docs/NOTES.md, "Seventy-fourth session"). A trigger the
    /// statement fires takes the statement's rule over its own (the triggers of migration 43).
    ///
    /// An upsert's `DO UPDATE` always runs under `ABORT` (SQLite's choice), so only a plain
    /// `INSERT` of new rows, an `INSERT OR FAIL … ON CONFLICT DO NOTHING` ([`Store::upsert`])
    /// or an `UPDATE OR FAIL` ([`keyed_update`]) is spared the journal. A table with an
    /// immediate foreign key keeps it whatever the rule (the email tables).
    fn insert_new(&self) -> &'static str {
        match self.backend() {
            Backend::Sqlite => "INSERT OR FAIL INTO",
            Backend::Postgres => "INSERT INTO",
        }
    }

    /// The statements of a multi-row upsert: `INSERT INTO {head} ON CONFLICT ({key}) {update}`,
    /// `head` being `table (columns) VALUES (…), (…)` and `update` a `DO UPDATE SET …` that
    /// leaves a row as it is when it meets the row's own values (each column set to its
    /// `excluded` value, or a `WHERE` that compares them). Run with [`Upsert::run`].
    ///
    /// On SQLite the rows are tried as new first, by `INSERT OR FAIL INTO {head} ON CONFLICT
    /// ({key}) DO NOTHING`, which keeps no statement journal (the `DO UPDATE` always keeps one,
    /// see [`Store::insert_new`]); the upsert runs after it only when fewer rows went in than
    /// were given, that is when some of them were stored already (a file given again), and
    /// then meets the rows just inserted with their own values. PostgreSQL runs the upsert
    /// alone.
    fn upsert(&self, head: &str, key: &str, update: &str) -> Upsert {
        let upsert = format!("INSERT INTO {head} ON CONFLICT ({key}) {update}");
        match self.backend() {
            Backend::Sqlite => Upsert {
                first: format!("INSERT OR FAIL INTO {head} ON CONFLICT ({key}) DO NOTHING"),
                then: Some(upsert),
            },
            Backend::Postgres => Upsert {
                first: upsert,
                then: None,
            },
        }
    }

    /// The placeholders of a multi-row `VALUES` list of `rows` rows of `width` parameters, for
    /// a statement with no other parameter: anonymous (`(?, ?), (?, ?)`) on SQLite, numbered
    /// from `$1` on PostgreSQL. Bind in the order the placeholders appear.
    fn values(&self, rows: usize, width: usize) -> String {
        self.positional(values_placeholders(rows, width))
    }

    /// `sql` (numbered parameters, `$1` first) as this backend runs it fastest: on SQLite with
    /// anonymous parameters when they appear once each and in order ([`anonymous_parameters`]),
    /// so that a statement may bind [`SQLITE_ANONYMOUS_PARAMS`]; unchanged otherwise.
    fn positional(&self, sql: String) -> String {
        match self.backend() {
            Backend::Sqlite => anonymous_parameters(&sql).unwrap_or(sql),
            Backend::Postgres => sql,
        }
    }

    /// The placeholders of an `IN (...)` list of `n` values, for a statement with no other
    /// parameter: `?, ?` on SQLite, `$1, $2` on PostgreSQL.
    fn list(&self, n: usize) -> String {
        self.positional(in_list(1, n))
    }

    /// Connects to `url` and applies the migrations. `sqlite:PATH` (or `sqlite://PATH`) creates
    /// the file if missing; `postgres://` / `postgresql://` URLs use PostgreSQL. SQLite's
    /// reading connections get the page cache of `TEU_SQLITE_CACHE_MIB` ([`SQLITE_CACHE_MIB`]
    /// if unset), its writer connection ([`Store::writer`]) that of
    /// `TEU_SQLITE_WRITER_CACHE_MIB` ([`SQLITE_WRITER_CACHE_MIB`]).
    ///
    /// # Errors
    /// [`StoreError::UnsupportedUrl`] for another scheme, [`StoreError::CacheSize`] for a bad
    /// `TEU_SQLITE_CACHE_MIB`, [`StoreError::Connect`] or [`StoreError::Migrate`] when the
    /// database cannot be reached or migrated.
    pub async fn connect(url: &str) -> Result<Store> {
        let (backend, url) = if url.starts_with("sqlite:") {
            let url = if url.contains("mode=") {
                url.to_string()
            } else if url.contains('?') {
                format!("{url}&mode=rwc")
            } else {
                format!("{url}?mode=rwc")
            };
            (Backend::Sqlite, url)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            (Backend::Postgres, url.to_string())
        } else {
            return Err(StoreError::UnsupportedUrl(url.to_string()));
        };
        let sqlite = backend == Backend::Sqlite;
        // Both cache sizes are checked before anything connects.
        let (cache_kib, writer_kib) = if sqlite {
            (
                i64::from(sqlite_cache_mib()?) * 1024,
                i64::from(sqlite_writer_cache_mib()?) * 1024,
            )
        } else {
            (0, 0)
        };
        let connect_error = |source| StoreError::Connect {
            url: redact(&url),
            source,
        };
        let (pool, writer, reader, notifier) = if sqlite {
            let pool = sqlite_pool(&url, 4, cache_kib, false)
                .await
                .map_err(connect_error)?;
            // Write-ahead logging: readers (`teu serve`) and the writer (`teu ingest`) do not
            // block each other, and commits are cheaper. The mode is kept in the database file;
            // when another process holds the file it stays as it is.
            if let Err(e) = sqlx::query("PRAGMA journal_mode = WAL")
                .execute(&pool)
                .await
            {
                tracing::warn!("SQLite journal_mode=WAL not set: {e}");
            }
            let writer = sqlite_pool(&url, 1, writer_kib, true)
                .await
                .map_err(connect_error)?;
            let notifier = crate::notify::Notifier::sqlite(pool.clone(), writer.clone());
            (
                db::Pool::Sqlite(pool),
                Some(db::Pool::Sqlite(writer)),
                None,
                notifier,
            )
        } else {
            let pool = postgres_pool(&url, 10, Plans::PerExecution)
                .await
                .map_err(connect_error)?;
            let reader = postgres_pool(&url, 10, Plans::Kept)
                .await
                .map_err(connect_error)?;
            let notifier = crate::notify::Notifier::postgres(pool.clone());
            (
                db::Pool::Postgres(pool),
                None,
                Some(db::Pool::Postgres(reader)),
                notifier,
            )
        };
        let store = Store {
            pool,
            writer,
            reader,
            notifier,
            statements: Arc::new(AtomicU64::new(0)),
            lock_connections: Default::default(),
            claim_turn: Arc::new(AtomicU64::new(0)),
            fresh_events: Default::default(),
            fresh_terminal_checks: Default::default(),
            fresh_derived: Default::default(),
            keys: Default::default(),
        };
        store.migrate().await?;
        store.optimize().await?;
        if store.port_count().await? == 0 {
            let ports: Vec<Port> = teu_domain::reference::bundled().0.iter().cloned().collect();
            store.upsert_ports(&ports).await?;
        }
        store.load_document_schemas().await?;
        store.backfill_filter_columns().await?;
        store.backfill_named_actual().await?;
        store.backfill_event_links().await?;
        Ok(store)
    }

    async fn migrate(&self) -> Result<()> {
        let result = match &self.pool {
            db::Pool::Sqlite(pool) => sqlx::migrate!("./migrations/sqlite").run(pool).await,
            db::Pool::Postgres(pool) => sqlx::migrate!("./migrations/postgres").run(pool).await,
        };
        result.map_err(|source| StoreError::Migrate {
            backend: match self.backend() {
                Backend::Sqlite => "SQLite",
                Backend::Postgres => "PostgreSQL",
            },
            source,
        })
    }

    /// Refreshes the planner statistics of the tables that need it. Run when the store opens,
    /// before each derivation of an ingest and at its end: a bulk load changes a table's size
    /// many times over, and a plan made for the empty table is then wrong.
    /// - SQLite: `PRAGMA optimize = 0x10002` (SQLite manual, "PRAGMA optimize": every table
    ///   never analyzed, or grown much since, not only those this connection read), each index
    ///   sampled at most `analysis_limit` 400 rows, so a large database takes milliseconds.
    ///   Without statistics SQLite's planner read the account's whole index for
    ///   `account_id = $1 AND id IN (…)` instead of the ids (3.6 ms for 18 shipments of 2,110;
    ///   docs/NOTES.md, fourteenth session).
    /// - PostgreSQL: `ANALYZE` of each table of the schema whose rows changed since its last
    ///   analysis by more than 50 rows plus the rows it had then (it doubled; autovacuum's
    ///   trigger is 10% of them, PostgreSQL manual, "The Autovacuum Daemon"), read from
    ///   `pg_stat_user_tables`. The ingest does not wait for autovacuum, which may be off or a
    ///   minute late: without statistics the planner answered the derivation's lookup of
    ///   links by event (`event_id IN` 400 ids) with a sequential scan of `container_events`,
    ///   50 ms a statement at 5,000 containers against 8 ms by its index (docs/NOTES.md,
    ///   seventeenth session). A table that only grows keeps fair statistics until it doubles
    ///   (`ANALYZE_CHANGED_FRACTION`).
    ///
    /// # Errors
    /// [`StoreError::Sql`] when a statement fails.
    pub async fn optimize(&self) -> Result<()> {
        if self.backend() == Backend::Postgres {
            return self.analyze_changed_tables().await;
        }
        // Both pragmas on one connection: `analysis_limit` is a connection setting. The writer:
        // `optimize` writes the statistics tables.
        let mut conn = self.writer().acquire().await?;
        db::query("PRAGMA analysis_limit = 400")
            .execute(&mut conn)
            .await?;
        db::query("PRAGMA optimize = 0x10002")
            .execute(&mut conn)
            .await?;
        Ok(())
    }

    /// PostgreSQL: `ANALYZE` of the tables of the current schema whose changes since their last
    /// analysis exceed 50 rows plus [`ANALYZE_CHANGED_FRACTION`] of their estimated rows (see
    /// [`Store::optimize`]).
    async fn analyze_changed_tables(&self) -> Result<()> {
        let tables = db::query(
            "SELECT quote_ident(s.relname) FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid \
             WHERE s.schemaname = current_schema() \
             AND s.n_mod_since_analyze > 50 + $1 * GREATEST(c.reltuples, 0) ORDER BY s.relname",
        )
        .bind(ANALYZE_CHANGED_FRACTION)
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(|r| r.try_get::<String, _>(0))
        .collect::<std::result::Result<Vec<_>, _>>()?;
        for table in tables {
            // The wide event tables need no histogram (`KEYED_ONLY_TABLES`): a sample of 3,000
            // rows instead of 30,000 (0.3-0.6 s each at 5,000 containers against about 26 ms).
            // The others keep the server's statistics target.
            let mut tx = self.pool.begin().await?;
            if KEYED_ONLY_TABLES.contains(&table.as_str()) {
                db::query("SET LOCAL default_statistics_target = 10")
                    .execute(self.counted(&mut tx))
                    .await?;
            }
            db::query(&format!("ANALYZE {table}"))
                .execute(self.counted(&mut tx))
                .await?;
            tx.commit().await?;
        }
        Ok(())
    }

    /// The backend this store uses (its pool's).
    pub fn backend(&self) -> Backend {
        match self.pool {
            db::Pool::Sqlite(_) => Backend::Sqlite,
            db::Pool::Postgres(_) => Backend::Postgres,
        }
    }

    /// The change notifier of this database (see [`crate::notify`]).
    pub fn notifier(&self) -> &crate::notify::Notifier {
        &self.notifier
    }

    /// The idle connections of released derivation locks, shared by every clone of the store.
    pub(crate) fn lock_connections(&self) -> &crate::derive_lock::LockConnections {
        &self.lock_connections
    }

    /// The pool to run one SQL statement on. Every statement the store runs outside a
    /// transaction takes its executor from here, so each call counts one statement in
    /// [`Store::statement_count`]; statements inside a transaction go through
    /// [`Store::counted`].
    pub fn pool(&self) -> &db::Pool {
        self.statements.fetch_add(1, Ordering::Relaxed);
        &self.pool
    }

    /// The pool to run one writing statement or begin a writing transaction on, counted like
    /// [`Store::pool`]: on SQLite the single writer connection (one writer at a time is all
    /// SQLite allows, SQLite manual, "File Locking And Concurrency"; its page cache stays
    /// valid across its transactions, [`SQLITE_WRITER_CACHE_MIB`]), on PostgreSQL the pool.
    /// A writer that waits more than 10 s for the connection fails with
    /// [`sqlx::Error::PoolTimedOut`].
    pub fn writer(&self) -> &db::Pool {
        self.statements.fetch_add(1, Ordering::Relaxed);
        self.writer.as_ref().unwrap_or(&self.pool)
    }

    /// The pool to run a read of what a page shows on, counted like [`Store::pool`]: on
    /// PostgreSQL a pool of its own whose connections keep a statement's generic plan where
    /// it costs no more than planning it with its values (`Plans::Kept`), on SQLite the pool.
    /// For statements that only read, by key or along an index; the ingest's own lookups
    /// (history, keys, events by id) stay on [`Store::pool`].
    pub fn reader(&self) -> &db::Pool {
        self.statements.fetch_add(1, Ordering::Relaxed);
        self.reader.as_ref().unwrap_or(&self.pool)
    }

    /// Closes every connection of the store (and its clones): later statements fail with
    /// [`sqlx::Error::PoolClosed`].
    pub async fn close(&self) {
        self.pool.close().await;
        for pool in [&self.writer, &self.reader].into_iter().flatten() {
            pool.close().await;
        }
    }

    /// A transaction's connection, counting one statement (see [`Store::statement_count`]).
    pub fn counted<'c>(&self, conn: &'c mut db::Conn) -> db::Exec<'c> {
        self.count_statement();
        conn.exec()
    }

    /// A held connection, counting one statement (see [`Store::statement_count`]), for a
    /// helper that runs its statements on the connection itself.
    pub(crate) fn counting<'c>(&self, conn: &'c mut db::Conn) -> &'c mut db::Conn {
        self.count_statement();
        conn
    }

    /// Counts one statement in [`Store::statement_count`] (for statements not run through
    /// [`Store::counted`]).
    fn count_statement(&self) {
        self.statements.fetch_add(1, Ordering::Relaxed);
    }

    /// SQL statements this store (and its clones) ran since it was connected, migrations and
    /// `BEGIN`/`COMMIT` not included. For tests that check a request's cost (no N+1 queries)
    /// and for debugging.
    pub fn statement_count(&self) -> u64 {
        self.statements.load(Ordering::Relaxed)
    }
}

/// Hides the password of a database URL for messages.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let creds = &url[scheme + 3..at];
            match creds.find(':') {
                Some(colon) => format!(
                    "{}{}:***{}",
                    &url[..scheme + 3],
                    &creds[..colon],
                    &url[at..]
                ),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

/// SHA-256 of the record's JSON with its bookkeeping timestamps blanked, and the JSON itself
/// in its stored form: a zstd frame of `encoder`'s codec ([`payloads::CONTAINER_BODIES`] or
/// [`payloads::SHIPMENT_BODIES`], migration 32).
///
/// # Errors
/// [`StoreError::Compress`] when zstd fails (out of memory).
fn hashed_body<T: serde::Serialize + Clone>(
    record: &T,
    blank: impl FnOnce(&mut T),
    encoder: &mut payloads::Encoder,
) -> Result<(String, Vec<u8>)> {
    let body = teu_domain::json::to_string(record).unwrap_or_default();
    let mut plain = record.clone();
    blank(&mut plain);
    let hash = hex::encode(Sha256::digest(
        teu_domain::json::to_vec(&plain).unwrap_or_default(),
    ));
    Ok((hash, encoder.encode(&body).map_err(StoreError::Compress)?))
}

/// An (id, content_hash) row of `containers` or `shipments`.
fn hash_row(r: &db::DbRow) -> Result<(Uuid, String)> {
    Ok((
        record_id(r, "id", "content hash")?,
        r.try_get("content_hash")?,
    ))
}

fn account_row(r: &db::DbRow) -> Result<Account> {
    Ok(Account {
        id: record_id(r, "id", "account")?,
        name: r.try_get("name")?,
        company_name: r.try_get("company_name")?,
        routing_data: r.try_get::<i64, _>("routing_data")? != 0,
        created_at: record_time(r, "created_at")?,
    })
}

/// Decoded container bodies of the read paths, by stored bytes ([`memo`]).
static CONTAINER_BODY_MEMO: memo::BodyMemo<Container> = memo::BodyMemo::new();
/// Decoded shipment bodies of the read paths, by stored bytes ([`memo`]).
static SHIPMENT_BODY_MEMO: memo::BodyMemo<Shipment> = memo::BodyMemo::new();

/// The container of a row of [`CONTAINER_SELECT`]'s columns (`id`, `body`, `created_at`,
/// `refreshed_at`), its body decoded once per process for every read of the same stored bytes
/// ([`memo`]). For the read paths of both APIs; see [`container_row_uncached`].
///
/// # Errors
/// [`StoreError::Corrupt`] when the body does not decode, a column's error when one is missing.
pub(crate) fn container_row(r: &db::DbRow) -> Result<Container> {
    container_row_with(r, true)
}

/// [`container_row`] without the memo: for the derivation, which reads the rows it is about to
/// replace (keeping them would only push out records the pages read).
pub(crate) fn container_row_uncached(r: &db::DbRow) -> Result<Container> {
    container_row_with(r, false)
}

fn container_row_with(r: &db::DbRow, memoized: bool) -> Result<Container> {
    let memo = memoized.then_some(&CONTAINER_BODY_MEMO);
    let (_, mut c) = record_of(
        r,
        ("id", "body"),
        memo,
        &payloads::CONTAINER_BODIES,
        "container",
    )?;
    c.created_at = record_time(r, "created_at")?;
    c.refreshed_at = record_time(r, "refreshed_at")?;
    Ok(c)
}

/// The id and the record of row `r`'s `columns` (id, body): the body a frame of `codec` with
/// the JSON of a `T`, through `memo` when one is given; `what` names the record in errors
/// ([`StoreError::Corrupt`] when it does not decode).
fn record_of<T: Clone + serde::de::DeserializeOwned>(
    r: &db::DbRow,
    columns: (&str, &str),
    memo: Option<&memo::BodyMemo<T>>,
    codec: &'static payloads::Codec,
    what: &'static str,
) -> Result<(Uuid, T)> {
    let id = record_id(r, columns.0, what)?;
    let stored = stored_bytes(r, columns.1)?;
    let decode = |stored: &[u8]| -> Result<T> {
        from_json(&decoded_text(stored, codec, what, id)?, what, id)
    };
    let record = match memo {
        Some(memo) => memo.get_or_decode(&stored, decode)?,
        None => decode(&stored)?,
    };
    Ok((id, record))
}

/// The shipment of a row of [`SHIPMENT_SELECT`]'s columns (`id`, `body`, `created_at`,
/// `refreshed_at`, `tags`, `user_stopped_at`, `user_ref_numbers`), its body decoded once per
/// process for every read of the same stored bytes ([`memo`]); the user's edits are applied to
/// each read. For the read paths; see [`shipment_row_uncached`].
///
/// # Errors
/// As [`container_row`].
pub(crate) fn shipment_row(r: &db::DbRow) -> Result<Shipment> {
    shipment_row_with(r, true)
}

/// [`shipment_row`] without the memo, for the derivation (see [`container_row_uncached`]).
pub(crate) fn shipment_row_uncached(r: &db::DbRow) -> Result<Shipment> {
    shipment_row_with(r, false)
}

fn shipment_row_with(r: &db::DbRow, memoized: bool) -> Result<Shipment> {
    shipment_of(r, &ShipmentColumns::PLAIN, memoized)
}

/// The names of a shipment row's columns in a result: [`SHIPMENT_SELECT`]'s own, or those a
/// page of containers gives its joined shipments ([`ShipmentColumns::JOINED`]).
pub(crate) struct ShipmentColumns {
    pub(crate) id: &'static str,
    pub(crate) body: &'static str,
    pub(crate) created_at: &'static str,
    pub(crate) refreshed_at: &'static str,
    pub(crate) tags: &'static str,
    pub(crate) user_stopped_at: &'static str,
    pub(crate) user_ref_numbers: &'static str,
    /// The shipment's container ids (`shipments.member_ids`, read by [`record_id_list`]).
    pub(crate) member_ids: &'static str,
}

impl ShipmentColumns {
    /// [`SHIPMENT_SELECT`]'s names.
    pub(crate) const PLAIN: ShipmentColumns = ShipmentColumns {
        id: "id",
        body: "body",
        created_at: "created_at",
        refreshed_at: "refreshed_at",
        tags: "tags",
        user_stopped_at: "user_stopped_at",
        user_ref_numbers: "user_ref_numbers",
        member_ids: "member_ids",
    };
    /// The names of shipment `sp` joined to a page of containers (`listing`), beside the
    /// containers' own `id`, `body` and times.
    pub(crate) const JOINED: ShipmentColumns = ShipmentColumns {
        id: "s_id",
        body: "s_body",
        created_at: "s_created_at",
        refreshed_at: "s_refreshed_at",
        tags: "s_tags",
        user_stopped_at: "s_user_stopped_at",
        user_ref_numbers: "s_user_ref_numbers",
        member_ids: "s_member_ids",
    };

    fn names(&self) -> [&'static str; 8] {
        [
            self.id,
            self.body,
            self.created_at,
            self.refreshed_at,
            self.tags,
            self.user_stopped_at,
            self.user_ref_numbers,
            self.member_ids,
        ]
    }

    /// The select list reading `shipments` under alias `table` into these names:
    /// `sp.id AS s_id, sp.body AS s_body, …` for [`ShipmentColumns::JOINED`].
    pub(crate) fn select_as(&self, table: &str) -> String {
        Self::PLAIN
            .names()
            .iter()
            .zip(self.names())
            .map(|(column, name)| format!("{table}.{column} AS {name}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The shipment of row `r`, its columns named by `columns` (see [`shipment_row`]).
pub(crate) fn shipment_of(
    r: &db::DbRow,
    columns: &ShipmentColumns,
    memoized: bool,
) -> Result<Shipment> {
    let memo = memoized.then_some(&SHIPMENT_BODY_MEMO);
    let (id, mut s) = record_of(
        r,
        (columns.id, columns.body),
        memo,
        &payloads::SHIPMENT_BODIES,
        "shipment",
    )?;
    s.created_at = record_time(r, columns.created_at)?;
    s.refreshed_at = record_time(r, columns.refreshed_at)?;
    s.tags = from_json(&r.try_get::<String, _>(columns.tags)?, "shipment tags", id)?;
    // The user's stop (stopTracking) wins over what the feeds derived; resuming shows theirs.
    if let Some(stopped) = r.record_time_or_null(columns.user_stopped_at)? {
        s.line_tracking_stopped_at = Some(stopped);
        s.line_tracking_stopped_reason = Some(STOPPED_BY_USER.to_string());
    }
    // The user's reference numbers follow the feeds' (`teu_domain::shipment_edits`).
    if let Some(user) = r.try_get::<Option<String>, _>(columns.user_ref_numbers)? {
        let user: Vec<String> = from_json(&user, "shipment ref numbers", id)?;
        s.ref_numbers = teu_domain::shipment_edits::merged_ref_numbers(&s.ref_numbers, &user);
    }
    Ok(s)
}

/// The text of a compressed column of row `r` (migration 32): `containers.body` and
/// `shipments.body`, `terminal_checks` and `line_deadlines`' `raw` and `body`. The value is a
/// zstd frame of `codec` (a BLOB on SQLite, BYTEA on PostgreSQL) or, in SQLite rows written
/// before that migration, the text itself. `what` and `id` name the row in errors
/// ([`StoreError::Corrupt`]).
pub(crate) fn stored_text(
    r: &db::DbRow,
    column: &str,
    codec: &'static payloads::Codec,
    what: &'static str,
    id: &str,
) -> Result<String> {
    decoded_text(&stored_bytes(r, column)?, codec, what, id)
}

/// The bytes of a compressed column of row `r` (see [`stored_text`]): a BLOB or BYTEA as it
/// is, the text of an SQLite row written before migration 32 as its UTF-8 bytes.
fn stored_bytes(r: &db::DbRow, column: &str) -> Result<Vec<u8>> {
    // SQLite types a value by what it holds, not by the column's declaration.
    Ok(match r.try_get::<Vec<u8>, _>(column) {
        Ok(bytes) => bytes,
        Err(_) => r.try_get::<String, _>(column)?.into_bytes(),
    })
}

/// The text of `stored` bytes of a compressed column (see [`stored_text`]).
fn decoded_text(
    stored: &[u8],
    codec: &'static payloads::Codec,
    what: &'static str,
    id: impl std::fmt::Display,
) -> Result<String> {
    codec.decode(stored).map_err(|detail| StoreError::Corrupt {
        what,
        id: id.to_string(),
        detail,
    })
}

/// The select-list item that reads `transport_events` column `column` as bytes named `body`,
/// for [`event_body`]: on SQLite the column may hold a zstd frame (a BLOB) or, in rows written
/// before migration 23, the JSON text itself, which the cast turns into its UTF-8 bytes; on
/// PostgreSQL the column is `BYTEA`.
pub(crate) fn body_bytes(backend: Backend, column: &str) -> String {
    match backend {
        Backend::Sqlite => format!("CAST({column} AS BLOB) AS body"),
        Backend::Postgres => format!("{column} AS body"),
    }
}

/// The JSON text of the normalized event in the `body` column of a `transport_events` row read
/// through [`body_bytes`] ([`payloads::decode_event_body`]); `id` names the row in errors.
pub(crate) fn event_body(r: &db::DbRow, id: impl std::fmt::Display) -> Result<String> {
    decode_event_body(&r.try_get::<Vec<u8>, _>("body")?, id)
}

/// The JSON text of a stored `transport_events.body` (see [`event_body`]); `id` names the row
/// in errors ([`StoreError::Corrupt`]).
pub(crate) fn decode_event_body(stored: &[u8], id: impl std::fmt::Display) -> Result<String> {
    payloads::decode_event_body(stored).map_err(|detail| StoreError::Corrupt {
        what: "transport event body",
        id: id.to_string(),
        detail,
    })
}

/// The normalized body and carrier payload of a `transport_events` row whose `body` was read
/// through [`body_bytes`] and `payload` as bytes ([`payloads::decode_event`]); `id` names the
/// row in errors ([`StoreError::Corrupt`]).
pub(crate) fn stored_event(
    r: &db::DbRow,
    id: impl std::fmt::Display,
) -> Result<payloads::StoredEvent> {
    let body = r.try_get::<Vec<u8>, _>("body")?;
    let payload = r.try_get::<Option<Vec<u8>>, _>("payload")?;
    payloads::decode_event(&body, payload.as_deref()).map_err(|detail| StoreError::Corrupt {
        what: "transport event",
        id: id.to_string(),
        detail,
    })
}

/// A `transport_events` row (`id`, `raw_event_id` and `body` read through [`body_bytes`]) as
/// the event it stores ([`transport_event`]).
fn event_row(r: &db::DbRow) -> Result<TransportEvent> {
    let id = uuid_of_bytes(&r.try_get::<Vec<u8>, _>("id")?, "transport event id")?;
    let raw = uuid_of_bytes(&r.try_get::<Vec<u8>, _>("raw_event_id")?, "raw event id")?;
    let event: teu_domain::model::EventRow = from_json(&event_body(r, id)?, "transport event", id)?;
    Ok(transport_event(id, raw, event))
}

/// The stored event `id` (raw event `raw_event_id`) of normalized `event`, as the store reads it
/// back: with the IANA time zone of its UN/LOCODE from the bundled ports, when known. For a
/// version kept in memory since it was stored, to stand for the row read back.
pub fn transport_event(
    id: Uuid,
    raw_event_id: Uuid,
    event: teu_domain::model::EventRow,
) -> TransportEvent {
    let timezone = event
        .locode
        .as_deref()
        .and_then(|l| teu_domain::reference::bundled().0.get(l))
        .and_then(|p| p.time_zone.clone());
    TransportEvent {
        id,
        raw_event_id,
        timezone,
        event,
    }
}
