//! The SQL of filtered and sorted pages of containers and shipments, shipment tags and the
//! user's stop of tracking (rules and filter types: [`teu_domain::listing`]).
//!
//! Filters run on indexed columns of `migrations/*/20261121000009_graphql_filters.sql`, which
//! the derived upserts fill ([`ShipmentFilterColumns::of`], [`container_filter_columns`]) and
//! [`Store::backfill_filter_columns`] fills for rows written before that migration. Every
//! statement is one SQL text for SQLite and PostgreSQL (`$n` placeholders); ids are bound as
//! [`RecordId`]s and times (`created_at`, `refreshed_at`, `pickup_lfd`, `pod_eta_at`,
//! `user_stopped_at`, `filters_at`; migrations 38 and 44) as [`RecordTime`]s.

use std::collections::HashMap;

use crate::db::{Arg, Bind, DbRow, RecordId, RecordTime};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::reads::EventLink;
use super::{
    container_row, container_row_uncached, now, record_id_list, shipment_of, shipment_row,
    shipment_row_uncached, Backend, Result, ShipmentColumns, Store, StoreError,
};
use teu_domain::listing::{normalize_container_number, ListFilter, ListOrder, TagError, MAX_TAGS};
use teu_domain::model::{Container, Shipment};

/// The indexed filter columns of a shipment row.
pub(crate) struct ShipmentFilterColumns {
    pub pol_locode: Option<String>,
    pub pod_locode: Option<String>,
    pub shipping_line_scac: Option<String>,
    /// The latest estimate of arrival at the POD (UTC), bound as a [`RecordTime`]
    /// (migration 44).
    pub pod_eta_at: Option<DateTime<Utc>>,
    /// 1 when the feeds stopped tracking the shipment (`line_tracking_stopped_at` is set),
    /// else 0: the `trackingStopped` filter's column (migration 32).
    pub line_tracking_stopped: i64,
}

impl ShipmentFilterColumns {
    /// The columns of `s`, as the upserts and the backfill write them.
    pub(crate) fn of(s: &Shipment) -> Self {
        ShipmentFilterColumns {
            pol_locode: s.port_of_lading_locode.as_deref().map(str::to_string),
            pod_locode: s.port_of_discharge_locode.as_deref().map(str::to_string),
            shipping_line_scac: Some(s.shipping_line_scac.clone()),
            pod_eta_at: s.pod_eta_at,
            line_tracking_stopped: i64::from(s.line_tracking_stopped_at.is_some()),
        }
    }
}

/// The indexed filter columns of a container row: `pickup_lfd` (UTC, bound as a
/// [`RecordTime`] since migration 44) and `has_holds` (0 or 1).
pub(crate) fn container_filter_columns(c: &Container) -> (Option<DateTime<Utc>>, i64) {
    (c.pickup_lfd, i64::from(!c.holds_at_pod_terminal.is_empty()))
}

/// A WHERE clause under construction: `$1` is always the account id; `binds` holds the
/// values of its placeholders in order, in their bound form.
struct Clause {
    preds: Vec<String>,
    binds: Vec<Arg<'static>>,
}

impl Clause {
    fn new(account: Uuid, first: &str) -> Self {
        Clause {
            preds: vec![first.to_string()],
            binds: vec![RecordId(account).arg()],
        }
    }

    /// Adds a bind value and returns its placeholder.
    fn bind(&mut self, value: impl Bind<'static>) -> String {
        self.binds.push(value.arg());
        format!("${}", self.binds.len())
    }

    fn text(&mut self, s: impl Into<String>) -> String {
        self.bind(s.into())
    }

    fn sql(&self) -> String {
        self.preds.join(" AND ")
    }

    /// Whether the clause keeps less than the whole account (a predicate besides the first,
    /// the account's).
    fn filters(&self) -> bool {
        self.preds.len() > 1
    }
}

/// Which rows a page counts ([`Store::page_total`]).
#[derive(Clone, Copy)]
enum Counted {
    Containers,
    Shipments,
}

