//! PostgreSQL bulk writes on the store's native pool (`sqlx::PgPool`): each column of a batch
//! is bound as one array and expanded by `UNNEST` on the server, so a statement of thousands
//! of rows binds a handful of parameters, is parsed once and costs one round trip. SQLite has
//! no arrays; its writes are the shared multi-row statements (`events.rs`, `facts.rs`).
//!
//! The statements mean what the shared ones in `events.rs` mean (same conflict rules); only
//! their shape differs.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use sqlx::postgres::PgConnection;
use sqlx::{PgPool, Row};
use uuid::Uuid;

use super::db::{to_millisecond, Conn};
use super::events::{DroppedKeys, UpsertedEvents};
use super::{NewEvent, Result, Store};
use teu_domain::event_names::named_actual;
use teu_domain::model::{TransportEvent, VesselPosition};

/// Rows per bulk statement: large enough that round trips do not count, small enough that a
/// statement's arrays (some 1.5 KB per event) stay a few MB.
const BULK_ROWS: usize = 2_000;

impl Store {
    /// [`Store::upsert_events`] on PostgreSQL: `events` (one version per event id, the one the
    /// rule of `upsert_events` keeps) in one transaction of `UNNEST` statements on the store's
    /// PostgreSQL pool.
    pub(super) async fn upsert_events_pg(
        &self,
        account: Uuid,
        events: &mut [&NewEvent<'_>],
        now: DateTime<Utc>,
    ) -> Result<UpsertedEvents> {
        // Times go over as `timestamptz` values (8 bytes each, nothing for the server to
        // parse), cut to the millisecond as SQLite keeps them.
        let now = to_millisecond(now);
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
            let rows = sqlx::query(
                "INSERT INTO transport_events (id, account_id, raw_event_id, event_at, issued_at, body, \
                 named_actual, vessel_imo, source_file, source_index, received_at) \
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
                 RETURNING id",
            )
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

    /// [`Store::upsert_vessel_positions`] on PostgreSQL: the positions and their bookkeeping
    /// (`vessel_identities`, `track_versions`, as `Store::positions_stored`) in one transaction
    /// of `UNNEST` statements on `pg`.
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
        let mut tx = pg.begin().await?;
        for chunk in sorted.chunks(BULK_ROWS * 5) {
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
}

/// The PostgreSQL connection of `tx`, a transaction begun on the store's writer pool, which
/// `bulk_pg`'s callers have matched as `Pool::Postgres`.
fn postgres(tx: &mut Conn) -> &mut PgConnection {
    match tx.postgres() {
        Some(c) => c,
        None => unreachable!("bulk_pg runs only on a PostgreSQL store"),
    }
}
