//! Filtered and sorted pages of containers and shipments (the GraphQL `containers` and
//! `shipments` connections; `/v2` uses the unfiltered default order), shipment tags and the
//! user's stop of tracking.
//!
//! Filters run on indexed columns of `migrations/*/20261121000009_graphql_filters.sql`, which
//! the derived upserts fill ([`ShipmentFilterColumns::of`], [`container_filter_columns`]) and
//! [`Store::backfill_filter_columns`] fills for rows written before that migration. Every
//! statement is one SQL text for SQLite and PostgreSQL (`$n` placeholders, TEXT timestamps).
//!
//! | filter | on containers | on shipments |
//! |---|---|---|
//! | statuses, container number, has holds, LFD before/after | the container | some container of the shipment matches all of them |
//! | bill of lading, POL, POD, shipping line, tags | the container's shipment | the shipment |
//! | updated after | the container's `refreshed_at` | the shipment's `refreshed_at` |

use chrono::{DateTime, Utc};
use sqlx::Row;
use uuid::Uuid;

use crate::model::{Container, ContainerStatus, Shipment};
use crate::store::{container_row, now, shipment_row, ts, Result, Store, StoreError};

/// `line_tracking_stopped_reason` of a shipment whose tracking the user stopped.
pub const STOPPED_BY_USER: &str = "cancelled_by_user";
/// Most tags one shipment may carry.
pub const MAX_TAGS: usize = 50;
/// Longest tag, in characters.
pub const MAX_TAG_LEN: usize = 64;

/// Why a tag list is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TagError {
    /// No tag given.
    #[error("give at least one tag")]
    Empty,
    /// A tag is empty or only blanks.
    #[error("a tag must not be blank")]
    Blank,
    /// A tag is longer than [`MAX_TAG_LEN`].
    #[error("tag {0:?} is longer than {MAX_TAG_LEN} characters")]
    TooLong(String),
    /// The shipment would carry more than [`MAX_TAGS`] tags.
    #[error("a shipment may carry at most {MAX_TAGS} tags")]
    TooMany,
}

/// Checks and normalizes tags given by a user: trimmed, each at most [`MAX_TAG_LEN`]
/// characters, duplicates dropped (first occurrence kept).
pub fn parse_tags(tags: &[String]) -> Result<Vec<String>, TagError> {
    if tags.is_empty() {
        return Err(TagError::Empty);
    }
    let out = trimmed_unique(tags, MAX_TAG_LEN).map_err(|bad| match bad {
        BadItem::Blank => TagError::Blank,
        BadItem::TooLong(t) => TagError::TooLong(t),
    })?;
    if out.len() > MAX_TAGS {
        return Err(TagError::TooMany);
    }
    Ok(out)
}

/// What is wrong with one item of a user's list ([`trimmed_unique`]).
pub(crate) enum BadItem {
    /// Empty or only blanks.
    Blank,
    /// Longer than allowed (the trimmed item).
    TooLong(String),
}

/// The items trimmed, each 1 to `max_len` characters, duplicates dropped (first kept): the
/// shared rule of user-given tags and reference numbers.
pub(crate) fn trimmed_unique(items: &[String], max_len: usize) -> Result<Vec<String>, BadItem> {
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let item = item.trim();
        if item.is_empty() {
            return Err(BadItem::Blank);
        }
        if item.chars().count() > max_len {
            return Err(BadItem::TooLong(item.to_string()));
        }
        if !out.iter().any(|o| o == item) {
            out.push(item.to_string());
        }
    }
    Ok(out)
}

/// What a list of containers or shipments is narrowed to. Every field left empty matches
/// everything; the fields given must all match.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListFilter {
    /// Container `current_status` is one of these.
    pub statuses: Vec<ContainerStatus>,
    /// Container number (compared without blanks or punctuation, in capitals).
    pub container_number: Option<String>,
    /// The shipment's `bill_of_lading_number`, exactly.
    pub bill_of_lading_number: Option<String>,
    /// UN/LOCODE of the shipment's port of lading.
    pub pol_locode: Option<String>,
    /// UN/LOCODE of the shipment's port of discharge.
    pub pod_locode: Option<String>,
    /// The shipment's shipping line SCAC.
    pub shipping_line_scac: Option<String>,
    /// Whether the container has holds at the POD terminal.
    pub has_holds: Option<bool>,
    /// Container `pickup_lfd` strictly before this instant.
    pub lfd_before: Option<DateTime<Utc>>,
    /// Container `pickup_lfd` strictly after this instant.
    pub lfd_after: Option<DateTime<Utc>>,
    /// Refreshed (changed) strictly after this instant.
    pub updated_after: Option<DateTime<Utc>>,
    /// The shipment carries every one of these tags.
    pub tags: Vec<String>,
    /// Whether tracking of the shipment has stopped (`line_tracking_stopped_at` set, by the
    /// feeds or by the user): Terminal49's `filter[tracking_stopped]`.
    pub tracking_stopped: Option<bool>,
}

