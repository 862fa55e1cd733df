//! Events written by ingest (raw and normalized, with their keys), their re-reading, the bills
//! of lading and bookings they name, quarantined rows, and the events matching a set of
//! containers, bills of lading or bookings.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use chrono::Utc;
use uuid::Uuid;

use super::{
    body_bytes, event_body, event_row, from_json, in_list, keyed_update, one_per_key,
    record_id_list, stored_event, uuid_of_bytes, Backend, NewEvent, Result, Store, StoreError,
};
use crate::db::{DbRow, RecordId, RecordTime};
use crate::payloads::{encode_event, Encoder, StoredEvent, EVENTS};
use teu_domain::event_names::named_actual;
use teu_domain::model::{EventRow, TransportEvent};
use teu_feeds::Quarantined;

impl Store {
    /// Upserts events: each row of `transport_events` holds the normalized event and the
    /// carrier's payload it was read from (migration 30). A stored event is replaced only by a version the carrier
    /// issued later (`eventCreatedDateTime` / `eventUpdatedDateTime`); an older or equally old
    /// version of the same `eventID` (a late or repeated file) leaves it as it is. On SQLite
    /// the events' ids go into `event_ids_recent`, merged into `event_ids` now and then
    /// (migration 35, [`Store::merge_event_ids_when_due`]), in the same transaction.
    ///
    /// Returns the keys that versions replaced here named and their events no longer name
    /// ([`DroppedKeys`]): what was derived from those versions is derived again from these
    /// keys, so the containers an event left are derived without it; and the ids of the
    /// events whose given version is now the stored one ([`UpsertedEvents::written`]).
    pub async fn upsert_events(
        &self,
        account: Uuid,
        events: &[NewEvent<'_>],
    ) -> Result<UpsertedEvents> {
        let now = Utc::now();
        // A feed may repeat an event: the later-issued version wins; among versions issued at
        // the same time the greater stored form (body and payload, compressed), so that any
        // order of files keeps the same one (the rule of the stored versions below, and of
        // `bulk_pg`'s `WHERE`).
        let issued = |e: &NewEvent<'_>| {
            e.event
                .event
                .event_created_at
                .unwrap_or(e.event.event.event_at)
        };
        // Ties compare what the `WHERE` compares, the stored forms.
        let mut events: Vec<&NewEvent<'_>> =
            one_per_key(events.iter().map(|e| (e.event.id, e)), |new, kept| {
                (issued(new), &new.forms.stored) > (issued(kept), &kept.forms.stored)
            })
            .into_iter()
            .map(|(_, e)| e)
            .collect();
        if let crate::db::Pool::Postgres(_) = &self.pool {
            return self.upsert_events_pg(account, &mut events, now).await;
        }
        let now = now.timestamp_millis();
        // Rows go in in the order of their id, and so do their ids into `event_ids_recent`
        // (migration 35), each leaf of which a file's ids then touch once.
        events.sort_unstable_by_key(|e| e.event.id);
        // The write lock from the start: what is stored is read first, then written on.
        let mut tx = self.writer().begin_immediate().await?;
        let mark = self.replacement_mark(&mut tx).await?;
        let stored = self.stored_versions(&mut tx, &events).await?;
        let mut next_seq: i64 =
            crate::db::query("SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM transport_events")
                .fetch_one(self.counted(&mut tx))
                .await?
                .try_get("seq")?;
        // Each written version with the `seq` it goes under (a replaced version's stored one,
        // the next free one for an event not stored before, `true` beside it), still in id
        // order. Which version is written is the rule of PostgreSQL's `ON CONFLICT … WHERE`
        // (`bulk_pg`): a later-issued version replaces the stored one; an equally old one when
        // its stored form is greater (SQLite compares BLOBs bytewise, then by length, as slices
        // compare, and any BLOB is greater than the TEXT bodies of rows written before
        // migration 23).
        let mut written: Vec<(&NewEvent<'_>, i64, bool)> = Vec::with_capacity(events.len());
        for &e in &events {
            let issued_at = issued(e).timestamp_millis();
            match stored.get(&e.event.id) {
                None => {
                    written.push((e, next_seq, true));
                    next_seq += 1;
                }
                Some(s)
                    if issued_at > s.issued_at
                        || (issued_at == s.issued_at
                            && s.body.as_ref().is_none_or(|b| e.forms.stored > *b)) =>
                {
                    written.push((e, s.seq, false))
                }
                Some(_) => {}
            }
        }
        // New versions by a plain insert, each under the next free `seq`; a replacing version
        // by the upsert on its stored `seq`: its row is updated in place, and leaves by the
        // trigger `transport_events_version_replaced` (migration 31, which SQLite fires for an
        // upsert's update too), as on PostgreSQL. The plain insert keeps no statement journal
        // ([`Store::insert_new`]); the upsert's update does, for the few versions replaced. The
        // payload is inside `body` (`payloads::EVENTS`); a version replacing a row of the older
        // layout clears its `payload`.
        let (new_rows, replacing): (Vec<_>, Vec<_>) = written.iter().partition(|(_, _, new)| *new);
        for (rows, insert, conflict) in [
            (&new_rows, self.insert_new(), ""),
            (
                &replacing,
                "INSERT INTO",
                " ON CONFLICT (seq) DO UPDATE SET event_at = excluded.event_at, issued_at = excluded.issued_at, \
                 body = excluded.body, named_actual = excluded.named_actual, vessel_imo = excluded.vessel_imo, \
                 payload = NULL, source_file = excluded.source_file, source_index = excluded.source_index, \
                 received_at = excluded.received_at",
            ),
        ] {
            for chunk in rows.chunks(self.rows_per_list(12)) {
                let sql = format!(
                    "{insert} transport_events (seq, id, account_id, raw_event_id, event_at, issued_at, \
                     body, named_actual, vessel_imo, source_file, source_index, received_at) VALUES {}{conflict}",
                    self.values(chunk.len(), 12)
                );
                let mut q = crate::db::query(&sql);
                for (e, seq, _) in chunk {
                    let ev = &e.event.event;
                    q = q
                        .bind(*seq)
                        .bind(e.event.id.as_bytes().as_slice())
                        .bind(account.as_bytes().as_slice())
                        .bind(e.event.raw_event_id.as_bytes().as_slice())
                        .bind(ev.event_at.timestamp_millis())
                        .bind(issued(e).timestamp_millis())
                        .bind(e.forms.stored.as_slice())
                        .bind(i64::from(named_actual(ev)))
                        .bind(ev.vessel_imo.as_ref().map(|imo| imo.as_str()))
                        .bind(e.source_file)
                        .bind(e.source_index as i64)
                        .bind(now);
                }
                q.execute(self.counted(&mut tx)).await?;
            }
        }
        let new: Vec<(&[u8], i64)> = new_rows
            .iter()
            .map(|(e, seq, _)| (e.event.id.as_bytes().as_slice(), *seq))
            .collect();
        for chunk in new.chunks(self.rows_per_list(2)) {
            let sql = format!(
                "{} event_ids_recent (id, seq) VALUES {}",
                self.insert_new(),
                self.values(chunk.len(), 2)
            );
            let mut q = crate::db::query(&sql);
            for (id, seq) in chunk {
                q = q.bind(*id).bind(*seq);
            }
            q.execute(self.counted(&mut tx)).await?;
        }
        let written: Vec<&TransportEvent> = written.iter().map(|(e, _, _)| e.event).collect();
        // Every written event's keys at once, in key order.
        let dropped = self.insert_event_keys(&mut tx, account, &written).await?;
        self.merge_event_ids_when_due(&mut tx, next_seq - 1).await?;
        tx.commit().await?;
        Ok(UpsertedEvents {
            dropped,
            written: written.iter().map(|e| e.id).collect(),
            mark,
        })
    }

    /// The point the log of replaced event versions (migration 36, `event_replacements`) is at
    /// in `tx`, a writer's transaction, before it writes: [`Store::events_replaced_since`] it
    /// lists every event whose version was replaced after it, by any writer
    /// ([`UpsertedEvents::mark`]).
    pub(super) async fn replacement_mark(
        &self,
        tx: &mut crate::db::Conn,
    ) -> Result<ReplacementMark> {
        Ok(match self.backend() {
            Backend::Sqlite => ReplacementMark::Seq(
                crate::db::query("SELECT COALESCE(MAX(seq), 0) AS seq FROM event_replacements")
                    .fetch_one(self.counted(tx))
                    .await?
                    .try_get("seq")?,
            ),
            Backend::Postgres => ReplacementMark::Snapshot(
                crate::db::query("SELECT pg_current_snapshot()::text AS snapshot")
                    .fetch_one(self.counted(tx))
                    .await?
                    .try_get("snapshot")?,
            ),
        })
    }

    /// The events of `account` whose stored version was replaced after `mark` was taken
    /// ([`UpsertedEvents::mark`]), by any writer, committed by now. On SQLite the log's
    /// rows after the mark's `seq` (one writer: rows commit in `seq` order); on PostgreSQL
    /// those whose transaction the mark's snapshot does not see.
    ///
    /// # Errors
    /// [`StoreError::Sql`] when the database cannot be read, [`StoreError::Corrupt`] for a
    /// logged id that is not 16 bytes.
    pub async fn events_replaced_since(
        &self,
        account: Uuid,
        mark: &ReplacementMark,
    ) -> Result<HashSet<Uuid>> {
        let q = match mark {
            ReplacementMark::Seq(seq) => crate::db::query(
                "SELECT event_id FROM event_replacements WHERE seq > $1 AND account_id = $2",
            )
            .bind(*seq),
            ReplacementMark::Snapshot(snapshot) => crate::db::query(
                "SELECT event_id FROM event_replacements \
                 WHERE xid >= pg_snapshot_xmin($1::pg_snapshot) \
                 AND NOT pg_visible_in_snapshot(xid, $1::pg_snapshot) AND account_id = $2",
            )
            .bind(snapshot.as_str()),
        };
        let rows = q
            .bind(account.as_bytes().as_slice())
            .fetch_all(self.pool())
            .await?;
        rows.iter()
            .map(|r| uuid_of_bytes(&r.try_get::<Vec<u8>, _>("event_id")?, "replaced event id"))
            .collect()
    }

    /// The stored versions of `events` on SQLite, by id: each found in `event_ids` or
    /// `event_ids_recent` (migration 35), with its row's `seq`, `issued_at` and `body`
    /// (`None` for a body stored as TEXT, before migration 23). One statement for the whole
    /// list.
    async fn stored_versions(
        &self,
        tx: &mut crate::db::Conn,
        events: &[&NewEvent<'_>],
    ) -> Result<HashMap<Uuid, StoredVersion>> {
        let sql = format!(
            "SELECT seq, id, issued_at, CASE WHEN typeof(body) = 'blob' THEN body END AS body \
             FROM transport_events WHERE {}",
            self.events_with_ids_in("$1")
        );
        let rows = crate::db::query(&sql)
            .bind(id_list_json(events.iter().map(|e| &e.event.id)))
            .fetch_all(self.counted(tx))
            .await?;
        let mut out = HashMap::with_capacity(rows.len());
        for r in &rows {
            let id = uuid_of_bytes(&r.try_get::<Vec<u8>, _>("id")?, "transport event id")?;
            out.insert(
                id,
                StoredVersion {
                    seq: r.try_get("seq")?,
                    issued_at: r.try_get("issued_at")?,
                    body: r.try_get("body")?,
                },
            );
        }
        Ok(out)
    }

    /// Moves the ids of `event_ids_recent` into `event_ids` (migration 35) when the recent run
    /// holds a sixteenth of the events stored, `last_seq` the highest `seq` (and at least
    /// [`RECENT_EVENT_IDS_MIN`]): one sorted pass that writes each leaf of the large run once
    /// for the ids of many files, where inserting each file's ids there would rewrite most of
    /// its leaves per file. SQLite only; in the writer's transaction `tx`.
    async fn merge_event_ids_when_due(
        &self,
        tx: &mut crate::db::Conn,
        last_seq: i64,
    ) -> Result<()> {
        let recent: i64 = crate::db::query("SELECT COUNT(*) AS n FROM event_ids_recent")
            .fetch_one(self.counted(tx))
            .await?
            .try_get("n")?;
        if recent >= (last_seq / 16).max(RECENT_EVENT_IDS_MIN) {
            self.merge_recent_event_ids(tx).await?;
        }
        Ok(())
    }

    /// Moves every id of `event_ids_recent` into `event_ids` in `tx` (SQLite, migration 35);
    /// returns how many moved.
    async fn merge_recent_event_ids(&self, tx: &mut crate::db::Conn) -> Result<u64> {
        // `OR FAIL`: no statement journal, which at the million copied each of the large
        // run's pages a merge rewrites (432 MB) to a temporary file ([`Store::insert_new`]).
        let moved = crate::db::query(
            "INSERT OR FAIL INTO event_ids (id, seq) SELECT id, seq FROM event_ids_recent ORDER BY id",
        )
        .execute(self.counted(tx))
        .await?
        .rows_affected();
        crate::db::query("DELETE FROM event_ids_recent")
            .execute(self.counted(tx))
            .await?;
        Ok(moved)
    }

    /// Merges the ids of the events stored since the last merge into the large run now, as
    /// [`Store::upsert_events`] does once they are many (SQLite, migration 35): for tests and
    /// tools that look at the two runs. Returns how many ids moved; 0 on PostgreSQL, which
    /// keeps one unique index.
    ///
    /// # Errors
    /// [`StoreError::Sql`] when the writer's transaction fails (nothing moves).
    pub async fn merge_event_ids(&self) -> Result<u64> {
        if self.backend() == Backend::Postgres {
            return Ok(0);
        }
        let mut tx = self.writer().begin_immediate().await?;
        let moved = self.merge_recent_event_ids(&mut tx).await?;
        tx.commit().await?;
        Ok(moved)
    }

    /// [`with_event_id_in`] for `transport_events` and the JSON list of ids bound as `param`
    /// ([`id_list`], [`id_list_json`]): the condition of every read of events by id.
    pub(crate) fn events_with_ids_in(&self, param: &str) -> String {
        with_event_id_in(
            self.backend(),
            "transport_events",
            &id_list(self.backend(), param),
        )
    }

    /// Appends the ids of `events` (versions just written in `tx`) to the `event_keys` list of
    /// every container, bill of lading and booking each names (migration 29: one row per key),
    /// after taking the ids of the versions they replaced out of the keys those no longer
    /// name ([`Store::delete_replaced_keys`]). A pair the replaced version already listed is
    /// not appended again.
    pub(super) async fn insert_event_keys(
        &self,
        tx: &mut crate::db::Conn,
        account: Uuid,
        events: &[&TransportEvent],
    ) -> Result<DroppedKeys> {
        let drained = self.delete_replaced_keys(tx).await?;
        let lists = key_lists(events, &drained.listed);
        // On SQLite the keys already stored are extended first and the rest inserted plain,
        // without a statement journal ([`Store::append_stored_event_keys_sqlite`]); on
        // PostgreSQL one upsert does both.
        let (rows, conflict) = match self.backend() {
            Backend::Sqlite => (
                self.append_stored_event_keys_sqlite(tx, account, &lists)
                    .await?,
                "",
            ),
            Backend::Postgres => (
                lists
                    .iter()
                    .map(|(kind, value, ids)| (*kind, *value, ids.as_slice()))
                    .collect(),
                " ON CONFLICT (account_id, kind, value) DO UPDATE SET event_ids = \
                 event_keys.event_ids || excluded.event_ids",
            ),
        };
        for chunk in rows.chunks(self.rows_per_list(4)) {
            let sql = format!(
                "{} event_keys (account_id, kind, value, event_ids) VALUES {}{conflict}",
                self.insert_new(),
                self.values(chunk.len(), 4)
            );
            let mut q = crate::db::query(&sql);
            for (kind, value, ids) in chunk {
                q = q
                    .bind(account.as_bytes().as_slice())
                    .bind(kind.code())
                    .bind(*value)
                    .bind(*ids);
            }
            q.execute(self.counted(tx)).await?;
        }
        Ok(DroppedKeys::of(&drained.stale))
    }

    /// SQLite: appends to the `event_keys` rows already stored the ids `lists` gives them (key,
    /// then the ids; in key order, as [`key_lists`] makes them) and returns the other keys of
    /// `lists`, which the caller inserts by `INSERT OR FAIL`. The stored keys are read first
    /// (`event_keys_key`, with their rowids) and extended by an `UPDATE OR FAIL` that finds
    /// them by rowid ([`keyed_update`]): neither keeps a statement journal
    /// ([`Store::insert_new`]), where an upsert's `DO UPDATE` would. In `tx`, the writer's
    /// transaction, so no other writer adds a key in between.
    async fn append_stored_event_keys_sqlite<'l>(
        &self,
        tx: &mut crate::db::Conn,
        account: Uuid,
        lists: &'l [(KeyKind, &'l str, Vec<u8>)],
    ) -> Result<Vec<(KeyKind, &'l str, &'l [u8])>> {
        // The stored keys' rowids (`seq`), by kind, then value.
        let mut stored: HashMap<KeyKind, HashMap<String, i64>> = HashMap::new();
        // Each kind's keys are one run of `lists`.
        for run in lists.chunk_by(|a, b| a.0 == b.0) {
            let kind = run[0].0;
            for chunk in run.chunks(self.rows_per_list(1).saturating_sub(2).max(1)) {
                let sql = self.positional(format!(
                    "SELECT seq, value FROM event_keys WHERE account_id = $1 AND kind = $2 AND value IN ({})",
                    in_list(3, chunk.len())
                ));
                let mut q = crate::db::query(&sql)
                    .bind(account.as_bytes().as_slice())
                    .bind(kind.code());
                for (_, value, _) in chunk {
                    q = q.bind(*value);
                }
                for row in q.fetch_all(self.counted(tx)).await? {
                    stored
                        .entry(kind)
                        .or_default()
                        .insert(row.try_get("value")?, row.try_get("seq")?);
                }
            }
        }
        let mut new = Vec::new();
        let mut old = Vec::new();
        for (kind, value, ids) in lists {
            match stored.get(kind).and_then(|values| values.get(*value)) {
                Some(seq) => old.push((*seq, ids.as_slice())),
                None => new.push((*kind, *value, ids.as_slice())),
            }
        }
        // SQLite's `||` makes text of its operands' bytes; the cast keeps the list a BLOB.
        for chunk in old.chunks(self.rows_per_list(2)) {
            let sql = keyed_update(
                "event_keys",
                "seq",
                (chunk.len(), 2),
                |from| {
                    format!("event_ids = CAST(event_keys.event_ids || (SELECT v.column2 {from}) AS BLOB)")
                },
                None,
            );
            let mut q = crate::db::query(&sql);
            for (seq, ids) in chunk {
                q = q.bind(*seq).bind(*ids);
            }
            q.execute(self.counted(tx)).await?;
        }
        Ok(new)
    }

    /// Takes the event versions replaced in `tx` so far out of `event_keys`: the trigger
    /// `transport_events_version_replaced` (migration 23) copies each replaced version's body
    /// into `replaced_event_versions`, which this empties. An event's id leaves a key's list
    /// when the replaced version named the key and the event's stored version does not
    /// ([`replaced_keys`]), so a version replaced outside the store's writers (and drained
    /// later) never takes a key its event still names; a list left empty is deleted. Bodies
    /// are compressed, so SQL alone cannot list their keys.
    pub(super) async fn delete_replaced_keys(
        &self,
        tx: &mut crate::db::Conn,
    ) -> Result<ReplacedKeys> {
        let sql = format!(
            "DELETE FROM replaced_event_versions RETURNING event_id, account_id, {}",
            body_bytes(self.backend(), "body")
        );
        let rows = crate::db::query(&sql).fetch_all(self.counted(tx)).await?;
        if rows.is_empty() {
            return Ok(ReplacedKeys::default());
        }
        let mut replaced = Vec::with_capacity(rows.len());
        for r in &rows {
            let id = uuid_of_bytes(&r.try_get::<Vec<u8>, _>("event_id")?, "replaced event id")?;
            let account = uuid_of_bytes(
                &r.try_get::<Vec<u8>, _>("account_id")?,
                "replaced event account",
            )?;
            replaced.push((id, account, event_body(r, id)?));
        }
        let mut current = HashMap::new();
        let sql = format!(
            "SELECT id, {} FROM transport_events WHERE {}",
            body_bytes(self.backend(), "body"),
            self.events_with_ids_in("$1")
        );
        let rows = crate::db::query(&sql)
            .bind(id_list_json(replaced.iter().map(|(id, _, _)| id)))
            .fetch_all(self.counted(tx))
            .await?;
        for r in rows {
            let id = uuid_of_bytes(&r.try_get::<Vec<u8>, _>("id")?, "transport event id")?;
            current.insert(id, event_body(&r, id)?);
        }
        let keys = replaced_keys(&replaced, &current)?;
        // Rare (an event that changed its keys): one read and one write per key.
        let lock = match self.backend() {
            Backend::Sqlite => "",
            Backend::Postgres => " FOR UPDATE",
        };
        let select = format!("{KEY_LIST}{lock}");
        for ((account, kind, value), gone) in stale_by_key(&keys.stale) {
            let Some(row) = crate::db::query(&select)
                .bind(account.as_bytes().as_slice())
                .bind(kind.code())
                .bind(value)
                .fetch_optional(self.counted(tx))
                .await?
            else {
                continue;
            };
            let left = without_ids(&row.try_get::<Vec<u8>, _>("event_ids")?, &gone);
            let q = crate::db::query(key_list_write(&left))
                .bind(account.as_bytes().as_slice())
                .bind(kind.code())
                .bind(value);
            let q = if left.is_empty() { q } else { q.bind(left) };
            q.execute(self.counted(tx)).await?;
        }
        Ok(keys)
    }

    /// Up to `limit` stored events of `account`, by id, after the event `after` (from the start
    /// when `None`): `(event id, carrier payload)`. For paging through everything stored; the
    /// payload is `None` for an event stored without one (none such are written; an upgraded
    /// database's event whose raw row was missing).
    pub async fn raw_events_after(
        &self,
        account: Uuid,
        after: Option<Uuid>,
        limit: i64,
    ) -> Result<Vec<(Uuid, Option<String>)>> {
        let (body, payload) = (
            body_bytes(self.backend(), "e.body"),
            payload_bytes(self.backend()),
        );
        let sql = match self.backend() {
            Backend::Postgres => format!(
                "SELECT id, {body}, {payload} FROM transport_events e \
                 WHERE account_id = $1 AND id > $2 ORDER BY id LIMIT $3"
            ),
            // Each run of ids (migration 35) in its key's order, merged by SQLite as they are
            // read ("ORDER BY" of a compound SELECT); the rows by their rowid.
            Backend::Sqlite => {
                let run = |table: &str| {
                    format!(
                        "SELECT x.id AS id, {body}, {payload} FROM {table} x \
                         CROSS JOIN transport_events e ON e.seq = x.seq \
                         WHERE x.id > $2 AND e.account_id = $1"
                    )
                };
                format!(
                    "{} UNION ALL {} ORDER BY id LIMIT $3",
                    run("event_ids"),
                    run("event_ids_recent")
                )
            }
        };
        let rows = crate::db::query(&sql)
            .bind(account.as_bytes().as_slice())
            .bind(after.map(|a| a.as_bytes().to_vec()).unwrap_or_default())
            .bind(limit)
            .fetch_all(self.pool())
            .await?;
        rows.iter()
            .map(|r| {
                let id = uuid_of_bytes(&r.try_get::<Vec<u8>, _>("id")?, "transport event id")?;
                Ok((id, stored_event(r, id)?.payload))
            })
            .collect()
    }

    /// Rewrites the stored normalized form of `events` (same ids, same versions: a re-reading
    /// of their raw events by today's readers) and their `event_keys`, where it changed.
    /// Events not stored are skipped. Returns how many were rewritten, and the keys their
    /// earlier versions named that they no longer name ([`DroppedKeys`], to derive again).
    pub async fn rewrite_events(
        &self,
        account: Uuid,
        events: &[TransportEvent],
    ) -> Result<(usize, DroppedKeys)> {
        let mut stored: HashMap<Uuid, StoredEvent> = HashMap::new();
        let sql = format!(
            "SELECT id, {}, {} FROM transport_events WHERE account_id = $1 AND {}",
            body_bytes(self.backend(), "body"),
            payload_bytes(self.backend()),
            self.events_with_ids_in("$2")
        );
        let rows = crate::db::query(&sql)
            .bind(account.as_bytes().as_slice())
            .bind(id_list_json(events.iter().map(|e| &e.id)))
            .fetch_all(self.pool())
            .await?;
        for row in rows {
            let id = uuid_of_bytes(&row.try_get::<Vec<u8>, _>("id")?, "transport event id")?;
            stored.insert(id, stored_event(&row, id)?);
        }
        // A rewritten event takes the one-frame layout (`payloads::EVENTS`): body and payload in
        // one frame.
        let mut encoder = Encoder::new(&EVENTS).map_err(StoreError::Compress)?;
        let mut changed: Vec<(&TransportEvent, Vec<u8>)> = Vec::new();
        for e in events {
            let body = teu_domain::json::to_string(&e.event).unwrap_or_default();
            let Some(old) = stored.get(&e.id).filter(|old| old.body != body) else {
                continue;
            };
            let frame = encode_event(&mut encoder, &body, old.payload.as_deref())
                .map_err(StoreError::Compress)?;
            changed.push((e, frame));
        }
        let mut tx = self.writer().begin().await?;
        let update = format!(
            "UPDATE transport_events SET body = $3, named_actual = $4, vessel_imo = $5, payload = NULL \
             WHERE account_id = $1 AND {}",
            with_event_id(self.backend(), "transport_events", "$2")
        );
        for (e, body) in &changed {
            crate::db::query(&update)
                .bind(account.as_bytes().as_slice())
                .bind(e.id.as_bytes().as_slice())
                .bind(body.as_slice())
                .bind(i64::from(named_actual(&e.event)))
                .bind(e.event.vessel_imo.as_ref().map(|imo| imo.as_str()))
                .execute(self.counted(&mut tx))
                .await?;
        }
        let written: Vec<&TransportEvent> = changed.iter().map(|(e, _)| *e).collect();
        let dropped = self.insert_event_keys(&mut tx, account, &written).await?;
        tx.commit().await?;
        Ok((changed.len(), dropped))
    }

    /// Every bill of lading and booking the stored events of `account` name, sorted.
    pub async fn shipment_keys(&self, account: Uuid) -> Result<Vec<String>> {
        let rows = crate::db::query(
            "SELECT DISTINCT value FROM event_keys WHERE account_id = $1 AND kind <> $2 ORDER BY value",
        )
        .bind(account.as_bytes().as_slice())
        .bind(KeyKind::Container.code())
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| Ok(r.try_get::<String, _>("value")?))
            .collect()
    }

    /// Records quarantined rows; the same row of the same file is recorded once.
    pub async fn insert_quarantine(&self, account: Uuid, rows: &[Quarantined]) -> Result<()> {
        // Most files quarantine nothing: no transaction for them.
        if rows.is_empty() {
            return Ok(());
        }
        let now = RecordTime(Utc::now());
        // Two reasons for one field of one row: the later is kept, as before on SQLite.
        let rows = one_per_key(
            rows.iter().map(|r| {
                let index = r.index.map(|i| i.to_string()).unwrap_or_default();
                let id = teu_domain::ids::scoped(
                    account,
                    "quarantine",
                    &[&r.source_file, &index, &r.pointer],
                );
                (id, r)
            }),
            |_, _| true,
        );
        let mut tx = self.writer().begin().await?;
        for chunk in rows.chunks(self.rows_per_list(8)) {
            let sql = format!(
                "INSERT INTO quarantine (id, account_id, source_file, row_index, pointer, reason, payload, created_at) \
                 VALUES {} ON CONFLICT (id) DO UPDATE SET reason = excluded.reason",
                self.values(chunk.len(), 8)
            );
            let mut q = crate::db::query(&sql);
            for (id, r) in chunk {
                q = q
                    .bind(RecordId(*id))
                    .bind(RecordId(account))
                    .bind(&r.source_file)
                    .bind(r.index.map(|i| i as i64))
                    .bind(&r.pointer)
                    .bind(&r.reason)
                    .bind(&r.payload)
                    .bind(now);
            }
            q.execute(self.counted(&mut tx)).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// The ids of the stored events of `account` that name one of the containers, bills of
    /// lading or bookings given (index `event_keys`; no event body is read). With
    /// [`Store::events_by_id`], the input of a re-derivation: an event that names several of
    /// the keys is read once.
    pub async fn event_ids_matching(
        &self,
        account: Uuid,
        containers: &[String],
        bills_of_lading: &[String],
        bookings: &[String],
    ) -> Result<HashSet<Uuid>> {
        let mut found = HashSet::new();
        for (kind, values) in [
            (KeyKind::Container, containers),
            (KeyKind::BillOfLading, bills_of_lading),
            (KeyKind::Booking, bookings),
        ] {
            // No DISTINCT: the set dedupes, and SQLite would sort the rows to do it. The ids
            // come back as one row per statement, concatenated (`concatenated_ids`): a row per
            // key (523,131 at 5,000 containers, each its own allocation and hand-over from the
            // driver's thread) cost more than the lookup itself.
            for chunk in values.chunks(self.rows_per_list(1).saturating_sub(2).max(1)) {
                let sql = self.positional(format!(
                    "SELECT {} AS ids FROM event_keys \
                     WHERE account_id = $1 AND kind = $2 AND value IN ({})",
                    concatenated_ids(self.backend(), "event_ids"),
                    in_list(3, chunk.len())
                ));
                let mut q = crate::db::query(&sql)
                    .bind(account.as_bytes().as_slice())
                    .bind(kind.code());
                for v in chunk {
                    q = q.bind(v);
                }
                let row = q.fetch_one(self.pool()).await?;
                found.extend(ids_of_concatenated(&row, "ids", "event key's event id")?);
            }
        }
        Ok(found)
    }

    /// The stored events of `account` with the given ids (ids not stored, or stored for
    /// another account, are left out), in no particular order. One statement however many
    /// ids: they go in as one JSON array (a page's events and a derivation's history alike).
    pub async fn events_by_id(&self, account: Uuid, ids: &[Uuid]) -> Result<Vec<TransportEvent>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        // By primary key alone: with `account_id = $1` beside it, SQLite without planner
        // statistics (a database being filled) read the account's whole index instead
        // (40.6 s against 9 s for the derive stage of 5,000 containers). The account is
        // checked on the rows.
        // The ids as 32 hex digits each, made into their 16 bytes by the database.
        let sql = format!(
            "SELECT id, raw_event_id, {}, account_id FROM transport_events WHERE {}",
            body_bytes(self.backend(), "body"),
            self.events_with_ids_in("$1"),
        );
        // Decoded as they arrive: a derivation's history is tens of thousands of rows.
        let events = crate::db::query(&sql)
            .bind(id_list_json(ids))
            .fetch_map(self.pool(), |row| -> Result<_> {
                if row.try_get::<&[u8], _>("account_id")? == account.as_bytes() {
                    event_row(&row).map(Some)
                } else {
                    Ok(None)
                }
            })
            .await?;
        Ok(events.into_iter().flatten().collect())
    }
}