impl Counted {
    /// The column of `account_counts` that counts these rows.
    fn column(self) -> &'static str {
        match self {
            Counted::Containers => "containers",
            Counted::Shipments => "shipments",
        }
    }
}

/// The name of the page statement's column that carries the account's stored total.
const STORED_TOTAL: &str = "stored_total";

/// The page statement's extra column (starting with a comma) that reads the account's stored
/// total from `account_counts` (`$1` is the account) when the clause `cl` filters nothing:
/// one statement for the page and its total. Empty when the clause filters: the total is then
/// counted by a statement of its own ([`Store::page_total`]).
fn stored_total_column(counted: Counted, cl: &Clause) -> String {
    if cl.filters() {
        return String::new();
    }
    format!(
        ", (SELECT {} FROM account_counts WHERE account_id = $1) AS {STORED_TOTAL}",
        counted.column()
    )
}

/// The `ORDER BY` keys of a page of containers `c` in `order`, each order ending in unique
/// keys so that pages never overlap; `pod_eta` is the expression of the shipment's POD ETA
/// (`s.pod_eta_at` beside the containers, or the column a subquery carried it out under).
fn container_order(order: ListOrder, pod_eta: &str) -> String {
    match order {
        ListOrder::UpdatedAtDesc => "c.refreshed_at DESC, c.created_at DESC, c.id DESC".into(),
        ListOrder::PodEtaAsc => format!("({pod_eta} IS NULL), {pod_eta}, c.number, c.id"),
        ListOrder::LfdAsc => "(c.pickup_lfd IS NULL), c.pickup_lfd, c.number, c.id".into(),
        ListOrder::NumberAsc => "c.number, c.id".into(),
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
        let p = cl.bind(i64::from(h));
        out.push(format!("c.has_holds = {p}"));
    }
    if let Some(t) = f.lfd_before {
        let p = cl.bind(RecordTime(t));
        out.push(format!("c.pickup_lfd < {p}"));
    }
    if let Some(t) = f.lfd_after {
        let p = cl.bind(RecordTime(t));
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
        // The feeds' stop and the user's, each in its column.
        let set = "(s.user_stopped_at IS NOT NULL OR s.line_tracking_stopped = 1)";
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

/// The column a page of containers adds for its event links.
const PAGE_LINKS: &str = ", c.event_links";

/// The columns a page of containers adds for its joined shipments (`LEFT JOIN shipments sp`),
/// named by [`ShipmentColumns::JOINED`]: alone, and after [`PAGE_LINKS`].
static JOINED_SHIPMENT: std::sync::LazyLock<[String; 2]> = std::sync::LazyLock::new(|| {
    let joined = format!(", {}", ShipmentColumns::JOINED.select_as("sp"));
    [joined.clone(), format!("{PAGE_LINKS}{joined}")]
});

/// What [`Store::list_containers_reading`] reads with a page of containers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PageReads {
    /// Each container's event links.
    pub links: bool,
    /// The containers' shipments with their container ids.
    pub shipments: bool,
}

/// A page of containers with what both APIs show beside them
/// ([`Store::list_containers_reading`]).
#[derive(Debug)]
pub struct ContainerPage {
    /// The page's containers, in the page's order.
    pub containers: Vec<Container>,
    /// Each container's event links, as [`Store::event_links_of_containers`] answers them,
    /// when [`PageReads::links`] asked for them.
    pub links: Option<HashMap<Uuid, Vec<EventLink>>>,
    /// The containers' shipments, once each in the order the page first names them, with
    /// each shipment's container ids (`shipments.member_ids`), when [`PageReads::shipments`]
    /// asked for them.
    pub shipments: Option<Vec<(Shipment, Vec<Uuid>)>>,
    /// How many containers match in all.
    pub total: i64,
}

/// The `LIMIT … OFFSET …` of a page of `limit` rows after `offset` rows, for a statement of
/// `binds` bind parameters before it ([`Store::page_window`]).
struct PageWindow {
    sql: String,
    /// The limit and offset to bind, when `sql` names them as parameters.
    binds: Option<(i64, i64)>,
}

impl PageWindow {
    /// `q` with the window's parameters bound, if it has any.
    fn bind<'q>(&self, q: crate::db::Query<'q>) -> crate::db::Query<'q> {
        match self.binds {
            Some((limit, offset)) => q.bind(limit).bind(offset),
            None => q,
        }
    }
}

