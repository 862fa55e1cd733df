//! Writing a derivation: derived shipments and containers and their event links, what the
//! webhook rules compare the derivation with, and removing the rows it no longer produces.

use std::collections::{BTreeSet, HashMap, HashSet};

use chrono::DateTime;
use uuid::Uuid;

use super::bulk_pg::{copy_containers, copy_shipments, NewContainer, NewShipment};
use super::db::{RecordId, RecordTime};
use super::listing::{container_filter_columns, ShipmentFilterColumns};
use super::{
    container_row_uncached, hash_row, hashed_body, in_list, keyed_update, record_id, returned_ids,
    shipment_row_uncached, DerivationScope, DerivedChanges, Result, Store, StoreError,
    CONTAINER_SELECT, SHIPMENT_SELECT,
};
use teu_domain::model::{Container, Shipment, TransportEvent};

use super::payloads::{Codec, Encoder, CONTAINER_BODIES, SHIPMENT_BODIES};
use super::reads::{decode_stored_links, encode_links, EventLink};

impl Store {
    /// Upserts derived shipments and containers and their event links. A row whose content is
    /// unchanged keeps its `refreshed_at`; every row keeps its first `created_at`. Returns the
    /// ids of the rows inserted or changed (what change notifications report).
    ///
    /// `scope` is what the derivation read: derived shipments and containers inside it that the
    /// derivation no longer produces (a shipment first keyed by its booking, then by its bill of
    /// lading) are deleted in the same transaction, so the tables depend only on the stored
    /// events, not on the order files arrived in. Pass [`DerivationScope::default`] to only add.
    ///
    /// `links` are the derivation's (container id, event id) pairs: each derived container's
    /// `containers.event_links` value becomes exactly its pairs (the only place links are
    /// stored, migration 27). An event that moved to another container leaves the first one's
    /// value when that container is derived again, which every derivation that reads the event
    /// does: its keys, and the keys its replaced version named (`Store::upsert_events`), lead
    /// to both. `history` is the stored events the derivation read; every event `links` point
    /// at must be among them ([`StoreError::LinkOutsideHistory`] otherwise): the value stores
    /// its events' raw event ids and `named_actual`, in event time order. The
    /// per-event webhook rules (`teu_domain::webhooks::event_rules`) name the actual events newly
    /// linked to each container. Pass `&[]` when there are none.
    ///
    /// Each of `shipments` stores the ids of `containers` naming it as its members
    /// (`shipments.member_ids`, migration 40, in container number order: what
    /// [`Store::shipments_with_members`] and [`Store::container_ids_of_shipments`] read); a
    /// stored shipment that `containers` name but `shipments` does not has its members read
    /// again from the `containers` table.
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
        // Webhooks: what was stored before, read only when the account has an active webhook.
        // Read before the transaction: on SQLite a transaction that reads first and writes later
        // fails with SQLITE_BUSY_SNAPSHOT when another process wrote in between, and the
        // derivation lock (`crate::derive_lock`) already keeps other ingests off these rows.
        // Each record's body and content hash, computed once: compared with the stored hashes
        // below and written by the upserts.
        let shipment_bodies = hashed_bodies(shipments, &SHIPMENT_BODIES, |s| {
            s.created_at = DateTime::UNIX_EPOCH;
            s.refreshed_at = DateTime::UNIX_EPOCH;
        })?;
        let container_bodies = hashed_bodies(containers, &CONTAINER_BODIES, |c| {
            c.created_at = DateTime::UNIX_EPOCH;
            c.refreshed_at = DateTime::UNIX_EPOCH;
        })?;
        let mut conn = self.pool.acquire().await?;
        let hooks = super::outbox::subscriptions(self.counting(&mut conn), account).await?;
        let before = if hooks.is_empty() {
            drop(conn);
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
            drop(conn);
            let ids: Vec<Uuid> = containers.iter().map(|c| c.id).collect();
            let old_links = self.event_links_of_containers(account, &ids).await?;
            Some((old_containers, old_shipments, old_links))
        };
        // The stored `event_links` carry each link's raw event and `named_actual`; a link whose
        // event is not in `history` is refused. Each container's value goes in with its row
        // (one row version and one write of its indexes, not an insert and then an update).
        let events: HashMap<Uuid, &TransportEvent> = history.iter().map(|e| (e.id, e)).collect();
        if let Some((_, e)) = links.iter().find(|(_, e)| !events.contains_key(e)) {
            return Err(StoreError::LinkOutsideHistory(*e));
        }
        let link_values = link_values(containers, links, &events);
        let member_values = member_values(shipments, containers);
        // `BEGIN IMMEDIATE` on SQLite: the transaction reads the scope's stored rows before it
        // writes, and a deferred transaction whose first write meets another process's write
        // lock (a delivery worker's) fails at once with `SQLITE_BUSY`, without waiting the
        // busy timeout; taking the lock at the start waits for it.
        let mut tx = self.writer().begin_immediate().await?;
        let stored = self.stored_in_scope(&mut tx, account, scope).await?;
        // A shipment's `member_ids` (migration 40) go in with its row when its content
        // changed; one whose content did not is left to `store_unwritten`, which writes only a
        // value that differs. So the ids returned stay those whose content changed, which is
        // what the webhook rules and change notifications compare.
        // A shipment's id is its key, its `bill_of_lading_number` (`teu_domain::ids::
        // shipment_id`): one of the scope's keys with no stored row read by it is new, and on
        // PostgreSQL the new ones go in by `COPY` ([`Store::copy_new_derived_pg`]). Each record
        // goes the way of [`Passes::by_stored_hash`] (on PostgreSQL [`Passes::postgres`]): an
        // unchanged one is not written.
        let (new, old) = taken_for_new(
            shipments
                .iter()
                .map(|s| (s.bill_of_lading_number.as_str(), s.id)),
            &scope.shipment_keys,
            stored.shipments.iter().copied(),
        );
        let mut passes = Passes::by_stored_hash(new, old, &stored.hashes, |i| {
            (shipments[i].id, shipment_bodies[i].0.as_str())
        });
        if self.backend() == super::Backend::Postgres {
            let rows: Vec<NewShipment<'_>> = passes
                .new
                .iter()
                .map(|&i| {
                    (
                        &shipments[i],
                        &shipment_bodies[i],
                        member_values[i].as_slice(),
                    )
                })
                .collect();
            let copied = !rows.is_empty()
                && self
                    .copy_new_derived_pg(&mut tx, "shipments", async |pg| {
                        copy_shipments(pg, account, &rows).await
                    })
                    .await?;
            if copied {
                changes.shipments.extend(rows.iter().map(|(s, _, _)| s.id));
            }
            passes = passes.postgres(copied);
        }
        let written = self
            .write_derived(&mut tx, &SHIPMENTS, &passes, |q, i| {
                let (s, (hash, body), members) =
                    (&shipments[i], &shipment_bodies[i], &member_values[i]);
                let f = ShipmentFilterColumns::of(s);
                q.bind(RecordId(s.id))
                    .bind(RecordId(account))
                    .bind(&s.bill_of_lading_number)
                    .bind(RecordTime(s.created_at))
                    .bind(RecordTime(s.refreshed_at))
                    .bind(hash)
                    .bind(body.as_slice())
                    .bind(f.pol_locode)
                    .bind(f.pod_locode)
                    .bind(f.shipping_line_scac)
                    .bind(f.pod_eta_at.map(RecordTime))
                    .bind(f.line_tracking_stopped)
                    .bind(RecordTime(s.refreshed_at))
                    .bind(members.as_slice())
            })
            .await?;
        changes.shipments.extend(written);
        // A container's id is its shipment key and number (`teu_domain::ids::container_id`),
        // so an update leaves `shipment_id` and `number` as they are: not naming them in the
        // `SET` spares SQLite the rewrite of the indexes on them (`containers_number`,
        // `containers_shipment`), which it does for every column a `SET` names. For the same
        // reason a derived container whose number the scope names and which is not among the
        // stored containers read by those numbers is new: on PostgreSQL it goes in by `COPY`
        // ([`Store::copy_new_derived_pg`]). The others go as the shipments do.
        // A row whose content changed takes its links in the same write; one whose content did
        // not is left to `store_unwritten`, which writes only a value that differs.
        let (new, old) = taken_for_new(
            containers.iter().map(|c| (c.number.as_str(), c.id)),
            &scope.containers,
            stored.containers.iter().map(|(id, _)| *id),
        );
        let mut passes = Passes::by_stored_hash(new, old, &stored.hashes, |i| {
            (containers[i].id, container_bodies[i].0.as_str())
        });
        if self.backend() == super::Backend::Postgres {
            let rows: Vec<NewContainer<'_>> = passes
                .new
                .iter()
                .map(|&i| {
                    (
                        &containers[i],
                        &container_bodies[i],
                        link_values[i].as_slice(),
                    )
                })
                .collect();
            let copied = !rows.is_empty()
                && self
                    .copy_new_derived_pg(&mut tx, "containers", async |pg| {
                        copy_containers(pg, account, &rows).await
                    })
                    .await?;
            if copied {
                changes.containers.extend(rows.iter().map(|(c, _, _)| c.id));
            }
            passes = passes.postgres(copied);
        }
        let written = self
            .write_derived(&mut tx, &CONTAINERS, &passes, |q, i| {
                let (c, (hash, body), links) =
                    (&containers[i], &container_bodies[i], &link_values[i]);
                let (pickup_lfd, has_holds) = container_filter_columns(c);
                q.bind(RecordId(c.id))
                    .bind(RecordId(account))
                    .bind(RecordId(c.shipment_id))
                    .bind(c.number.as_str())
                    .bind(c.current_status.as_str())
                    .bind(c.pod_locode.as_deref())
                    .bind(RecordTime(c.created_at))
                    .bind(RecordTime(c.refreshed_at))
                    .bind(hash)
                    .bind(body.as_slice())
                    .bind(pickup_lfd.map(RecordTime))
                    .bind(has_holds)
                    .bind(RecordTime(c.refreshed_at))
                    .bind(links.as_slice())
            })
            .await?;
        changes.containers.extend(written);
        // With webhooks, what was linked before (the derived containers' own earlier values are
        // `old_links`: the upsert above has written their new ones).
        let seen = match &before {
            Some((_, _, old_links)) => Some(
                self.linked_before(&mut tx, account, containers, links, old_links)
                    .await?,
            ),
            None => None,
        };
        self.remove_stale(&mut tx, account, shipments, containers, &stored)
            .await?;
        // A container whose shipment is not among `shipments` (a caller adding boxes to a
        // stored shipment; the derivation always derives the shipment with its boxes) changes
        // that shipment's members, which are read again from `containers`.
        let derived_shipments: HashSet<Uuid> = shipments.iter().map(|s| s.id).collect();
        let others: BTreeSet<Uuid> = containers
            .iter()
            .map(|c| c.shipment_id)
            .filter(|id| !derived_shipments.contains(id))
            .collect();
        let others: Vec<Uuid> = others.into_iter().collect();
        self.refresh_members(&mut tx, account, &others).await?;
        // Each derived container's links are exactly `links`: the one place links are stored.
        // The rows the upsert inserted or changed already hold theirs.
        let written: HashSet<Uuid> = changes.containers.iter().copied().collect();
        let values = containers.iter().zip(&link_values);
        let rows = values.map(|(c, v)| (c.id, v.as_slice()));
        self.store_unwritten(&mut tx, ("containers", "event_links"), rows, &written)
            .await?;
        let written: HashSet<Uuid> = changes.shipments.iter().copied().collect();
        let values = shipments.iter().zip(&member_values);
        let rows = values.map(|(s, v)| (s.id, v.as_slice()));
        self.store_unwritten(&mut tx, ("shipments", "member_ids"), rows, &written)
            .await?;
        if let (Some((old_containers, old_shipments, _)), Some(seen)) = (before, seen) {
            let mut emissions = teu_domain::webhooks::rules::emissions(
                &old_containers,
                &old_shipments,
                shipments,
                containers,
                &changes.shipments,
                &changes.containers,
            );
            emissions.extend(teu_domain::webhooks::event_rules::event_emissions(
                containers, shipments, history, links, &seen,
            ));
            changes.notifications = super::outbox::enqueue(
                self.counting(&mut tx),
                account,
                &hooks,
                &emissions,
                self.rows_per_statement(12),
            )
            .await?;
        }
        tx.commit().await?;
        Ok(changes)
    }

    /// Writes a derivation's records of `table` in `tx` by `passes` (indices into the
    /// records), `bind` binding record `i`'s values in the order of `table.columns`; returns
    /// the ids of the rows inserted or changed (`RETURNING id`), pass by pass.
    async fn write_derived<'a>(
        &self,
        tx: &mut crate::db::Conn,
        table: &DerivedTable,
        passes: &Passes,
        bind: impl Fn(crate::db::Query<'a>, usize) -> crate::db::Query<'a>,
    ) -> Result<Vec<Uuid>> {
        let width = table.columns.len();
        let per = self.rows_per_list(width);
        let name = table.name;
        let columns = table.columns.join(", ");
        let updated = table
            .updated()
            .map(|(_, c)| c)
            .collect::<Vec<_>>()
            .join(", ");
        let from_values = table
            .updated()
            .map(|(at, _)| format!("v.column{at}"))
            .collect::<Vec<_>>()
            .join(", ");
        let set = table
            .updated()
            .map(|(_, c)| format!("{c} = excluded.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut written = Vec::new();
        for (rows, pass) in [
            (&passes.new, Pass::New),
            (&passes.changed, Pass::Changed),
            (&passes.by_rule, Pass::ByRule),
        ] {
            for chunk in rows.chunks(per) {
                let sql = match pass {
                    Pass::New => format!(
                        "{} {name} ({columns}) VALUES {} RETURNING id",
                        self.insert_new(),
                        self.values(chunk.len(), width)
                    ),
                    Pass::Changed => format!(
                        "{} RETURNING id",
                        keyed_update(name, "id", (chunk.len(), width), |from| {
                            format!("({updated}) = (SELECT {from_values} {from})")
                        }, None)
                    ),
                    Pass::ByRule => format!(
                        "INSERT INTO {name} ({columns}) VALUES {} ON CONFLICT (id) DO UPDATE SET {set} \
                         WHERE {name}.content_hash <> excluded.content_hash RETURNING id",
                        self.values(chunk.len(), width),
                    ),
                };
                let mut q = crate::db::query_owned(sql);
                for &i in chunk {
                    q = bind(q, i);
                }
                written.extend(returned_ids(q.fetch_all(self.counted(tx)).await?)?);
            }
        }
        Ok(written)
    }

    /// What the webhook rules compare a derivation with (`teu_domain::webhooks::rules::emissions`):
    /// the stored containers and shipments, by id, for every record the rules look at. Only
    /// records whose stored `content_hash` differs from `*_bodies`' are read and parsed; an
    /// unchanged record (same hash: the same body but for its `created_at`/`refreshed_at`,
    /// which no rule compares) stands for itself, and a record not stored yet is absent.
    pub(super) async fn stored_before(
        &self,
        conn: &mut crate::db::Conn,
        account: Uuid,
        shipments: &[Shipment],
        shipment_bodies: &[(String, Vec<u8>)],
        containers: &[Container],
        container_bodies: &[(String, Vec<u8>)],
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
                container_row_uncached,
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
                shipment_row_uncached,
            )
            .await?
            .into_iter()
            .map(|s| (s.id, s)),
        );
        Ok((old_containers, old_shipments))
    }

    /// What the per-event webhook rules (`teu_domain::webhooks::event_rules`) count as already
    /// seen: the (container number, event id) pairs of `links` that were linked before this
    /// derivation, under the same container or another container of the same number (a box
    /// whose shipment key changed, an event that moved between two shipments of one box).
    ///
    /// `old_links` is the stored `event_links` of the derived containers, read before this
    /// derivation; runs in its transaction `tx` after the container upsert has written the
    /// derived containers' new values, so theirs are taken from `old_links`, never read. A pair of
    /// `links` in its container's old value was linked before; for the others, the stored
    /// values are read only of the other containers of numbers that more than one container
    /// id carries (a box re-keyed or in two shipments). So a file that adds events to long
    /// histories reads the ids of its numbers, not every link of every touched container.
    pub(super) async fn linked_before(
        &self,
        tx: &mut crate::db::Conn,
        account: Uuid,
        containers: &[Container],
        links: &[(Uuid, Uuid)],
        old_links: &HashMap<Uuid, Vec<EventLink>>,
    ) -> Result<HashSet<(String, Uuid)>> {
        let numbers: HashMap<Uuid, &str> = containers
            .iter()
            .map(|c| (c.id, c.number.as_str()))
            .collect();
        let was_linked = |(c, e): &(Uuid, Uuid)| {
            old_links
                .get(c)
                .is_some_and(|list| list.iter().any(|l| l.id == *e))
        };
        let (kept, added): (Vec<_>, Vec<_>) = links.iter().partition(|l| was_linked(l));
        let mut seen: HashSet<(String, Uuid)> = kept
            .iter()
            .filter_map(|(c, e)| numbers.get(c).map(|n| (n.to_string(), *e)))
            .collect();
        // An added pair was seen before only if another container of the same number was
        // linked to its event: read the container ids of those numbers (index
        // `containers_number`; the derivation's own are already stored), and the stored links
        // only of numbers that have more than one. Without a re-keyed or repeated box the
        // second read is empty.
        let mut added_numbers: Vec<&str> = added
            .iter()
            .filter_map(|(c, _)| numbers.get(c).copied())
            .collect();
        added_numbers.sort_unstable();
        added_numbers.dedup();
        let width = self.rows_per_statement(1).saturating_sub(1).max(1);
        let mut ids_of: HashMap<String, Vec<Uuid>> = HashMap::new();
        for chunk in added_numbers.chunks(width) {
            let sql = format!(
                "SELECT id, number FROM containers WHERE account_id = $1 AND number IN ({})",
                in_list(2, chunk.len())
            );
            let mut q = crate::db::query(&sql).bind(RecordId(account));
            for n in chunk {
                q = q.bind(*n);
            }
            for row in q.fetch_all(self.counted(tx)).await? {
                let id = record_id(&row, "id", "container")?;
                ids_of.entry(row.try_get("number")?).or_default().push(id);
            }
        }
        let others: HashMap<Uuid, String> = ids_of
            .into_iter()
            .filter(|(_, ids)| ids.len() > 1)
            .flat_map(|(number, ids)| ids.into_iter().map(move |id| (id, number.clone())))
            .collect();
        // The derivation's own containers already hold their new values (written with their
        // rows): what they held before is `old_links`, read before this transaction.
        let mut ids: Vec<Uuid> = Vec::new();
        for (id, number) in &others {
            if numbers.contains_key(id) {
                let before = old_links.get(id).map(Vec::as_slice).unwrap_or_default();
                seen.extend(before.iter().map(|l| (number.clone(), l.id)));
            } else {
                ids.push(*id);
            }
        }
        for chunk in ids.chunks(width) {
            let sql = format!(
                "SELECT id, event_links FROM containers WHERE account_id = $1 AND id IN ({})",
                in_list(2, chunk.len())
            );
            let mut q = crate::db::query(&sql).bind(RecordId(account));
            for c in chunk {
                q = q.bind(RecordId(*c));
            }
            for row in q.fetch_all(self.counted(tx)).await? {
                let container = record_id(&row, "id", "container")?;
                let value: Option<Vec<u8>> = row.try_get("event_links")?;
                let stored = decode_stored_links(value.as_deref().unwrap_or_default(), container)?;
                if let Some(number) = others.get(&container) {
                    seen.extend(stored.into_iter().map(|l| (number.clone(), l.id)));
                }
            }
        }
        Ok(seen)
    }

    /// Writes `table.column`, a value of the derivation's own (`containers.event_links`, the
    /// only stored links since migration 27, from [`link_values`]; `shipments.member_ids`,
    /// migration 40, from [`member_values`]), for each `(id, value)` of `rows` whose stored
    /// value differs, leaving out the ids of `written`: the rows the upserts of
    /// [`Store::upsert_derived`] inserted or changed, which they gave their value. What is left
    /// is a record whose content is unchanged and whose value may have changed: an event
    /// revised without changing the derivation (links), a box joining a stored shipment
    /// (members); in a bulk load of new records, none.
    async fn store_unwritten(
        &self,
        tx: &mut crate::db::Conn,
        (table, column): (&str, &str),
        rows: impl Iterator<Item = (Uuid, &[u8])>,
        written: &HashSet<Uuid>,
    ) -> Result<()> {
        let unwritten: Vec<(Uuid, &[u8])> = rows.filter(|(id, _)| !written.contains(id)).collect();
        for chunk in unwritten.chunks(self.rows_per_list(2)) {
            // The ids are this derivation's records of `account`; the `VALUES` are the only
            // parameters. SQLite finds the rows by an `IN` list ([`keyed_update`]).
            let sql = match self.backend() {
                super::Backend::Sqlite => keyed_update(
                    table,
                    "id",
                    (chunk.len(), 2),
                    |from| format!("{column} = (SELECT v.column2 {from})"),
                    Some(&|from| {
                        format!("{table}.{column} IS DISTINCT FROM (SELECT v.column2 {from})")
                    }),
                ),
                super::Backend::Postgres => format!(
                    "UPDATE {table} SET {column} = v.column2 FROM (VALUES {}) AS v \
                     WHERE {table}.id = v.column1 AND {table}.{column} IS DISTINCT FROM v.column2",
                    self.values(chunk.len(), 2)
                ),
            };
            let mut q = crate::db::query(&sql);
            for (id, bytes) in chunk {
                q = q.bind(RecordId(*id)).bind(*bytes);
            }
            q.execute(self.counted(tx)).await?;
        }
        Ok(())
    }

    /// Writes the `member_ids` (migration 40) of the account's shipments `ids` again from
    /// `containers`, in the order [`member_values`] gives (number bytes, then id), inside `tx`;
    /// a shipment whose value is unchanged keeps its row.
    async fn refresh_members(
        &self,
        tx: &mut crate::db::Conn,
        account: Uuid,
        ids: &[Uuid],
    ) -> Result<()> {
        // The numbers' bytes, as `member_values` orders them: SQLite's default collation
        // (BINARY) compares bytes; PostgreSQL's is the database's, so "C" is named.
        let order = match self.backend() {
            super::Backend::Sqlite => "c.number, c.id",
            super::Backend::Postgres => "c.number COLLATE \"C\", c.id",
        };
        let aggregate = self.record_id_aggregate("c.id", order);
        let members = format!(
            "COALESCE((SELECT {aggregate} FROM containers c \
             WHERE c.account_id = shipments.account_id AND c.shipment_id = shipments.id), $2)"
        );
        for chunk in ids.chunks(self.rows_per_statement(1).saturating_sub(2).max(1)) {
            let sql = format!(
                "UPDATE shipments SET member_ids = {members} \
                 WHERE account_id = $1 AND member_ids <> {members} AND id IN ({})",
                in_list(3, chunk.len())
            );
            let mut q = crate::db::query(&sql)
                .bind(RecordId(account))
                .bind(Vec::<u8>::new());
            for id in chunk {
                q = q.bind(RecordId(*id));
            }
            q.execute(self.counted(tx)).await?;
        }
        Ok(())
    }

    /// The account's stored shipments and containers that `scope` names, read in `tx` before a
    /// derivation writes: the shipments keyed by one of its bills of lading or bookings, and
    /// the containers with one of its numbers. [`Store::remove_stale`] deletes those the
    /// derivation no longer produces; on PostgreSQL a derived record of the scope that is not
    /// among them is new ([`Store::copy_new_derived_pg`]).
    async fn stored_in_scope(
        &self,
        tx: &mut crate::db::Conn,
        account: Uuid,
        scope: &DerivationScope,
    ) -> Result<StoredInScope> {
        let width = self.rows_per_statement(1).saturating_sub(2).max(1);
        let mut stored = StoredInScope::default();
        for chunk in scope.shipment_keys.chunks(width) {
            let sql = format!(
                "SELECT id, content_hash FROM shipments WHERE account_id = $1 AND bill_of_lading_number IN ({})",
                in_list(2, chunk.len())
            );
            let mut q = crate::db::query(&sql).bind(RecordId(account));
            for k in chunk {
                q = q.bind(k);
            }
            for row in q.fetch_all(self.counted(tx)).await? {
                let (id, hash) = hash_row(&row)?;
                stored.shipments.push(id);
                stored.hashes.insert(id, hash);
            }
        }
        for chunk in scope.containers.chunks(width) {
            let sql = format!(
                "SELECT id, shipment_id, content_hash FROM containers WHERE account_id = $1 AND number IN ({})",
                in_list(2, chunk.len())
            );
            let mut q = crate::db::query(&sql).bind(RecordId(account));
            for n in chunk {
                q = q.bind(n);
            }
            for row in q.fetch_all(self.counted(tx)).await? {
                let (id, hash) = hash_row(&row)?;
                let shipment = record_id(&row, "shipment_id", "shipment")?;
                stored.containers.push((id, shipment));
                stored.hashes.insert(id, hash);
            }
        }
        Ok(stored)
    }

    /// Deletes the derived shipments and containers of the derivation's scope that it did not
    /// produce (see [`Store::upsert_derived`]): of `stored` (what [`Store::stored_in_scope`]
    /// read before the derivation's writes, which change no row's key or number), the
    /// shipments not among `shipments`, and the containers not among `containers` whose
    /// shipment is derived or stale; a deleted container's links go with its row, and so do
    /// the containers of a stale shipment. Tracking requests that pointed at a deleted
    /// shipment go back to `pending`, so that the next link finds the shipment that replaced
    /// it.
    pub(super) async fn remove_stale(
        &self,
        tx: &mut crate::db::Conn,
        account: Uuid,
        shipments: &[Shipment],
        containers: &[Container],
        stored: &StoredInScope,
    ) -> Result<()> {
        let derived_shipments: HashSet<Uuid> = shipments.iter().map(|s| s.id).collect();
        let derived_containers: HashSet<Uuid> = containers.iter().map(|c| c.id).collect();
        let width = self.rows_per_statement(1).saturating_sub(2).max(1);

        let stale_shipments: Vec<Uuid> = stored
            .shipments
            .iter()
            .filter(|id| !derived_shipments.contains(id))
            .copied()
            .collect();
        let in_scope: HashSet<Uuid> = derived_shipments
            .iter()
            .chain(&stale_shipments)
            .copied()
            .collect();
        let mut stale_containers: BTreeSet<Uuid> = stored
            .containers
            .iter()
            .filter(|(id, shipment)| {
                in_scope.contains(shipment) && !derived_containers.contains(id)
            })
            .map(|(id, _)| *id)
            .collect();
        for chunk in stale_shipments.chunks(width) {
            let sql = format!(
                "SELECT id FROM containers WHERE account_id = $1 AND shipment_id IN ({})",
                in_list(2, chunk.len())
            );
            let mut q = crate::db::query(&sql).bind(RecordId(account));
            for id in chunk {
                q = q.bind(RecordId(*id));
            }
            stale_containers.extend(returned_ids(q.fetch_all(self.counted(tx)).await?)?);
        }
        let stale_containers: Vec<Uuid> = stale_containers.into_iter().collect();
        for (table, column, ids) in [
            ("containers", "id", &stale_containers),
            ("shipment_tags", "shipment_id", &stale_shipments),
            ("shipments", "id", &stale_shipments),
        ] {
            for chunk in ids.chunks(width) {
                let sql = format!(
                    "DELETE FROM {table} WHERE account_id = $1 AND {column} IN ({})",
                    in_list(2, chunk.len())
                );
                let mut q = crate::db::query(&sql).bind(RecordId(account));
                for id in chunk {
                    q = q.bind(RecordId(*id));
                }
                q.execute(self.counted(tx)).await?;
            }
        }
        for chunk in stale_shipments.chunks(width) {
            let sql = format!(
                "UPDATE tracking_requests SET status = '{}', shipment_id = NULL \
                 WHERE account_id = $1 AND shipment_id IN ({})",
                teu_domain::tracking_requests::PENDING,
                in_list(2, chunk.len())
            );
            let mut q = crate::db::query(&sql).bind(RecordId(account));
            for id in chunk {
                q = q.bind(RecordId(*id));
            }
            q.execute(self.counted(tx)).await?;
        }
        Ok(())
    }
}

