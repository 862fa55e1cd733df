//! PostgreSQL bulk writes on the store's native pool (`sqlx::PgPool`): each column of a batch
//! is bound as one array and expanded by `UNNEST` on the server, so a statement of thousands
//! of rows binds a handful of parameters, is parsed once and costs one round trip. Rows taken
//! for new (events, a file's terminal checks, AIS positions of a span with nothing stored, a
//! derivation's new shipments and containers) go in by binary `COPY` ([`BinaryCopy`]) and
//! through the conflict rule when a key is stored already. SQLite has no arrays; its writes are the shared multi-row statements
//! (`events.rs`, `facts.rs`).
//!
//! The statements mean what the shared ones in `events.rs` mean (same conflict rules); only
//! their shape differs.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use sqlx::postgres::PgConnection;
use sqlx::{PgPool, Row};
use uuid::Uuid;

use super::db::{to_millisecond, Conn};
use super::events::{DroppedKeys, UpsertedEvents};
use super::facts::IdentifiedCheck;
use super::listing::{container_filter_columns, ShipmentFilterColumns};

use super::{NewEvent, Result, Store, StoreError};
use teu_domain::event_names::named_actual;
use teu_domain::model::{Container, Shipment, TransportEvent, VesselPosition};

/// Rows per bulk statement: large enough that round trips do not count, small enough that a
/// statement's arrays (some 1.5 KB per event) stay a few MB.
const BULK_ROWS: usize = 2_000;

/// Writes of one kind (event upserts, a file's terminal checks, a derivation's new records)
/// that go straight to the conflict rule after a try for new met a stored row
/// ([`FreshTries`]).
const FRESH_BACKOFF: u64 = 64;

/// Whether a store's writes of one kind try a binary `COPY` of rows taken for new first: yes,
/// but for the [`FRESH_BACKOFF`] writes after a try met a stored row ([`met_stored_key`]), so
/// that a feed that repeats rows pays for at most one wasted try in that many. Shared by a
/// store's clones.
#[derive(Clone, Default)]
pub(crate) struct FreshTries(Arc<AtomicU64>);

impl FreshTries {
    /// Runs `try_new` (a write of rows taken for new, in a transaction of its own) unless the
    /// writes of this kind are backing off: `Some` of what it wrote, or `None` when the caller
    /// must write through its conflict rule (not tried, or the try met a stored key, which
    /// kept nothing and starts the backoff). `what` names the rows in the debug log.
    ///
    /// # Errors
    /// Any other error of `try_new`.
    pub(crate) async fn attempt<T>(
        &self,
        what: &str,
        try_new: impl std::future::Future<Output = Result<T>>,
    ) -> Result<Option<T>> {
        let skip = self
            .0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok();
        if skip {
            return Ok(None);
        }
        match try_new.await {
            Err(e) if met_stored_key(&e) => {
                tracing::debug!(
                    "{what} taken for new met stored ones ({e}); writing them through the \
                     conflict rule"
                );
                self.0.store(FRESH_BACKOFF, Ordering::Relaxed);
                Ok(None)
            }
            done => done.map(Some),
        }
    }
}

/// Whether `e` is a write meeting a key stored (SQLSTATE 23505, unique_violation) or two
/// writers waiting on each other's keys (40P01, deadlock_detected; PostgreSQL manual,
/// "PostgreSQL Error Codes"): a write of rows taken for new that fails so has kept nothing and
/// goes again through its conflict rule.
fn met_stored_key(e: &StoreError) -> bool {
    matches!(e, StoreError::Sql(sqlx::Error::Database(e))
        if e.is_unique_violation() || e.code().as_deref() == Some("40P01"))
}

/// A derived container taken for new, as [`copy_containers`] writes it: the container, its
/// content hash and stored body (`payloads::CONTAINER_BODIES`), and its `event_links` value.
pub(super) type NewContainer<'a> = (&'a Container, &'a (String, Vec<u8>), &'a [u8]);

/// A derived shipment taken for new, as [`copy_shipments`] writes it: the shipment, its content
/// hash and stored body (`payloads::SHIPMENT_BODIES`), and its `member_ids` value.
pub(super) type NewShipment<'a> = (&'a Shipment, &'a (String, Vec<u8>), &'a [u8]);

/// How [`Store::write_events_pg`] inserts a batch of events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EventInsert {
    /// Every event taken for new: a binary `COPY` ([`copy_events`]), which fails (SQLSTATE
    /// 23505) on an id already stored.
    Fresh,
    /// `ON CONFLICT (id) DO UPDATE … WHERE`: a stored version is replaced only by a later-issued
    /// one, or an equally old one whose stored form is greater (the rule of
    /// `Store::upsert_events`).
    ConflictRule,
}

/// The statement that inserts a chunk of events from one array per column through the conflict
/// rule of `Store::upsert_events` (a stored version is replaced only by a later-issued one, or
/// an equally old one whose stored form is greater), `RETURNING id`: the ids of the rows
/// written.
const INSERT_EVENTS_BY_RULE: &str = "INSERT INTO transport_events (id, account_id, raw_event_id, \
     event_at, issued_at, body, named_actual, vessel_imo, source_file, source_index, received_at) \
     SELECT id, $1, raw_event_id, event_at, issued_at, body, named_actual, vessel_imo, \
     source_file, source_index, $2 \
     FROM UNNEST($3::bytea[], $4::bytea[], $5::timestamptz[], $6::timestamptz[], \
     $7::bytea[], $8::bigint[], $9::text[], $10::text[], $11::bigint[]) \
     AS t (id, raw_event_id, event_at, issued_at, body, named_actual, vessel_imo, \
     source_file, source_index) \
     ON CONFLICT (id) DO UPDATE SET event_at = excluded.event_at, issued_at = excluded.issued_at, \
     body = excluded.body, named_actual = excluded.named_actual, vessel_imo = excluded.vessel_imo, \
     payload = NULL, source_file = excluded.source_file, \
     source_index = excluded.source_index, received_at = excluded.received_at \
     WHERE excluded.issued_at > transport_events.issued_at \
     OR (excluded.issued_at = transport_events.issued_at \
     AND excluded.body > transport_events.body) \
     RETURNING id";