/// How many ids `event_ids_recent` holds, at the least, before it is merged into `event_ids`
/// (migration 35, [`Store::merge_event_ids_when_due`]); past 16 times as many events stored,
/// the merge waits for a sixteenth of them. At 131,072 ids (about three DCSA files of the
/// simulated feeds) the recent run is some 3 MB.
const RECENT_EVENT_IDS_MIN: i64 = 131_072;

/// A stored version of an event as [`Store::upsert_events`] compares a new one with it.
struct StoredVersion {
    /// Its `transport_events` rowid.
    seq: i64,
    /// When the carrier issued it, ms since the epoch (UTC).
    issued_at: i64,
    /// Its stored form; `None` when stored as TEXT (before migration 23).
    body: Option<Vec<u8>>,
}

/// The subquery listing the 16-byte ids of the JSON array of 32-hex-digit ids bound as `param`
/// ([`id_list_json`]): one parameter however many ids.
fn id_list(backend: Backend, param: &str) -> String {
    match backend {
        Backend::Sqlite => format!("SELECT unhex(value) FROM json_each({param})"),
        Backend::Postgres => {
            format!("SELECT decode(json_array_elements_text({param}::json), 'hex')")
        }
    }
}

/// `ids` (16-byte event ids: [`Uuid`]s or their stored bytes) as the JSON array [`id_list`]
/// reads: 32 lowercase hex digits each.
pub(crate) fn id_list_json(ids: impl IntoIterator<Item = impl AsRef<[u8]>>) -> String {
    let ids: Vec<String> = ids.into_iter().map(hex::encode).collect();
    serde_json::Value::from(ids).to_string()
}

