//! PostgreSQL bulk writes on the store's native pool (`sqlx::PgPool`): each column of a batch
//! is bound as one array and expanded by `UNNEST` on the server, so a statement of thousands
//! of rows binds a handful of parameters, is parsed once and costs one round trip. SQLite has
//! no arrays; its writes are the shared multi-row statements (`events.rs`, `facts.rs`).
//!
//! The statements mean what the shared ones in `events.rs` mean (same conflict rules); only
//! their shape differs.

use std::collections::HashSet;
use std::sync::atomic::Ordering;

use chrono::{DateTime, Utc};
use sqlx::postgres::PgConnection;
use sqlx::{PgPool, Row};
use uuid::Uuid;

use super::db::{to_millisecond, Conn};
use super::events::{DroppedKeys, UpsertedEvents};
use super::{NewEvent, Result, Store, StoreError};
use teu_domain::event_names::named_actual;
use teu_domain::model::{TransportEvent, VesselPosition};

/// Rows per bulk statement: large enough that round trips do not count, small enough that a
/// statement's arrays (some 1.5 KB per event) stay a few MB.
const BULK_ROWS: usize = 2_000;

/// Event upserts of a store that go straight to the conflict rule after a batch taken for new
/// met a stored event (`Store::upsert_events_pg`).
const FRESH_EVENTS_BACKOFF: u64 = 64;

/// How [`Store::write_events_pg`] inserts a batch of events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EventInsert {
    /// Every event taken for new: a plain `INSERT`, which fails (SQLSTATE 23505) on an id
    /// already stored.
    Fresh,
    /// `ON CONFLICT (id) DO UPDATE … WHERE`: a stored version is replaced only by a later-issued
    /// one, or an equally old one whose stored form is greater (the rule of
    /// `Store::upsert_events`).
    ConflictRule,
}

/// The statement that inserts a chunk of events from one array per column, `$tail` (a conflict
/// clause, or nothing) before `RETURNING id`: the ids of the rows written.
macro_rules! insert_events {
    ($tail:literal) => {
        concat!(
            "INSERT INTO transport_events (id, account_id, raw_event_id, event_at, issued_at, body, \
             named_actual, vessel_imo, source_file, source_index, received_at) \
             SELECT id, $1, raw_event_id, event_at, issued_at, body, named_actual, vessel_imo, \
             source_file, source_index, $2 \
             FROM UNNEST($3::bytea[], $4::bytea[], $5::timestamptz[], $6::timestamptz[], \
             $7::bytea[], $8::bigint[], $9::text[], $10::text[], $11::bigint[]) \
             AS t (id, raw_event_id, event_at, issued_at, body, named_actual, vessel_imo, \
             source_file, source_index) ",
            $tail,
            "RETURNING id"
        )
    };
}