impl Store {
    /// [`Store::upsert_events`] on PostgreSQL: `events` (one version per event id, the one the
    /// rule of `upsert_events` keeps) in one transaction on the store's PostgreSQL pool.
    ///
    /// Events are first taken for new: a binary `COPY` ([`copy_events`]), without the conflict
    /// rule, whose check of the key before each row (an index search of its own,
    /// `ExecCheckIndexConstraints`) was about half the server's B-tree work of the statement
    /// (`docs/NOTES.md`, fifty-fifth session). When one of them is stored already (SQLSTATE
    /// 23505, a repeated or replaced version, or another writer's), nothing of the transaction
    /// is kept and the whole batch goes through the conflict rule, as do the next
    /// [`FRESH_BACKOFF`] batches of this store, so that a feed that repeats events pays
    /// for at most one wasted try in that many.
    pub(super) async fn upsert_events_pg(
        &self,
        account: Uuid,
        events: &mut [&NewEvent<'_>],
        now: DateTime<Utc>,
    ) -> Result<UpsertedEvents> {
        let fresh = self.write_events_pg(account, &mut *events, now, EventInsert::Fresh);
        if let Some(written) = self.fresh_events.attempt("events", fresh).await? {
            return Ok(written);
        }
        self.write_events_pg(account, events, now, EventInsert::ConflictRule)
            .await
    }

    /// One try of [`Store::upsert_events_pg`], every event inserted as `insert` says.
    async fn write_events_pg(
        &self,
        account: Uuid,
        events: &mut [&NewEvent<'_>],
        now: DateTime<Utc>,
        insert: EventInsert,
    ) -> Result<UpsertedEvents> {
        let mut tx = self.writer().begin().await?;
        let mark = self.replacement_mark(&mut tx).await?;
        // In id order: each statement's entries go into the primary key's leaves in order.
        events.sort_unstable_by_key(|e| e.event.id);
        let written: Vec<&TransportEvent> = match insert {
            EventInsert::Fresh => {
                self.count_statement();
                copy_events(postgres(&mut tx), account, now, events).await?;
                events.iter().map(|e| e.event).collect()
            }
            EventInsert::ConflictRule => {
                self.insert_events_by_rule(postgres(&mut tx), account, now, events)
                    .await?
            }
        };
        let dropped = self
            .insert_event_keys_pg(&mut tx, account, &written)
            .await?;
        tx.commit().await?;
        Ok(UpsertedEvents {
            dropped,
            written: written.iter().map(|e| e.id).collect(),
            mark,
        })
    }

    /// `events` (in id order) through the conflict rule, [`INSERT_EVENTS_BY_RULE`] on `tx` a
    /// chunk of [`BULK_ROWS`] at a time: the events whose versions were written, in id order.
    async fn insert_events_by_rule<'e>(
        &self,
        tx: &mut PgConnection,
        account: Uuid,
        now: DateTime<Utc>,
        events: &[&NewEvent<'e>],
    ) -> Result<Vec<&'e TransportEvent>> {
        // Times go over as `timestamptz` values (8 bytes each, nothing for the server to
        // parse), cut to the millisecond as SQLite keeps them.
        let now = to_millisecond(now);
        let mut written = Vec::new();
        for chunk in events.chunks(BULK_ROWS) {
            let mut ids = Vec::with_capacity(chunk.len());
            let mut raw_ids = Vec::with_capacity(chunk.len());
            let mut event_at = Vec::with_capacity(chunk.len());
            let mut issued = Vec::with_capacity(chunk.len());
            let mut bodies = Vec::with_capacity(chunk.len());
            let mut actual = Vec::with_capacity(chunk.len());
            let mut imos = Vec::with_capacity(chunk.len());
            let mut files = Vec::with_capacity(chunk.len());
            let mut indexes = Vec::with_capacity(chunk.len());
            for e in chunk.iter() {
                let ev = &e.event.event;
                ids.push(e.event.id.as_bytes().as_slice());
                raw_ids.push(e.event.raw_event_id.as_bytes().as_slice());
                event_at.push(to_millisecond(ev.event_at));
                issued.push(to_millisecond(ev.event_created_at.unwrap_or(ev.event_at)));
                bodies.push(e.forms.stored.as_slice());
                actual.push(i64::from(named_actual(ev)));
                imos.push(ev.vessel_imo.as_ref().map(|imo| imo.as_str()));
                files.push(e.source_file);
                indexes.push(e.source_index as i64);
            }
            self.count_statement();
            let rows = sqlx::query(INSERT_EVENTS_BY_RULE)
                .bind(account.as_bytes().as_slice())
                .bind(now)
                .bind(&ids)
                .bind(&raw_ids)
                .bind(&event_at)
                .bind(&issued)
                .bind(&bodies)
                .bind(&actual)
                .bind(&imos)
                .bind(&files)
                .bind(&indexes)
                .fetch_all(&mut *tx)
                .await?;
            let returned: HashSet<&[u8]> = rows
                .iter()
                .map(|r| r.try_get::<&[u8], _>(0))
                .collect::<std::result::Result<_, _>>()?;
            written.extend(
                chunk
                    .iter()
                    .filter(|e| returned.contains(e.event.id.as_bytes().as_slice()))
                    .map(|e| e.event),
            );
        }
        Ok(written)
    }

    /// Terminal checks of `source_file` taken for new (`checks`, in id order, with their ids;
    /// `stored`: each one's raw row and body as stored) into `terminal_checks` by binary
    /// `COPY`, in a transaction of their own: the rows the shared `INSERT` writes for checks
    /// none of which is stored ([`Store::write_terminal_checks_by_rule`]).
    ///
    /// # Errors
    /// [`StoreError::Sql`] with SQLSTATE 23505 when a check's id is stored already (by an
    /// earlier file or a concurrent writer), or 40P01 when two writers wait on each other's
    /// checks; nothing is kept then.
    pub(super) async fn copy_terminal_checks_pg(
        &self,
        account: Uuid,
        source_file: &str,
        checks: &[IdentifiedCheck<'_>],
        stored: &[(Vec<u8>, Vec<u8>)],
    ) -> Result<()> {
        let mut tx = self.writer().begin().await?;
        self.count_statement();
        let mut copy = BinaryCopy::start(
            postgres(&mut tx),
            "COPY terminal_checks (id, account_id, container_number, terminal_id, \
             terminal_locode, checked_at, source_file, source_index, raw, body) \
             FROM STDIN (FORMAT binary)",
        )
        .await?;
        for ((id, (index, c, _)), (raw, body)) in checks.iter().zip(stored) {
            let buf = copy.row(10);
            copy_bytes(buf, Some(id.as_bytes()))?;
            copy_bytes(buf, Some(account.as_bytes()))?;
            copy_text(buf, Some(&c.container_number))?;
            copy_bytes(buf, Some(c.terminal_id.as_bytes()))?;
            copy_text(buf, Some(c.terminal_locode.as_str()))?;
            copy_fixed(buf, Some(copy_timestamp(c.checked_at)));
            copy_text(buf, Some(source_file))?;
            copy_fixed(buf, Some((*index as i64).to_be_bytes()));
            copy_bytes(buf, Some(raw))?;
            copy_bytes(buf, Some(body))?;
            copy.send_when_full().await?;
        }
        copy.finish().await?;
        tx.commit().await?;
        Ok(())
    }

    /// A derivation's records taken for new (shipments or containers none of which is
    /// stored) written by `copy` (a binary `COPY`: [`copy_shipments`], [`copy_containers`])
    /// inside the derivation's transaction `tx`, between a savepoint and its release. They
    /// are the rows the upserts of [`Store::upsert_derived`] insert for such records, and the
    /// account's counts follow them (the statement triggers of migration 14 fire for `COPY` as
    /// for `INSERT`). `COPY` spares the server the upsert's check of the key before each row
    /// and the parse and plan of a statement of up to 5,600 parameters (`docs/NOTES.md`,
    /// sixty-fifth session).
    ///
    /// Returns whether they were written. `false` when the store's writes of new records are
    /// backing off ([`FreshTries`]) or when one of them was stored after all (SQLSTATE 23505:
    /// another writer outside the derivation lock): the savepoint is then rolled back, the
    /// transaction goes on with nothing of the `COPY` kept, and the caller writes them through
    /// the upsert's rule. `what` names the records in the debug log.
    ///
    /// # Errors
    /// [`StoreError::Sql`] of any other failure; the caller's transaction is then lost.
    pub(super) async fn copy_new_derived_pg(
        &self,
        tx: &mut Conn,
        what: &str,
        copy: impl AsyncFnOnce(&mut PgConnection) -> Result<()>,
    ) -> Result<bool> {
        let pg = postgres(tx);
        let began = std::sync::atomic::AtomicBool::new(false);
        let fresh = async {
            sqlx::query("SAVEPOINT new_records")
                .execute(&mut *pg)
                .await?;
            began.store(true, Ordering::Relaxed);
            self.count_statement();
            copy(&mut *pg).await?;
            sqlx::query("RELEASE SAVEPOINT new_records")
                .execute(&mut *pg)
                .await?;
            Ok(())
        };
        let copied = self.fresh_derived.attempt(what, fresh).await?;
        if copied.is_none() && began.load(Ordering::Relaxed) {
            sqlx::query("ROLLBACK TO SAVEPOINT new_records")
                .execute(&mut *pg)
                .await?;
        }
        Ok(copied.is_some())
    }

    /// `Store::insert_event_keys` on PostgreSQL, in `UNNEST` statements: appends the ids of
    /// `events` (versions just written) to the `event_keys` list of every container, bill of
    /// lading and booking each names, after taking the replaced versions out of the keys they
    /// no longer name with the shared `Store::delete_replaced_keys`. Shared, not copied: sqlx
    /// prepares a statement text once per connection with the parameter types of its first
    /// run, so one text bound with other types elsewhere (a `smallint` key kind where the
    /// shared code binds a `bigint`) fails with "incorrect binary data format". Each key's row
    /// is locked by the append until the transaction ends; keys go in in key order, so two
    /// workers appending to the same keys wait for each other instead of deadlocking.
    async fn insert_event_keys_pg(
        &self,
        tx: &mut Conn,
        account: Uuid,
        events: &[&TransportEvent],
    ) -> Result<DroppedKeys> {
        let drained = self.delete_replaced_keys(tx).await?;
        let lists = super::events::key_lists(events, &drained.listed);
        for chunk in lists.chunks(BULK_ROWS * 3) {
            let kinds: Vec<i16> = chunk.iter().map(|k| k.0.code()).collect();
            let values: Vec<&str> = chunk.iter().map(|k| k.1).collect();
            let ids: Vec<&[u8]> = chunk.iter().map(|k| k.2.as_slice()).collect();
            self.count_statement();
            sqlx::query(
                "INSERT INTO event_keys (account_id, kind, value, event_ids) \
                 SELECT $1, kind, value, event_ids FROM UNNEST($2::smallint[], $3::text[], $4::bytea[]) \
                 AS t (kind, value, event_ids) \
                 ON CONFLICT (account_id, kind, value) \
                 DO UPDATE SET event_ids = event_keys.event_ids || excluded.event_ids",
            )
            .bind(account.as_bytes().as_slice())
            .bind(&kinds)
            .bind(&values)
            .bind(&ids)
            .execute(postgres(tx))
            .await?;
        }
        Ok(DroppedKeys::of(&drained.stale))
    }

    /// [`Store::upsert_vessel_positions`] on PostgreSQL, in one transaction on `pg`. The
    /// positions of a vessel with nothing stored in the batch's time span of it (a new file's,
    /// the common case) cannot meet the table's key: they go in by binary `COPY`, which costs
    /// the server about a third less than an insert that checks the key (`ON CONFLICT`)
    /// before and after each row (`docs/NOTES.md`, fifty-first session). The others go through
    /// `INSERT … ON CONFLICT DO NOTHING`, the rule of the shared statement. Then the
    /// bookkeeping, as `Store::positions_stored`.
    ///
    /// A concurrent writer may store positions of the same vessel and span between the check
    /// and the `COPY`: the `COPY` then fails on the key (SQLSTATE 23505, or 40P01 when the two
    /// wait on each other), nothing of the call is kept, and the call runs again with every
    /// position through the conflict rule.
    pub(super) async fn upsert_vessel_positions_pg(
        &self,
        pg: &PgPool,
        positions: &[(usize, VesselPosition)],
    ) -> Result<()> {
        if positions.is_empty() {
            return Ok(());
        }
        // By vessel and time, the table's key: the heap keeps a vessel's track together (a
        // map reads a vessel's leg) and both indexes grow along each vessel's run.
        let sorted = super::facts::by_vessel_and_time(positions);
        match self.store_positions_pg(pg, &sorted, positions, true).await {
            Err(e) if met_stored_key(&e) => {
                tracing::debug!(
                    "AIS positions met a concurrent writer's ({e}); storing them again through \
                     the conflict rule"
                );
                self.store_positions_pg(pg, &sorted, positions, false).await
            }
            done => done,
        }
    }

    /// One try of [`Store::upsert_vessel_positions_pg`]: `sorted` (`positions` by vessel and
    /// time) by `COPY` where nothing stored can conflict when `copy` is set, else all through
    /// the conflict rule.
    async fn store_positions_pg(
        &self,
        pg: &PgPool,
        sorted: &[&VesselPosition],
        positions: &[(usize, VesselPosition)],
        copy: bool,
    ) -> Result<()> {
        let mut tx = pg.begin().await?;
        let (mut fresh, held) = if copy {
            let holding = self.vessels_holding_positions(&mut tx, sorted).await?;
            sorted
                .iter()
                .copied()
                .partition(|p| !holding.contains(p.vessel_key()))
        } else {
            (Vec::new(), sorted.to_vec())
        };
        // A report given twice is one row of the key (transmitter, millisecond): the first
        // is kept, as `ON CONFLICT DO NOTHING` keeps it. Sorted by time, repeats are adjacent.
        fresh.dedup_by(|later, first| {
            later.vessel_key() == first.vessel_key()
                && later.observed_at.timestamp_millis() == first.observed_at.timestamp_millis()
        });
        if !fresh.is_empty() {
            self.count_statement();
            copy_positions(&mut tx, &fresh).await?;
        }
        for chunk in held.chunks(BULK_ROWS * 5) {
            let keys: Vec<&str> = chunk.iter().map(|p| p.vessel_key()).collect();
            let at: Vec<DateTime<Utc>> = chunk
                .iter()
                .map(|p| crate::db::to_millisecond(p.observed_at))
                .collect();
            let imos: Vec<Option<&str>> = chunk
                .iter()
                .map(|p| p.imo.as_ref().map(|imo| imo.as_str()))
                .collect();
            let names: Vec<Option<&str>> = chunk.iter().map(|p| p.vessel_name.as_deref()).collect();
            let lat: Vec<f64> = chunk.iter().map(|p| p.latitude).collect();
            let lon: Vec<f64> = chunk.iter().map(|p| p.longitude).collect();
            let speed: Vec<Option<f64>> = chunk.iter().map(|p| p.speed_knots).collect();
            let course: Vec<Option<f64>> = chunk.iter().map(|p| p.course_deg).collect();
            let heading: Vec<Option<f64>> = chunk.iter().map(|p| p.heading_deg).collect();
            self.count_statement();
            sqlx::query(
                "INSERT INTO vessel_positions (vessel_key, observed_at, imo, vessel_name, latitude, \
                 longitude, speed_knots, course_deg, heading_deg) \
                 SELECT * FROM UNNEST($1::text[], $2::timestamptz[], $3::text[], $4::text[], \
                 $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::float8[]) \
                 ON CONFLICT (vessel_key, observed_at) DO NOTHING",
            )
            .bind(&keys)
            .bind(&at)
            .bind(&imos)
            .bind(&names)
            .bind(&lat)
            .bind(&lon)
            .bind(&speed)
            .bind(&course)
            .bind(&heading)
            .execute(&mut *tx)
            .await?;
        }
        // The bookkeeping of `Store::positions_stored`: the (MMSI, IMO) pairs reported, then
        // one more track version for every IMO of the positions or reported by their MMSIs.
        let (pairs, mmsis, imos) = super::facts::reported_identities(positions);
        let (pair_mmsis, pair_imos): (Vec<&str>, Vec<&str>) = pairs.into_iter().unzip();
        self.count_statement();
        sqlx::query(
            "INSERT INTO vessel_identities (mmsi, imo) SELECT * FROM UNNEST($1::text[], $2::text[]) \
             ON CONFLICT DO NOTHING",
        )
        .bind(&pair_mmsis)
        .bind(&pair_imos)
        .execute(&mut *tx)
        .await?;
        self.count_statement();
        sqlx::query(
            "INSERT INTO track_versions (imo, version) \
             SELECT imo, 1 FROM (SELECT imo FROM UNNEST($1::text[]) AS t (imo) \
             UNION SELECT imo FROM vessel_identities WHERE mmsi = ANY($2::text[])) AS touched \
             ON CONFLICT (imo) DO UPDATE SET version = track_versions.version + 1",
        )
        .bind(&imos)
        .bind(&mmsis)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The transmitters ([`VesselPosition::vessel_key`]) of `sorted` (positions by vessel and
    /// time) that have a position stored between their first and last time in `sorted`, the
    /// bounds included: the only ones whose positions may meet the table's key. One statement,
    /// an index descent per transmitter.
    async fn vessels_holding_positions(
        &self,
        tx: &mut PgConnection,
        sorted: &[&VesselPosition],
    ) -> Result<HashSet<String>> {
        let (mut keys, mut first, mut last) = (Vec::<&str>::new(), Vec::new(), Vec::new());
        for p in sorted {
            let at = crate::db::to_millisecond(p.observed_at);
            if keys.last() == Some(&p.vessel_key()) {
                if let Some(l) = last.last_mut() {
                    *l = at;
                }
            } else {
                keys.push(p.vessel_key());
                first.push(at);
                last.push(at);
            }
        }
        self.count_statement();
        let holding: Vec<String> = sqlx::query_scalar(
            "SELECT f.vessel_key FROM UNNEST($1::text[], $2::timestamptz[], $3::timestamptz[]) \
             AS f (vessel_key, first_at, last_at) WHERE EXISTS (SELECT 1 FROM vessel_positions p \
             WHERE p.vessel_key = f.vessel_key AND p.observed_at BETWEEN f.first_at AND f.last_at)",
        )
        .bind(&keys)
        .bind(&first)
        .bind(&last)
        .fetch_all(&mut *tx)
        .await?;
        Ok(holding.into_iter().collect())
    }
}

/// Bytes of `COPY` data sent at a time ([`BinaryCopy`]): some 2,500 positions or 600 events,
/// so the server works on one part while the next is encoded.
const COPY_CHUNK: usize = 256 * 1024;

/// `positions` (distinct by transmitter and millisecond, none of them stored) into
/// `vessel_positions` by `COPY … FROM STDIN (FORMAT binary)` on `tx` ([`BinaryCopy`]).
///
/// # Errors
/// [`StoreError::Sql`] when the server refuses a row (its key stored meanwhile, text it cannot
/// hold) or the connection fails; a text longer than 2 GiB is refused before it is sent.
async fn copy_positions(tx: &mut PgConnection, positions: &[&VesselPosition]) -> Result<()> {
    let mut copy = BinaryCopy::start(
        tx,
        "COPY vessel_positions (vessel_key, observed_at, imo, vessel_name, latitude, \
         longitude, speed_knots, course_deg, heading_deg) FROM STDIN (FORMAT binary)",
    )
    .await?;
    for p in positions {
        let buf = copy.row(9);
        copy_text(buf, Some(p.vessel_key()))?;
        copy_fixed(buf, Some(copy_timestamp(p.observed_at)));
        copy_text(buf, p.imo.as_ref().map(|imo| imo.as_str()))?;
        copy_text(buf, p.vessel_name.as_deref())?;
        for value in [
            Some(p.latitude),
            Some(p.longitude),
            p.speed_knots,
            p.course_deg,
            p.heading_deg,
        ] {
            copy_fixed(buf, value.map(f64::to_be_bytes));
        }
        copy.send_when_full().await?;
    }
    copy.finish().await
}

/// `events` (versions of ids none of which is stored, distinct, in id order) into
/// `transport_events` by `COPY … FROM STDIN (FORMAT binary)` on `tx`, `received_at` `now`:
/// the rows a plain `INSERT` of the same columns would write, for less of the server's CPU
/// than the `UNNEST` statement (no arrays to take apart, no `RETURNING`, the heap's pages
/// filled several rows at a time; `docs/NOTES.md`, sixty-fourth session). Times are cut to
/// the millisecond, as SQLite keeps them.
///
/// # Errors
/// [`StoreError::Sql`] when the server refuses a row (SQLSTATE 23505: an id stored already, by
/// an earlier file or a concurrent writer; a time out of `timestamptz`'s range) or the
/// connection fails; nothing of the `COPY` is kept then.
async fn copy_events(
    tx: &mut PgConnection,
    account: Uuid,
    now: DateTime<Utc>,
    events: &[&NewEvent<'_>],
) -> Result<()> {
    let mut copy = BinaryCopy::start(
        tx,
        "COPY transport_events (id, account_id, raw_event_id, event_at, issued_at, body, \
         named_actual, vessel_imo, source_file, source_index, received_at) \
         FROM STDIN (FORMAT binary)",
    )
    .await?;
    let received = copy_timestamp(now);
    for e in events {
        let ev = &e.event.event;
        let buf = copy.row(11);
        copy_bytes(buf, Some(e.event.id.as_bytes()))?;
        copy_bytes(buf, Some(account.as_bytes()))?;
        copy_bytes(buf, Some(e.event.raw_event_id.as_bytes()))?;
        copy_fixed(buf, Some(copy_timestamp(ev.event_at)));
        copy_fixed(
            buf,
            Some(copy_timestamp(ev.event_created_at.unwrap_or(ev.event_at))),
        );
        copy_bytes(buf, Some(&e.forms.stored))?;
        copy_fixed(buf, Some(i64::from(named_actual(ev)).to_be_bytes()));
        copy_text(buf, ev.vessel_imo.as_ref().map(|imo| imo.as_str()))?;
        copy_text(buf, Some(e.source_file))?;
        copy_fixed(buf, Some((e.source_index as i64).to_be_bytes()));
        copy_fixed(buf, Some(received));
        copy.send_when_full().await?;
    }
    copy.finish().await
}

/// `rows` (shipment, content hash and stored body, `member_ids` value) into `shipments` by
/// binary `COPY` on `tx`: the columns and values of the upsert of `Store::upsert_derived`
/// (times cut to the millisecond, `filters_at` the time of `refreshed_at`, the filter columns
/// of `listing::ShipmentFilterColumns`).
pub(super) async fn copy_shipments(
    tx: &mut PgConnection,
    account: Uuid,
    rows: &[NewShipment<'_>],
) -> Result<()> {
    let mut copy = BinaryCopy::start(
        tx,
        "COPY shipments (id, account_id, bill_of_lading_number, created_at, refreshed_at, \
         content_hash, body, pol_locode, pod_locode, shipping_line_scac, pod_eta_at, \
         line_tracking_stopped, filters_at, member_ids) FROM STDIN (FORMAT binary)",
    )
    .await?;
    for (s, (hash, body), members) in rows {
        let f = ShipmentFilterColumns::of(s);
        let buf = copy.row(14);
        copy_bytes(buf, Some(s.id.as_bytes()))?;
        copy_bytes(buf, Some(account.as_bytes()))?;
        copy_text(buf, Some(&s.bill_of_lading_number))?;
        copy_fixed(buf, Some(copy_timestamp(s.created_at)));
        copy_fixed(buf, Some(copy_timestamp(s.refreshed_at)));
        copy_text(buf, Some(hash))?;
        copy_bytes(buf, Some(body))?;
        copy_text(buf, f.pol_locode.as_deref())?;
        copy_text(buf, f.pod_locode.as_deref())?;
        copy_text(buf, f.shipping_line_scac.as_deref())?;
        copy_fixed(buf, f.pod_eta_at.map(copy_timestamp));
        copy_fixed(buf, Some(f.line_tracking_stopped.to_be_bytes()));
        copy_fixed(buf, Some(copy_timestamp(s.refreshed_at)));
        copy_bytes(buf, Some(members))?;
        copy.send_when_full().await?;
    }
    copy.finish().await
}

/// `rows` (container, content hash and stored body, `event_links` value) into `containers` by
/// binary `COPY` on `tx`: the columns and values of the upsert of `Store::upsert_derived`
/// (times cut to the millisecond, `filters_at` the time of `refreshed_at`, the filter columns
/// of `listing::container_filter_columns`).
pub(super) async fn copy_containers(
    tx: &mut PgConnection,
    account: Uuid,
    rows: &[NewContainer<'_>],
) -> Result<()> {
    let mut copy = BinaryCopy::start(
        tx,
        "COPY containers (id, account_id, shipment_id, number, current_status, pod_locode, \
         created_at, refreshed_at, content_hash, body, pickup_lfd, has_holds, filters_at, \
         event_links) FROM STDIN (FORMAT binary)",
    )
    .await?;
    for (c, (hash, body), links) in rows {
        let (pickup_lfd, has_holds) = container_filter_columns(c);
        let buf = copy.row(14);
        copy_bytes(buf, Some(c.id.as_bytes()))?;
        copy_bytes(buf, Some(account.as_bytes()))?;
        copy_bytes(buf, Some(c.shipment_id.as_bytes()))?;
        copy_text(buf, Some(c.number.as_str()))?;
        copy_text(buf, Some(c.current_status.as_str()))?;
        copy_text(buf, c.pod_locode.as_deref())?;
        copy_fixed(buf, Some(copy_timestamp(c.created_at)));
        copy_fixed(buf, Some(copy_timestamp(c.refreshed_at)));
        copy_text(buf, Some(hash))?;
        copy_bytes(buf, Some(body))?;
        copy_fixed(buf, pickup_lfd.map(copy_timestamp));
        copy_fixed(buf, Some(has_holds.to_be_bytes()));
        copy_fixed(buf, Some(copy_timestamp(c.refreshed_at)));
        copy_bytes(buf, Some(links))?;
        copy.send_when_full().await?;
    }
    copy.finish().await
}

/// Binary `COPY … FROM STDIN (FORMAT binary)` data on its way to the server (PostgreSQL
/// documentation, `COPY`, "Binary Format"): a signature, flags and header extension length,
/// then per row the field count and each field as its length and bytes (length −1 for NULL;
/// integers, floats and times big-endian), then −1. Sent [`COPY_CHUNK`] bytes at a time, so the
/// server works on one part while the next is encoded.
struct BinaryCopy<'c> {
    copy: sqlx::postgres::PgCopyIn<&'c mut PgConnection>,
    buf: Vec<u8>,
}

impl<'c> BinaryCopy<'c> {
    /// Starts `statement` (a `COPY … FROM STDIN (FORMAT binary)`) on `tx` and writes the header.
    async fn start(tx: &'c mut PgConnection, statement: &str) -> Result<BinaryCopy<'c>> {
        let copy = tx.copy_in_raw(statement).await?;
        let mut buf = Vec::with_capacity(COPY_CHUNK + 1024);
        buf.extend_from_slice(b"PGCOPY\n\xff\r\n\0");
        buf.extend_from_slice(&0i32.to_be_bytes());
        buf.extend_from_slice(&0i32.to_be_bytes());
        Ok(BinaryCopy { copy, buf })
    }

    /// Begins a row of `fields` fields: the buffer to write them into, in the statement's
    /// column order ([`copy_bytes`], [`copy_text`], [`copy_fixed`]).
    fn row(&mut self, fields: i16) -> &mut Vec<u8> {
        self.buf.extend_from_slice(&fields.to_be_bytes());
        &mut self.buf
    }

    /// Sends the rows written so far once they fill [`COPY_CHUNK`].
    async fn send_when_full(&mut self) -> Result<()> {
        if self.buf.len() >= COPY_CHUNK {
            self.copy.send(self.buf.as_slice()).await?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Sends the rest and the trailer, and waits for the server to take the rows.
    ///
    /// # Errors
    /// [`StoreError::Sql`] when the server refuses a row (a key stored already: SQLSTATE
    /// 23505) or the connection fails; the `COPY` keeps nothing then.
    async fn finish(mut self) -> Result<()> {
        self.buf.extend_from_slice(&(-1i16).to_be_bytes());
        self.copy.send(self.buf.as_slice()).await?;
        self.copy.finish().await?;
        Ok(())
    }
}

/// A `timestamptz` of binary `COPY` data, cut to the millisecond: microseconds since
/// 2000-01-01 00:00:00 UTC, big-endian (PostgreSQL's `timestamptz_send` without
/// floating-point times).
fn copy_timestamp(at: DateTime<Utc>) -> [u8; 8] {
    /// 2000-01-01T00:00:00Z in milliseconds since the Unix epoch.
    const POSTGRES_EPOCH_MS: i64 = 946_684_800_000;
    at.timestamp_millis()
        .saturating_sub(POSTGRES_EPOCH_MS)
        .saturating_mul(1_000)
        .to_be_bytes()
}

/// A text field of binary `COPY` data: its length and UTF-8 bytes, or −1 for NULL.
fn copy_text(buf: &mut Vec<u8>, value: Option<&str>) -> Result<()> {
    copy_bytes(buf, value.map(str::as_bytes))
}

/// A `bytea` field of binary `COPY` data (a text's is its UTF-8 bytes): its length and bytes,
/// or −1 for NULL.
fn copy_bytes(buf: &mut Vec<u8>, value: Option<&[u8]>) -> Result<()> {
    match value {
        Some(s) => {
            let len = i32::try_from(s.len()).map_err(|_| {
                sqlx::Error::Encode(
                    format!("a value of {} bytes does not fit a COPY field", s.len()).into(),
                )
            })?;
            buf.extend_from_slice(&len.to_be_bytes());
            buf.extend_from_slice(s);
        }
        None => buf.extend_from_slice(&(-1i32).to_be_bytes()),
    }
    Ok(())
}

/// An 8-byte field of binary `COPY` data (`bigint`, `float8`: big-endian), or −1 for NULL.
fn copy_fixed(buf: &mut Vec<u8>, value: Option<[u8; 8]>) {
    match value {
        Some(bytes) => {
            buf.extend_from_slice(&8i32.to_be_bytes());
            buf.extend_from_slice(&bytes);
        }
        None => buf.extend_from_slice(&(-1i32).to_be_bytes()),
    }
}

/// The PostgreSQL connection of `tx`, a transaction begun on the store's writer pool, which
/// `bulk_pg`'s callers have matched as `Pool::Postgres`.
fn postgres(tx: &mut Conn) -> &mut PgConnection {
    match tx.postgres() {
        Some(c) => c,
        None => unreachable!("bulk_pg runs only on a PostgreSQL store"),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::scratch::ScratchStore;
    use crate::{db, payloads};
    use teu_domain::model::{EventRow, TerminalCheck};

    /// A normalized event: `at` its `eventDateTime`, `created` its `eventCreatedDateTime`.
    fn event(
        n: u128,
        code: &str,
        at: &str,
        created: Option<&str>,
        imo: Option<&str>,
    ) -> TransportEvent {
        let row: EventRow = serde_json::from_value(serde_json::json!({
            "event_id": format!("E{n}"), "event_type": "EQUIPMENT", "classifier": "ACT",
            "code": code, "event_at": at, "event_created_at": created,
            "containers": [format!("MSKU{:06}5", n % 1_000_000)], "bills_of_lading": ["BL1"],
            "bookings": [], "references": [], "locode": "NLRTM", "vessel_imo": imo,
        }))
        .expect("an event row");
        TransportEvent {
            id: Uuid::from_u128(n.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)),
            raw_event_id: Uuid::from_u128(n),
            timezone: None,
            event: row,
        }
    }

    /// One stored row: every column but `account_id` (one account here), in id order, each
    /// time as the server writes it as text.
    type StoredRow = (
        Vec<u8>,
        Vec<u8>,
        String,
        String,
        Vec<u8>,
        Option<i64>,
        Option<String>,
        Option<String>,
        Option<i64>,
        Option<Vec<u8>>,
        String,
    );

    /// Every row of `transport_events` and `event_keys`.
    async fn stored(store: &Store) -> (Vec<StoredRow>, Vec<(i16, String, Vec<u8>)>) {
        let db::Pool::Postgres(pg) = store.writer() else {
            panic!("a PostgreSQL store");
        };
        let events = sqlx::query_as::<_, StoredRow>(
            "SELECT id, raw_event_id, event_at::text, issued_at::text, body, named_actual, \
             vessel_imo, source_file, source_index, payload, received_at::text \
             FROM transport_events ORDER BY id",
        )
        .fetch_all(pg)
        .await
        .expect("events");
        let keys =
            sqlx::query_as("SELECT kind, value, event_ids FROM event_keys ORDER BY kind, value")
                .fetch_all(pg)
                .await
                .expect("keys");
        (events, keys)
    }

    /// The `COPY` of new events writes exactly the rows and keys the `INSERT` of the conflict
    /// rule writes for them (the truth: the server's own parse of the same values bound as
    /// arrays), times before and after 2000 and below the millisecond included; and a second
    /// `COPY` of stored ids fails on the key (SQLSTATE 23505) and keeps nothing.
    #[tokio::test]
    async fn copied_events_are_the_inserted_rows_postgres() {
        let Some(db) = ScratchStore::for_test("teu_copy").await else {
            return;
        };
        let store = &db.store;
        let (account, _) = store
            .create_account("copied", false)
            .await
            .expect("account");
        let events = [
            event(
                1,
                "LOAD",
                "2026-03-01T10:00:00.123456Z",
                Some("2026-03-01T10:05:00Z"),
                Some("9321483"),
            ),
            event(2, "DISC", "1999-12-31T23:59:59.999Z", None, None),
            event(
                3,
                "GTIN",
                "1970-01-01T00:00:00Z",
                Some("1969-12-31T23:59:59.9991Z"),
                None,
            ),
            event(
                4,
                "GTOT",
                "2000-01-01T00:00:00.0005Z",
                Some("2100-06-30T12:00:00Z"),
                Some("9811000"),
            ),
        ];
        let raw: Vec<String> = events
            .iter()
            .map(|e| format!("{{\"n\":\"{}\"}}", e.event.event_id))
            .collect();
        let forms = payloads::encode_events(
            raw.iter()
                .map(String::as_str)
                .zip(events.iter().map(|e| &e.event)),
        )
        .expect("stored forms");
        let new: Vec<NewEvent> = events
            .iter()
            .zip(&forms)
            .enumerate()
            .map(|(i, (event, forms))| NewEvent {
                event,
                source_file: "events-00001.json",
                source_index: i,
                forms,
            })
            .collect();
        let now: DateTime<Utc> = "2026-12-06T01:02:03.456789Z".parse().expect("a time");
        let write = |insert| {
            let mut batch: Vec<&NewEvent> = new.iter().collect();
            async move {
                store
                    .write_events_pg(account.id, &mut batch, now, insert)
                    .await
            }
        };

        let copied = write(EventInsert::Fresh).await.expect("the COPY");
        let by_copy = stored(store).await;
        assert_eq!(by_copy.0.len(), 4);
        let db::Pool::Postgres(pg) = store.writer() else {
            panic!("a PostgreSQL store");
        };
        for table in ["event_keys", "transport_events"] {
            sqlx::query(&format!("DELETE FROM {table}"))
                .execute(pg)
                .await
                .expect("delete");
        }
        let inserted = write(EventInsert::ConflictRule).await.expect("the INSERT");
        assert_eq!(stored(store).await, by_copy);
        assert_eq!(copied.written, inserted.written);
        assert_eq!(copied.written.len(), 4);
        assert_eq!(
            by_copy.0[0].10, "2026-12-06 01:02:03.456+00",
            "received_at to the millisecond"
        );

        match write(EventInsert::Fresh).await {
            Err(StoreError::Sql(sqlx::Error::Database(e))) if e.is_unique_violation() => {}
            other => panic!("a COPY of stored ids: {:?}", other.map(|u| u.written)),
        }
        assert_eq!(stored(store).await, by_copy, "the failed COPY kept nothing");
        db.drop().await.expect("drop");
    }

    /// A terminal check of box `number` at `at` (RFC 3339), available or not, at terminal
    /// `Uuid::from_u128(7)` of NLRTM.
    pub(crate) fn check(number: &str, at: &str, available: bool) -> TerminalCheck {
        serde_json::from_value(serde_json::json!({
            "terminal_id": Uuid::from_u128(7), "terminal_locode": "NLRTM",
            "container_number": number, "checked_at": at, "available_for_pickup": available,
            "location": "Yard 3", "holds": [], "fees": [], "chassis_number": null,
        }))
        .expect("a terminal check")
    }

    /// One stored terminal check: every column, in id order, times as the server's text.
    type CheckRow = (
        Vec<u8>,
        Vec<u8>,
        String,
        Vec<u8>,
        String,
        String,
        String,
        i64,
        Vec<u8>,
        Vec<u8>,
    );

    async fn stored_checks(store: &Store) -> Vec<CheckRow> {
        let db::Pool::Postgres(pg) = store.writer() else {
            panic!("a PostgreSQL store");
        };
        sqlx::query_as(
            "SELECT id, account_id, container_number, terminal_id, terminal_locode, \
             checked_at::text, source_file, source_index, raw, body FROM terminal_checks ORDER BY id",
        )
        .fetch_all(pg)
        .await
        .expect("terminal checks")
    }

    /// Terminal checks taken for new go in by `COPY` as the same rows the shared `INSERT`
    /// writes (the truth: the same checks written through the conflict rule after the rows
    /// were deleted), times before 2000 and below the millisecond included; checks met again
    /// with another reading make the `COPY` fail on the key, and the rule then replaces their
    /// bodies, and the next writes skip the `COPY`.
    #[tokio::test]
    async fn copied_terminal_checks_are_the_inserted_rows_postgres() {
        let Some(db) = ScratchStore::for_test("teu_copy_checks").await else {
            return;
        };
        let store = &db.store;
        let (account, _) = store
            .create_account("checked", false)
            .await
            .expect("account");
        let rows = |available: bool| -> Vec<(usize, TerminalCheck, String)> {
            [
                ("APZU4812090", "2026-03-01T10:00:00.123456Z"),
                ("MSKU1000016", "1999-12-31T23:59:59.9995Z"),
                ("MSKU1000021", "2026-03-02T08:30:00Z"),
            ]
            .iter()
            .enumerate()
            .map(|(i, (number, at))| {
                (
                    i,
                    check(number, at, available),
                    format!("{number},{at},{available}"),
                )
            })
            .collect()
        };
        // Writes left to skip the COPY: none yet.
        let skipping = || store.fresh_terminal_checks.0.load(Ordering::Relaxed);
        assert_eq!(skipping(), 0);
        store
            .upsert_terminal_checks(account.id, "terminal-00001.csv", &rows(true))
            .await
            .expect("the COPY");
        let by_copy = stored_checks(store).await;
        assert_eq!(by_copy.len(), 3);
        assert_eq!(skipping(), 0, "no stored row was met");

        let db::Pool::Postgres(pg) = store.writer() else {
            panic!("a PostgreSQL store");
        };
        sqlx::query("DELETE FROM terminal_checks")
            .execute(pg)
            .await
            .expect("delete");
        store
            .fresh_terminal_checks
            .0
            .store(FRESH_BACKOFF, Ordering::Relaxed);
        store
            .upsert_terminal_checks(account.id, "terminal-00001.csv", &rows(true))
            .await
            .expect("the INSERT");
        assert_eq!(stored_checks(store).await, by_copy);

        // The same checks read otherwise: the COPY meets the stored ids, the rule replaces.
        store.fresh_terminal_checks.0.store(0, Ordering::Relaxed);
        store
            .upsert_terminal_checks(account.id, "terminal-00002.csv", &rows(false))
            .await
            .expect("the conflict rule");
        let replaced = stored_checks(store).await;
        assert_eq!(replaced.len(), 3);
        for (old, new) in by_copy.iter().zip(&replaced) {
            assert_eq!(old.0, new.0, "the same check");
            assert_ne!(old.9, new.9, "its body replaced");
            assert_eq!(old.6, new.6, "its first file kept, as the rule keeps it");
        }
        assert_eq!(skipping(), FRESH_BACKOFF, "the next writes skip the COPY");
        db.drop().await.expect("drop");
    }

    /// A derived container `number` of shipment `bl` in `account`, on the water to `pod`.
    pub(crate) fn container(account: Uuid, bl: &str, number: &str, pod: Option<&str>) -> Container {
        let mut c: Container = serde_json::from_str(
            r#"{
            "id": "00000000-0000-0000-0000-000000000001",
            "account_id": "00000000-0000-0000-0000-000000000002",
            "shipment_id": "00000000-0000-0000-0000-000000000003", "number": "MSKU1234565",
            "ref_numbers": [], "seal_number": null, "created_at": "2026-03-01T00:00:00.250Z",
            "refreshed_at": "2026-03-02T08:00:00Z", "equipment_type": null,
            "equipment_length": null, "equipment_height": null, "weight_in_lbs": null,
            "pickup_lfd": null, "pickup_appointment_at": null, "availability_known": false,
            "available_for_pickup": null, "pod_arrived_at": null, "pod_discharged_at": null,
            "pod_full_out_at": null, "terminal_checked_at": null,
            "pod_full_out_chassis_number": null, "location_at_pod_terminal": null,
            "final_destination_full_out_at": null, "empty_terminated_at": null,
            "holds_at_pod_terminal": [], "fees_at_pod_terminal": [], "pod_timezone": null,
            "final_destination_timezone": null, "empty_terminated_timezone": null,
            "pod_rail_carrier_scac": null, "ind_rail_carrier_scac": null,
            "pod_last_tracking_request_at": null, "shipment_last_tracking_request_at": null,
            "pod_rail_loaded_at": null, "pod_rail_departed_at": null, "ind_eta_at": null,
            "ind_ata_at": null, "ind_rail_unloaded_at": null, "ind_facility_lfd_on": null,
            "import_deadlines": null, "current_status": "on_ship", "pod_locode": null,
            "pod_terminal_id": null, "pickup_facility_id": null, "last_movement_at": null
            }"#,
        )
        .expect("a container");
        c.id = teu_domain::ids::container_id(account, bl, number);
        c.account_id = account;
        c.shipment_id = teu_domain::ids::shipment_id(account, bl);
        c.number = teu_domain::model::ContainerNumber::parse(number).expect("a number");
        c.pod_locode = pod.map(|p| p.parse().expect("a UN/LOCODE"));
        c
    }

    /// The shipment of bill of lading `bl` in `account`.
    pub(crate) fn shipment(account: Uuid, bl: &str) -> teu_domain::model::Shipment {
        serde_json::from_value(serde_json::json!({
            "id": teu_domain::ids::shipment_id(account, bl), "account_id": account,
            "bill_of_lading_number": bl, "normalized_number": bl, "ref_numbers": [],
            "created_at": "2026-03-01T00:00:00Z", "refreshed_at": "2026-03-02T08:00:00Z",
            "tags": [], "port_of_lading_locode": "CNSHA", "port_of_lading_name": "Shanghai",
            "port_of_discharge_locode": "NLRTM", "port_of_discharge_name": "Rotterdam",
            "destination_locode": null, "destination_name": null, "shipping_line_scac": "MAEU",
            "shipping_line_name": "Maersk", "shipping_line_short_name": "Maersk",
            "customer_name": null, "pod_vessel_name": null, "pod_vessel_imo": null,
            "pod_voyage_number": null, "pol_etd_at": null, "pol_atd_at": null,
            "pod_eta_at": null, "pod_original_eta_at": null, "pod_ata_at": null,
            "destination_eta_at": null, "destination_ata_at": null,
            "pol_timezone": "Asia/Shanghai", "pod_timezone": "Europe/Amsterdam",
            "destination_timezone": null, "line_tracking_last_attempted_at": null,
            "line_tracking_last_succeeded_at": null, "line_tracking_stopped_at": null,
            "line_tracking_stopped_reason": null
        }))
        .expect("a shipment")
    }

    /// One stored container: every column, in id order, times as the server's text (two
    /// tuples: tuples of more than twelve compare and print in no standard trait).
    type ContainerRow = (
        (
            Vec<u8>,
            Vec<u8>,
            Vec<u8>,
            String,
            String,
            Option<String>,
            String,
        ),
        (
            String,
            String,
            Vec<u8>,
            Option<String>,
            Option<i64>,
            Option<String>,
            Option<Vec<u8>>,
        ),
    );

    async fn stored_containers(pg: &PgPool) -> Vec<ContainerRow> {
        let rows = sqlx::query(
            "SELECT id, account_id, shipment_id, number, current_status, pod_locode, \
             created_at::text, refreshed_at::text, content_hash, body, pickup_lfd::text, has_holds, \
             filters_at::text, event_links FROM containers ORDER BY id",
        )
        .fetch_all(pg)
        .await
        .expect("containers");
        rows.iter()
            .map(|r| {
                let column = |i: usize| r.try_get::<Vec<u8>, _>(i).expect("bytes");
                let text = |i: usize| r.try_get::<String, _>(i).expect("text");
                let maybe = |i: usize| r.try_get::<Option<String>, _>(i).expect("text or null");
                (
                    (
                        column(0),
                        column(1),
                        column(2),
                        text(3),
                        text(4),
                        maybe(5),
                        text(6),
                    ),
                    (
                        text(7),
                        text(8),
                        column(9),
                        maybe(10),
                        r.try_get(11).expect("has_holds"),
                        maybe(12),
                        r.try_get(13).expect("event_links"),
                    ),
                )
            })
            .collect()
    }

    /// One stored shipment: every column, times as the server's text.
    type ShipmentRow = (
        (
            Vec<u8>,
            Vec<u8>,
            String,
            String,
            String,
            String,
            String,
            Vec<u8>,
        ),
        (
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
            i64,
        ),
        Vec<u8>,
    );

    async fn stored_shipments(pg: &PgPool) -> Vec<ShipmentRow> {
        let rows = sqlx::query(
            "SELECT id, account_id, bill_of_lading_number, tags, created_at::text, \
             refreshed_at::text, content_hash, body, pol_locode, pod_locode, shipping_line_scac, \
             pod_eta_at::text, filters_at::text, user_stopped_at::text, user_ref_numbers, \
             line_tracking_stopped, \
             member_ids FROM shipments ORDER BY id",
        )
        .fetch_all(pg)
        .await
        .expect("shipments");
        rows.iter()
            .map(|r| {
                let column = |i: usize| r.try_get::<Vec<u8>, _>(i).expect("bytes");
                let text = |i: usize| r.try_get::<String, _>(i).expect("text");
                let maybe = |i: usize| r.try_get::<Option<String>, _>(i).expect("text or null");
                (
                    (
                        column(0),
                        column(1),
                        text(2),
                        text(3),
                        text(4),
                        text(5),
                        text(6),
                        column(7),
                    ),
                    (
                        maybe(8),
                        maybe(9),
                        maybe(10),
                        maybe(11),
                        maybe(12),
                        maybe(13),
                        maybe(14),
                        r.try_get(15).expect("line_tracking_stopped"),
                    ),
                    column(16),
                )
            })
            .collect()
    }

    /// The account's (shipments, containers) counts (`account_counts`, kept by the statement
    /// triggers).
    async fn counted(pg: &PgPool) -> (i64, i64) {
        sqlx::query_as("SELECT shipments, containers FROM account_counts")
            .fetch_one(pg)
            .await
            .expect("the counts")
    }

    /// A derivation's new shipments and containers go in by `COPY`, each inside a savepoint of
    /// the derivation's transaction, as the same rows the upserts write (the truth: the same
    /// records written through the rule after the rows were deleted): times below the
    /// millisecond and before 2000, a last free day, holds, a stopped shipment, no POD, event
    /// links and members included; the account's counts follow both. A container taken for
    /// new that is stored after all (its number changed behind the store's back) makes the
    /// `COPY` fail on the key: the savepoint is rolled back, the rest of the derivation's
    /// transaction is kept (a changed container updated, nothing else touched), and the next
    /// derivations skip the `COPY`.
    #[tokio::test]
    async fn copied_records_are_the_upserted_rows_postgres() {
        let Some(db) = ScratchStore::for_test("teu_copy_records").await else {
            return;
        };
        let store = &db.store;
        let db::Pool::Postgres(pg) = store.writer() else {
            panic!("a PostgreSQL store");
        };
        let (account, _) = store
            .create_account("derived", false)
            .await
            .expect("account");
        let a = account.id;
        let (bl, other) = ("MAEU123456789", "MAEU987654321");
        let mut boxes = vec![
            container(a, bl, "MSKU1000016", Some("NLRTM")),
            container(a, bl, "MSKU1000021", None),
            container(a, other, "APZU4812090", Some("NLRTM")),
        ];
        boxes[0].pickup_lfd = Some("2026-03-05T23:59:59.999900Z".parse().expect("lfd"));
        boxes[0].holds_at_pod_terminal = vec![teu_domain::model::TerminalHold {
            name: "customs".into(),
            status: "hold".into(),
            description: None,
        }];
        boxes[1].created_at = "1999-12-31T23:59:59.9995Z".parse().expect("time");
        let mut shipments = [shipment(a, bl), shipment(a, other)];
        shipments[0].pod_eta_at = Some("2026-03-20T06:00:00.000700Z".parse().expect("eta"));
        shipments[1].created_at = "1969-07-20T20:17:40.5Z".parse().expect("time");
        shipments[1].line_tracking_stopped_at = Some("2026-03-03T00:00:00Z".parse().expect("t"));
        let history = [event(1, "LOAD", "2026-03-01T10:00:00Z", None, None)];
        let links = [(boxes[0].id, history[0].id)];
        let scope = crate::DerivationScope {
            shipment_keys: vec![bl.to_string(), other.to_string()],
            containers: boxes.iter().map(|c| c.number.to_string()).collect(),
        };
        let sorted = |mut ids: Vec<Uuid>| {
            ids.sort();
            ids
        };
        let box_ids = sorted(boxes.iter().map(|c| c.id).collect());
        let shipment_ids = sorted(shipments.iter().map(|s| s.id).collect());
        let derive = |boxes: Vec<Container>| {
            let (shipments, links, scope, history) = (&shipments, &links, &scope, &history);
            async move {
                let changes = store
                    .upsert_derived(a, shipments, &boxes, links, scope, history)
                    .await
                    .expect("a derivation");
                (sorted(changes.shipments), sorted(changes.containers))
            }
        };
        let skipping = || store.fresh_derived.0.load(Ordering::Relaxed);
        let everything = (shipment_ids.clone(), box_ids.clone());

        assert_eq!(
            derive(boxes.clone()).await,
            everything,
            "every record is new"
        );
        let by_copy = (stored_shipments(pg).await, stored_containers(pg).await);
        assert_eq!((by_copy.0.len(), by_copy.1.len()), (2, 3));
        assert_eq!(skipping(), 0, "no stored row was met");
        assert_eq!(counted(pg).await, (2, 3));
        let linked = by_copy.1.iter().find(|r| r.0 .0 == boxes[0].id.as_bytes());
        assert!(
            linked.is_some_and(|r| r.1 .6.as_ref().is_some_and(|l| !l.is_empty())),
            "the first box has its link"
        );
        let members: usize = by_copy.0.iter().map(|s| s.2.len()).sum();
        assert_eq!(members, 3 * 16, "each box a member of its shipment");

        sqlx::query("DELETE FROM containers")
            .execute(pg)
            .await
            .expect("delete");
        sqlx::query("DELETE FROM shipments")
            .execute(pg)
            .await
            .expect("delete");
        assert_eq!(counted(pg).await, (0, 0));
        store
            .fresh_derived
            .0
            .store(FRESH_BACKOFF, Ordering::Relaxed);
        assert_eq!(derive(boxes.clone()).await, everything, "new again");
        assert_eq!(
            (stored_shipments(pg).await, stored_containers(pg).await),
            by_copy,
            "the rule's rows"
        );
        assert_eq!(counted(pg).await, (2, 3));
        assert_eq!(skipping(), FRESH_BACKOFF - 2, "both COPYs were skipped");

        // The first box's number changed behind the store's back: it is taken for new.
        store.fresh_derived.0.store(0, Ordering::Relaxed);
        sqlx::query("UPDATE containers SET number = 'MOVED' WHERE id = $1")
            .bind(boxes[0].id.as_bytes().as_slice())
            .execute(pg)
            .await
            .expect("update");
        boxes[2].current_status = teu_domain::model::ContainerStatus::Available;
        assert_eq!(
            derive(boxes.clone()).await,
            (vec![], vec![boxes[2].id]),
            "the changed box, through the rule after the failed COPY"
        );
        assert_eq!(
            skipping(),
            FRESH_BACKOFF,
            "the next derivations skip the COPY"
        );
        assert_eq!(counted(pg).await, (2, 3), "the failed COPY counted nothing");
        assert_eq!(stored_shipments(pg).await, by_copy.0);
        for (old, new) in by_copy.1.iter().zip(&stored_containers(pg).await) {
            if old.0 .0 == boxes[2].id.as_bytes() {
                assert_eq!(new.0 .4, "available");
                assert_ne!(old.1 .2, new.1 .2, "its body replaced");
            } else if old.0 .0 == boxes[0].id.as_bytes() {
                assert_eq!(new.0 .3, "MOVED", "the stored box left as it was");
                assert_eq!((&old.0 .4, &old.1), (&new.0 .4, &new.1));
            } else {
                assert_eq!(old, new);
            }
        }
        db.drop().await.expect("drop");
    }
}