/// Order of a list. Ties are broken by id, so pages never overlap.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ListOrder {
    /// Most recently refreshed first (then newest created): the `/v2` order.
    #[default]
    UpdatedAtDesc,
    /// Earliest estimated arrival at the POD first (the shipment's `pod_eta_at`); unknown last.
    PodEtaAsc,
    /// Earliest last free day first (`pickup_lfd`; for shipments the earliest of their
    /// containers); unknown last.
    LfdAsc,
    /// By container number (containers) or bill of lading number (shipments).
    NumberAsc,
}

/// The indexed filter columns of a shipment row.
pub(crate) struct ShipmentFilterColumns {
    pub pol_locode: Option<String>,
    pub pod_locode: Option<String>,
    pub shipping_line_scac: Option<String>,
    pub pod_eta_at: Option<String>,
}

impl ShipmentFilterColumns {
    /// The columns of `s`, as the upserts and the backfill write them.
    pub(crate) fn of(s: &Shipment) -> Self {
        ShipmentFilterColumns {
            pol_locode: s.port_of_lading_locode.clone(),
            pod_locode: s.port_of_discharge_locode.clone(),
            shipping_line_scac: Some(s.shipping_line_scac.clone()),
            pod_eta_at: s.pod_eta_at.map(ts),
        }
    }
}

/// The indexed filter columns of a container row: `pickup_lfd` and `has_holds` (0 or 1).
pub(crate) fn container_filter_columns(c: &Container) -> (Option<String>, i64) {
    (
        c.pickup_lfd.map(ts),
        i64::from(!c.holds_at_pod_terminal.is_empty()),
    )
}

/// A container number as stored: capitals, no blanks or punctuation.
fn normalize_container_number(n: &str) -> String {
    n.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// A bind value.
#[derive(Clone)]
enum Bind {
    Text(String),
    Int(i64),
}

/// A WHERE clause under construction: `$1` is always the account id.
struct Clause {
    preds: Vec<String>,
    binds: Vec<Bind>,
}

impl Clause {
    fn new(account: Uuid, first: &str) -> Self {
        Clause {
            preds: vec![first.to_string()],
            binds: vec![Bind::Text(account.to_string())],
        }
    }

    /// Adds a bind value and returns its placeholder.
    fn bind(&mut self, b: Bind) -> String {
        self.binds.push(b);
        format!("${}", self.binds.len())
    }

    fn text(&mut self, s: impl Into<String>) -> String {
        self.bind(Bind::Text(s.into()))
    }

    fn sql(&self) -> String {
        self.preds.join(" AND ")
    }
}

/// Predicates on container `c`.
fn container_preds(f: &ListFilter, cl: &mut Clause) -> Vec<String> {
    let mut out = Vec::new();
    if !f.statuses.is_empty() {
        let list: Vec<String> = f.statuses.iter().map(|s| cl.text(s.as_str())).collect();
        out.push(format!("c.current_status IN ({})", list.join(", ")));
    }
    if let Some(n) = &f.container_number {
        let p = cl.text(normalize_container_number(n));
        out.push(format!("c.number = {p}"));
    }
    if let Some(h) = f.has_holds {
        let p = cl.bind(Bind::Int(i64::from(h)));
        out.push(format!("c.has_holds = {p}"));
    }
    if let Some(t) = f.lfd_before {
        let p = cl.text(ts(t));
        out.push(format!("c.pickup_lfd < {p}"));
    }
    if let Some(t) = f.lfd_after {
        let p = cl.text(ts(t));
        out.push(format!("c.pickup_lfd > {p}"));
    }
    out
}

/// Predicates on shipment `s` (whose id is `shipment_id`), and whether any reads a column
/// of `s` itself (tags only need the id).
fn shipment_preds(f: &ListFilter, cl: &mut Clause, shipment_id: &str) -> (Vec<String>, bool) {
    let mut out = Vec::new();
    for (column, value) in [
        (
            "s.bill_of_lading_number",
            f.bill_of_lading_number.as_deref(),
        ),
        ("s.pol_locode", f.pol_locode.as_deref()),
        ("s.pod_locode", f.pod_locode.as_deref()),
        ("s.shipping_line_scac", f.shipping_line_scac.as_deref()),
    ] {
        if let Some(v) = value {
            let v = if column == "s.bill_of_lading_number" {
                v.trim().to_string()
            } else {
                v.trim().to_ascii_uppercase()
            };
            let p = cl.text(v);
            out.push(format!("{column} = {p}"));
        }
    }
    if let Some(stopped) = f.tracking_stopped {
        // The derived stop lives in the body (a JSON string when set); the user's in its column.
        let set = "(s.user_stopped_at IS NOT NULL \
                   OR s.body LIKE '%\"line_tracking_stopped_at\":\"%')";
        out.push(if stopped {
            set.to_string()
        } else {
            format!("NOT {set}")
        });
    }
    let reads_s = !out.is_empty();
    for tag in &f.tags {
        let p = cl.text(tag.trim());
        out.push(format!(
            "EXISTS (SELECT 1 FROM shipment_tags t WHERE t.account_id = $1 \
             AND t.shipment_id = {shipment_id} AND t.tag = {p})"
        ));
    }
    (out, reads_s)
}

fn bind_all<'q>(
    mut q: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
    binds: &[Bind],
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    for b in binds {
        q = match b {
            Bind::Text(s) => q.bind(s.clone()),
            Bind::Int(i) => q.bind(*i),
        };
    }
    q
}