/// `q` with the clause's values bound, borrowed from `binds`.
fn bind_all<'q>(q: crate::db::Query<'q>, binds: &'q [Arg<'static>]) -> crate::db::Query<'q> {
    q.bind_args(binds.iter().map(Arg::borrowed))
}

impl Store {
    /// The window of a page statement with `binds` bind parameters before it. SQLite:
    /// parameters `$binds+1` (limit) and `$binds+2` (offset). PostgreSQL: the numbers written
    /// in the statement, so that a page's statement has no parameter its plan depends on and
    /// the reader's connections keep its generic plan (`Plans::Kept`; with a parameter
    /// `LIMIT` the generic plan is costed for a tenth of the rows, PostgreSQL's
    /// `preprocess_limit`, and is never kept). Each page number is then a statement of its
    /// own in sqlx's cache of prepared statements (100 a connection), which a client walking
    /// every page cycles through; the first pages, the ones asked for most, stay in it.
    fn page_window(&self, binds: usize, limit: i64, offset: i64) -> PageWindow {
        match self.backend() {
            Backend::Sqlite => PageWindow {
                sql: format!("LIMIT ${} OFFSET ${}", binds + 1, binds + 2),
                binds: Some((limit, offset)),
            },
            Backend::Postgres => PageWindow {
                sql: format!("LIMIT {limit} OFFSET {offset}"),
                binds: None,
            },
        }
    }

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
    /// in all. One statement; two when `filter` filters or the page is empty
    /// ([`Store::page_total`]).
    pub async fn list_containers_filtered(
        &self,
        account: Uuid,
        filter: &ListFilter,
        order: ListOrder,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<Container>, i64)> {
        let page = self
            .list_containers_reading(
                account,
                filter,
                order,
                (offset, limit),
                PageReads::default(),
            )
            .await?;
        Ok((page.containers, page.total))
    }

    /// [`Store::list_containers_filtered`] (the window `(offset, limit)` counts rows, as there)
    /// with what `reads` asks for beside the containers, read in the page's own rows:
    /// - `links`: each container's event links, as [`Store::event_links_of_containers`]
    ///   answers them (containers without links are absent from the map), from the stored
    ///   `event_links` values;
    /// - `shipments`: the containers' shipments with each shipment's container ids (as
    ///   [`Store::shipments_with_members`] answers them), each container row carrying its
    ///   shipment's columns (`LEFT JOIN`, named by [`ShipmentColumns::JOINED`]); once each, in
    ///   the order the page first names them; a container whose shipment row is missing names
    ///   none.
    ///
    /// So a `/v2` page (`include=shipment`) or a GraphQL page that needs its shipments
    /// (`shipment`, `transportEvents`, `rawEvents`) is one statement as a rule
    /// ([`Store::page_total`]).
    ///
    /// # Errors
    /// As [`Store::list_containers_filtered`]; [`StoreError::Corrupt`] for stored links or a
    /// shipment row that do not decode.
    pub async fn list_containers_reading(
        &self,
        account: Uuid,
        filter: &ListFilter,
        order: ListOrder,
        (offset, limit): (i64, i64),
        reads: PageReads,
    ) -> Result<ContainerPage> {
        const JOIN: &str =
            " LEFT JOIN shipments sp ON sp.account_id = $1 AND sp.id = c.shipment_id";
        let extra: &str = match (reads.links, reads.shipments) {
            (false, false) => "",
            (true, false) => PAGE_LINKS,
            (links, true) => &JOINED_SHIPMENT[usize::from(links)],
        };
        let join = if reads.shipments { JOIN } else { "" };
        let (rows, total) = self
            .container_page(account, filter, order, offset, limit, extra, join)
            .await?;
        let mut containers = Vec::with_capacity(rows.len());
        let mut links = Vec::with_capacity(rows.len());
        let mut shipments: Vec<(Shipment, Vec<Uuid>)> = Vec::new();
        for row in &rows {
            let c = container_row(row)?;
            if reads.links {
                links.push((c.id, row.try_get::<Option<Vec<u8>>, _>("event_links")?));
            }
            let joined = reads.shipments
                && row
                    .try_get::<Option<&[u8]>, _>(ShipmentColumns::JOINED.id)?
                    .is_some();
            if joined && !shipments.iter().any(|(s, _)| s.id == c.shipment_id) {
                let shipment = shipment_of(row, &ShipmentColumns::JOINED, true)?;
                let members = record_id_list(row, ShipmentColumns::JOINED.member_ids, "container")?;
                shipments.push((shipment, members));
            }
            containers.push(c);
        }
        Ok(ContainerPage {
            containers,
            links: if reads.links {
                Some(super::reads::links_of_values(links)?)
            } else {
                None
            },
            shipments: reads.shipments.then_some(shipments),
            total,
        })
    }