/// The condition that the `transport_events` row named `table` (the table or its alias) is an
/// event whose id `ids` lists (a subquery or list of 16-byte ids, such as [`id_list`]). On
/// SQLite the ids are found in `event_ids` and `event_ids_recent` (migration 35), each by its
/// primary key, and the rows by their rowid; `ids` appears twice, so its parameters must be
/// numbered. On PostgreSQL by the unique index on `id`.
fn with_event_id_in(backend: Backend, table: &str, ids: &str) -> String {
    match backend {
        Backend::Sqlite => format!(
            "{table}.seq IN (SELECT seq FROM event_ids WHERE id IN ({ids}) \
             UNION ALL SELECT seq FROM event_ids_recent WHERE id IN ({ids}))"
        ),
        Backend::Postgres => format!("{table}.id IN ({ids})"),
    }
}

/// The condition that the `transport_events` row named `table` is the event whose 16-byte id
/// is the expression `id` (a parameter, or a column of a table joined before it), for a
/// lookup per row of a join: on SQLite its `seq` from `event_ids` or `event_ids_recent`
/// (migration 35), on PostgreSQL by `id`.
pub(crate) fn with_event_id(backend: Backend, table: &str, id: &str) -> String {
    match backend {
        Backend::Sqlite => format!(
            "{table}.seq = COALESCE((SELECT seq FROM event_ids WHERE id = {id}), \
             (SELECT seq FROM event_ids_recent WHERE id = {id}))"
        ),
        Backend::Postgres => format!("{table}.id = {id}"),
    }
}