impl Store {
    /// One page of the account's containers, most recently refreshed first (then newest
    /// created, then id), and the total count. `offset` and `limit` count rows.
    pub async fn list_containers(
        &self,
        account: Uuid,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<Container>, i64)> {
        self.list_containers_filtered(
            account,
            &ListFilter::default(),
            ListOrder::default(),
            offset,
            limit,
        )
        .await
    }

    /// One page of the account's shipments, ordered like containers, and the total count.
    pub async fn list_shipments(
        &self,
        account: Uuid,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<Shipment>, i64)> {
        self.list_shipments_filtered(
            account,
            &ListFilter::default(),
            ListOrder::default(),
            offset,
            limit,
        )
        .await
    }

    /// One page of the account's containers matching `filter` in `order`, and how many match
    /// in all. Two statements.
    pub async fn list_containers_filtered(
        &self,
        account: Uuid,
        filter: &ListFilter,
        order: ListOrder,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<Container>, i64)> {
        let mut cl = Clause::new(account, "c.account_id = $1");
        let preds = container_preds(filter, &mut cl);
        cl.preds.extend(preds);
        let (preds, reads_s) = shipment_preds(filter, &mut cl, "c.shipment_id");
        cl.preds.extend(preds);
        if let Some(t) = filter.updated_after {
            let p = cl.text(ts(t));
            cl.preds.push(format!("c.refreshed_at > {p}"));
        }
        let from = if reads_s || order == ListOrder::PodEtaAsc {
            "containers c LEFT JOIN shipments s ON s.id = c.shipment_id AND s.account_id = $1"
        } else {
            "containers c"
        };
        let order_by = match order {
            ListOrder::UpdatedAtDesc => "c.refreshed_at DESC, c.created_at DESC, c.id DESC",
            ListOrder::PodEtaAsc => "(s.pod_eta_at IS NULL), s.pod_eta_at, c.number, c.id",
            ListOrder::LfdAsc => "(c.pickup_lfd IS NULL), c.pickup_lfd, c.number, c.id",
            ListOrder::NumberAsc => "c.number, c.id",
        };
        let where_sql = cl.sql();
        let count_sql = format!("SELECT COUNT(*) AS n FROM {from} WHERE {where_sql}");
        let total: i64 = bind_all(sqlx::query(&count_sql), &cl.binds)
            .fetch_one(self.pool())
            .await?
            .try_get("n")?;
        let n = cl.binds.len();
        let page_sql = format!(
            "SELECT c.id, c.created_at, c.refreshed_at, c.body FROM {from} WHERE {where_sql} \
             ORDER BY {order_by} LIMIT ${} OFFSET ${}",
            n + 1,
            n + 2
        );
        let rows = bind_all(sqlx::query(&page_sql), &cl.binds)
            .bind(limit)
            .bind(offset)
            .fetch_all(self.pool())
            .await?;
        let items = rows.iter().map(container_row).collect::<Result<Vec<_>>>()?;
        Ok((items, total))
    }