    /// The rows of one page of containers (`container_row`'s columns and `extra`, which
    /// starts with a comma; `join` added to the `FROM`), and how many match in all. On
    /// PostgreSQL a `join` is made to the page's rows only, chosen first in a subquery.
    #[allow(clippy::too_many_arguments)]
    async fn container_page(
        &self,
        account: Uuid,
        filter: &ListFilter,
        order: ListOrder,
        offset: i64,
        limit: i64,
        extra: &str,
        join: &str,
    ) -> Result<(Vec<DbRow>, i64)> {
        let mut cl = Clause::new(account, "c.account_id = $1");
        let preds = container_preds(filter, &mut cl);
        cl.preds.extend(preds);
        let (preds, reads_s) = shipment_preds(filter, &mut cl, "c.shipment_id");
        cl.preds.extend(preds);
        if let Some(t) = filter.updated_after {
            let p = cl.bind(RecordTime(t));
            cl.preds.push(format!("c.refreshed_at > {p}"));
        }
        let from = if reads_s || order == ListOrder::PodEtaAsc {
            "containers c LEFT JOIN shipments s ON s.id = c.shipment_id AND s.account_id = $1"
        } else {
            "containers c"
        };
        let order_by = container_order(order, "s.pod_eta_at");
        let where_sql = cl.sql();
        let n = cl.binds.len();
        let stored_total = stored_total_column(Counted::Containers, &cl);
        let window = self.page_window(n, limit, offset);
        let page_sql = if join.is_empty() || self.backend() == Backend::Sqlite {
            format!(
                "SELECT c.id, c.created_at, c.refreshed_at, c.body{extra}{stored_total} FROM {from}{join} \
                 WHERE {where_sql} ORDER BY {order_by} {}",
                window.sql
            )
        } else {
            // PostgreSQL, with a join (the shipments): the page's rows are chosen first, in a
            // subquery of their own, and only they are joined. In one statement, the planner
            // costs the join for every row the page's filter keeps (the `LIMIT` applies after
            // it), and at a million containers it looks the shipments up through a `Memoize`
            // node whose hash table is sized for those rows and zeroed at every execution
            // (docs/NOTES.md, seventy-eighth and seventy-ninth sessions). The subquery's
            // `LIMIT` bounds the join's estimate by the page's size. Its rows carry the
            // shipment's ETA under `page_pod_eta_at` for the POD-ETA order, which the outer
            // statement sorts by again (a subquery's order is not the statement's).
            let eta = match order {
                ListOrder::PodEtaAsc => ", s.pod_eta_at AS page_pod_eta_at",
                _ => "",
            };
            let outer_order = container_order(order, "c.page_pod_eta_at");
            format!(
                "SELECT c.id, c.created_at, c.refreshed_at, c.body{extra}{stored_total} FROM \
                 (SELECT c.*{eta} FROM {from} WHERE {where_sql} ORDER BY {order_by} {}) c{join} \
                 ORDER BY {outer_order}",
                window.sql
            )
        };
        let rows = window
            .bind(bind_all(crate::db::query(&page_sql), &cl.binds))
            .fetch_all(self.reader())
            .await?;
        let total = self
            .page_total(account, Counted::Containers, from, &cl, &rows)
            .await?;
        Ok((rows, total))
    }

