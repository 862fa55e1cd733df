//! What the store keeps beside the carriers' events: ports (reference data, shared by all
//! accounts), terminal availability checks, shipping-line deadlines and AIS vessel positions.

use crate::db::{Bind, DbRow, RecordId, RecordTime};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::payloads::{Codec, Encoder, LINE_DEADLINES, TERMINAL_CHECKS};
use super::{
    from_json, in_list, one_per_key, parse_code, record_id, stored_text, ts, Backend, Result,
    Store, StoreError,
};
use teu_domain::model::{LineDeadline, Mmsi, Port, TerminalCheck, VesselPosition};

/// A terminal check of a file with its id (`teu_domain::ids`), as both writers of
/// [`Store::upsert_terminal_checks`] take it: `(id, (row index in the file, the check, the
/// original row))`, in the order they write (by id on PostgreSQL).
pub(super) type IdentifiedCheck<'a> = (Uuid, &'a (usize, TerminalCheck, String));

impl Store {
    /// Upserts ports (reference data, shared by all accounts).
    pub async fn upsert_ports(&self, ports: &[Port]) -> Result<()> {
        let mut tx = self.writer().begin().await?;
        for chunk in ports.chunks(self.rows_per_list(7)) {
            let sql = format!(
                "INSERT INTO ports (locode, name, country_code, country, latitude, longitude, time_zone) VALUES {} \
                 ON CONFLICT (locode) DO UPDATE SET name = excluded.name, country_code = excluded.country_code, \
                 country = excluded.country, latitude = excluded.latitude, longitude = excluded.longitude, \
                 time_zone = excluded.time_zone",
                self.values(chunk.len(), 7)
            );
            let mut q = crate::db::query(&sql);
            for p in chunk {
                q = q
                    .bind(p.locode.as_str())
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
        Ok(crate::db::query("SELECT COUNT(*) AS n FROM ports")
            .fetch_one(self.pool())
            .await?
            .try_get("n")?)
    }

    /// Upserts terminal availability checks (row index, check, original row text) read from
    /// `source_file`. The same check (terminal, container, time) is stored once.
    ///
    /// On PostgreSQL the checks are first taken for new and go in by binary `COPY`
    /// (`bulk_pg`, as new events do); when one of them is stored already (a file given again,
    /// or another writer's), nothing of that try is kept and they go through the conflict
    /// rule, as do the next `bulk_pg::FRESH_BACKOFF` files' checks of this store.
    ///
    /// # Errors
    /// [`StoreError::Compress`] when zstd fails on a stored form; [`StoreError::Sql`] when the
    /// database refuses the write or the connection fails (nothing of the file's checks is
    /// kept then).
    pub async fn upsert_terminal_checks(
        &self,
        account: Uuid,
        source_file: &str,
        checks: &[(usize, TerminalCheck, String)],
    ) -> Result<()> {
        // The same check twice in one file: the later row wins, as a second ingest would.
        let mut checks = one_per_key(
            checks.iter().map(|row| {
                let c = &row.1;
                let id = teu_domain::ids::scoped(
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
        match self.backend() {
            // In id order, as events: two writers meeting on the same checks take their locks
            // in one order.
            Backend::Postgres => checks.sort_unstable_by_key(|(id, _)| *id),
            // Along the table's key (SQLite migration 41), so that checks of one container
            // go into the same leaf one after the other.
            Backend::Sqlite => {
                checks.sort_unstable_by(|(_, a), (_, b)| check_key(&a.1).cmp(&check_key(&b.1)))
            }
        }
        let stored = stored_fact_rows(&TERMINAL_CHECKS, checks.iter().map(|(_, row)| *row))?;
        if self.backend() == Backend::Postgres {
            let fresh = self.copy_terminal_checks_pg(account, source_file, &checks, &stored);
            if let Some(()) = self
                .fresh_terminal_checks
                .attempt("terminal checks", fresh)
                .await?
            {
                return Ok(());
            }
        }
        self.write_terminal_checks_by_rule(account, source_file, &checks, &stored)
            .await
    }

    /// Terminal checks `checks` (with their ids, and `stored`: each one's raw row and body as
    /// stored) of `source_file` in one transaction of multi-row `INSERT`s whose conflict rule
    /// replaces a stored check's raw row and body when its body differs. The conflict target
    /// is the check's `id` on PostgreSQL and, on SQLite, the table's key since migration 41:
    /// `(account_id, container_number, terminal_id, checked_at)`, which names the same check
    /// (`id` is UUID v5 of those values, `checked_at` at the millisecond both store).
    async fn write_terminal_checks_by_rule(
        &self,
        account: Uuid,
        source_file: &str,
        checks: &[IdentifiedCheck<'_>],
        stored: &[(Vec<u8>, Vec<u8>)],
    ) -> Result<()> {
        let per = self.rows_per_list(10);
        let key = match self.backend() {
            Backend::Postgres => "id",
            Backend::Sqlite => "account_id, container_number, terminal_id, checked_at",
        };
        let mut tx = self.writer().begin().await?;
        for (chunk, stored) in checks.chunks(per).zip(stored.chunks(per)) {
            let upsert = self.upsert(
                &format!(
                    "terminal_checks (id, account_id, container_number, terminal_id, terminal_locode, checked_at, \
                     source_file, source_index, raw, body) VALUES {}",
                    self.values(chunk.len(), 10)
                ),
                key,
                "DO UPDATE SET body = excluded.body, raw = excluded.raw \
                 WHERE terminal_checks.body <> excluded.body",
            );
            upsert
                .run(self, &mut tx, chunk.len(), |mut q| {
                    for ((id, (index, c, _)), (raw, body)) in chunk.iter().zip(stored) {
                        q = q
                            .bind(RecordId(*id))
                            .bind(RecordId(account))
                            .bind(c.container_number.as_str())
                            .bind(RecordId(c.terminal_id))
                            .bind(c.terminal_locode.as_str())
                            .bind(RecordTime(c.checked_at))
                            .bind(source_file)
                            .bind(*index as i64)
                            .bind(raw.as_slice())
                            .bind(body.as_slice());
                    }
                    q
                })
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Upserts shipping-line deadlines (row index, deadline, original row text) of
    /// `source_file` in one transaction: a deadline stored already (the same container number,
    /// else bill of lading, `issued_at` and line LFD: its `id`) gets this row's raw text and
    /// body when its body differs; the same deadline twice in `deadlines` is stored once, the
    /// later row winning, as a second ingest would.
    ///
    /// On SQLite the conflict target is the table's key since migration 42,
    /// `(account_id, deadline_key, id)`, where `deadline_key` is the value the id is made of
    /// ([`deadline_key`]); the rows go in along it. PostgreSQL keys the table by `id`.
    ///
    /// # Errors
    /// [`StoreError::Compress`] when zstd fails on a stored form; [`StoreError::Sql`] when the
    /// database refuses the write or the connection fails (nothing of the file's deadlines is
    /// kept then).
    pub async fn upsert_line_deadlines(
        &self,
        account: Uuid,
        source_file: &str,
        deadlines: &[(usize, LineDeadline, String)],
    ) -> Result<()> {
        // Each deadline with its id and the value the id is made of besides the times, its
        // key on SQLite ([`deadline_key`]).
        let mut deadlines = one_per_key(
            deadlines.iter().map(|row| {
                let d = &row.1;
                let key = deadline_key(d);
                let id = teu_domain::ids::scoped(
                    account,
                    "line_deadline",
                    &[&key, &ts(d.issued_at), &ts(d.pickup_lfd_line)],
                );
                (id, (key, row))
            }),
            |_, _| true,
        );
        let sqlite = self.backend() == Backend::Sqlite;
        if sqlite {
            // Along the table's key (migration 42): one bill of lading's or container's
            // deadlines go into the same leaf one after the other.
            deadlines
                .sort_unstable_by(|(a, (a_key, _)), (b, (b_key, _))| (a_key, a).cmp(&(b_key, b)));
        }
        let stored = stored_fact_rows(&LINE_DEADLINES, deadlines.iter().map(|(_, (_, row))| *row))?;
        let (columns, key) = if sqlite {
            (10, "account_id, deadline_key, id")
        } else {
            (9, "id")
        };
        let per = self.rows_per_list(columns);
        let mut tx = self.writer().begin().await?;
        for (chunk, stored) in deadlines.chunks(per).zip(stored.chunks(per)) {
            let upsert = self.upsert(
                &format!(
                    "line_deadlines (id, account_id, container_number, bill_of_lading, issued_at, source_file, \
                     source_index, raw, body{}) VALUES {}",
                    if sqlite { ", deadline_key" } else { "" },
                    self.values(chunk.len(), columns)
                ),
                key,
                "DO UPDATE SET body = excluded.body, raw = excluded.raw \
                 WHERE line_deadlines.body <> excluded.body",
            );
            upsert
                .run(self, &mut tx, chunk.len(), |mut q| {
                    for ((id, (deadline_key, (index, d, _))), (raw, body)) in
                        chunk.iter().zip(stored)
                    {
                        q = q
                            .bind(RecordId(*id))
                            .bind(RecordId(account))
                            .bind(d.container_number.as_ref().map(ToString::to_string))
                            .bind(&d.bill_of_lading)
                            .bind(RecordTime(d.issued_at))
                            .bind(source_file)
                            .bind(*index as i64)
                            .bind(raw.as_slice())
                            .bind(body.as_slice());
                        if sqlite {
                            q = q.bind(deadline_key.as_str());
                        }
                    }
                    q
                })
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Stores AIS positions (public data, shared by all accounts; see [`VesselPosition`]), each
    /// with its row index in its file (not stored: a position is known by its transmitter and
    /// time, and neither its file nor its row is kept, migration 34). A report already stored (same
    /// [`VesselPosition::vessel_key`] and millisecond) is left as it is, so re-ingesting a file
    /// changes nothing. Positions go in sorted by vessel and time, along the table's key.
    ///
    /// # Errors
    /// [`StoreError::Sql`] when a statement fails; nothing of the call is then stored.
    pub async fn upsert_vessel_positions(
        &self,
        positions: &[(usize, VesselPosition)],
    ) -> Result<()> {
        if let crate::db::Pool::Postgres(pg) = &self.pool {
            return self.upsert_vessel_positions_pg(pg, positions).await;
        }
        let sorted = by_vessel_and_time(positions);
        let mut tx = self.writer().begin().await?;
        for chunk in sorted.chunks(self.rows_per_list(POSITION_COLUMNS)) {
            // `OR FAIL` with `DO NOTHING`: a report stored already is left out, and SQLite keeps
            // no statement journal ([`Store::insert_new`]).
            let sql = format!(
                "INSERT OR FAIL INTO vessel_positions (vessel_key, observed_at, imo, vessel_name, latitude, \
                 longitude, speed_knots, course_deg, heading_deg) VALUES {} \
                 ON CONFLICT (vessel_key, observed_at) DO NOTHING",
                self.values(chunk.len(), POSITION_COLUMNS)
            );
            // Cached: the statement of a full chunk (about 2,000 parameters) is parsed once.
            let mut q = crate::db::query(&sql);
            for p in chunk {
                q = q
                    .bind(p.vessel_key())
                    .bind(RecordTime(p.observed_at))
                    .bind(p.imo.as_ref().map(|imo| imo.as_str()))
                    .bind(p.vessel_name.as_deref())
                    .bind(p.latitude)
                    .bind(p.longitude)
                    .bind(p.speed_knots)
                    .bind(p.course_deg)
                    .bind(p.heading_deg);
            }
            q.execute(&mut tx).await?;
        }
        self.positions_stored(&mut tx, positions).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Bookkeeping of newly stored AIS positions, in their transaction: the (MMSI, IMO) pairs
    /// they report go to `vessel_identities`, and the track version of every vessel they may
    /// belong to (their IMO numbers, and those their MMSIs have reported) goes up, so the
    /// kept tracks of those vessels (`super::leg_tracks`) are derived again.
    async fn positions_stored(
        &self,
        tx: &mut crate::db::Conn,
        positions: &[(usize, VesselPosition)],
    ) -> Result<()> {
        let (pairs, mmsis, imos) = reported_identities(positions);
        for chunk in pairs.chunks(self.rows_per_list(2)) {
            let sql = format!(
                "{} vessel_identities (mmsi, imo) VALUES {} ON CONFLICT DO NOTHING",
                self.insert_new(),
                self.values(chunk.len(), 2)
            );
            let mut q = crate::db::query(&sql);
            for (mmsi, imo) in chunk {
                q = q.bind(*mmsi).bind(*imo);
            }
            q.execute(self.counted(tx)).await?;
        }
        let mut imos: Vec<String> = imos.into_iter().map(String::from).collect();
        for chunk in mmsis.chunks(self.rows_per_list(1)) {
            let sql = format!(
                "SELECT DISTINCT imo FROM vessel_identities WHERE mmsi IN ({})",
                self.list(chunk.len())
            );
            let mut q = crate::db::query(&sql);
            for mmsi in chunk {
                q = q.bind(*mmsi);
            }
            for row in q.fetch_all(self.counted(tx)).await? {
                imos.push(row.try_get("imo")?);
            }
        }
        imos.sort_unstable();
        imos.dedup();
        for chunk in imos.chunks(self.rows_per_statement(1)) {
            let sql = format!(
                "INSERT INTO track_versions (imo, version) VALUES {} \
                 ON CONFLICT (imo) DO UPDATE SET version = track_versions.version + 1",
                chunk
                    .iter()
                    .enumerate()
                    .map(|(i, _)| format!("(${}, 1)", i + 1))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let mut q = crate::db::query(&sql);
            for imo in chunk {
                q = q.bind(imo.as_str());
            }
            q.execute(self.counted(tx)).await?;
        }
        Ok(())
    }

    /// AIS positions of the vessel with IMO number `imo` observed in `[from, to]` (either bound
    /// open when `None`), oldest first (then by [`VesselPosition::vessel_key`]). Reports that
    /// carry the IMO count, and so do the reports of every MMSI that has reported this IMO at
    /// least once (MarineCadastre and DMA leave the IMO blank in many rows of a vessel).
    ///
    /// # Errors
    /// [`StoreError::Sql`] when the statement fails, [`StoreError::Corrupt`] for a stored IMO
    /// number that does not parse.
    pub async fn vessel_positions(
        &self,
        imo: &str,
        from: Option<DateTime<Utc>>,
        to: Option<DateTime<Utc>>,
    ) -> Result<Vec<VesselPosition>> {
        // Two index lookups joined by UNION: with `imo = $1 OR …` PostgreSQL scanned the whole
        // table (127 ms at 822,000 positions, several times per map). By MMSI the positions are
        // the key's own range (`vessel_key` is the MMSI).
        // The bounds given, `$2` on, as `RecordTime`s.
        let (mut bounds, mut times) = (String::new(), Vec::new());
        for (t, op) in [(from, ">="), (to, "<=")] {
            if let Some(t) = t {
                times.push(RecordTime(t).arg());
                bounds.push_str(&format!(" AND observed_at {op} ${}", times.len() + 1));
            }
        }
        let sql = format!(
            "SELECT {POSITION_READ} FROM vessel_positions WHERE imo = $1{bounds} \
             UNION SELECT {POSITION_READ} FROM vessel_positions WHERE vessel_key IN \
             (SELECT mmsi FROM vessel_identities WHERE imo = $1){bounds} \
             ORDER BY observed_at, vessel_key"
        );
        let q = crate::db::query(&sql).bind(imo).bind_args(times);
        let rows = q.fetch_all(&self.pool).await?;
        rows.iter().map(position_row).collect()
    }

    /// Number of stored AIS positions (all vessels).
    pub async fn vessel_position_count(&self) -> Result<i64> {
        Ok(
            crate::db::query("SELECT COUNT(*) AS n FROM vessel_positions")
                .fetch_one(&self.pool)
                .await?
                .try_get("n")?,
        )
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
        // SQLite finds a container's or a bill of lading's deadlines by the prefix of the
        // table's key (migration 42); PostgreSQL by its two indexes.
        let (by_container, by_bill_of_lading) = match self.backend() {
            Backend::Sqlite => (
                "deadline_key IN ({list}) AND container_number IS NOT NULL",
                "deadline_key IN ({list}) AND container_number IS NULL",
            ),
            Backend::Postgres => (
                "container_number IN ({list})",
                "container_number IS NULL AND bill_of_lading IN ({list})",
            ),
        };
        for chunk in containers.chunks(self.rows_per_statement(1)) {
            let list = in_list(2, chunk.len());
            for (table, codec, what, filter) in [
                (
                    "terminal_checks",
                    &TERMINAL_CHECKS,
                    "terminal check",
                    "container_number IN ({list})",
                ),
                (
                    "line_deadlines",
                    &LINE_DEADLINES,
                    "line deadline",
                    by_container,
                ),
            ] {
                let filter = filter.replace("{list}", &list);
                let sql =
                    format!("SELECT id, body FROM {table} WHERE account_id = $1 AND {filter}");
                let mut q = crate::db::query(&sql).bind(RecordId(account));
                for c in chunk {
                    q = q.bind(c);
                }
                for row in q.fetch_all(self.pool()).await? {
                    let id = record_id(&row, "id", what)?.to_string();
                    let body = stored_text(&row, "body", codec, what, &id)?;
                    if table == "terminal_checks" {
                        checks.push(from_json(&body, what, &id)?);
                    } else {
                        deadlines.push(from_json(&body, what, &id)?);
                    }
                }
            }
        }
        for chunk in bills_of_lading.chunks(self.rows_per_statement(1)) {
            let filter = by_bill_of_lading.replace("{list}", &in_list(2, chunk.len()));
            let sql =
                format!("SELECT id, body FROM line_deadlines WHERE account_id = $1 AND {filter}");
            let mut q = crate::db::query(&sql).bind(RecordId(account));
            for b in chunk {
                q = q.bind(b);
            }
            for row in q.fetch_all(self.pool()).await? {
                let id = record_id(&row, "id", "line deadline")?.to_string();
                let body = stored_text(&row, "body", &LINE_DEADLINES, "line deadline", &id)?;
                deadlines.push(from_json(&body, "line deadline", &id)?);
            }
        }
        Ok((checks, deadlines))
    }
}

/// What a line deadline's id is made of besides its times, and on SQLite the middle of its
/// table's key (`deadline_key`, migration 42): its container number, else its bill of
/// lading, else the empty text.
fn deadline_key(d: &LineDeadline) -> String {
    d.container_number
        .as_ref()
        .map(ToString::to_string)
        .or_else(|| d.bill_of_lading.clone())
        .unwrap_or_default()
}

/// A terminal check's natural key, the key of SQLite's `terminal_checks` (migration 41):
/// container number, terminal id and `checked_at` (the account is the file's).
fn check_key(c: &TerminalCheck) -> (&str, Uuid, DateTime<Utc>) {
    (c.container_number.as_str(), c.terminal_id, c.checked_at)
}

/// The stored `raw` and `body` of fact rows (row index, fact, original row text): both
/// compressed with `codec` (migration 32), the body being the fact's JSON. Made before the
/// writer's transaction.
///
/// # Errors
/// [`StoreError::Compress`] when zstd fails (a corrupt bundled dictionary, out of memory).
fn stored_fact_rows<'a, T: serde::Serialize + 'a>(
    codec: &'static Codec,
    rows: impl Iterator<Item = &'a (usize, T, String)>,
) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut encoder = Encoder::new(codec).map_err(StoreError::Compress)?;
    rows.map(|(_, fact, raw)| {
        let body = teu_domain::json::to_string(fact).unwrap_or_default();
        Ok((encoder.encode(raw)?, encoder.encode(&body)?))
    })
    .collect::<std::io::Result<_>>()
    .map_err(StoreError::Compress)
}

/// What AIS `positions` report of vessel identities: the (MMSI, IMO) pairs and the MMSIs, each
/// once and sorted, and the IMO numbers (repeats kept). The bookkeeping of stored positions
/// (`vessel_identities`, `track_versions`) on both backends starts from these.
pub(super) fn reported_identities(
    positions: &[(usize, VesselPosition)],
) -> (Vec<(&str, &str)>, Vec<&str>, Vec<&str>) {
    let mut pairs: Vec<(&str, &str)> = positions
        .iter()
        .filter_map(|(_, p)| Some((p.mmsi.as_deref()?, p.imo.as_deref()?)))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let mut mmsis: Vec<&str> = positions
        .iter()
        .filter_map(|(_, p)| p.mmsi.as_deref())
        .collect();
    mmsis.sort_unstable();
    mmsis.dedup();
    let imos = positions
        .iter()
        .filter_map(|(_, p)| p.imo.as_deref())
        .collect();
    (pairs, mmsis, imos)
}

/// Columns of a `vessel_positions` row as [`Store::upsert_vessel_positions`] writes it.
const POSITION_COLUMNS: usize = 9;

/// The columns [`position_row`] reads.
pub(crate) const POSITION_READ: &str = "vessel_key, observed_at, imo, vessel_name, latitude, \
     longitude, speed_knots, course_deg, heading_deg";

/// The positions of `positions` by [`VesselPosition::vessel_key`] and time, the order of the
/// table's key (an AIS file's batch comes in that order already; this checks in one pass).
pub(crate) fn by_vessel_and_time(positions: &[(usize, VesselPosition)]) -> Vec<&VesselPosition> {
    let mut sorted: Vec<&VesselPosition> = positions.iter().map(|(_, p)| p).collect();
    fn key<'a>(p: &&'a VesselPosition) -> (&'a str, DateTime<Utc>) {
        (p.vessel_key(), p.observed_at)
    }
    if !sorted.is_sorted_by_key(key) {
        sorted.sort_by(|a, b| key(a).cmp(&key(b)));
    }
    sorted
}

/// A position of a row of [`POSITION_READ`]'s columns. The key is the MMSI when it is nine
/// digits (an AIS MMSI, ITU-R M.585), else an anonymised track's `<file stem>:<id>`.
pub(crate) fn position_row(r: &DbRow) -> Result<VesselPosition> {
    let key: String = r.try_get("vessel_key")?;
    let mmsi = Mmsi::parse(&key).ok().filter(|m| m.as_str() == key);
    Ok(VesselPosition {
        track: mmsi.is_none().then_some(key),
        mmsi,
        imo: parse_code(r.try_get("imo")?, "vessel position IMO")?,
        vessel_name: r.try_get("vessel_name")?,
        observed_at: r.record_time("observed_at")?,
        latitude: r.try_get("latitude")?,
        longitude: r.try_get("longitude")?,
        speed_knots: r.try_get("speed_knots")?,
        course_deg: r.try_get("course_deg")?,
        heading_deg: r.try_get("heading_deg")?,
    })
}