/// What [`Store::upsert_events`] did with a list of events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpsertedEvents {
    /// The keys replaced versions named and their events no longer name.
    pub dropped: DroppedKeys,
    /// The ids of the events written: stored for the first time, or replacing an older stored
    /// version. The others' stored versions were kept (issued later, or as late and greater).
    pub written: HashSet<Uuid>,
    /// Where the log of replaced versions stood before these were written: a version written
    /// here is still the stored one unless [`Store::events_replaced_since`] this mark lists
    /// its event.
    pub mark: ReplacementMark,
}

/// A point in the log of replaced event versions (migration 36, `event_replacements`), taken
/// by [`Store::upsert_events`] ([`UpsertedEvents::mark`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplacementMark {
    /// SQLite: the log's last `seq` (AUTOINCREMENT, never reused; one writer, so rows commit
    /// in `seq` order).
    Seq(i64),
    /// PostgreSQL: a snapshot (`pg_current_snapshot()` as text); the rows after it are those
    /// of transactions it does not see (PostgreSQL manual, "Transaction ID and Snapshot
    /// Information Functions").
    Snapshot(String),
}

/// What an `event_keys` row names, stored as its code (migration 24).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum KeyKind {
    Container = 0,
    BillOfLading = 1,
    Booking = 2,
}

impl KeyKind {
    /// The stored code: 0 container, 1 bill of lading, 2 booking.
    pub(super) fn code(self) -> i16 {
        self as i16
    }
}