    /// One page of the account's shipments matching `filter` in `order`, and how many match
    /// in all. Container filters match a shipment when one of its containers matches them
    /// all. One statement; two when `filter` filters or the page is empty
    /// ([`Store::page_total`]).
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
            let p = cl.bind(RecordTime(t));
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
        let n = cl.binds.len();
        let stored_total = stored_total_column(Counted::Shipments, &cl);
        let window = self.page_window(n, limit, offset);
        let page_sql = format!(
            "SELECT s.id, s.created_at, s.refreshed_at, s.tags, s.user_stopped_at, s.user_ref_numbers, s.body\
             {stored_total} FROM shipments s WHERE {where_sql} ORDER BY {order_by} {}",
            window.sql
        );
        let rows = window
            .bind(bind_all(crate::db::query(&page_sql), &cl.binds))
            .fetch_all(self.reader())
            .await?;
        let total = self
            .page_total(account, Counted::Shipments, "shipments s", &cl, &rows)
            .await?;
        let items = rows.iter().map(shipment_row).collect::<Result<Vec<_>>>()?;
        Ok((items, total))
    }

    /// How many rows of `from` (the page's FROM: containers `c` or shipments `s`) the clause
    /// keeps: the page's total, given the page's `rows`.
    ///
    /// Unfiltered (the clause holds only the account), the total is the account's row of
    /// `account_counts` (kept by the triggers of `migrations/*/20261125000014_page_reads.sql`;
    /// 0 for an account without a row), where `COUNT(*)` would walk every row of the account.
    /// The page's own statement reads it ([`stored_total_column`]: no statement of its own)
    /// unless the page is empty; then it is read alone. Filtered, the count itself.
    async fn page_total(
        &self,
        account: Uuid,
        counted: Counted,
        from: &str,
        cl: &Clause,
        rows: &[DbRow],
    ) -> Result<i64> {
        if !cl.filters() {
            if let Some(row) = rows.first() {
                return Ok(row.try_get::<Option<i64>, _>(STORED_TOTAL)?.unwrap_or(0));
            }
            let sql = format!(
                "SELECT {} AS n FROM account_counts WHERE account_id = $1",
                counted.column()
            );
            return Ok(crate::db::query(&sql)
                .bind(RecordId(account))
                .fetch_optional(self.reader())
                .await?
                .map(|r| r.try_get::<i64, _>("n"))
                .transpose()?
                .unwrap_or(0));
        }
        let sql = format!("SELECT COUNT(*) AS n FROM {from} WHERE {}", cl.sql());
        Ok(bind_all(crate::db::query(&sql), &cl.binds)
            .fetch_one(self.reader())
            .await?
            .try_get("n")?)
    }

    /// Adds `add` to and removes `remove` from the shipment's tags (both already checked by
    /// [`parse_tags`](teu_domain::listing::parse_tags)); the shipment's `refreshed_at` moves to
    /// now. `None` when the account has no such shipment. Tags come back sorted. Refused with [`StoreError::Tags`] when the
    /// shipment would carry more than [`MAX_TAGS`].
    pub async fn update_shipment_tags(
        &self,
        account: Uuid,
        id: Uuid,
        add: &[String],
        remove: &[String],
    ) -> Result<Option<Shipment>> {
        let mut tx = self.writer().begin().await?;
        if !self.touch_shipment(&mut tx, account, id).await? {
            return Ok(None);
        }
        self.insert_tags(&mut tx, account, id, add).await?;
        for tag in remove {
            crate::db::query(
                "DELETE FROM shipment_tags WHERE account_id = $1 AND shipment_id = $2 AND tag = $3",
            )
            .bind(RecordId(account))
            .bind(RecordId(id))
            .bind(tag)
            .execute(self.counted(&mut tx))
            .await?;
        }
        // Not committed when too many: the transaction rolls back on drop.
        if self.sync_tags_column(&mut tx, account, id).await? > MAX_TAGS {
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
        conn: &mut crate::db::Conn,
        account: Uuid,
        id: Uuid,
    ) -> Result<bool> {
        let touched = crate::db::query(
            "UPDATE shipments SET refreshed_at = $3 WHERE account_id = $1 AND id = $2",
        )
        .bind(RecordId(account))
        .bind(RecordId(id))
        .bind(RecordTime(now()))
        .execute(self.counted(conn))
        .await?;
        Ok(touched.rows_affected() > 0)
    }

    /// Adds `tags` to the shipment's `shipment_tags` rows (a tag it has already is skipped);
    /// [`Store::sync_tags_column`] must follow.
    pub(crate) async fn insert_tags(
        &self,
        conn: &mut crate::db::Conn,
        account: Uuid,
        id: Uuid,
        tags: &[String],
    ) -> Result<()> {
        for tag in tags {
            crate::db::query(
                "INSERT INTO shipment_tags (account_id, shipment_id, tag) VALUES ($1, $2, $3) \
                 ON CONFLICT (shipment_id, tag) DO NOTHING",
            )
            .bind(RecordId(account))
            .bind(RecordId(id))
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
        conn: &mut crate::db::Conn,
        account: Uuid,
        id: Uuid,
    ) -> Result<usize> {
        let tags: Vec<String> = crate::db::query(
            "SELECT tag FROM shipment_tags WHERE account_id = $1 AND shipment_id = $2 ORDER BY tag",
        )
        .bind(RecordId(account))
        .bind(RecordId(id))
        .fetch_all(self.counted(conn))
        .await?
        .iter()
        .map(|r| r.try_get::<String, _>("tag"))
        .collect::<Result<_, _>>()?;
        crate::db::query("UPDATE shipments SET tags = $3 WHERE account_id = $1 AND id = $2")
            .bind(RecordId(account))
            .bind(RecordId(id))
            .bind(crate::json_list(&tags))
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
        // One transaction: the `tracking_request.tracking_stopped` notifications of the
        // shipment's tracking requests commit with the stop.
        let mut tx = self.writer().begin().await?;
        let stopped = crate::db::query(
            "UPDATE shipments SET user_stopped_at = $3, refreshed_at = $4 \
             WHERE account_id = $1 AND id = $2 AND user_stopped_at IS NULL",
        )
        .bind(RecordId(account))
        .bind(RecordId(id))
        .bind(RecordTime(at))
        .bind(RecordTime(at))
        .execute(&mut tx)
        .await?
        .rows_affected();
        if stopped > 0 {
            let requests = crate::db::query(
                "SELECT id FROM tracking_requests WHERE account_id = $1 AND shipment_id = $2",
            )
            .bind(RecordId(account))
            .bind(RecordId(id))
            .fetch_all(&mut tx)
            .await?;
            let mut emissions = Vec::with_capacity(requests.len());
            for r in &requests {
                let request = super::record_id(r, "id", "tracking request")?;
                emissions.push(teu_domain::webhooks::rules::tracking_request_stopped(
                    request, id, at,
                ));
            }
            if !emissions.is_empty() {
                let hooks = crate::outbox::subscriptions(&mut tx, account).await?;
                super::outbox::enqueue(
                    &mut tx,
                    account,
                    &hooks,
                    &emissions,
                    self.rows_per_statement(12),
                )
                .await?;
            }
        }
        tx.commit().await?;
        self.shipment(account, id).await
    }

    /// Undoes [`Store::stop_tracking`]: the shipment shows the tracking state the feeds give
    /// it again (normally not stopped). `None` when the account has no such shipment.
    pub async fn resume_tracking(&self, account: Uuid, id: Uuid) -> Result<Option<Shipment>> {
        crate::db::query(
            "UPDATE shipments SET user_stopped_at = NULL, refreshed_at = $3 \
             WHERE account_id = $1 AND id = $2 AND user_stopped_at IS NOT NULL",
        )
        .bind(RecordId(account))
        .bind(RecordId(id))
        .bind(RecordTime(now()))
        .execute(self.writer())
        .await?;
        self.shipment(account, id).await
    }

    /// Fills the filter columns of rows written before they existed (`filters_at IS NULL`)
    /// from their JSON body, with the functions the upserts use. Runs at start-up; a no-op
    /// once every row is filled. A row whose body does not parse gets empty columns.
    pub(crate) async fn backfill_filter_columns(&self) -> Result<()> {
        const BATCH: i64 = 500;
        loop {
            let rows = crate::db::query(
                "SELECT id, created_at, refreshed_at, body FROM containers WHERE filters_at IS NULL LIMIT $1",
            )
            .bind(BATCH)
            .fetch_all(self.pool())
            .await?;
            if rows.is_empty() {
                break;
            }
            let stamp = RecordTime(now());
            let mut tx = self.writer().begin().await?;
            for row in &rows {
                let id = super::record_id(row, "id", "container")?;
                let (lfd, holds) = container_row_uncached(row)
                    .map(|c| container_filter_columns(&c))
                    .unwrap_or((None, 0));
                crate::db::query(
                    "UPDATE containers SET pickup_lfd = $1, has_holds = $2, filters_at = $3 WHERE id = $4",
                )
                .bind(lfd.map(RecordTime))
                .bind(holds)
                .bind(stamp)
                .bind(RecordId(id))
                .execute(self.counted(&mut tx))
                .await?;
            }
            tx.commit().await?;
        }
        loop {
            let rows = crate::db::query(
                "SELECT id, created_at, refreshed_at, tags, user_stopped_at, user_ref_numbers, body FROM shipments \
                 WHERE filters_at IS NULL LIMIT $1",
            )
            .bind(BATCH)
            .fetch_all(self.pool())
            .await?;
            if rows.is_empty() {
                break;
            }
            let stamp = RecordTime(now());
            let mut tx = self.writer().begin().await?;
            for row in &rows {
                let id = super::record_id(row, "id", "shipment")?;
                let f = shipment_row_uncached(row)
                    .map(|s| ShipmentFilterColumns::of(&s))
                    .ok();
                let f = f.unwrap_or(ShipmentFilterColumns {
                    pol_locode: None,
                    pod_locode: None,
                    shipping_line_scac: None,
                    pod_eta_at: None,
                    line_tracking_stopped: 0,
                });
                // Not `line_tracking_stopped`: migration 32 filled it from every body it found,
                // and `shipment_row` folds the user's stop into the record, which the column
                // must not hold (resuming would leave it set).
                crate::db::query(
                    "UPDATE shipments SET pol_locode = $1, pod_locode = $2, shipping_line_scac = $3, \
                     pod_eta_at = $4, filters_at = $5 WHERE id = $6",
                )
                .bind(f.pol_locode)
                .bind(f.pod_locode)
                .bind(f.shipping_line_scac)
                .bind(f.pod_eta_at.map(RecordTime))
                .bind(stamp)
                .bind(RecordId(id))
                .execute(self.counted(&mut tx))
                .await?;
            }
            tx.commit().await?;
        }
        Ok(())
    }
}