    /// One page of the account's shipments matching `filter` in `order`, and how many match
    /// in all. Container filters match a shipment when one of its containers matches them
    /// all. Two statements.
    pub async fn list_shipments_filtered(
        &self,
        account: Uuid,
        filter: &ListFilter,
        order: ListOrder,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<Shipment>, i64)> {
        let mut cl = Clause::new(account, "s.account_id = $1");
        let (preds, _) = shipment_preds(filter, &mut cl, "s.id");
        cl.preds.extend(preds);
        let cpreds = container_preds(filter, &mut cl);
        if !cpreds.is_empty() {
            cl.preds.push(format!(
                "EXISTS (SELECT 1 FROM containers c WHERE c.account_id = $1 AND c.shipment_id = s.id AND {})",
                cpreds.join(" AND ")
            ));
        }
        if let Some(t) = filter.updated_after {
            let p = cl.text(ts(t));
            cl.preds.push(format!("s.refreshed_at > {p}"));
        }
        const MIN_LFD: &str = "(SELECT MIN(c2.pickup_lfd) FROM containers c2 \
                               WHERE c2.account_id = $1 AND c2.shipment_id = s.id)";
        let order_by = match order {
            ListOrder::UpdatedAtDesc => "s.refreshed_at DESC, s.created_at DESC, s.id DESC".into(),
            ListOrder::PodEtaAsc => {
                "(s.pod_eta_at IS NULL), s.pod_eta_at, s.bill_of_lading_number, s.id".into()
            }
            ListOrder::LfdAsc => {
                format!("({MIN_LFD} IS NULL), {MIN_LFD}, s.bill_of_lading_number, s.id")
            }
            ListOrder::NumberAsc => "s.bill_of_lading_number, s.id".to_string(),
        };
        let where_sql = cl.sql();
        let count_sql = format!("SELECT COUNT(*) AS n FROM shipments s WHERE {where_sql}");
        let total: i64 = bind_all(sqlx::query(&count_sql), &cl.binds)
            .fetch_one(self.pool())
            .await?
            .try_get("n")?;
        let n = cl.binds.len();
        let page_sql = format!(
            "SELECT s.id, s.created_at, s.refreshed_at, s.tags, s.user_stopped_at, s.user_ref_numbers, s.body \
             FROM shipments s WHERE {where_sql} ORDER BY {order_by} LIMIT ${} OFFSET ${}",
            n + 1,
            n + 2
        );
        let rows = bind_all(sqlx::query(&page_sql), &cl.binds)
            .bind(limit)
            .bind(offset)
            .fetch_all(self.pool())
            .await?;
        let items = rows.iter().map(shipment_row).collect::<Result<Vec<_>>>()?;
        Ok((items, total))
    }

    /// Adds `add` to and removes `remove` from the shipment's tags (both already checked by
    /// [`parse_tags`]); the shipment's `refreshed_at` moves to now. `None` when the account has
    /// no such shipment. Tags come back sorted. Refused with [`StoreError::Tags`] when the
    /// shipment would carry more than [`MAX_TAGS`].
    pub async fn update_shipment_tags(
        &self,
        account: Uuid,
        id: Uuid,
        add: &[String],
        remove: &[String],
    ) -> Result<Option<Shipment>> {
        let account_s = account.to_string();
        let id_s = id.to_string();
        let mut tx = self.pool().begin().await?;
        if !self.touch_shipment(&mut tx, &account_s, &id_s).await? {
            return Ok(None);
        }
        self.insert_tags(&mut tx, &account_s, &id_s, add).await?;
        for tag in remove {
            sqlx::query(
                "DELETE FROM shipment_tags WHERE account_id = $1 AND shipment_id = $2 AND tag = $3",
            )
            .bind(&account_s)
            .bind(&id_s)
            .bind(tag)
            .execute(self.counted(&mut tx))
            .await?;
        }
        // Not committed when too many: the transaction rolls back on drop.
        if self.sync_tags_column(&mut tx, &account_s, &id_s).await? > MAX_TAGS {
            return Err(StoreError::Tags(TagError::TooMany));
        }
        tx.commit().await?;
        self.shipment(account, id).await
    }