/// The containers, bills of lading and bookings that replaced event versions named and the
/// events' stored versions no longer name (the `event_keys` rows deleted with them), returned
/// by [`Store::upsert_events`] and [`Store::rewrite_events`]. A derivation of these keys
/// derives again what the replaced versions were part of: a container an event left, a
/// shipment whose key no event names any more (deleted as stale).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DroppedKeys {
    /// Container numbers (ISO 6346), as the events named them.
    pub containers: BTreeSet<String>,
    /// Bill of lading numbers.
    pub bills_of_lading: BTreeSet<String>,
    /// Booking numbers.
    pub bookings: BTreeSet<String>,
}

impl DroppedKeys {
    /// The keys of `(account, kind, value, event)` pairs taken out of `event_keys`
    /// ([`ReplacedKeys::stale`]).
    pub(super) fn of(stale: &[(Uuid, KeyKind, String, Uuid)]) -> Self {
        let mut out = DroppedKeys::default();
        for (_, kind, value, _) in stale {
            match kind {
                KeyKind::Container => out.containers.insert(value.clone()),
                KeyKind::BillOfLading => out.bills_of_lading.insert(value.clone()),
                KeyKind::Booking => out.bookings.insert(value.clone()),
            };
        }
        out
    }

    /// Whether no key was dropped.
    pub fn is_empty(&self) -> bool {
        self.containers.is_empty() && self.bills_of_lading.is_empty() && self.bookings.is_empty()
    }
}

