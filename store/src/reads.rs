//! Reads of derived containers and shipments, their events and quarantined rows, by id or by
//! shipment.

use std::collections::HashMap;

use crate::db::{DbRow, RecordId};
use crate::events::{id_list_json, with_event_id};
use uuid::Uuid;

use super::{
    body_bytes, container_row, event_body, from_json, in_list, parse_uuid, record_id,
    record_id_list, shipment_row, Result, Store, StoreError, CONTAINER_SELECT, SHIPMENT_SELECT,
};
use teu_domain::event_names::named_actual;
use teu_domain::model::{Container, EventRow, Shipment, TransportEvent};
use teu_feeds::Quarantined;

/// One event of a container, as its relationships name it: the normalized event's id, its raw
/// event's id, and whether it is an actual event with a Terminal49 name
/// ([`teu_domain::event_names::named_actual`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventLink {
    /// `transport_events.id`.
    pub id: Uuid,
    /// `raw_events.id` of the carrier's event.
    pub raw_event_id: Uuid,
    /// Listed in the container's `transport_events` relationship.
    pub named_actual: bool,
}

impl EventLink {
    /// The link of a stored event read whole.
    pub fn of(e: &TransportEvent) -> Self {
        EventLink {
            id: e.id,
            raw_event_id: e.raw_event_id,
            named_actual: named_actual(&e.event),
        }
    }
}

/// One link of [`Store::event_links_from_table`]'s aggregate: `<event id> <raw event id>
/// <named_actual 0|1>`.
fn event_link(link: &str, container: &str) -> Result<EventLink> {
    let corrupt = |detail: &str| StoreError::Corrupt {
        what: "event link of container",
        id: container.to_string(),
        detail: format!("{detail}: {link:?}"),
    };
    let mut parts = link.split(' ');
    let (Some(id), Some(raw), Some(flag), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(corrupt("not three fields"));
    };
    Ok(EventLink {
        id: parse_uuid(id, "transport event")?,
        raw_event_id: parse_uuid(raw, "raw event")?,
        named_actual: match flag {
            "1" => true,
            "0" => false,
            _ => return Err(corrupt("named_actual not filled")),
        },
    })
}

/// Bytes per link in `containers.event_links`: the event id (16), the raw event id (16) and
/// `named_actual` (1).
const LINK_BYTES: usize = 33;

/// `containers.event_links` of a container whose links, in event order, are `links`: for each
/// link its event id and raw event id (16 bytes each, the UUID's bytes) and `named_actual` (one
/// byte, 0 or 1). No links give an empty value, which is not NULL (NULL: not stored).
pub(crate) fn encode_links(links: &[EventLink]) -> Vec<u8> {
    let mut out = Vec::with_capacity(links.len() * LINK_BYTES);
    for link in links {
        out.extend_from_slice(link.id.as_bytes());
        out.extend_from_slice(link.raw_event_id.as_bytes());
        out.push(u8::from(link.named_actual));
    }
    out
}

/// The links [`encode_links`] wrote. Errors (as text, for [`StoreError::Corrupt`]) when the
/// length is not a whole number of links or a flag is not 0 or 1.
pub(crate) fn decode_links(bytes: &[u8]) -> std::result::Result<Vec<EventLink>, String> {
    if bytes.len() % LINK_BYTES != 0 {
        return Err(format!(
            "{} bytes, not a multiple of {LINK_BYTES}",
            bytes.len()
        ));
    }
    bytes
        .chunks_exact(LINK_BYTES)
        .enumerate()
        .map(|(i, link)| {
            let uuid = |range: std::ops::Range<usize>| {
                Uuid::from_slice(&link[range]).map_err(|e| format!("link {i}: {e}"))
            };
            Ok(EventLink {
                id: uuid(0..16)?,
                raw_event_id: uuid(16..32)?,
                named_actual: match link[32] {
                    0 => false,
                    1 => true,
                    other => return Err(format!("link {i}: named_actual byte {other}")),
                },
            })
        })
        .collect()
}