/// A derived table as [`Store::write_derived`] writes it.
struct DerivedTable {
    name: &'static str,
    /// Its columns in the order a row's values are bound, `id` first.
    columns: &'static [&'static str],
    /// The columns an update of a stored row leaves as they are: the id, the account,
    /// `created_at`, and a container's shipment and number, which its id is made of
    /// (`teu_domain::ids`). An update sets all the others.
    kept: &'static [&'static str],
}

impl DerivedTable {
    /// The columns an update sets, in `columns`' order, each with its place there counted
    /// from 1 (its `VALUES` column, `v.columnN`).
    fn updated(&self) -> impl Iterator<Item = (usize, &'static str)> + '_ {
        (1..)
            .zip(self.columns.iter().copied())
            .filter(|(_, c)| !self.kept.contains(c))
    }
}

/// `shipments` as a derivation writes it (SQLite migration 38 and 40's columns).
const SHIPMENTS: DerivedTable = DerivedTable {
    name: "shipments",
    columns: &[
        "id",
        "account_id",
        "bill_of_lading_number",
        "created_at",
        "refreshed_at",
        "content_hash",
        "body",
        "pol_locode",
        "pod_locode",
        "shipping_line_scac",
        "pod_eta_at",
        "line_tracking_stopped",
        "filters_at",
        "member_ids",
    ],
    kept: &["id", "account_id", "created_at"],
};

/// `containers` as a derivation writes it (SQLite migration 38's columns).
const CONTAINERS: DerivedTable = DerivedTable {
    name: "containers",
    columns: &[
        "id",
        "account_id",
        "shipment_id",
        "number",
        "current_status",
        "pod_locode",
        "created_at",
        "refreshed_at",
        "content_hash",
        "body",
        "pickup_lfd",
        "has_holds",
        "filters_at",
        "event_links",
    ],
    kept: &["id", "account_id", "shipment_id", "number", "created_at"],
};

/// The three ways [`Store::write_derived`] writes a record.
#[derive(Clone, Copy)]
enum Pass {
    /// A plain insert ([`Store::insert_new`]).
    New,
    /// SQLite's `UPDATE OR FAIL` of a stored row by its id ([`keyed_update`]).
    Changed,
    /// The upsert: `ON CONFLICT (id) DO UPDATE`, when the stored `content_hash` differs.
    ByRule,
}

/// A derivation's records of one table, as indices into them, by the way each is written
/// ([`Pass`]); a record in none of the lists is not written.
struct Passes {
    new: Vec<usize>,
    changed: Vec<usize>,
    by_rule: Vec<usize>,
}

impl Passes {
    /// The records taken for new (`new`, [`taken_for_new`]) by a plain insert; of the others
    /// (`old`), those whose stored row the scope read (`stored`: its content hash by id) by
    /// the keyed update when `id_hash(i)` (the record's id and content hash) differs from the
    /// stored hash, and not at all when it is the same (the upsert's `WHERE` would leave the
    /// row as it is); the rest, which no read of this transaction saw, by the upsert. These
    /// are SQLite's ways, none of which keeps a statement journal but the last
    /// ([`Store::insert_new`]); PostgreSQL takes them with [`Passes::postgres`].
    ///
    /// Skipping a row by its hash read earlier in the transaction is safe because only a
    /// derivation writes `content_hash`, under the account's derivation lock
    /// (`crate::derive_lock`).
    fn by_stored_hash<'h>(
        new: Vec<usize>,
        old: Vec<usize>,
        stored: &HashMap<Uuid, String>,
        id_hash: impl Fn(usize) -> (Uuid, &'h str),
    ) -> Self {
        let mut passes = Passes {
            new,
            changed: Vec::new(),
            by_rule: Vec::new(),
        };
        for i in old {
            let (id, hash) = id_hash(i);
            match stored.get(&id) {
                Some(stored) if stored == hash => {}
                Some(_) => passes.changed.push(i),
                None => passes.by_rule.push(i),
            }
        }
        passes
    }