/// The aggregate that reads every value of the id `column` of the matching rows (16 bytes
/// per id, one id or a list of them concatenated) as one value, `NULL` when no row matches;
/// read back by [`ids_of_concatenated`]. On SQLite one text of 32 hex digits per id, no
/// separator (`group_concat` makes text of what it joins); on PostgreSQL the bytes themselves,
/// one `bytea` (`string_agg(bytea, bytea)`, PostgreSQL manual, "Aggregate Functions"), half
/// the size of their hex and nothing for the server to encode or the reader to decode.
fn concatenated_ids(backend: Backend, column: &str) -> String {
    match backend {
        Backend::Sqlite => format!("group_concat(hex({column}), '')"),
        Backend::Postgres => format!("string_agg({column}, ''::bytea)"),
    }
}

/// The ids of the [`concatenated_ids`] value in column `column` of `row`, as its backend
/// wrote it; `what` names them in errors: [`StoreError::Corrupt`] with the offending digits or
/// bytes when the value is not whole ids.
fn ids_of_concatenated(row: &DbRow, column: &str, what: &'static str) -> Result<Vec<Uuid>> {
    match row {
        DbRow::Sqlite(_) => {
            let hex: Option<String> = row.try_get(column)?;
            ids_of_hex(hex.as_deref().unwrap_or_default(), what)
        }
        DbRow::Postgres(_) => record_id_list(row, column, what),
    }
}

/// The ids of SQLite's [`concatenated_ids`] value, hex digits of either case;
/// [`StoreError::Corrupt`] naming `what` and the offending digits when its length is not a
/// multiple of 32 or a piece is not hex.
fn ids_of_hex(hex: &str, what: &'static str) -> Result<Vec<Uuid>> {
    let corrupt = |id: &str, detail: String| StoreError::Corrupt {
        what,
        id: id.to_string(),
        detail,
    };
    if hex.len() % 32 != 0 {
        return Err(corrupt(
            &hex.chars().take(64).collect::<String>(),
            format!("{} hex digits, not whole 16-byte ids", hex.len()),
        ));
    }
    hex.as_bytes()
        .chunks(32)
        .map(|digits| {
            Uuid::try_parse_ascii(digits)
                .map_err(|e| corrupt(&String::from_utf8_lossy(digits), e.to_string()))
        })
        .collect()
}

/// The keys an event names, `(kind, value)`: every container, bill of lading and booking. The
/// one rule of what `event_keys` holds for an event, for the keys written and the keys of a
/// replaced version deleted.
fn keys_of(event: &EventRow) -> impl Iterator<Item = (KeyKind, &str)> {
    [
        (KeyKind::Container, &event.containers),
        (KeyKind::BillOfLading, &event.bills_of_lading),
        (KeyKind::Booking, &event.bookings),
    ]
    .into_iter()
    .flat_map(|(kind, values)| values.iter().map(move |v| (kind, v.as_str())))
}

/// What the replaced versions of a drain of `replaced_event_versions` named
/// ([`replaced_keys`], [`Store::delete_replaced_keys`]).
#[derive(Debug, Default)]
pub(super) struct ReplacedKeys {
    /// `(account id, kind, value, event id)` of every key a replaced version named that its
    /// event's stored version does not, each once, in order: the event leaves these lists.
    pub stale: Vec<(Uuid, KeyKind, String, Uuid)>,
    /// `(kind, value, event id)` of every key a replaced version named: the event is in these
    /// lists already (or leaves them), so a writer appending the new version's keys skips them.
    pub listed: HashSet<(KeyKind, String, Uuid)>,
}