    /// Moves the shipment's `refreshed_at` to now, first thing in a transaction that edits it:
    /// on PostgreSQL the write locks the row, so concurrent edits of one shipment run one after
    /// the other and none is lost. `false` when the account has no such shipment.
    pub(crate) async fn touch_shipment(
        &self,
        conn: &mut sqlx::AnyConnection,
        account: &str,
        id: &str,
    ) -> Result<bool> {
        let touched =
            sqlx::query("UPDATE shipments SET refreshed_at = $3 WHERE account_id = $1 AND id = $2")
                .bind(account)
                .bind(id)
                .bind(ts(now()))
                .execute(self.counted(conn))
                .await?;
        Ok(touched.rows_affected() > 0)
    }

    /// Adds `tags` to the shipment's `shipment_tags` rows (a tag it has already is skipped);
    /// [`Store::sync_tags_column`] must follow.
    pub(crate) async fn insert_tags(
        &self,
        conn: &mut sqlx::AnyConnection,
        account: &str,
        id: &str,
        tags: &[String],
    ) -> Result<()> {
        for tag in tags {
            sqlx::query(
                "INSERT INTO shipment_tags (account_id, shipment_id, tag) VALUES ($1, $2, $3) \
                 ON CONFLICT (shipment_id, tag) DO NOTHING",
            )
            .bind(account)
            .bind(id)
            .bind(tag)
            .execute(self.counted(conn))
            .await?;
        }
        Ok(())
    }

    /// Writes the shipment's `tags` column (what lists serve, sorted) from its `shipment_tags`
    /// rows (what filters read), and returns how many tags it carries.
    pub(crate) async fn sync_tags_column(
        &self,
        conn: &mut sqlx::AnyConnection,
        account: &str,
        id: &str,
    ) -> Result<usize> {
        let tags: Vec<String> = sqlx::query(
            "SELECT tag FROM shipment_tags WHERE account_id = $1 AND shipment_id = $2 ORDER BY tag",
        )
        .bind(account)
        .bind(id)
        .fetch_all(self.counted(conn))
        .await?
        .iter()
        .map(|r| r.try_get::<String, _>("tag"))
        .collect::<Result<_, _>>()?;
        sqlx::query("UPDATE shipments SET tags = $3 WHERE account_id = $1 AND id = $2")
            .bind(account)
            .bind(id)
            .bind(crate::shipment_edits::json_list(&tags))
            .execute(self.counted(conn))
            .await?;
        Ok(tags.len())
    }

    /// Stops tracking the shipment at the shipping line on the user's behalf:
    /// `line_tracking_stopped_at` becomes now and `line_tracking_stopped_reason`
    /// `cancelled_by_user` (a shipment already stopped by the user keeps its first time).
    /// `None` when the account has no such shipment.
    pub async fn stop_tracking(&self, account: Uuid, id: Uuid) -> Result<Option<Shipment>> {
        let at = now();
        let account_s = account.to_string();
        // One transaction: the `tracking_request.tracking_stopped` notifications of the
        // shipment's tracking requests commit with the stop.
        let mut tx = self.pool().begin().await?;
        let stopped = sqlx::query(
            "UPDATE shipments SET user_stopped_at = $3, refreshed_at = $3 \
             WHERE account_id = $1 AND id = $2 AND user_stopped_at IS NULL",
        )
        .bind(&account_s)
        .bind(id.to_string())
        .bind(ts(at))
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if stopped > 0 {
            let requests = sqlx::query(
                "SELECT id FROM tracking_requests WHERE account_id = $1 AND shipment_id = $2",
            )
            .bind(&account_s)
            .bind(id.to_string())
            .fetch_all(&mut *tx)
            .await?;
            let mut emissions = Vec::with_capacity(requests.len());
            for r in &requests {
                let request: String = r.try_get("id")?;
                let request = Uuid::parse_str(&request).map_err(|e| StoreError::Corrupt {
                    what: "tracking request",
                    id: request.clone(),
                    detail: e.to_string(),
                })?;
                emissions.push(crate::webhooks::rules::tracking_request_stopped(
                    request, id, at,
                ));
            }
            if !emissions.is_empty() {
                let hooks = crate::webhooks::outbox::subscriptions(&mut tx, &account_s).await?;
                crate::webhooks::outbox::enqueue(&mut tx, &account_s, &hooks, &emissions).await?;
            }
        }
        tx.commit().await?;
        self.shipment(account, id).await
    }