    /// PostgreSQL's ways, once its `COPY` of the records taken for new has been tried
    /// ([`Store::copy_new_derived_pg`]; `copied`: it wrote them): those records are left out
    /// when it did and go through the upsert when it did not; the changed records go through
    /// the upsert too (its `ON CONFLICT` updates them as the keyed update would;
    /// [`keyed_update`]'s `UPDATE OR FAIL` is SQLite's). The unchanged ones stay out of every
    /// statement, sparing the server the key probe and the lock the upsert takes of every
    /// conflicting row, updated or not (PostgreSQL manual, `INSERT`, "ON CONFLICT Clause").
    /// The upsert's records stay in the derivation's order.
    fn postgres(mut self, copied: bool) -> Self {
        if !copied {
            self.by_rule.append(&mut self.new);
        }
        self.new.clear();
        self.by_rule.append(&mut self.changed);
        self.by_rule.sort_unstable();
        self
    }
}

/// Which of a derivation's records, given as (key, id) (a shipment's bill of lading number, a
/// container's number), are taken for new: those whose key is among `scope_keys` (so a
/// stored row of the record would have been read by it) and whose id is not among `stored`
/// (the ids read by those keys). Returns the indices of those and of the others, in order.
/// The caller's records fix their key by their id (`teu_domain::ids`), and no update of a
/// stored row changes it.
fn taken_for_new<'a>(
    records: impl Iterator<Item = (&'a str, Uuid)>,
    scope_keys: &[String],
    stored: impl Iterator<Item = Uuid>,
) -> (Vec<usize>, Vec<usize>) {
    let keys: HashSet<&str> = scope_keys.iter().map(String::as_str).collect();
    let stored: HashSet<Uuid> = stored.collect();
    let (mut new, mut old) = (Vec::new(), Vec::new());
    for (i, (key, id)) in records.enumerate() {
        if keys.contains(key) && !stored.contains(&id) {
            new.push(i);
        } else {
            old.push(i);
        }
    }
    (new, old)
}

/// The account's stored rows a derivation's scope names, read before it writes
/// ([`Store::stored_in_scope`]).
#[derive(Default)]
pub(super) struct StoredInScope {
    /// The ids of the shipments keyed by one of the scope's bills of lading or bookings.
    shipments: Vec<Uuid>,
    /// `(id, shipment_id)` of the containers with one of the scope's numbers.
    containers: Vec<(Uuid, Uuid)>,
    /// The stored `content_hash` of each of those shipments and containers, by id (a
    /// shipment's and a container's ids are made in different namespaces,
    /// `teu_domain::ids`).
    hashes: HashMap<Uuid, String>,
}

/// The `containers.event_links` value of each of `containers`, in their order: its pairs among
/// `links`, ordered by event time in milliseconds, then event id, each event once, encoded by
/// [`encode_links`]; a container without links gets the empty value. Pairs whose event is not
/// in `events` are skipped (the caller refuses them first).
fn link_values(
    containers: &[Container],
    links: &[(Uuid, Uuid)],
    events: &HashMap<Uuid, &TransportEvent>,
) -> Vec<Vec<u8>> {
    let mut of: HashMap<Uuid, Vec<(i64, Uuid, EventLink)>> =
        containers.iter().map(|c| (c.id, Vec::new())).collect();
    for (c, e) in links {
        let (Some(list), Some(event)) = (of.get_mut(c), events.get(e)) else {
            continue;
        };
        list.push((
            event.event.event_at.timestamp_millis(),
            *e,
            EventLink::of(event),
        ));
    }
    containers
        .iter()
        .map(|c| {
            let mut list = of.remove(&c.id).unwrap_or_default();
            list.sort_unstable_by_key(|(at, e, _)| (*at, *e));
            // One row per pair in the table (its primary key), so once here too.
            list.dedup_by_key(|(_, e, _)| *e);
            let ordered: Vec<EventLink> = list.into_iter().map(|(_, _, l)| l).collect();
            encode_links(&ordered)
        })
        .collect()
}

/// The `shipments.member_ids` value of each of `shipments`, in their order (migration 40): the
/// 16 bytes of the id of each of `containers` whose `shipment_id` is the shipment's, one after
/// the other, ordered by container number (its bytes), then id, the order of
/// [`Store::containers_of_shipments`]; a shipment without containers gets the empty value.
///
/// A derivation's containers are all of its shipments' containers: a shipment is derived from
/// its whole connected history (`teu_pipeline::ingest::linked_history`), and the boxes of
/// that history the derivation no longer produces are removed with it
/// ([`Store::upsert_derived`]'s `scope`).
fn member_values(shipments: &[Shipment], containers: &[Container]) -> Vec<Vec<u8>> {
    let mut of: HashMap<Uuid, Vec<&Container>> =
        shipments.iter().map(|s| (s.id, Vec::new())).collect();
    for c in containers {
        if let Some(list) = of.get_mut(&c.shipment_id) {
            list.push(c);
        }
    }
    shipments
        .iter()
        .map(|s| {
            let mut list = of.remove(&s.id).unwrap_or_default();
            list.sort_unstable_by(|a, b| {
                (a.number.as_str().as_bytes(), a.id).cmp(&(b.number.as_str().as_bytes(), b.id))
            });
            list.dedup_by_key(|c| c.id);
            list.iter().flat_map(|c| *c.id.as_bytes()).collect()
        })
        .collect()
}

/// Each record's content hash and stored body ([`hashed_body`]), with one encoder of `codec`
/// for the list; `blank` clears the bookkeeping times the hash leaves out.
///
/// # Errors
/// [`StoreError::Compress`] when zstd fails (a corrupt bundled dictionary, out of memory).
fn hashed_bodies<T: serde::Serialize + Clone>(
    records: &[T],
    codec: &'static Codec,
    blank: impl Fn(&mut T),
) -> Result<Vec<(String, Vec<u8>)>> {
    let mut encoder = Encoder::new(codec).map_err(StoreError::Compress)?;
    records
        .iter()
        .map(|r| hashed_body(r, &blank, &mut encoder))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updates_leave_what_ids_are_made_of_and_set_the_rest() {
        for (table, kept) in [
            (&SHIPMENTS, &["id", "account_id", "created_at"][..]),
            (
                &CONTAINERS,
                &["id", "account_id", "shipment_id", "number", "created_at"][..],
            ),
        ] {
            assert_eq!(table.columns[0], "id", "{}", table.name);
            let updated: Vec<(usize, &str)> = table.updated().collect();
            // Every column is either kept or set, each from its own place in a row's values.
            assert_eq!(
                updated.len() + kept.len(),
                table.columns.len(),
                "{}",
                table.name
            );
            for (at, column) in updated {
                assert!(!kept.contains(&column), "{}.{column}", table.name);
                assert_eq!(table.columns[at - 1], column, "{}", table.name);
            }
        }
    }

    #[test]
    fn passes_skip_unchanged_rows_and_upsert_unseen_ones() {
        let ids: Vec<Uuid> = (0..4u128).map(Uuid::from_u128).collect();
        let hashes = ["a", "b", "c", "d"];
        // Record 0 is new; 1 is stored with the same hash, 2 with another; 3 was not read.
        let stored: HashMap<Uuid, String> =
            [(ids[1], "b".to_string()), (ids[2], "x".to_string())].into();
        let passes =
            Passes::by_stored_hash(vec![0], vec![1, 2, 3], &stored, |i| (ids[i], hashes[i]));
        assert_eq!(passes.new, [0]);
        assert_eq!(passes.changed, [2]);
        assert_eq!(passes.by_rule, [3]);
        // PostgreSQL's: the changed record joins the upsert, in the records' order, and so
        // does the new one when the `COPY` did not write it; the unchanged one is still left
        // out.
        let of = |new| Passes::by_stored_hash(new, vec![3, 2, 1], &stored, |i| (ids[i], hashes[i]));
        let copied = of(vec![0]).postgres(true);
        assert!(copied.new.is_empty() && copied.changed.is_empty());
        assert_eq!(copied.by_rule, [2, 3]);
        let not_copied = of(vec![0]).postgres(false);
        assert!(not_copied.new.is_empty() && not_copied.changed.is_empty());
        assert_eq!(not_copied.by_rule, [0, 2, 3]);
    }
}