/// The keys of replaced versions: `replaced` holds `(event id, account id, body JSON)` of each
/// replaced version, `current` the body JSON each event has now (absent: the event is gone).
///
/// # Errors
/// [`StoreError::Corrupt`] when a body is not a stored event's JSON.
pub(super) fn replaced_keys(
    replaced: &[(Uuid, Uuid, String)],
    current: &HashMap<Uuid, String>,
) -> Result<ReplacedKeys> {
    let parse = |body: &str, id: &Uuid| from_json::<EventRow>(body, "transport event", id);
    let mut stale = BTreeSet::new();
    let mut listed = HashSet::new();
    for (event, account, body) in replaced {
        let now = current
            .get(event)
            .map(|now| parse(now, event))
            .transpose()?;
        let kept: HashSet<(KeyKind, &str)> = now.iter().flat_map(keys_of).collect();
        for (kind, value) in keys_of(&parse(body, event)?) {
            listed.insert((kind, value.to_string(), *event));
            if !kept.contains(&(kind, value)) {
                stale.insert((*account, kind, value.to_string(), *event));
            }
        }
    }
    Ok(ReplacedKeys {
        stale: stale.into_iter().collect(),
        listed,
    })
}

/// The ids to take out of each key's list, by `(account, kind, value)`, from
/// [`ReplacedKeys::stale`].
pub(super) fn stale_by_key(
    stale: &[(Uuid, KeyKind, String, Uuid)],
) -> BTreeMap<(Uuid, KeyKind, &str), HashSet<Uuid>> {
    let mut out: BTreeMap<(Uuid, KeyKind, &str), HashSet<Uuid>> = BTreeMap::new();
    for (account, kind, value, event) in stale {
        out.entry((*account, *kind, value.as_str()))
            .or_default()
            .insert(*event);
    }
    out
}

/// Reads one key's `event_keys` list: `$1` account, `$2` kind code, `$3` value.
pub(super) const KEY_LIST: &str =
    "SELECT event_ids FROM event_keys WHERE account_id = $1 AND kind = $2 AND value = $3";

/// The statement writing back a key's list after ids left it ([`without_ids`]), with the
/// parameters of [`KEY_LIST`] and, when `left` is not empty, `$4` the list: an empty list
/// deletes the key's row.
pub(super) fn key_list_write(left: &[u8]) -> &'static str {
    if left.is_empty() {
        "DELETE FROM event_keys WHERE account_id = $1 AND kind = $2 AND value = $3"
    } else {
        "UPDATE event_keys SET event_ids = $4 WHERE account_id = $1 AND kind = $2 AND value = $3"
    }
}

/// An `event_keys.event_ids` list (16-byte ids, concatenated) without the ids in `gone`; a
/// trailing piece shorter than 16 bytes (not a stored form) is dropped with them.
pub(super) fn without_ids(list: &[u8], gone: &HashSet<Uuid>) -> Vec<u8> {
    list.chunks_exact(16)
        .filter(|id| Uuid::from_slice(id).map_or(true, |id| !gone.contains(&id)))
        .flatten()
        .copied()
        .collect()
}