impl Store {
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
    /// number (the order of [`Store::containers_of_shipments`]), without reading their bodies:
    /// each shipment's stored `member_ids` (migration 40), one row per shipment. A shipment
    /// not of the account, unknown, or without containers is absent from the map.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] on a failed query, [`StoreError::Corrupt`] on an unreadable id or a
    /// stored value that is not whole 16-byte ids.
    pub async fn container_ids_of_shipments(
        &self,
        account: Uuid,
        shipment_ids: &[Uuid],
    ) -> Result<HashMap<Uuid, Vec<Uuid>>> {
        let rows = self
            .select_in(
                "SELECT id, member_ids FROM shipments WHERE account_id = $1 AND id IN",
                account,
                shipment_ids,
                |row| {
                    Ok((
                        record_id(row, "id", "shipment")?,
                        record_id_list(row, "member_ids", "container")?,
                    ))
                },
            )
            .await?;
        Ok(rows
            .into_iter()
            .filter(|(_, members)| !members.is_empty())
            .collect())
    }

    /// The account's shipments with these ids (unknown or foreign ids are skipped), each with
    /// its container ids in number order: [`Store::shipments_by_ids`] and
    /// [`Store::container_ids_of_shipments`] in one statement (the members stored with the
    /// shipment, migration 40), as a `/v2` page's included shipments need them.
    ///
    /// # Errors
    /// [`StoreError::Sql`] on a failed query, [`StoreError::Corrupt`] on a body that does not
    /// parse, an unreadable id, or a stored member list that is not whole 16-byte ids.
    pub async fn shipments_with_members(
        &self,
        account: Uuid,
        ids: &[Uuid],
    ) -> Result<Vec<(Shipment, Vec<Uuid>)>> {
        const SELECT: &str =
            "SELECT id, created_at, refreshed_at, tags, user_stopped_at, user_ref_numbers, \
             body, member_ids FROM shipments WHERE account_id = $1 AND id IN";
        self.select_in(SELECT, account, ids, |row| {
            let shipment = shipment_row(row)?;
            let members = record_id_list(row, "member_ids", "container")?;
            Ok((shipment, members))
        })
        .await
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

    /// The events of each container, ordered by event time (then event id): its stored
    /// `event_links` ([`Store::event_links_of_containers`]), then those events by primary key
    /// ([`Store::events_by_id`]). A container with no links, or not of the account, is absent.
    pub async fn events_of_containers(
        &self,
        account: Uuid,
        container_ids: &[Uuid],
    ) -> Result<HashMap<Uuid, Vec<TransportEvent>>> {
        let links = self
            .event_links_of_containers(account, container_ids)
            .await?;
        let mut ids: Vec<Uuid> = links.values().flatten().map(|l| l.id).collect();
        ids.sort_unstable();
        ids.dedup();
        let events: HashMap<Uuid, TransportEvent> = self
            .events_by_id(account, &ids)
            .await?
            .into_iter()
            .map(|e| (e.id, e))
            .collect();
        Ok(links
            .into_iter()
            .map(|(container, list)| {
                let of = list
                    .iter()
                    .filter_map(|l| events.get(&l.id).cloned())
                    .collect();
                (container, of)
            })
            .collect())
    }

    /// The event links of each container, ordered by event time (then event id): what a
    /// container's `transport_events` and `raw_events` relationships list. Reads no event
    /// body: each container's stored `event_links` (written by the derivation, the only place
    /// links are stored since migration 27), one row per container. A container with no
    /// links, or not of the account, is absent from the map.
    ///
    /// # Errors
    /// [`StoreError::Sql`] on a failed query, [`StoreError::Corrupt`] on a stored value that is
    /// not whole 33-byte links with a flag of 0 or 1 (naming the container and the link's
    /// index), or an unreadable id.
    pub async fn event_links_of_containers(
        &self,
        account: Uuid,
        container_ids: &[Uuid],
    ) -> Result<HashMap<Uuid, Vec<EventLink>>> {
        let stored = self
            .select_in(
                "SELECT id, event_links FROM containers WHERE account_id = $1 AND id IN",
                account,
                container_ids,
                |row| {
                    let id = record_id(row, "id", "container")?;
                    let links: Option<Vec<u8>> = row.try_get("event_links")?;
                    Ok((id, links))
                },
            )
            .await?;
        links_of_values(stored)
    }

    /// The links of each container that `container_events` held before migration 27, ordered
    /// by event time (then event id), for [`Store::backfill_event_links`]: one row per
    /// container, its links aggregated in event order by the database
    /// (`group_concat`/`string_agg … ORDER BY`).
    ///
    /// # Errors
    /// [`StoreError::Sql`] on a failed query, [`StoreError::Corrupt`] on an unreadable id or a
    /// `named_actual` not filled (start-up fills every one first: `Store::backfill_named_actual`).
    async fn event_links_from_table(
        &self,
        account: Uuid,
        container_ids: &[Uuid],
    ) -> Result<HashMap<Uuid, Vec<EventLink>>> {
        // Each container's links are one range of the primary key; CROSS JOIN makes SQLite
        // walk them first and read each event by its primary key. Both tables keep ids as 16
        // bytes (migrations 28 and 45), printed back as 32 hex digits (which `event_link` and
        // `parse_uuid` read as UUIDs). Event ids are UUID v5 of their account
        // (`teu_domain::ids`), so a link's event is of the link's account.
        let (container_hex, id_hex, raw_hex) = match self.backend() {
            super::Backend::Sqlite => ("hex(ce.container_id)", "hex(e.id)", "hex(e.raw_event_id)"),
            super::Backend::Postgres => (
                "encode(ce.container_id, 'hex')",
                "encode(e.id, 'hex')",
                "encode(e.raw_event_id, 'hex')",
            ),
        };
        let by_id = with_event_id(self.backend(), "e", "ce.event_id");
        let rows = self
            .aggregated(account, container_ids, |aggregate, list| {
                format!(
                    "SELECT {container_hex}, {aggregate}({id_hex} || ' ' || {raw_hex} || ' ' || \
                     COALESCE(e.named_actual, 2), ',' ORDER BY e.event_at, e.id) AS links \
                     FROM container_events ce CROSS JOIN transport_events e \
                     WHERE {by_id} AND ce.account_id = $1 \
                     AND ce.container_id IN ({list}) GROUP BY ce.container_id"
                )
            })
            .await?;
        let mut out: HashMap<Uuid, Vec<EventLink>> = HashMap::with_capacity(rows.len());
        for (container, links) in rows {
            let list = links
                .split(',')
                .map(|link| event_link(link, &container))
                .collect::<Result<Vec<_>>>()?;
            out.insert(parse_uuid(&container, "container")?, list);
        }
        Ok(out)
    }

    /// Moves the links of containers stored before migration 27 into their `event_links`
    /// (`NULL` there: never derived since migration 21) from `container_events`, 500
    /// containers at a time, and empties `container_events`, which nothing reads or writes
    /// after. Runs at start-up, after [`Store::backfill_named_actual`] (the links carry the
    /// flag); a no-op once the table is empty. A container whose value is still `NULL` after
    /// it (no row in the table) has no links, and gets the empty value.
    pub(crate) async fn backfill_event_links(&self) -> Result<()> {
        const BATCH: i64 = 500;
        let any = crate::db::query("SELECT container_id FROM container_events LIMIT 1")
            .fetch_optional(self.pool())
            .await?;
        if any.is_none() {
            return Ok(());
        }
        loop {
            let rows = crate::db::query(
                "SELECT id, account_id FROM containers WHERE event_links IS NULL LIMIT $1",
            )
            .bind(BATCH)
            .fetch_all(self.pool())
            .await?;
            if rows.is_empty() {
                break;
            }
            let mut by_account: HashMap<Uuid, Vec<Uuid>> = HashMap::new();
            for row in &rows {
                let id = record_id(row, "id", "container")?;
                let account = record_id(row, "account_id", "account")?;
                by_account.entry(account).or_default().push(id);
            }
            let mut values: Vec<(Uuid, Vec<u8>)> = Vec::with_capacity(rows.len());
            for (account, ids) in by_account {
                let mut links = self.event_links_from_table(account, &ids).await?;
                values.extend(
                    ids.into_iter()
                        .map(|id| (id, encode_links(&links.remove(&id).unwrap_or_default()))),
                );
            }
            let mut tx = self.writer().begin().await?;
            for (id, bytes) in &values {
                crate::db::query("UPDATE containers SET event_links = $1 WHERE id = $2")
                    .bind(bytes.as_slice())
                    .bind(crate::db::RecordId(*id))
                    .execute(self.counted(&mut tx))
                    .await?;
            }
            tx.commit().await?;
        }
        crate::db::query("DELETE FROM container_events")
            .execute(self.writer())
            .await?;
        Ok(())
    }

    /// Fills `transport_events.named_actual` of events written before the column existed
    /// (`NULL`), with [`named_actual`] of each stored body, in batches of 500 read and two
    /// `UPDATE … IN` lists written. Runs at start-up;
    /// a no-op once every row is filled. A body that does not parse gets 0 (such an event is
    /// in no relationship; reading it would fail as corrupt anyway).
    pub(crate) async fn backfill_named_actual(&self) -> Result<()> {
        const BATCH: i64 = 500;
        loop {
            let sql = format!(
                "SELECT id, {} FROM transport_events WHERE named_actual IS NULL LIMIT $1",
                body_bytes(self.backend(), "body")
            );
            let rows = crate::db::query(&sql)
                .bind(BATCH)
                .fetch_all(self.pool())
                .await?;
            if rows.is_empty() {
                return Ok(());
            }
            // Two statements per batch (the listed and the unlisted ids), not one per event.
            let (mut listed, mut unlisted) = (Vec::new(), Vec::new());
            for row in &rows {
                let id: Vec<u8> = row.try_get("id")?;
                // Named as `uuid_of_bytes` names a malformed id: in hex.
                let name =
                    Uuid::from_slice(&id).map_or_else(|_| hex::encode(&id), |u| u.to_string());
                let parsed = event_body(row, &name)
                    .and_then(|body| from_json::<EventRow>(&body, "transport event", &name));
                match parsed {
                    Ok(e) if named_actual(&e) => listed.push(id),
                    _ => unlisted.push(id),
                }
            }
            let mut tx = self.writer().begin().await?;
            let sql = format!(
                "UPDATE transport_events SET named_actual = $1 WHERE {}",
                self.events_with_ids_in("$2")
            );
            for (flag, ids) in [(1_i64, &listed), (0, &unlisted)] {
                crate::db::query(&sql)
                    .bind(flag)
                    .bind(id_list_json(ids.iter()))
                    .execute(self.counted(&mut tx))
                    .await?;
            }
            tx.commit().await?;
        }
    }

    /// Quarantined rows of the account, by file and index.
    pub async fn quarantined(&self, account: Uuid) -> Result<Vec<Quarantined>> {
        let rows = crate::db::query(
            "SELECT source_file, row_index, pointer, reason, payload FROM quarantine WHERE account_id = $1 \
             ORDER BY source_file, row_index, pointer",
        )
        .bind(RecordId(account))
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

    /// The rows of a statement that aggregates text per group over the ids `ids` of `account`:
    /// `sql(aggregate, list)` writes it with the backend's string aggregate (`group_concat` on
    /// SQLite, `string_agg` on PostgreSQL, both with `ORDER BY`) and the placeholders of one
    /// chunk of ids (`$2…`; `$1` is the account), selecting the group key first and the
    /// aggregated text second. One statement per chunk; the rows come as (key, text).
    async fn aggregated(
        &self,
        account: Uuid,
        ids: &[Uuid],
        sql: impl Fn(&str, &str) -> String,
    ) -> Result<Vec<(String, String)>> {
        let aggregate = self.string_aggregate();
        let mut out = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(self.rows_per_statement(1)) {
            let sql = sql(aggregate, &in_list(2, chunk.len()));
            let mut q = crate::db::query(&sql).bind(RecordId(account));
            for id in chunk {
                q = q.bind(RecordId(*id));
            }
            for row in q.fetch_all(self.pool()).await? {
                out.push((row.try_get(0)?, row.try_get(1)?));
            }
        }
        Ok(out)
    }

    /// Rows of `prefix` (a `SELECT … WHERE account_id = $1 AND id IN`, or a statement with
    /// `{list}` where the list goes) for `ids`, the account and ids bound as [`RecordId`]s, read with
    /// `read`; several statements when `ids` is longer than one statement may bind. On the
    /// reader's connections ([`Store::reader`]): lookups by key, whose generic plan PostgreSQL
    /// keeps; an ingest reaches it only for what it reads by ids (the earlier links of
    /// containers whose changes go to webhooks, `Store::upsert_derived`).
    pub(crate) async fn select_in<T>(
        &self,
        prefix: &str,
        account: Uuid,
        ids: &[Uuid],
        read: fn(&DbRow) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut conn = self.reader.as_ref().unwrap_or(&self.pool).acquire().await?;
        self.select_in_on(&mut conn, prefix, account, ids, read)
            .await
    }

    /// [`Store::select_in`] on a given connection (a transaction's).
    pub(super) async fn select_in_on<T>(
        &self,
        conn: &mut crate::db::Conn,
        prefix: &str,
        account: Uuid,
        ids: &[Uuid],
        read: fn(&DbRow) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut out = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(self.rows_per_statement(1)) {
            let list = in_list(2, chunk.len());
            let sql = if prefix.contains("{list}") {
                prefix.replace("{list}", &list)
            } else {
                format!("{prefix} ({list})")
            };
            let mut q = crate::db::query(&sql).bind(RecordId(account));
            for id in chunk {
                q = q.bind(RecordId(*id));
            }
            for row in q.fetch_all(self.counted(conn)).await? {
                out.push(read(&row)?);
            }
        }
        Ok(out)
    }
}

/// Each container's links from its stored `event_links` value (`id`, value), as
/// [`Store::event_links_of_containers`] answers them: containers without links (an empty
/// value, or `NULL`: never derived) are left out.
pub(crate) fn links_of_values(
    stored: Vec<(Uuid, Option<Vec<u8>>)>,
) -> Result<HashMap<Uuid, Vec<EventLink>>> {
    let mut out = HashMap::with_capacity(stored.len());
    for (container, value) in stored {
        let links = decode_stored_links(value.as_deref().unwrap_or_default(), container)?;
        if !links.is_empty() {
            out.insert(container, links);
        }
    }
    Ok(out)
}

/// The links of the stored `event_links` value of container `id` ([`decode_links`]);
/// [`StoreError::Corrupt`] naming the container when it is not whole links.
pub(crate) fn decode_stored_links(bytes: &[u8], id: Uuid) -> Result<Vec<EventLink>> {
    decode_links(bytes).map_err(|detail| StoreError::Corrupt {
        what: "event links of container",
        id: id.to_string(),
        detail,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_round_trip_and_refuse_partial_values() {
        let links = vec![
            EventLink {
                id: Uuid::from_u128(1),
                raw_event_id: Uuid::from_u128(u128::MAX),
                named_actual: true,
            },
            EventLink {
                id: Uuid::from_u128(0x0123_4567_89ab_cdef),
                raw_event_id: Uuid::nil(),
                named_actual: false,
            },
        ];
        let bytes = encode_links(&links);
        assert_eq!(bytes.len(), 2 * LINK_BYTES);
        assert_eq!(decode_links(&bytes).unwrap(), links);
        assert_eq!(decode_links(&[]).unwrap(), Vec::new());
        assert!(decode_links(&bytes[..LINK_BYTES + 1])
            .unwrap_err()
            .contains("not a multiple"));
        let mut flag = bytes.clone();
        flag[LINK_BYTES - 1] = 7;
        assert!(decode_links(&flag).unwrap_err().contains("link 0"));
    }
}
