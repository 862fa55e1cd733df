//! The store: sqlx over SQLite (the embedded default, one file) or PostgreSQL, with migrations
//! for each (`pipeline/migrations/{sqlite,postgres}`).
//!
//! Both backends share one set of SQL statements (numbered `$n` placeholders, `ON CONFLICT`
//! upserts), run through sqlx's `Any` driver. Ids are UUID text and timestamps RFC 3339 UTC text
//! with millisecond precision, which sort correctly as text. Domain records are stored whole as
//! JSON in `body`; the other columns are what queries filter, join and sort on. Every query takes
//! the account id: one account never reads another's rows.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use chrono::{DateTime, SecondsFormat, Utc};
use sha2::{Digest, Sha256};
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyPool, Row};
use uuid::Uuid;

use crate::feeds::Quarantined;
use crate::listing::{container_filter_columns, ShipmentFilterColumns, STOPPED_BY_USER};
use crate::model::{
    Account, Container, LineDeadline, Port, Shipment, TerminalCheck, TransportEvent, VesselPosition,
};

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
    Tags(#[from] crate::listing::TagError),
    #[error("TEU_SQLITE_CACHE_MIB={0:?}: expected a whole number of MiB from 1 to 65536")]
    CacheSize(String),
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
    pool: AnyPool,
    backend: Backend,
    /// SQL statements run so far through this store (all clones share it); see
    /// [`Store::statement_count`].
    statements: Arc<AtomicU64>,
    notifier: crate::notify::Notifier,
    /// Idle connections of released derivation locks (PostgreSQL; `crate::derive_lock`).
    lock_connections: crate::derive_lock::LockConnections,
}

/// The current time at the store's precision (milliseconds), so that what is written and what
/// is read back compare equal.
pub fn now() -> DateTime<Utc> {
    let now = Utc::now();
    DateTime::from_timestamp_millis(now.timestamp_millis()).unwrap_or(now)
}

/// Formats a timestamp the way the store keeps it: RFC 3339, UTC, milliseconds, `Z`.
pub fn ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