/// The `event_keys` lists to append for `events`: `(kind, value, ids)` of every container,
/// bill of lading and booking they name, with the 16-byte ids of the events naming it
/// concatenated, in key order (the order two writers take the keys' rows in, so that they wait
/// for each other instead of deadlocking); pairs in `listed` (already in their lists) are left
/// out, and a key left with no id is not listed.
///
/// Each key is found by hash and the distinct keys sorted once at the end: a file names each
/// container, bill of lading and booking in many events, and finding every (key, event) pair
/// in an ordered map (string comparisons down the tree) was about 5% of a PostgreSQL ingest
/// worker's CPU (docs/NOTES.md, sixty-second session).
pub(super) fn key_lists<'e>(
    events: &[&'e TransportEvent],
    listed: &HashSet<(KeyKind, String, Uuid)>,
) -> Vec<(KeyKind, &'e str, Vec<u8>)> {
    let mut at: foldhash::HashMap<(KeyKind, &str), usize> = foldhash::HashMap::default();
    let mut lists: Vec<(KeyKind, &'e str, Vec<u8>)> = Vec::new();
    for e in events {
        for (kind, value) in keys_of(&e.event) {
            if !listed.is_empty() && listed.contains(&(kind, value.to_string(), e.id)) {
                continue;
            }
            let n = *at.entry((kind, value)).or_insert_with(|| {
                lists.push((kind, value, Vec::new()));
                lists.len() - 1
            });
            let ids = &mut lists[n].2;
            // An event naming a key twice is listed once (its pairs come one after another).
            if !ids.ends_with(e.id.as_bytes()) {
                ids.extend_from_slice(e.id.as_bytes());
            }
        }
    }
    // Distinct keys: an unstable sort cannot reorder equal ones.
    lists.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    lists
}

/// The select-list item reading `transport_events.payload` as bytes, named `payload`: on SQLite
/// rows written before compression hold TEXT (read through [`crate::stored_event`]).
fn payload_bytes(backend: Backend) -> &'static str {
    match backend {
        Backend::Sqlite => "CAST(payload AS BLOB) AS payload",
        Backend::Postgres => "payload",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A replaced version's keys go unless the event's stored version still names them (read
    /// by the rule that wrote them, `keys_of`: an older release's single `container_number`
    /// names its box); a gone event keeps none; a body that is not an event is an error.
    #[test]
    fn replaced_keys_are_the_old_versions_keys_the_stored_one_lacks() {
        // Bodies as the store writes them (`EventRow` JSON); the older release's carries one
        // `container_number` and `bill_of_lading`, which read as lists of one.
        let head = r#""event_id":"x","event_type":"EQUIPMENT","classifier":"ACT","code":"LOAD","event_at":"2026-11-01T00:00:00Z""#;
        let old = format!(
            r#"{{{head},"containers":["MSKU1234565","MSKU7654321"],"bills_of_lading":["MAEU123"]}}"#
        );
        let now = format!(
            r#"{{{head},"containers":["MSKU7654321","TGHU9876543"],"bills_of_lading":["MAEU123"],"bookings":["B1"]}}"#
        );
        let older_release =
            format!(r#"{{{head},"container_number":"MSKU1234565","bill_of_lading":"MAEU123"}}"#);
        let (old, now, older_release) = (old.as_str(), now.as_str(), older_release.as_str());
        let (a, b) = (Uuid::from_u128(0xa), Uuid::from_u128(0xb));
        let (e1, e2) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let row = |e: Uuid, acc: Uuid, body: &str| (e, acc, body.to_string());
        let replaced = vec![row(e1, a, old), row(e1, a, older_release), row(e2, b, old)];
        let current = HashMap::from([(e1, now.to_string())]);
        let keys = replaced_keys(&replaced, &current).expect("bodies parse");
        let key = |acc, kind, value: &str, e| (acc, kind, value.to_string(), e);
        assert_eq!(
            keys.stale,
            vec![
                key(a, KeyKind::Container, "MSKU1234565", e1),
                key(b, KeyKind::Container, "MSKU1234565", e2),
                key(b, KeyKind::Container, "MSKU7654321", e2),
                key(b, KeyKind::BillOfLading, "MAEU123", e2),
            ]
        );
        // Every key a replaced version named is in its event's lists already.
        let pair = |kind, value: &str, e| (kind, value.to_string(), e);
        assert_eq!(
            keys.listed,
            HashSet::from([
                pair(KeyKind::Container, "MSKU1234565", e1),
                pair(KeyKind::Container, "MSKU7654321", e1),
                pair(KeyKind::BillOfLading, "MAEU123", e1),
                pair(KeyKind::Container, "MSKU1234565", e2),
                pair(KeyKind::Container, "MSKU7654321", e2),
                pair(KeyKind::BillOfLading, "MAEU123", e2),
            ])
        );
        let dropped = DroppedKeys::of(&keys.stale);
        assert_eq!(
            dropped.containers,
            BTreeSet::from(["MSKU1234565".to_string(), "MSKU7654321".to_string()])
        );
        assert_eq!(
            dropped.bills_of_lading,
            BTreeSet::from(["MAEU123".to_string()])
        );
        // The ids leaving each key's list, by key.
        let by_key = stale_by_key(&keys.stale);
        assert_eq!(
            by_key[&(b, KeyKind::Container, "MSKU1234565")],
            HashSet::from([e2])
        );
        assert_eq!(by_key.len(), 4);
        let broken = vec![row(Uuid::from_u128(3), a, "{")];
        assert!(matches!(
            replaced_keys(&broken, &current),
            Err(StoreError::Corrupt { .. })
        ));
    }

    /// An event of `containers` and bill of lading `bl`, with id `id`.
    fn event_naming(id: u128, containers: &[&str], bl: &str) -> TransportEvent {
        let head = r#""event_id":"x","event_type":"EQUIPMENT","classifier":"ACT","code":"LOAD","event_at":"2026-11-01T00:00:00Z""#;
        let body = format!(
            r#"{{{head},"containers":{},"bills_of_lading":["{bl}"]}}"#,
            serde_json::Value::from(containers.to_vec())
        );
        TransportEvent {
            id: Uuid::from_u128(id),
            raw_event_id: Uuid::from_u128(id + 1000),
            timezone: None,
            event: serde_json::from_str(&body).expect("an event"),
        }
    }

    /// Each key lists the 16-byte ids of the events naming it, once each, in key order; a pair
    /// already listed (a replaced version's) is left out, and a key with nothing left is not
    /// listed at all.
    #[test]
    fn key_lists_group_the_events_of_each_key() {
        let e1 = event_naming(1, &["MSKU1234565", "MSKU1234565"], "B1");
        let e2 = event_naming(2, &["MSKU1234565", "TGHU9876543"], "B1");
        let bytes = |ids: &[u128]| -> Vec<u8> {
            ids.iter()
                .flat_map(|id| Uuid::from_u128(*id).as_bytes().to_vec())
                .collect()
        };
        let lists = key_lists(&[&e1, &e2], &HashSet::new());
        assert_eq!(
            lists,
            vec![
                (KeyKind::Container, "MSKU1234565", bytes(&[1, 2])),
                (KeyKind::Container, "TGHU9876543", bytes(&[2])),
                (KeyKind::BillOfLading, "B1", bytes(&[1, 2])),
            ]
        );
        let listed = HashSet::from([
            (KeyKind::Container, "MSKU1234565".to_string(), e1.id),
            (KeyKind::Container, "TGHU9876543".to_string(), e2.id),
        ]);
        assert_eq!(
            key_lists(&[&e1, &e2], &listed),
            vec![
                (KeyKind::Container, "MSKU1234565", bytes(&[2])),
                (KeyKind::BillOfLading, "B1", bytes(&[1, 2])),
            ]
        );
    }

    /// Taking ids out of a list keeps the others in their order; an empty result is empty.
    #[test]
    fn without_ids_keeps_the_other_ids() {
        let ids: Vec<Uuid> = (1..=4).map(Uuid::from_u128).collect();
        let list: Vec<u8> = ids.iter().flat_map(|id| id.as_bytes().to_vec()).collect();
        let gone = HashSet::from([ids[1], ids[3]]);
        let want: Vec<u8> = [ids[0], ids[2]]
            .iter()
            .flat_map(|id| id.as_bytes().to_vec())
            .collect();
        assert_eq!(without_ids(&list, &gone), want);
        assert!(without_ids(&list, &ids.iter().copied().collect()).is_empty());
    }

    /// The ids of a concatenated hex value (SQLite's `hex`, upper case) come back as written,
    /// in either case; a value cut short or with a non-hex digit is corrupt, not silently
    /// shortened.
    #[test]
    fn concatenated_hex_ids_read_back() {
        let ids = [
            Uuid::parse_str("0c6a4b1e-7f1d-5e3a-9c2b-8d4e6f1a2b3c").expect("uuid"),
            Uuid::from_u128(u128::MAX),
            Uuid::nil(),
        ];
        let upper: String = ids
            .iter()
            .map(|u| u.simple().to_string().to_uppercase())
            .collect();
        let lower: String = ids.iter().map(|u| u.simple().to_string()).collect();
        for hex in [&upper, &lower] {
            assert_eq!(ids_of_hex(hex, "test").expect("whole ids"), ids.to_vec());
        }
        assert_eq!(ids_of_hex("", "test").expect("empty"), Vec::<Uuid>::new());
        for bad in [&upper[..40], &upper.replacen('C', "G", 1)] {
            assert!(matches!(
                ids_of_hex(bad, "test"),
                Err(StoreError::Corrupt { what: "test", .. })
            ));
        }
    }

    /// On PostgreSQL (when `TEU_TEST_POSTGRES_URL` is set): [`concatenated_ids`] joins the
    /// lists' bytes and [`ids_of_concatenated`] reads back every id of every list; no row is
    /// no ids, and a list cut short is corrupt, not silently shortened.
    #[tokio::test]
    async fn postgres_concatenated_ids_read_back() {
        let Some(db) = crate::scratch::ScratchStore::for_test("teu_agg").await else {
            return;
        };
        let ids = [Uuid::from_u128(0xffff), Uuid::from_u128(1), Uuid::nil()];
        let list: Vec<u8> = ids[1..].iter().flat_map(|u| *u.as_bytes()).collect();
        let agg = concatenated_ids(Backend::Postgres, "v");
        let read = |sql: String, short: Option<Vec<u8>>| {
            let (store, list) = (&db.store, list.clone());
            async move {
                let second = short.unwrap_or(list);
                let row = crate::db::query(&sql)
                    .bind(ids[0].as_bytes().as_slice())
                    .bind(second)
                    .fetch_one(store.reader())
                    .await
                    .expect("the aggregate");
                ids_of_concatenated(&row, "ids", "test")
            }
        };
        let rows = format!("SELECT {agg} AS ids FROM (VALUES ($1::bytea), ($2::bytea)) AS t(v)");
        let mut got = read(rows.clone(), None).await.expect("whole ids");
        got.sort_unstable();
        let mut want = ids.to_vec();
        want.sort_unstable();
        assert_eq!(got, want);
        let none = read(format!("{rows} WHERE false"), None).await;
        assert_eq!(none.expect("no row"), Vec::<Uuid>::new());
        let short = read(rows, Some(vec![1, 2, 3])).await;
        assert!(
            matches!(short, Err(StoreError::Corrupt { what: "test", .. })),
            "{short:?}"
        );
        db.drop().await.expect("drop the scratch database");
    }
}