    /// Undoes [`Store::stop_tracking`]: the shipment shows the tracking state the feeds give
    /// it again (normally not stopped). `None` when the account has no such shipment.
    pub async fn resume_tracking(&self, account: Uuid, id: Uuid) -> Result<Option<Shipment>> {
        sqlx::query(
            "UPDATE shipments SET user_stopped_at = NULL, refreshed_at = $3 \
             WHERE account_id = $1 AND id = $2 AND user_stopped_at IS NOT NULL",
        )
        .bind(account.to_string())
        .bind(id.to_string())
        .bind(ts(now()))
        .execute(self.pool())
        .await?;
        self.shipment(account, id).await
    }

    /// Fills the filter columns of rows written before they existed (`filters_at IS NULL`)
    /// from their JSON body, with the functions the upserts use. Runs at start-up; a no-op
    /// once every row is filled. A row whose body does not parse gets empty columns.
    pub(crate) async fn backfill_filter_columns(&self) -> Result<()> {
        const BATCH: i64 = 500;
        loop {
            let rows = sqlx::query(
                "SELECT id, created_at, refreshed_at, body FROM containers WHERE filters_at IS NULL LIMIT $1",
            )
            .bind(BATCH)
            .fetch_all(self.pool())
            .await?;
            if rows.is_empty() {
                break;
            }
            let stamp = ts(now());
            let mut tx = self.pool().begin().await?;
            for row in &rows {
                let id: String = row.try_get("id")?;
                let (lfd, holds) = container_row(row)
                    .map(|c| container_filter_columns(&c))
                    .unwrap_or((None, 0));
                sqlx::query(
                    "UPDATE containers SET pickup_lfd = $1, has_holds = $2, filters_at = $3 WHERE id = $4",
                )
                .bind(lfd)
                .bind(holds)
                .bind(&stamp)
                .bind(id)
                .execute(self.counted(&mut tx))
                .await?;
            }
            tx.commit().await?;
        }
        loop {
            let rows = sqlx::query(
                "SELECT id, created_at, refreshed_at, tags, user_stopped_at, user_ref_numbers, body FROM shipments \
                 WHERE filters_at IS NULL LIMIT $1",
            )
            .bind(BATCH)
            .fetch_all(self.pool())
            .await?;
            if rows.is_empty() {
                break;
            }
            let stamp = ts(now());
            let mut tx = self.pool().begin().await?;
            for row in &rows {
                let id: String = row.try_get("id")?;
                let f = shipment_row(row)
                    .map(|s| ShipmentFilterColumns::of(&s))
                    .ok();
                let f = f.unwrap_or(ShipmentFilterColumns {
                    pol_locode: None,
                    pod_locode: None,
                    shipping_line_scac: None,
                    pod_eta_at: None,
                });
                sqlx::query(
                    "UPDATE shipments SET pol_locode = $1, pod_locode = $2, shipping_line_scac = $3, \
                     pod_eta_at = $4, filters_at = $5 WHERE id = $6",
                )
                .bind(f.pol_locode)
                .bind(f.pod_locode)
                .bind(f.shipping_line_scac)
                .bind(f.pod_eta_at)
                .bind(&stamp)
                .bind(id)
                .execute(self.counted(&mut tx))
                .await?;
            }
            tx.commit().await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_trimmed_deduplicated_and_bounded() {
        let s = |v: &[&str]| v.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        assert_eq!(
            parse_tags(&s(&[" hot ", "hot", "urgent"])).unwrap(),
            s(&["hot", "urgent"])
        );
        assert_eq!(parse_tags(&[]), Err(TagError::Empty));
        assert_eq!(parse_tags(&s(&["ok", "  "])), Err(TagError::Blank));
        assert!(matches!(
            parse_tags(&s(&[&"x".repeat(65)])),
            Err(TagError::TooLong(_))
        ));
        let many: Vec<String> = (0..51).map(|i| format!("t{i}")).collect();
        assert_eq!(parse_tags(&many), Err(TagError::TooMany));
    }

    #[test]
    fn container_numbers_are_compared_normalized() {
        assert_eq!(normalize_container_number("apzu 481209-0"), "APZU4812090");
    }
}