pub(crate) fn parse_ts(s: &str, what: &'static str) -> Result<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .map(|d| d.with_timezone(&Utc))
        .map_err(|e| StoreError::Corrupt {
            what,
            id: s.to_string(),
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

pub(crate) fn from_json<T: serde::de::DeserializeOwned>(
    body: &str,
    what: &'static str,
    id: &str,
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

/// `$from, ..., $(from + n - 1)` for an `IN (...)` list.
pub(crate) fn in_list(from: usize, n: usize) -> String {
    (from..from + n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Rows per multi-row statement on PostgreSQL; keeps bind parameters far below its limit of
/// 65,535.
const CHUNK: usize = 400;

/// Bind parameters per multi-row statement on SQLite. SQLite finds a numbered parameter (`$N`)
/// by a linear scan of the statement's parameter list, and sqlx asks for the name of every
/// parameter it binds (`sqlite3_bind_parameter_name`), so binding one statement costs the square
/// of its parameters: at 3,600 (400 events of 9 columns) that lookup was 38% of the ingest's
/// CPU time (perf, docs/NOTES.md). A few hundred keep the lookup small and the statements few.
const SQLITE_PARAMS: usize = 250;

/// SQLite page cache per connection, in MiB, when `TEU_SQLITE_CACHE_MIB` is not set: SQLite's
/// own default (2,000 KiB, rounded). A larger cache speeds the store stage of big ingests (256 MiB:
/// 16% at 100,000 containers) at the price of memory on each of the pool's connections (peak
/// RSS 543 MiB to 1.6 GiB); README, "Ingest at scale".
pub const SQLITE_CACHE_MIB: u32 = 2;

/// The SQLite page cache per connection in MiB: `TEU_SQLITE_CACHE_MIB` (1 to 65536) or
/// [`SQLITE_CACHE_MIB`]. Errors with [`StoreError::CacheSize`] naming the value when it is not a
/// number in that range.
fn sqlite_cache_mib() -> Result<u32> {
    match std::env::var("TEU_SQLITE_CACHE_MIB") {
        Err(_) => Ok(SQLITE_CACHE_MIB),
        Ok(v) => match v.trim().parse::<u32>() {
            Ok(n) if (1..=65536).contains(&n) => Ok(n),
            _ => Err(StoreError::CacheSize(v)),
        },
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
    /// Webhook notifications written with the rows (`crate::webhooks::outbox`).
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
    /// Ids of the stored events read.
    pub event_ids: Vec<Uuid>,
    /// Every bill of lading and booking the events name (the possible shipment keys).
    pub shipment_keys: Vec<String>,
    /// Every container number the events name.
    pub containers: Vec<String>,
}

/// The `id` column of `RETURNING id` rows.
fn returned_ids(rows: Vec<AnyRow>) -> Result<Vec<Uuid>> {
    rows.iter()
        .map(|r| parse_uuid(&r.try_get::<String, _>("id")?, "returned id"))
        .collect()
}

/// A stored event ready to write: the event, its original JSON and where it came from.
pub struct NewEvent<'a> {
    pub event: &'a TransportEvent,
    pub raw: &'a str,
    pub source_file: &'a str,
    pub source_index: usize,
}

impl Store {
    /// Rows per multi-row statement (or keys per `IN` list) of `width` bind parameters each:
    /// [`CHUNK`] on PostgreSQL, [`SQLITE_PARAMS`] / `width` (at least 1) on SQLite.
    fn rows_per_statement(&self, width: usize) -> usize {
        match self.backend {
            Backend::Sqlite => (SQLITE_PARAMS / width.max(1)).max(1),
            Backend::Postgres => CHUNK,
        }
    }

    /// Connects to `url` and applies the migrations. `sqlite:PATH` (or `sqlite://PATH`) creates
    /// the file if missing; `postgres://` / `postgresql://` URLs use PostgreSQL. SQLite
    /// connections get the page cache of `TEU_SQLITE_CACHE_MIB` ([`SQLITE_CACHE_MIB`] if unset).
    ///
    /// # Errors
    /// [`StoreError::UnsupportedUrl`] for another scheme, [`StoreError::CacheSize`] for a bad
    /// `TEU_SQLITE_CACHE_MIB`, [`StoreError::Connect`] or [`StoreError::Migrate`] when the
    /// database cannot be reached or migrated.
    pub async fn connect(url: &str) -> Result<Store> {
        sqlx::any::install_default_drivers();
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
        // A negative cache_size is in KiB (SQLite manual, "PRAGMA cache_size").
        let cache_kib = if sqlite {
            i64::from(sqlite_cache_mib()?) * 1024
        } else {
            0
        };
        let pool = AnyPoolOptions::new()
            .max_connections(if sqlite { 4 } else { 10 })
            .acquire_timeout(std::time::Duration::from_secs(10))
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    // With WAL (set once below), NORMAL syncs at checkpoints instead of every
                    // commit: a killed process loses nothing committed, a power cut may lose the
                    // last transactions (SQLite manual, "PRAGMA synchronous").
                    if sqlite {
                        sqlx::query("PRAGMA synchronous = NORMAL")
                            .execute(&mut *conn)
                            .await?;
                        sqlx::query(&format!("PRAGMA cache_size = -{cache_kib}"))
                            .execute(&mut *conn)
                            .await?;
                    } else {
                        // Statements are prepared once per connection; PostgreSQL's generic plan
                        // of one prepared while the tables were small kept scanning
                        // `transport_events` whole once they had grown (8 s per key lookup at
                        // 750,000 events). Plan each execution with its values instead.
                        sqlx::query("SET plan_cache_mode = force_custom_plan")
                            .execute(&mut *conn)
                            .await?;
                    }
                    Ok(())
                })
            })
            .connect(&url)
            .await
            .map_err(|source| StoreError::Connect {
                url: redact(&url),
                source,
            })?;
        if sqlite {
            // Write-ahead logging: readers (`teu serve`) and the writer (`teu ingest`) do not
            // block each other, and commits are cheaper. The mode is kept in the database file;
            // when another process holds the file it stays as it is.
            if let Err(e) = sqlx::query("PRAGMA journal_mode = WAL")
                .execute(&pool)
                .await
            {
                tracing::warn!("SQLite journal_mode=WAL not set: {e}");
            }
        }
        let notifier = match backend {
            Backend::Sqlite => crate::notify::Notifier::sqlite(pool.clone()),
            Backend::Postgres => {
                crate::notify::Notifier::postgres(&url).map_err(|e| StoreError::Connect {
                    url: redact(&url),
                    source: match e {
                        crate::notify::NotifyError::Sql(e) => e,
                        other => sqlx::Error::Configuration(other.to_string().into()),
                    },
                })?
            }
        };
        let store = Store {
            pool,
            backend,
            notifier,
            statements: Arc::new(AtomicU64::new(0)),
            lock_connections: Default::default(),
        };
        store.migrate().await?;
        if store.port_count().await? == 0 {
            let ports: Vec<Port> = crate::reference::bundled().0.iter().cloned().collect();
            store.upsert_ports(&ports).await?;
        }
        store.load_document_schemas().await?;
        store.backfill_filter_columns().await?;
        Ok(store)
    }

    async fn migrate(&self) -> Result<()> {
        let result = match self.backend {
            Backend::Sqlite => sqlx::migrate!("./migrations/sqlite").run(&self.pool).await,
            Backend::Postgres => {
                sqlx::migrate!("./migrations/postgres")
                    .run(&self.pool)
                    .await
            }
        };
        result.map_err(|source| StoreError::Migrate {
            backend: match self.backend {
                Backend::Sqlite => "SQLite",
                Backend::Postgres => "PostgreSQL",
            },
            source,
        })
    }

    /// The backend this store uses.
    pub fn backend(&self) -> Backend {
        self.backend
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
    pub fn pool(&self) -> &AnyPool {
        self.statements.fetch_add(1, Ordering::Relaxed);
        &self.pool
    }

    /// A transaction's connection, counting one statement (see [`Store::statement_count`]).
    pub fn counted<'c>(&self, conn: &'c mut sqlx::AnyConnection) -> &'c mut sqlx::AnyConnection {
        self.statements.fetch_add(1, Ordering::Relaxed);
        conn
    }

    /// SQL statements this store (and its clones) ran since it was connected, migrations and
    /// `BEGIN`/`COMMIT` not included. For tests that check a request's cost (no N+1 queries)
    /// and for debugging.
    pub fn statement_count(&self) -> u64 {
        self.statements.load(Ordering::Relaxed)
    }

    // ---- accounts -------------------------------------------------------------------------

    /// Creates an account and its first API key; returns both. The key is shown only here.
    pub async fn create_account(
        &self,
        name: &str,
        routing_data: bool,
    ) -> Result<(Account, String)> {
        if self.account_by_name(name).await?.is_some() {
            return Err(StoreError::AccountExists(name.to_string()));
        }
        let account = Account {
            id: Uuid::new_v4(),
            name: name.to_string(),
            company_name: name.to_string(),
            routing_data,
            created_at: now(),
        };
        sqlx::query(
            "INSERT INTO accounts (id, name, company_name, routing_data, created_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(account.id.to_string())
        .bind(&account.name)
        .bind(&account.company_name)
        .bind(i64::from(routing_data))
        .bind(ts(account.created_at))
        .execute(self.pool())
        .await?;
        let key = self.issue_key(account.id).await?;
        self.create_inbound_address(account.id).await?;
        Ok((account, key))
    }

    /// Returns the account named `name`, creating it (without a key) when it does not exist.
    pub async fn ensure_account(&self, name: &str, routing_data: bool) -> Result<Account> {
        if let Some(a) = self.account_by_name(name).await? {
            return Ok(a);
        }
        match self.create_account(name, routing_data).await {
            Ok((a, _)) => Ok(a),
            Err(StoreError::AccountExists(_)) => self
                .account_by_name(name)
                .await?
                .ok_or_else(|| StoreError::UnknownAccount(name.to_string())),
            Err(e) => Err(e),
        }
    }

    /// Issues a new API key for the account and returns it (`teu_` + 40 hex characters).
    pub async fn issue_key(&self, account_id: Uuid) -> Result<String> {
        let key = format!(
            "teu_{}{}",
            Uuid::new_v4().simple(),
            &Uuid::new_v4().simple().to_string()[..8]
        );
        sqlx::query("INSERT INTO api_keys (key_hash, account_id, created_at) VALUES ($1, $2, $3)")
            .bind(hash_key(&key))
            .bind(account_id.to_string())
            .bind(ts(Utc::now()))
            .execute(self.pool())
            .await?;
        Ok(key)
    }

    /// Every account, by name.
    pub async fn accounts(&self) -> Result<Vec<Account>> {
        let rows = sqlx::query(
            "SELECT id, name, company_name, routing_data, created_at FROM accounts ORDER BY name",
        )
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(account_row).collect()
    }

    /// The account named `name`, if any.
    pub async fn account_by_name(&self, name: &str) -> Result<Option<Account>> {
        let row = sqlx::query(
            "SELECT id, name, company_name, routing_data, created_at FROM accounts WHERE name = $1",
        )
        .bind(name)
        .fetch_optional(self.pool())
        .await?;
        row.map(|r| account_row(&r)).transpose()
    }

    /// The account owning `key`, if the key is valid.
    pub async fn authenticate(&self, key: &str) -> Result<Option<Account>> {
        let row = sqlx::query(
            "SELECT a.id, a.name, a.company_name, a.routing_data, a.created_at \
             FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1",
        )
        .bind(hash_key(key))
        .fetch_optional(self.pool())
        .await?;
        row.map(|r| account_row(&r)).transpose()
    }

    // ---- reference data -------------------------------------------------------------------

    /// Upserts ports (reference data, shared by all accounts).
    pub async fn upsert_ports(&self, ports: &[Port]) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        for chunk in ports.chunks(self.rows_per_statement(7)) {
            let sql = format!(
                "INSERT INTO ports (locode, name, country_code, country, latitude, longitude, time_zone) VALUES {} \
                 ON CONFLICT (locode) DO UPDATE SET name = excluded.name, country_code = excluded.country_code, \
                 country = excluded.country, latitude = excluded.latitude, longitude = excluded.longitude, \
                 time_zone = excluded.time_zone",
                values_placeholders(chunk.len(), 7)
            );
            // Not a cached statement: sqlx 0.8.6's Any driver declares a NULL f64 as float4 on
            // PostgreSQL, so a statement prepared with a missing coordinate would refuse a later
            // chunk's value in that position ("incorrect binary data format").
            let mut q = sqlx::query(&sql).persistent(false);
            for p in chunk {
                q = q
                    .bind(&p.locode)
                    .bind(&p.name)
                    .bind(&p.country_code)
                    .bind(&p.country)
                    .bind(p.latitude)
                    .bind(p.longitude)
                    .bind(&p.time_zone);
            }
            q.execute(self.counted(&mut tx)).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Number of ports stored.
    pub async fn port_count(&self) -> Result<i64> {
        Ok(sqlx::query("SELECT COUNT(*) AS n FROM ports")
            .fetch_one(self.pool())
            .await?
            .try_get("n")?)
    }

    // ---- writes from ingest ---------------------------------------------------------------

    /// Upserts raw and normalized events. A stored event is replaced only by a version the carrier
    /// issued later (`eventCreatedDateTime` / `eventUpdatedDateTime`); an older or equally old
    /// version of the same `eventID` (a late or repeated file) leaves it as it is.
    pub async fn upsert_events(&self, account: Uuid, events: &[NewEvent<'_>]) -> Result<()> {
        let now = ts(Utc::now());
        let account = account.to_string();
        // A feed may repeat an event: the later-issued version wins; among versions issued at
        // the same time the greater payload, so that any order of files keeps the same one
        // (the rule of the `WHERE` below).
        let issued = |e: &NewEvent<'_>| {
            e.event
                .event
                .event_created_at
                .unwrap_or(e.event.event.event_at)
        };
        let events: Vec<&NewEvent<'_>> =
            one_per_key(events.iter().map(|e| (e.event.id, e)), |new, kept| {
                (issued(new), new.raw) > (issued(kept), kept.raw)
            })
            .into_iter()
            .map(|(_, e)| e)
            .collect();
        let mut tx = self.pool.begin().await?;
        for chunk in events.chunks(self.rows_per_statement(9)) {
            let sql = format!(
                "INSERT INTO raw_events (id, account_id, source_event_id, source_file, source_index, payload, issued_at, \
                 received_at) VALUES {} ON CONFLICT (id) DO UPDATE SET payload = excluded.payload, \
                 source_file = excluded.source_file, source_index = excluded.source_index, \
                 issued_at = excluded.issued_at, received_at = excluded.received_at \
                 WHERE excluded.issued_at > raw_events.issued_at \
                 OR (excluded.issued_at = raw_events.issued_at AND excluded.payload > raw_events.payload)",
                values_placeholders(chunk.len(), 8)
            );
            let mut q = sqlx::query(&sql);
            for e in chunk {
                let ev = &e.event.event;
                q = q
                    .bind(e.event.raw_event_id.to_string())
                    .bind(&account)
                    .bind(&ev.event_id)
                    .bind(e.source_file)
                    .bind(e.source_index as i64)
                    .bind(e.raw)
                    .bind(ts(ev.event_created_at.unwrap_or(ev.event_at)))
                    .bind(&now);
            }
            q.execute(self.counted(&mut tx)).await?;

            let sql = format!(
                "INSERT INTO transport_events (id, account_id, raw_event_id, container_number, bill_of_lading, booking, event_at, \
                 issued_at, body) VALUES {} ON CONFLICT (id) DO UPDATE SET container_number = excluded.container_number, \
                 bill_of_lading = excluded.bill_of_lading, booking = excluded.booking, event_at = excluded.event_at, \
                 issued_at = excluded.issued_at, body = excluded.body WHERE excluded.issued_at > transport_events.issued_at \
                 OR (excluded.issued_at = transport_events.issued_at AND excluded.body > transport_events.body) \
                 RETURNING id",
                values_placeholders(chunk.len(), 9)
            );
            let mut q = sqlx::query(&sql);
            for e in chunk {
                let ev = &e.event.event;
                q = q
                    .bind(e.event.id.to_string())
                    .bind(&account)
                    .bind(e.event.raw_event_id.to_string())
                    .bind(ev.container_number())
                    .bind(ev.bill_of_lading())
                    .bind(ev.booking())
                    .bind(ts(ev.event_at))
                    .bind(ts(ev.event_created_at.unwrap_or(ev.event_at)))
                    .bind(serde_json::to_string(ev).unwrap_or_default());
            }
            let written: HashSet<Uuid> = returned_ids(q.fetch_all(self.counted(&mut tx)).await?)?
                .into_iter()
                .collect();
            let written: Vec<&TransportEvent> = chunk
                .iter()
                .map(|e| e.event)
                .filter(|e| written.contains(&e.id))
                .collect();
            self.replace_event_keys(&mut tx, &account, &written).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Replaces the `event_keys` rows of `events` (versions just written) with every
    /// container, bill of lading and booking each names.
    async fn replace_event_keys(
        &self,
        tx: &mut sqlx::AnyConnection,
        account: &str,
        events: &[&TransportEvent],
    ) -> Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        for chunk in events.chunks(self.rows_per_statement(1).saturating_sub(1).max(1)) {
            // By event id alone (ids are scoped by account): with `account_id` in the condition
            // SQLite walked the primary key's account prefix, every key of the account per
            // statement (649 rows/s at 5,000 containers).
            let sql = format!(
                "DELETE FROM event_keys WHERE event_id IN ({})",
                in_list(1, chunk.len())
            );
            let mut q = sqlx::query(&sql);
            for e in chunk {
                q = q.bind(e.id.to_string());
            }
            q.execute(self.counted(tx)).await?;
        }
        let mut keys: BTreeSet<(&'static str, &str, Uuid)> = BTreeSet::new();
        for e in events {
            for (kind, values) in [
                ("container", &e.event.containers),
                ("bill_of_lading", &e.event.bills_of_lading),
                ("booking", &e.event.bookings),
            ] {
                keys.extend(values.iter().map(|v| (kind, v.as_str(), e.id)));
            }
        }
        let keys: Vec<_> = keys.into_iter().collect();
        for chunk in keys.chunks(self.rows_per_statement(4)) {
            let sql = format!(
                "INSERT INTO event_keys (account_id, kind, value, event_id) VALUES {} \
                 ON CONFLICT (account_id, kind, value, event_id) DO NOTHING",
                values_placeholders(chunk.len(), 4)
            );
            let mut q = sqlx::query(&sql);
            for (kind, value, id) in chunk {
                q = q
                    .bind(account)
                    .bind(*kind)
                    .bind(*value)
                    .bind(id.to_string());
            }
            q.execute(self.counted(tx)).await?;
        }
        Ok(())
    }

    /// Up to `limit` stored raw events of `account` with an id after `after` (all when `None`),
    /// by id: `(raw event id, carrier payload)`. For paging through everything stored.
    pub async fn raw_events_after(
        &self,
        account: Uuid,
        after: Option<Uuid>,
        limit: i64,
    ) -> Result<Vec<(Uuid, String)>> {
        let rows = sqlx::query(
            "SELECT id, payload FROM raw_events WHERE account_id = $1 AND id > $2 ORDER BY id LIMIT $3",
        )
        .bind(account.to_string())
        .bind(after.map(|a| a.to_string()).unwrap_or_default())
        .bind(limit)
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| {
                let id = parse_uuid(&r.try_get::<String, _>("id")?, "raw event")?;
                Ok((id, r.try_get::<String, _>("payload")?))
            })
            .collect()
    }

    /// Rewrites the stored normalized form of `events` (same ids, same versions: a re-reading
    /// of their raw events by today's readers) and their `event_keys`, where it changed.
    /// Events not stored are skipped. Returns how many were rewritten.
    pub async fn rewrite_events(&self, account: Uuid, events: &[TransportEvent]) -> Result<usize> {
        let account_s = account.to_string();
        let mut stored: HashMap<Uuid, String> = HashMap::new();
        for chunk in events.chunks(self.rows_per_statement(1).saturating_sub(1).max(1)) {
            let sql = format!(
                "SELECT id, body FROM transport_events WHERE account_id = $1 AND id IN ({})",
                in_list(2, chunk.len())
            );
            let mut q = sqlx::query(&sql).bind(&account_s);
            for e in chunk {
                q = q.bind(e.id.to_string());
            }
            for row in q.fetch_all(self.pool()).await? {
                let id = parse_uuid(&row.try_get::<String, _>("id")?, "transport event")?;
                stored.insert(id, row.try_get("body")?);
            }
        }
        let mut changed: Vec<(&TransportEvent, String)> = Vec::new();
        for e in events {
            let body = serde_json::to_string(&e.event).unwrap_or_default();
            if stored.get(&e.id).is_some_and(|old| *old != body) {
                changed.push((e, body));
            }
        }
        let mut tx = self.pool.begin().await?;
        for (e, body) in &changed {
            sqlx::query(
                "UPDATE transport_events SET body = $3, container_number = $4, bill_of_lading = $5, booking = $6 \
                 WHERE account_id = $1 AND id = $2",
            )
            .bind(&account_s)
            .bind(e.id.to_string())
            .bind(body)
            .bind(e.event.container_number())
            .bind(e.event.bill_of_lading())
            .bind(e.event.booking())
            .execute(self.counted(&mut tx))
            .await?;
        }
        let written: Vec<&TransportEvent> = changed.iter().map(|(e, _)| *e).collect();
        self.replace_event_keys(&mut tx, &account_s, &written)
            .await?;
        tx.commit().await?;
        Ok(changed.len())
    }

    /// Every bill of lading and booking the stored events of `account` name, sorted.
    pub async fn shipment_keys(&self, account: Uuid) -> Result<Vec<String>> {
        let rows = sqlx::query(
            "SELECT DISTINCT value FROM event_keys WHERE account_id = $1 AND kind <> 'container' ORDER BY value",
        )
        .bind(account.to_string())
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| Ok(r.try_get::<String, _>("value")?))
            .collect()
    }

    /// Records quarantined rows; the same row of the same file is recorded once.
    pub async fn insert_quarantine(&self, account: Uuid, rows: &[Quarantined]) -> Result<()> {
        let now = ts(Utc::now());
        // Two reasons for one field of one row: the later is kept, as before on SQLite.
        let rows = one_per_key(
            rows.iter().map(|r| {
                let index = r.index.map(|i| i.to_string()).unwrap_or_default();
                let id = crate::ids::scoped(
                    account,
                    "quarantine",
                    &[&r.source_file, &index, &r.pointer],
                );
                (id, r)
            }),
            |_, _| true,
        );
        let mut tx = self.pool.begin().await?;
        for chunk in rows.chunks(self.rows_per_statement(8)) {
            let sql = format!(
                "INSERT INTO quarantine (id, account_id, source_file, row_index, pointer, reason, payload, created_at) \
                 VALUES {} ON CONFLICT (id) DO UPDATE SET reason = excluded.reason",
                values_placeholders(chunk.len(), 8)
            );
            let mut q = sqlx::query(&sql);
            for (id, r) in chunk {
                q = q
                    .bind(id.to_string())
                    .bind(account.to_string())
                    .bind(&r.source_file)
                    .bind(r.index.map(|i| i as i64))
                    .bind(&r.pointer)
                    .bind(&r.reason)
                    .bind(&r.payload)
                    .bind(&now);
            }
            q.execute(self.counted(&mut tx)).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Upserts terminal availability checks (row index, check, original row text) read from
    /// `source_file`. The same check (terminal, container, time) is stored once.
    pub async fn upsert_terminal_checks(
        &self,
        account: Uuid,
        source_file: &str,
        checks: &[(usize, TerminalCheck, String)],
    ) -> Result<()> {
        // The same check twice in one file: the later row wins, as a second ingest would.
        let checks = one_per_key(
            checks.iter().map(|row| {
                let c = &row.1;
                let id = crate::ids::scoped(
                    account,
                    "terminal_check",
                    &[
                        &c.terminal_id.to_string(),
                        &c.container_number,
                        &ts(c.checked_at),
                    ],
                );
                (id, row)
            }),
            |_, _| true,
        );
        let mut tx = self.pool.begin().await?;
        for chunk in checks.chunks(self.rows_per_statement(10)) {
            let sql = format!(
                "INSERT INTO terminal_checks (id, account_id, container_number, terminal_id, terminal_locode, checked_at, \
                 source_file, source_index, raw, body) VALUES {} ON CONFLICT (id) DO UPDATE SET body = excluded.body, \
                 raw = excluded.raw WHERE terminal_checks.body <> excluded.body",
                values_placeholders(chunk.len(), 10)
            );
            let mut q = sqlx::query(&sql);
            for (id, (index, c, raw)) in chunk {
                q = q
                    .bind(id.to_string())
                    .bind(account.to_string())
                    .bind(&c.container_number)
                    .bind(c.terminal_id.to_string())
                    .bind(&c.terminal_locode)
                    .bind(ts(c.checked_at))
                    .bind(source_file)
                    .bind(*index as i64)
                    .bind(raw)
                    .bind(serde_json::to_string(c).unwrap_or_default());
            }
            q.execute(self.counted(&mut tx)).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Upserts shipping-line deadlines (row index, deadline, original row text).
    pub async fn upsert_line_deadlines(
        &self,
        account: Uuid,
        source_file: &str,
        deadlines: &[(usize, LineDeadline, String)],
    ) -> Result<()> {
        let deadlines = one_per_key(
            deadlines.iter().map(|row| {
                let d = &row.1;
                let key = d
                    .container_number
                    .clone()
                    .or_else(|| d.bill_of_lading.clone())
                    .unwrap_or_default();
                let id = crate::ids::scoped(
                    account,
                    "line_deadline",
                    &[&key, &ts(d.issued_at), &ts(d.pickup_lfd_line)],
                );
                (id, row)
            }),
            |_, _| true,
        );
        let mut tx = self.pool.begin().await?;
        for chunk in deadlines.chunks(self.rows_per_statement(9)) {
            let sql = format!(
                "INSERT INTO line_deadlines (id, account_id, container_number, bill_of_lading, issued_at, source_file, \
                 source_index, raw, body) VALUES {} ON CONFLICT (id) DO UPDATE SET body = excluded.body, raw = excluded.raw \
                 WHERE line_deadlines.body <> excluded.body",
                values_placeholders(chunk.len(), 9)
            );
            let mut q = sqlx::query(&sql);
            for (id, (index, d, raw)) in chunk {
                q = q
                    .bind(id.to_string())
                    .bind(account.to_string())
                    .bind(&d.container_number)
                    .bind(&d.bill_of_lading)
                    .bind(ts(d.issued_at))
                    .bind(source_file)
                    .bind(*index as i64)
                    .bind(raw)
                    .bind(serde_json::to_string(d).unwrap_or_default());
            }
            q.execute(self.counted(&mut tx)).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Stores AIS positions (public data, shared by all accounts; see [`VesselPosition`]) read
    /// from `source_file` with their row index. A report already stored (same transmitter and
    /// time) is left as it is, so re-ingesting a file changes nothing.
    pub async fn upsert_vessel_positions(
        &self,
        source_file: &str,
        positions: &[(usize, VesselPosition)],
    ) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        for chunk in positions.chunks(self.rows_per_statement(13)) {
            let sql = format!(
                "INSERT INTO vessel_positions (id, vessel_key, mmsi, imo, vessel_name, observed_at, latitude, \
                 longitude, speed_knots, course_deg, heading_deg, source_file, source_index) VALUES {} \
                 ON CONFLICT (id) DO NOTHING",
                values_placeholders(chunk.len(), 13)
            );
            // Not cached on PostgreSQL: NULL f64 binds (see `upsert_ports`). SQLite caches it,
            // which saves parsing a statement of 5,200 parameters per chunk.
            let mut q = sqlx::query(&sql).persistent(self.backend == Backend::Sqlite);
            for (index, p) in chunk {
                let at = ts(p.observed_at);
                q = q
                    .bind(crate::ids::vessel_position_id(p.vessel_key(), &at).to_string())
                    .bind(p.vessel_key().to_string())
                    .bind(&p.mmsi)
                    .bind(&p.imo)
                    .bind(&p.vessel_name)
                    .bind(at)
                    .bind(p.latitude)
                    .bind(p.longitude)
                    .bind(p.speed_knots)
                    .bind(p.course_deg)
                    .bind(p.heading_deg)
                    .bind(source_file)
                    .bind(*index as i64);
            }
            q.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// AIS positions of the vessel with IMO number `imo` observed in `[from, to]` (either bound
    /// open when `None`), oldest first. Reports that carry the IMO count, and so do the reports
    /// of every MMSI that has reported this IMO at least once (MarineCadastre and DMA leave the
    /// IMO blank in many rows of a vessel).
    pub async fn vessel_positions(
        &self,
        imo: &str,
        from: Option<DateTime<Utc>>,
        to: Option<DateTime<Utc>>,
    ) -> Result<Vec<VesselPosition>> {
        // Two index lookups joined by UNION: with `imo = $1 OR mmsi IN (…)` PostgreSQL scanned
        // the whole table (127 ms at 822,000 positions, several times per map).
        const COLUMNS: &str = "mmsi, vessel_key, imo, vessel_name, observed_at, latitude, \
             longitude, speed_knots, course_deg, heading_deg";
        let sql = format!(
            "SELECT {COLUMNS} FROM vessel_positions WHERE imo = $1 \
             AND observed_at >= $2 AND observed_at <= $3 \
             UNION SELECT {COLUMNS} FROM vessel_positions WHERE mmsi IN \
             (SELECT DISTINCT mmsi FROM vessel_positions WHERE imo = $1 AND mmsi IS NOT NULL) \
             AND observed_at >= $2 AND observed_at <= $3 ORDER BY observed_at, vessel_key"
        );
        let rows = sqlx::query(&sql)
            .bind(imo)
            .bind(from.map(ts).unwrap_or_else(|| "0000".into()))
            .bind(to.map(ts).unwrap_or_else(|| "9999".into()))
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| {
                let mmsi: Option<String> = r.try_get("mmsi")?;
                let key: String = r.try_get("vessel_key")?;
                Ok(VesselPosition {
                    track: mmsi.is_none().then_some(key),
                    mmsi,
                    imo: r.try_get("imo")?,
                    vessel_name: r.try_get("vessel_name")?,
                    observed_at: parse_ts(
                        &r.try_get::<String, _>("observed_at")?,
                        "vessel position",
                    )?,
                    latitude: r.try_get("latitude")?,
                    longitude: r.try_get("longitude")?,
                    speed_knots: r.try_get("speed_knots")?,
                    course_deg: r.try_get("course_deg")?,
                    heading_deg: r.try_get("heading_deg")?,
                })
            })
            .collect()
    }

    /// Number of stored AIS positions (all vessels).
    pub async fn vessel_position_count(&self) -> Result<i64> {
        Ok(sqlx::query("SELECT COUNT(*) AS n FROM vessel_positions")
            .fetch_one(&self.pool)
            .await?
            .try_get("n")?)
    }

    /// Terminal checks and line deadlines of `account` for these containers and bills of lading.
    pub async fn terminal_facts(
        &self,
        account: Uuid,
        containers: &[String],
        bills_of_lading: &[String],
    ) -> Result<(Vec<TerminalCheck>, Vec<LineDeadline>)> {
        let mut checks = Vec::new();
        let mut deadlines = Vec::new();
        for chunk in containers.chunks(self.rows_per_statement(1)) {
            let list = in_list(2, chunk.len());
            for (table, is_check) in [("terminal_checks", true), ("line_deadlines", false)] {
                let sql = format!("SELECT id, body FROM {table} WHERE account_id = $1 AND container_number IN ({list})");
                let mut q = sqlx::query(&sql).bind(account.to_string());
                for c in chunk {
                    q = q.bind(c);
                }
                for row in q.fetch_all(self.pool()).await? {
                    let id: String = row.try_get("id")?;
                    let body: String = row.try_get("body")?;
                    if is_check {
                        checks.push(from_json(&body, "terminal check", &id)?);
                    } else {
                        deadlines.push(from_json(&body, "line deadline", &id)?);
                    }
                }
            }
        }
        for chunk in bills_of_lading.chunks(self.rows_per_statement(1)) {
            let sql = format!(
                "SELECT id, body FROM line_deadlines WHERE account_id = $1 AND container_number IS NULL \
                 AND bill_of_lading IN ({})",
                in_list(2, chunk.len())
            );
            let mut q = sqlx::query(&sql).bind(account.to_string());
            for b in chunk {
                q = q.bind(b);
            }
            for row in q.fetch_all(self.pool()).await? {
                let id: String = row.try_get("id")?;
                deadlines.push(from_json(
                    &row.try_get::<String, _>("body")?,
                    "line deadline",
                    &id,
                )?);
            }
        }
        Ok((checks, deadlines))
    }

    /// All stored events of `account` that name one of the containers, bills of lading or
    /// bookings given (the input of a re-derivation).
    pub async fn events_matching(
        &self,
        account: Uuid,
        containers: &[String],
        bills_of_lading: &[String],
        bookings: &[String],
    ) -> Result<Vec<TransportEvent>> {
        let mut found: HashMap<Uuid, TransportEvent> = HashMap::new();
        for (kind, values) in [
            ("container", containers),
            ("bill_of_lading", bills_of_lading),
            ("booking", bookings),
        ] {
            for chunk in values.chunks(self.rows_per_statement(1).saturating_sub(2).max(1)) {
                // CROSS JOIN: walk the key index first, then the events by primary key.
                let sql = format!(
                    "SELECT DISTINCT e.id, e.raw_event_id, e.body FROM event_keys k CROSS JOIN transport_events e \
                     WHERE k.account_id = $1 AND k.kind = $2 AND k.value IN ({}) AND e.id = k.event_id",
                    in_list(3, chunk.len())
                );
                let mut q = sqlx::query(&sql).bind(account.to_string()).bind(kind);
                for v in chunk {
                    q = q.bind(v);
                }
                for row in q.fetch_all(self.pool()).await? {
                    let e = event_row(&row)?;
                    found.insert(e.id, e);
                }
            }
        }
        let mut events: Vec<TransportEvent> = found.into_values().collect();
        events.sort_by(|a, b| {
            (a.event.event_at, &a.event.event_id).cmp(&(b.event.event_at, &b.event.event_id))
        });
        Ok(events)
    }

    /// Upserts derived shipments and containers and their event links. A row whose content is
    /// unchanged keeps its `refreshed_at`; every row keeps its first `created_at`. Returns the
    /// ids of the rows inserted or changed (what change notifications report).
    ///
    /// `scope` is what the derivation read: derived rows and event links inside it that the
    /// derivation no longer produces (a shipment first keyed by its booking, then by its bill of
    /// lading; an event that moved to another container) are deleted in the same transaction,
    /// so the tables depend only on the stored events, not on the order files arrived in.
    /// Pass [`DerivationScope::default`] to only add.
    ///
    /// `history` is the stored events the derivation read (those `links` point at): the
    /// per-event webhook rules (`crate::webhooks::event_rules`) name the actual events newly
    /// linked to each container. Pass `&[]` when there are none.
    pub async fn upsert_derived(
        &self,
        account: Uuid,
        shipments: &[Shipment],
        containers: &[Container],
        links: &[(Uuid, Uuid)],
        scope: &DerivationScope,
        history: &[TransportEvent],
    ) -> Result<DerivedChanges> {
        let mut changes = DerivedChanges::default();
        let account_s = account.to_string();
        // Webhooks: what was stored before, read only when the account has an active webhook.
        // Read before the transaction: on SQLite a transaction that reads first and writes later
        // fails with SQLITE_BUSY_SNAPSHOT when another process wrote in between, and the
        // derivation lock (`crate::derive_lock`) already keeps other ingests off these rows.
        // Each record's body and content hash, computed once: compared with the stored hashes
        // below and written by the upserts.
        let shipment_bodies: Vec<(String, String)> = shipments
            .iter()
            .map(|s| {
                hashed_body(s, |s| {
                    s.created_at = DateTime::UNIX_EPOCH;
                    s.refreshed_at = DateTime::UNIX_EPOCH;
                })
            })
            .collect();
        let container_bodies: Vec<(String, String)> = containers
            .iter()
            .map(|c| {
                hashed_body(c, |c| {
                    c.created_at = DateTime::UNIX_EPOCH;
                    c.refreshed_at = DateTime::UNIX_EPOCH;
                })
            })
            .collect();
        let mut conn = self.pool.acquire().await?;
        let hooks =
            crate::webhooks::outbox::subscriptions(self.counted(&mut conn), &account_s).await?;
        let before = if hooks.is_empty() {
            None
        } else {
            let (old_containers, old_shipments) = self
                .stored_before(
                    &mut conn,
                    account,
                    shipments,
                    &shipment_bodies,
                    containers,
                    &container_bodies,
                )
                .await?;
            let numbers: Vec<&str> = containers.iter().map(|c| c.number.as_str()).collect();
            let seen = self
                .linked_event_numbers(&mut conn, &account_s, &numbers)
                .await?;
            Some((old_containers, old_shipments, seen))
        };
        drop(conn);
        let mut tx = self.pool.begin().await?;
        let per = self.rows_per_statement(12);
        for (chunk, bodies) in shipments.chunks(per).zip(shipment_bodies.chunks(per)) {
            let sql = format!(
                "INSERT INTO shipments (id, account_id, bill_of_lading_number, created_at, refreshed_at, content_hash, body, \
                 pol_locode, pod_locode, shipping_line_scac, pod_eta_at, filters_at) \
                 VALUES {} ON CONFLICT (id) DO UPDATE SET bill_of_lading_number = excluded.bill_of_lading_number, \
                 refreshed_at = excluded.refreshed_at, content_hash = excluded.content_hash, body = excluded.body, \
                 pol_locode = excluded.pol_locode, pod_locode = excluded.pod_locode, \
                 shipping_line_scac = excluded.shipping_line_scac, pod_eta_at = excluded.pod_eta_at, \
                 filters_at = excluded.filters_at \
                 WHERE shipments.content_hash <> excluded.content_hash RETURNING id",
                values_placeholders(chunk.len(), 12)
            );
            let mut q = sqlx::query(&sql);
            for (s, (hash, body)) in chunk.iter().zip(bodies) {
                q = q
                    .bind(s.id.to_string())
                    .bind(&account_s)
                    .bind(&s.bill_of_lading_number)
                    .bind(ts(s.created_at))
                    .bind(ts(s.refreshed_at))
                    .bind(hash)
                    .bind(body);
                let f = ShipmentFilterColumns::of(s);
                q = q
                    .bind(f.pol_locode)
                    .bind(f.pod_locode)
                    .bind(f.shipping_line_scac)
                    .bind(f.pod_eta_at)
                    .bind(ts(s.refreshed_at));
            }
            changes
                .shipments
                .extend(returned_ids(q.fetch_all(self.counted(&mut tx)).await?)?);
        }
        let per = self.rows_per_statement(13);
        for (chunk, bodies) in containers.chunks(per).zip(container_bodies.chunks(per)) {
            let sql = format!(
                "INSERT INTO containers (id, account_id, shipment_id, number, current_status, pod_locode, created_at, \
                 refreshed_at, content_hash, body, pickup_lfd, has_holds, filters_at) VALUES {} ON CONFLICT (id) DO UPDATE SET \
                 shipment_id = excluded.shipment_id, number = excluded.number, current_status = excluded.current_status, \
                 pod_locode = excluded.pod_locode, refreshed_at = excluded.refreshed_at, \
                 content_hash = excluded.content_hash, body = excluded.body, pickup_lfd = excluded.pickup_lfd, \
                 has_holds = excluded.has_holds, filters_at = excluded.filters_at \
                 WHERE containers.content_hash <> excluded.content_hash RETURNING id",
                values_placeholders(chunk.len(), 13)
            );
            let mut q = sqlx::query(&sql);
            for (c, (hash, body)) in chunk.iter().zip(bodies) {
                q = q
                    .bind(c.id.to_string())
                    .bind(&account_s)
                    .bind(c.shipment_id.to_string())
                    .bind(&c.number)
                    .bind(c.current_status.as_str())
                    .bind(&c.pod_locode)
                    .bind(ts(c.created_at))
                    .bind(ts(c.refreshed_at))
                    .bind(hash)
                    .bind(body);
                let (pickup_lfd, has_holds) = container_filter_columns(c);
                q = q.bind(pickup_lfd).bind(has_holds).bind(ts(c.refreshed_at));
            }
            changes
                .containers
                .extend(returned_ids(q.fetch_all(self.counted(&mut tx)).await?)?);
        }
        self.remove_stale(&mut tx, &account_s, shipments, containers, links, scope)
            .await?;
        for chunk in links.chunks(self.rows_per_statement(3)) {
            let sql = format!(
                "INSERT INTO container_events (container_id, event_id, account_id) VALUES {} \
                 ON CONFLICT (container_id, event_id) DO NOTHING",
                values_placeholders(chunk.len(), 3)
            );
            let mut q = sqlx::query(&sql);
            for (c, e) in chunk {
                q = q.bind(c.to_string()).bind(e.to_string()).bind(&account_s);
            }
            q.execute(self.counted(&mut tx)).await?;
        }
        if let Some((old_containers, old_shipments, seen)) = before {
            let mut emissions = crate::webhooks::rules::emissions(
                &old_containers,
                &old_shipments,
                shipments,
                containers,
                &changes,
            );
            emissions.extend(crate::webhooks::event_rules::event_emissions(
                containers, shipments, history, links, &seen,
            ));
            changes.notifications = crate::webhooks::outbox::enqueue(
                self.counted(&mut tx),
                &account_s,
                &hooks,
                &emissions,
            )
            .await?;
        }
        tx.commit().await?;
        Ok(changes)
    }

    /// What the webhook rules compare a derivation with (`crate::webhooks::rules::emissions`):
    /// the stored containers and shipments, by id, for every record the rules look at. Only
    /// records whose stored `content_hash` differs from `*_bodies`' are read and parsed; an
    /// unchanged record (same hash: the same body but for its `created_at`/`refreshed_at`,
    /// which no rule compares) stands for itself, and a record not stored yet is absent.
    async fn stored_before(
        &self,
        conn: &mut sqlx::AnyConnection,
        account: Uuid,
        shipments: &[Shipment],
        shipment_bodies: &[(String, String)],
        containers: &[Container],
        container_bodies: &[(String, String)],
    ) -> Result<(HashMap<Uuid, Container>, HashMap<Uuid, Shipment>)> {
        const SHIPMENT_HASHES: &str =
            "SELECT id, content_hash FROM shipments WHERE account_id = $1 AND id IN";
        const CONTAINER_HASHES: &str =
            "SELECT id, content_hash FROM containers WHERE account_id = $1 AND id IN";
        let ids: Vec<Uuid> = shipments.iter().map(|s| s.id).collect();
        let stored: HashMap<Uuid, String> = self
            .select_in_on(conn, SHIPMENT_HASHES, account, &ids, hash_row)
            .await?
            .into_iter()
            .collect();
        let changed_shipments: HashSet<Uuid> = shipments
            .iter()
            .zip(shipment_bodies)
            .filter(|(s, (hash, _))| stored.get(&s.id) != Some(hash))
            .map(|(s, _)| s.id)
            .collect();
        let ids: Vec<Uuid> = containers.iter().map(|c| c.id).collect();
        let stored_containers: HashMap<Uuid, String> = self
            .select_in_on(conn, CONTAINER_HASHES, account, &ids, hash_row)
            .await?
            .into_iter()
            .collect();
        let mut old_containers = HashMap::new();
        let mut read_containers = Vec::new();
        for (c, (hash, _)) in containers.iter().zip(container_bodies) {
            match stored_containers.get(&c.id) {
                None => {}
                Some(h) if h != hash => read_containers.push(c.id),
                Some(_) if changed_shipments.contains(&c.shipment_id) => {
                    old_containers.insert(c.id, c.clone());
                }
                Some(_) => {}
            }
        }
        old_containers.extend(
            self.select_in_on(
                conn,
                CONTAINER_SELECT,
                account,
                &read_containers,
                container_row,
            )
            .await?
            .into_iter()
            .map(|c| (c.id, c)),
        );
        let read_shipments: Vec<Uuid> = changed_shipments
            .iter()
            .copied()
            .filter(|id| stored.contains_key(id))
            .collect();
        let mut old_shipments: HashMap<Uuid, Shipment> = shipments
            .iter()
            .filter(|s| stored.contains_key(&s.id) && !changed_shipments.contains(&s.id))
            .map(|s| (s.id, s.clone()))
            .collect();
        old_shipments.extend(
            self.select_in_on(
                conn,
                SHIPMENT_SELECT,
                account,
                &read_shipments,
                shipment_row,
            )
            .await?
            .into_iter()
            .map(|s| (s.id, s)),
        );
        Ok((old_containers, old_shipments))
    }

    /// The (container number, event id) pairs linked to the account's stored containers with
    /// one of `numbers`, read on `conn`: what the per-event webhook rules already saw.
    async fn linked_event_numbers(
        &self,
        conn: &mut sqlx::AnyConnection,
        account: &str,
        numbers: &[&str],
    ) -> Result<HashSet<(String, Uuid)>> {
        let mut numbers = numbers.to_vec();
        numbers.sort_unstable();
        numbers.dedup();
        let mut seen = HashSet::new();
        for chunk in numbers.chunks(self.rows_per_statement(1).saturating_sub(1).max(1)) {
            let sql = format!(
                "SELECT c.number, l.event_id FROM containers c CROSS JOIN container_events l \
                 WHERE c.account_id = $1 AND c.number IN ({}) AND l.container_id = c.id",
                in_list(2, chunk.len())
            );
            let mut q = sqlx::query(&sql).bind(account);
            for n in chunk {
                q = q.bind(*n);
            }
            for row in q.fetch_all(self.counted(conn)).await? {
                let event = parse_uuid(&row.try_get::<String, _>("event_id")?, "container event")?;
                seen.insert((row.try_get::<String, _>("number")?, event));
            }
        }
        Ok(seen)
    }

    /// Deletes the derived rows and links of `scope` that this derivation did not produce (see
    /// [`Store::upsert_derived`]). Tracking requests that pointed at a deleted shipment go back
    /// to `pending`, so that the next link finds the shipment that replaced it.
    async fn remove_stale(
        &self,
        tx: &mut sqlx::AnyConnection,
        account: &str,
        shipments: &[Shipment],
        containers: &[Container],
        links: &[(Uuid, Uuid)],
        scope: &DerivationScope,
    ) -> Result<()> {
        let derived_shipments: HashSet<Uuid> = shipments.iter().map(|s| s.id).collect();
        let derived_containers: HashSet<Uuid> = containers.iter().map(|c| c.id).collect();
        let new_links: HashSet<(Uuid, Uuid)> = links.iter().copied().collect();
        let width = self.rows_per_statement(1).saturating_sub(2).max(1);

        let mut stale_shipments = Vec::new();
        for chunk in scope.shipment_keys.chunks(width) {
            let sql = format!(
                "SELECT id FROM shipments WHERE account_id = $1 AND bill_of_lading_number IN ({})",
                in_list(2, chunk.len())
            );
            let mut q = sqlx::query(&sql).bind(account);
            for k in chunk {
                q = q.bind(k);
            }
            for id in returned_ids(q.fetch_all(self.counted(tx)).await?)? {
                if !derived_shipments.contains(&id) {
                    stale_shipments.push(id);
                }
            }
        }
        let in_scope: HashSet<Uuid> = derived_shipments
            .iter()
            .chain(&stale_shipments)
            .copied()
            .collect();
        let mut stale_containers = BTreeSet::new();
        for chunk in scope.containers.chunks(width) {
            let sql = format!(
                "SELECT id, shipment_id FROM containers WHERE account_id = $1 AND number IN ({})",
                in_list(2, chunk.len())
            );
            let mut q = sqlx::query(&sql).bind(account);
            for n in chunk {
                q = q.bind(n);
            }
            for row in q.fetch_all(self.counted(tx)).await? {
                let id = parse_uuid(&row.try_get::<String, _>("id")?, "container")?;
                let shipment = parse_uuid(&row.try_get::<String, _>("shipment_id")?, "shipment")?;
                if in_scope.contains(&shipment) && !derived_containers.contains(&id) {
                    stale_containers.insert(id);
                }
            }
        }
        for chunk in stale_shipments.chunks(width) {
            let sql = format!(
                "SELECT id FROM containers WHERE account_id = $1 AND shipment_id IN ({})",
                in_list(2, chunk.len())
            );
            let mut q = sqlx::query(&sql).bind(account);
            for id in chunk {
                q = q.bind(id.to_string());
            }
            stale_containers.extend(returned_ids(q.fetch_all(self.counted(tx)).await?)?);
        }
        // Links of the scope's events that this derivation did not produce.
        let mut stale_links = Vec::new();
        for chunk in scope.event_ids.chunks(width) {
            let sql = format!(
                "SELECT container_id, event_id FROM container_events WHERE account_id = $1 AND event_id IN ({})",
                in_list(2, chunk.len())
            );
            let mut q = sqlx::query(&sql).bind(account);
            for id in chunk {
                q = q.bind(id.to_string());
            }
            for row in q.fetch_all(self.counted(tx)).await? {
                let c = parse_uuid(&row.try_get::<String, _>("container_id")?, "container")?;
                let e = parse_uuid(&row.try_get::<String, _>("event_id")?, "event")?;
                if !new_links.contains(&(c, e)) && !stale_containers.contains(&c) {
                    stale_links.push((c, e));
                }
            }
        }
        for (c, e) in &stale_links {
            sqlx::query(
                "DELETE FROM container_events WHERE account_id = $1 AND container_id = $2 AND event_id = $3",
            )
            .bind(account)
            .bind(c.to_string())
            .bind(e.to_string())
            .execute(self.counted(tx))
            .await?;
        }
        let stale_containers: Vec<Uuid> = stale_containers.into_iter().collect();
        for (table, column, ids) in [
            ("container_events", "container_id", &stale_containers),
            ("containers", "id", &stale_containers),
            ("shipment_tags", "shipment_id", &stale_shipments),
            ("shipments", "id", &stale_shipments),
        ] {
            for chunk in ids.chunks(width) {
                let sql = format!(
                    "DELETE FROM {table} WHERE account_id = $1 AND {column} IN ({})",
                    in_list(2, chunk.len())
                );
                let mut q = sqlx::query(&sql).bind(account);
                for id in chunk {
                    q = q.bind(id.to_string());
                }
                q.execute(self.counted(tx)).await?;
            }
        }
        for chunk in stale_shipments.chunks(width) {
            let sql = format!(
                "UPDATE tracking_requests SET status = '{}', shipment_id = NULL \
                 WHERE account_id = $1 AND shipment_id IN ({})",
                crate::tracking_requests::PENDING,
                in_list(2, chunk.len())
            );
            let mut q = sqlx::query(&sql).bind(account);
            for id in chunk {
                q = q.bind(id.to_string());
            }
            q.execute(self.counted(tx)).await?;
        }
        Ok(())
    }

    // ---- reads ----------------------------------------------------------------------------

    /// The account's containers with these ids (unknown or foreign ids are skipped), in no
    /// particular order.
    pub async fn containers_by_ids(&self, account: Uuid, ids: &[Uuid]) -> Result<Vec<Container>> {
        self.select_in(CONTAINER_SELECT, account, ids, container_row)
            .await
    }

    /// The account's containers of these shipments, ordered by shipment then number.
    pub async fn containers_of_shipments(
        &self,
        account: Uuid,
        shipment_ids: &[Uuid],
    ) -> Result<Vec<Container>> {
        let mut items = self
            .select_in(
                "SELECT id, created_at, refreshed_at, body FROM containers WHERE account_id = $1 AND shipment_id IN",
                account,
                shipment_ids,
                container_row,
            )
            .await?;
        items.sort_by(|a, b| (a.shipment_id, &a.number).cmp(&(b.shipment_id, &b.number)));
        Ok(items)
    }

    /// The ids of the account's containers of each of `shipment_ids`, ordered by container
    /// number (the order of [`Store::containers_of_shipments`]), without reading their bodies.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] on a failed query, [`StoreError::Corrupt`] on an unreadable id.
    pub async fn container_ids_of_shipments(
        &self,
        account: Uuid,
        shipment_ids: &[Uuid],
    ) -> Result<HashMap<Uuid, Vec<Uuid>>> {
        fn row(r: &AnyRow) -> Result<(Uuid, Uuid, String)> {
            Ok((
                parse_uuid(&r.try_get::<String, _>("shipment_id")?, "container")?,
                parse_uuid(&r.try_get::<String, _>("id")?, "container")?,
                r.try_get("number")?,
            ))
        }
        let mut rows = self
            .select_in(
                "SELECT id, shipment_id, number FROM containers WHERE account_id = $1 AND shipment_id IN",
                account,
                shipment_ids,
                row,
            )
            .await?;
        rows.sort_by(|a, b| (a.0, &a.2).cmp(&(b.0, &b.2)));
        let mut out: HashMap<Uuid, Vec<Uuid>> = HashMap::new();
        for (shipment, container, _) in rows {
            out.entry(shipment).or_default().push(container);
        }
        Ok(out)
    }

    /// The account's shipments with these ids (unknown or foreign ids are skipped).
    pub async fn shipments_by_ids(&self, account: Uuid, ids: &[Uuid]) -> Result<Vec<Shipment>> {
        self.select_in(SHIPMENT_SELECT, account, ids, shipment_row)
            .await
    }

    /// The account's container `id`, if it exists.
    pub async fn container(&self, account: Uuid, id: Uuid) -> Result<Option<Container>> {
        Ok(self.containers_by_ids(account, &[id]).await?.pop())
    }

    /// The account's shipment `id`, if it exists.
    pub async fn shipment(&self, account: Uuid, id: Uuid) -> Result<Option<Shipment>> {
        Ok(self.shipments_by_ids(account, &[id]).await?.pop())
    }

    /// The events of each container, ordered by event time (then event id).
    pub async fn events_of_containers(
        &self,
        account: Uuid,
        container_ids: &[Uuid],
    ) -> Result<HashMap<Uuid, Vec<TransportEvent>>> {
        let mut out: HashMap<Uuid, Vec<TransportEvent>> = HashMap::new();
        for chunk in container_ids.chunks(self.rows_per_statement(1)) {
            // CROSS JOIN makes SQLite walk the links of the page's containers first (primary
            // key lookups); with a plain JOIN it chose the account's events index and scanned
            // every event of the account (130 ms for a page of 30 among 11,000 events).
            // PostgreSQL plans both forms the same way.
            let sql = format!(
                "SELECT ce.container_id, e.id, e.raw_event_id, e.body FROM container_events ce \
                 CROSS JOIN transport_events e \
                 WHERE e.id = ce.event_id AND ce.account_id = $1 AND e.account_id = $1 \
                 AND ce.container_id IN ({}) ORDER BY e.event_at, e.id",
                in_list(2, chunk.len())
            );
            let mut q = sqlx::query(&sql).bind(account.to_string());
            for id in chunk {
                q = q.bind(id.to_string());
            }
            for row in q.fetch_all(self.pool()).await? {
                let container: String = row.try_get("container_id")?;
                out.entry(parse_uuid(&container, "container")?)
                    .or_default()
                    .push(event_row(&row)?);
            }
        }
        Ok(out)
    }

    /// Quarantined rows of the account, by file and index.
    pub async fn quarantined(&self, account: Uuid) -> Result<Vec<Quarantined>> {
        let rows = sqlx::query(
            "SELECT source_file, row_index, pointer, reason, payload FROM quarantine WHERE account_id = $1 \
             ORDER BY source_file, row_index, pointer",
        )
        .bind(account.to_string())
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| {
                Ok(Quarantined {
                    source_file: r.try_get("source_file")?,
                    index: r
                        .try_get::<Option<i64>, _>("row_index")?
                        .map(|i| i as usize),
                    pointer: r.try_get("pointer")?,
                    reason: r.try_get("reason")?,
                    payload: r.try_get("payload")?,
                })
            })
            .collect()
    }

    /// Rows of `prefix` (a `SELECT … WHERE account_id = $1 AND id IN`) for `ids`, read with
    /// `read`; several statements when `ids` is longer than one statement may bind.
    pub(crate) async fn select_in<T>(
        &self,
        prefix: &str,
        account: Uuid,
        ids: &[Uuid],
        read: fn(&AnyRow) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut conn = self.pool.acquire().await?;
        self.select_in_on(&mut conn, prefix, account, ids, read)
            .await
    }

    /// [`Store::select_in`] on a given connection (a transaction's).
    async fn select_in_on<T>(
        &self,
        conn: &mut sqlx::AnyConnection,
        prefix: &str,
        account: Uuid,
        ids: &[Uuid],
        read: fn(&AnyRow) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut out = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(self.rows_per_statement(1)) {
            let sql = format!("{prefix} ({})", in_list(2, chunk.len()));
            let mut q = sqlx::query(&sql).bind(account.to_string());
            for id in chunk {
                q = q.bind(id.to_string());
            }
            for row in q.fetch_all(self.counted(conn)).await? {
                out.push(read(&row)?);
            }
        }
        Ok(out)
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

/// SHA-256 of the record's JSON with its bookkeeping timestamps blanked, and the JSON itself.
fn hashed_body<T: serde::Serialize + Clone>(
    record: &T,
    blank: impl FnOnce(&mut T),
) -> (String, String) {
    let body = serde_json::to_string(record).unwrap_or_default();
    let mut plain = record.clone();
    blank(&mut plain);
    let hash = hex::encode(Sha256::digest(
        serde_json::to_vec(&plain).unwrap_or_default(),
    ));
    (hash, body)
}

/// An (id, content_hash) row.
fn hash_row(r: &AnyRow) -> Result<(Uuid, String)> {
    let id: String = r.try_get("id")?;
    Ok((parse_uuid(&id, "content hash")?, r.try_get("content_hash")?))
}

fn account_row(r: &AnyRow) -> Result<Account> {
    let id: String = r.try_get("id")?;
    Ok(Account {
        id: parse_uuid(&id, "account")?,
        name: r.try_get("name")?,
        company_name: r.try_get("company_name")?,
        routing_data: r.try_get::<i64, _>("routing_data")? != 0,
        created_at: parse_ts(&r.try_get::<String, _>("created_at")?, "account")?,
    })
}

pub(crate) fn container_row(r: &AnyRow) -> Result<Container> {
    let id: String = r.try_get("id")?;
    let mut c: Container = from_json(&r.try_get::<String, _>("body")?, "container", &id)?;
    c.created_at = parse_ts(&r.try_get::<String, _>("created_at")?, "container")?;
    c.refreshed_at = parse_ts(&r.try_get::<String, _>("refreshed_at")?, "container")?;
    Ok(c)
}

pub(crate) fn shipment_row(r: &AnyRow) -> Result<Shipment> {
    let id: String = r.try_get("id")?;
    let mut s: Shipment = from_json(&r.try_get::<String, _>("body")?, "shipment", &id)?;
    s.created_at = parse_ts(&r.try_get::<String, _>("created_at")?, "shipment")?;
    s.refreshed_at = parse_ts(&r.try_get::<String, _>("refreshed_at")?, "shipment")?;
    s.tags = from_json(&r.try_get::<String, _>("tags")?, "shipment tags", &id)?;
    // The user's stop (stopTracking) wins over what the feeds derived; resuming shows theirs.
    if let Some(stopped) = r.try_get::<Option<String>, _>("user_stopped_at")? {
        s.line_tracking_stopped_at = Some(parse_ts(&stopped, "shipment")?);
        s.line_tracking_stopped_reason = Some(STOPPED_BY_USER.to_string());
    }
    // The user's reference numbers follow the feeds' (`crate::shipment_edits`).
    if let Some(user) = r.try_get::<Option<String>, _>("user_ref_numbers")? {
        let user: Vec<String> = from_json(&user, "shipment ref numbers", &id)?;
        s.ref_numbers = crate::shipment_edits::merged_ref_numbers(&s.ref_numbers, &user);
    }
    Ok(s)
}

fn event_row(r: &AnyRow) -> Result<TransportEvent> {
    let id: String = r.try_get("id")?;
    let raw: String = r.try_get("raw_event_id")?;
    let event: crate::model::EventRow =
        from_json(&r.try_get::<String, _>("body")?, "transport event", &id)?;
    let timezone = event
        .locode
        .as_deref()
        .and_then(|l| crate::reference::bundled().0.get(l))
        .and_then(|p| p.time_zone.clone());
    Ok(TransportEvent {
        id: parse_uuid(&id, "transport event")?,
        raw_event_id: parse_uuid(&raw, "raw event")?,
        timezone,
        event,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_and_redaction() {
        assert_eq!(values_placeholders(2, 2), "($1, $2), ($3, $4)");
        assert_eq!(in_list(2, 3), "$2, $3, $4");
        assert_eq!(redact("postgres://u:secret@h/db"), "postgres://u:***@h/db");
        assert_eq!(redact("sqlite:teu.db"), "sqlite:teu.db");
    }
}