impl Store {
    /// [`Store::upsert_events`] on PostgreSQL: `events` (one version per event id, the one the
    /// rule of `upsert_events` keeps) in one transaction of `UNNEST` statements on the store's
    /// PostgreSQL pool.
    ///
    /// Events are first taken for new: a plain `INSERT`, without the conflict rule, whose
    /// check of the key before each row (an index search of its own, `ExecCheckIndexConstraints`)
    /// was about half the server's B-tree work of the statement (`docs/NOTES.md`, fifty-fifth
    /// session). When one of them is stored already (SQLSTATE 23505, a repeated or replaced
    /// version, or another writer's), nothing of the transaction is kept and the whole batch
    /// goes through the conflict rule, as do the next [`FRESH_EVENTS_BACKOFF`] batches of this
    /// store, so that a feed that repeats events pays for at most one wasted try in that many.
    pub(super) async fn upsert_events_pg(
        &self,
        account: Uuid,
        events: &mut [&NewEvent<'_>],
        now: DateTime<Utc>,
    ) -> Result<UpsertedEvents> {
        let calls = &self.conflict_rule_calls;
        let fresh = calls
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_err();
        if fresh {
            match self
                .write_events_pg(account, events, now, EventInsert::Fresh)
                .await
            {
                Err(StoreError::Sql(sqlx::Error::Database(e))) if e.is_unique_violation() => {
                    tracing::debug!(
                        "a batch of events taken for new met a stored one ({e}); writing it \
                         again through the conflict rule"
                    );
                    calls.store(FRESH_EVENTS_BACKOFF, Ordering::Relaxed);
                }
                done => return done,
            }
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
        // Times go over as `timestamptz` values (8 bytes each, nothing for the server to
        // parse), cut to the millisecond as SQLite keeps them.
        let now = to_millisecond(now);
        let statement = match insert {
            EventInsert::Fresh => insert_events!(""),
            EventInsert::ConflictRule => insert_events!(
                "ON CONFLICT (id) DO UPDATE SET event_at = excluded.event_at, issued_at = excluded.issued_at, \
                 body = excluded.body, named_actual = excluded.named_actual, vessel_imo = excluded.vessel_imo, \
                 payload = NULL, source_file = excluded.source_file, \
                 source_index = excluded.source_index, received_at = excluded.received_at \
                 WHERE excluded.issued_at > transport_events.issued_at \
                 OR (excluded.issued_at = transport_events.issued_at \
                 AND excluded.body > transport_events.body) "
            ),
        };
        let mut tx = self.writer().begin().await?;
        let mark = self.replacement_mark(&mut tx).await?;
        events.sort_unstable_by_key(|e| e.event.id);
        let mut written: Vec<&TransportEvent> = Vec::new();
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
            let rows = sqlx::query(statement)
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
                .fetch_all(postgres(&mut tx))
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
            // 40P01: deadlock_detected (PostgreSQL manual, "PostgreSQL Error Codes").
            Err(StoreError::Sql(sqlx::Error::Database(e)))
                if e.is_unique_violation() || e.code().as_deref() == Some("40P01") =>
            {
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
            let at: Vec<i64> = chunk
                .iter()
                .map(|p| p.observed_at.timestamp_millis())
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
                 SELECT * FROM UNNEST($1::text[], $2::bigint[], $3::text[], $4::text[], \
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
            let at = p.observed_at.timestamp_millis();
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
            "SELECT f.vessel_key FROM UNNEST($1::text[], $2::bigint[], $3::bigint[]) \
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

/// Bytes of `COPY` data sent at a time: some 2,500 positions, so the server works
/// on one part while the next is encoded.
const COPY_CHUNK: usize = 256 * 1024;

/// `positions` (distinct by transmitter and millisecond, none of them stored) into
/// `vessel_positions` by `COPY … FROM STDIN (FORMAT binary)` on `tx`. The binary format
/// (PostgreSQL documentation, `COPY`, "Binary Format"): a signature, flags and header
/// extension length, then per row the field count and each field as its length and bytes
/// (length −1 for NULL; `bigint` and `float8` big-endian; text as UTF-8), then −1.
///
/// # Errors
/// [`StoreError::Sql`] when the server refuses a row (its key stored meanwhile, text it cannot
/// hold) or the connection fails; a text longer than 2 GiB is refused before it is sent.
async fn copy_positions(tx: &mut PgConnection, positions: &[&VesselPosition]) -> Result<()> {
    let mut copy = tx
        .copy_in_raw(
            "COPY vessel_positions (vessel_key, observed_at, imo, vessel_name, latitude, \
             longitude, speed_knots, course_deg, heading_deg) FROM STDIN (FORMAT binary)",
        )
        .await?;
    let mut buf = Vec::with_capacity(COPY_CHUNK + 1024);
    buf.extend_from_slice(b"PGCOPY\n\xff\r\n\0");
    buf.extend_from_slice(&0i32.to_be_bytes());
    buf.extend_from_slice(&0i32.to_be_bytes());
    for p in positions {
        buf.extend_from_slice(&9i16.to_be_bytes());
        copy_text(&mut buf, Some(p.vessel_key()))?;
        copy_fixed(
            &mut buf,
            Some(p.observed_at.timestamp_millis().to_be_bytes()),
        );
        copy_text(&mut buf, p.imo.as_ref().map(|imo| imo.as_str()))?;
        copy_text(&mut buf, p.vessel_name.as_deref())?;
        for value in [
            Some(p.latitude),
            Some(p.longitude),
            p.speed_knots,
            p.course_deg,
            p.heading_deg,
        ] {
            copy_fixed(&mut buf, value.map(f64::to_be_bytes));
        }
        if buf.len() >= COPY_CHUNK {
            copy.send(buf.as_slice()).await?;
            buf.clear();
        }
    }
    buf.extend_from_slice(&(-1i16).to_be_bytes());
    copy.send(buf.as_slice()).await?;
    copy.finish().await?;
    Ok(())
}

/// A text field of binary `COPY` data: its length and UTF-8 bytes, or −1 for NULL.
fn copy_text(buf: &mut Vec<u8>, value: Option<&str>) -> Result<()> {
    match value {
        Some(s) => {
            let len = i32::try_from(s.len()).map_err(|_| {
                sqlx::Error::Encode(
                    format!("a text of {} bytes does not fit a COPY field", s.len()).into(),
                )
            })?;
            buf.extend_from_slice(&len.to_be_bytes());
            buf.extend_from_slice(s.as_bytes());
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
