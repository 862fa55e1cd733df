//! The query root, merged ([`MergedObject`]) from one part per area: containers and shipments
//! (here), carrier inference ([`crate::inference`]), tracking requests ([`crate::tracking`]),
//! email submissions and document schemas ([`crate::email`]), webhooks
//! ([`crate::webhooks`]) and their notifications ([`crate::notifications`]). The parts share
//! the pagination of [`crate::paging`] and the request data of [`crate::context`].

use std::borrow::Cow;

use async_graphql::{Context, Enum, InputObject, MergedObject, Object, ID};
use teu_pipeline::listing::{self, ListOrder};
use teu_pipeline::model;
use teu_store::PageReads;

use crate::context::{loader, parse_id, store};
use crate::email::EmailQuery;
use crate::error;
use crate::inference::InferenceQuery;
use crate::loaders::prefetch;
use crate::notifications::NotificationQuery;
use crate::paging::{connection, page, Page};
use crate::tracking::TrackingRequestQuery;
use crate::types::{Container, ContainerStatus, DateTime, InPlace, Port, Shipment, Terminal};
use crate::webhooks::WebhookQuery;

/// A page of containers.
type ContainerConnection = Page<InPlace<Container>>;
/// A page of shipments.
type ShipmentConnection = Page<InPlace<Shipment>>;

/// The query root. Everything it returns belongs to the request's account (document schemas
/// are shared by all accounts).
#[derive(MergedObject, Default)]
pub struct Query(
    ContainerQuery,
    InferenceQuery,
    TrackingRequestQuery,
    EmailQuery,
    WebhookQuery,
    NotificationQuery,
);

/// What a `containers` or `shipments` list is narrowed to. Fields left out match everything;
/// the fields given must all match. On `shipments`, the container fields (`status`,
/// `containerNumber`, `hasHolds`, `lfdBefore`, `lfdAfter`) match a shipment when one of its
/// containers matches all of them; on `containers`, the shipment fields
/// (`billOfLadingNumber`, `polLocode`, `podLocode`, `shippingLineScac`, `tags`) are those of
/// the container's shipment.
#[derive(InputObject, Default, Debug, Clone)]
pub struct ListFilter {
    /// Container status is one of these.
    pub status: Option<Vec<ContainerStatus>>,
    /// Container number (spaces and dashes ignored, any case).
    pub container_number: Option<String>,
    /// Bill of lading number, exactly.
    pub bill_of_lading_number: Option<String>,
    /// UN/LOCODE of the port of lading, any case (ISO 3166 country and 3 of A–Z, 2–9).
    pub pol_locode: Option<String>,
    /// UN/LOCODE of the port of discharge, any case.
    pub pod_locode: Option<String>,
    /// Shipping line SCAC, any case (2 to 4 letters or digits, at least one letter).
    pub shipping_line_scac: Option<String>,
    /// Has (true) or has no (false) holds at the POD terminal.
    pub has_holds: Option<bool>,
    /// Last free day (`pickupLfd`) before this instant; containers without one never match.
    pub lfd_before: Option<DateTime>,
    /// Last free day after this instant.
    pub lfd_after: Option<DateTime>,
    /// Changed after this instant (new feed data, tags, tracking stopped or resumed).
    pub updated_after: Option<DateTime>,
    /// The shipment carries every one of these tags.
    pub tags: Option<Vec<String>>,
}

/// Order of the `containers` and `shipments` lists; ties are broken by id, so pages never
/// overlap.
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[graphql(remote = "ListOrder")]
pub enum OrderBy {
    /// Most recently changed first (the `/v2` order). The default.
    #[default]
    UpdatedAtDesc,
    /// Earliest estimated arrival at the port of discharge first; unknown last.
    PodEtaAsc,
    /// Earliest last free day first (shipments: the earliest of their containers); unknown
    /// last.
    LfdAsc,
    /// By container number (containers) or bill of lading number (shipments).
    NumberAsc,
}

/// A trimmed, non-blank text of the filter, or a `BAD_USER_INPUT` naming `field`.
fn text_arg(
    value: Option<String>,
    field: &'static str,
    check: impl Fn(&str) -> bool,
    rule: &str,
) -> async_graphql::Result<Option<String>> {
    let Some(v) = value else { return Ok(None) };
    let v = v.trim().to_string();
    if v.is_empty() || !check(&v) {
        return Err(error::bad_field(
            field,
            format!("filter.{field} {rule}, got {v:?}"),
        ));
    }
    Ok(Some(v))
}

/// The filter's code, parsed by its code type, or a `BAD_USER_INPUT` naming `field` and the
/// rule broken.
fn code_arg<T>(
    value: Option<String>,
    field: &'static str,
    parse: fn(&str) -> Result<T, model::CodeError>,
) -> async_graphql::Result<Option<T>> {
    value
        .map(|v| {
            parse(v.trim()).map_err(|e| error::bad_field(field, format!("filter.{field}: {e}")))
        })
        .transpose()
}

impl ListFilter {
    /// The store's filter; a malformed value is a `BAD_USER_INPUT` naming its field.
    pub(crate) fn into_store(self) -> async_graphql::Result<listing::ListFilter> {
        let container = |s: &str| {
            let n = s.chars().filter(char::is_ascii_alphanumeric).count();
            (4..=15).contains(&n)
        };
        let tags = match self.tags {
            None => Vec::new(),
            Some(tags) => listing::parse_tags(&tags)
                .map_err(|e| error::bad_field("tags", format!("filter.tags: {e}")))?,
        };
        Ok(listing::ListFilter {
            statuses: self
                .status
                .unwrap_or_default()
                .into_iter()
                .map(model::ContainerStatus::from)
                .collect(),
            container_number: text_arg(
                self.container_number,
                "containerNumber",
                container,
                "must be a container number (4 to 15 letters and digits)",
            )?,
            bill_of_lading_number: text_arg(
                self.bill_of_lading_number,
                "billOfLadingNumber",
                |s| s.len() <= 40,
                "must be a bill of lading number (at most 40 characters)",
            )?,
            pol_locode: code_arg(self.pol_locode, "polLocode", model::UnLocode::parse)?,
            pod_locode: code_arg(self.pod_locode, "podLocode", model::UnLocode::parse)?,
            shipping_line_scac: code_arg(
                self.shipping_line_scac,
                "shippingLineScac",
                model::Scac::parse,
            )?,
            has_holds: self.has_holds,
            lfd_before: self.lfd_before.map(|d| d.0),
            lfd_after: self.lfd_after.map(|d| d.0),
            updated_after: self.updated_after.map(|d| d.0),
            tags,
            tracking_stopped: None,
        })
    }
}

/// The containers and shipments part of [`Query`].
#[derive(Default)]
pub struct ContainerQuery;

/// The account's containers and shipments. Everything returned belongs to the account of
/// the API key the request was made with.
#[Object]
impl ContainerQuery {
    /// The account's containers matching `filter`, in `orderBy` order (default: most
    /// recently changed first, the `/v2` list order). `first` defaults to 30 and may be at
    /// most 100; `totalCount` counts every match.
    #[graphql(complexity = "crate::paging::page_complexity(first, child_complexity)")]
    async fn containers(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
        filter: Option<ListFilter>,
        #[graphql(default)] order_by: OrderBy,
    ) -> async_graphql::Result<ContainerConnection> {
        let account = error::account(ctx)?;
        let (offset, limit) = page(first, after)?;
        let filter = filter.unwrap_or_default().into_store()?;
        let looks = prefetch::nodes(ctx);
        // The page's rows bring the event links when `events { id }` alone needs them, and
        // the shipments whenever the selection needs them (`shipment`, or named events,
        // which are named by the shipment's ends).
        let reads = PageReads {
            links: prefetch::links_only(&looks),
            shipments: prefetch::shipments_needed(&looks),
        };
        if reads.shipments {
            loader(ctx)?
                .loader()
                .calls
                .container_pages_with_shipments
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        let page = store(ctx)?
            .list_containers_reading(
                account.id,
                &filter,
                order_by.into(),
                (offset as i64, limit as i64),
                reads,
            )
            .await
            .map_err(|e| error::internal(&e))?;
        prefetch::containers(
            loader(ctx)?,
            store(ctx)?,
            account.id,
            looks,
            &page.containers,
            page.links,
            page.shipments,
        )
        .await?;
        Ok(connection(offset, page.containers, page.total, |c| {
            InPlace(Container::from(c))
        }))
    }

    /// The account's shipments matching `filter`, in `orderBy` order (default: most recently
    /// changed first). `first` defaults to 30 and may be at most 100.
    #[graphql(complexity = "crate::paging::page_complexity(first, child_complexity)")]
    async fn shipments(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
        filter: Option<ListFilter>,
        #[graphql(default)] order_by: OrderBy,
    ) -> async_graphql::Result<ShipmentConnection> {
        let account = error::account(ctx)?;
        let (offset, limit) = page(first, after)?;
        let filter = filter.unwrap_or_default().into_store()?;
        let (items, total) = store(ctx)?
            .list_shipments_filtered(
                account.id,
                &filter,
                order_by.into(),
                offset as i64,
                limit as i64,
            )
            .await
            .map_err(|e| error::internal(&e))?;
        let looks = prefetch::nodes(ctx);
        prefetch::shipments(
            loader(ctx)?,
            store(ctx)?,
            account.id,
            looks,
            Cow::Borrowed(&items),
            None,
        )
        .await?;
        Ok(connection(offset, items, total, |s| {
            InPlace(Shipment::from(s))
        }))
    }

    /// One of the account's containers; null when the id is unknown, malformed or another
    /// account's.
    async fn container(
        &self,
        ctx: &Context<'_>,
        id: ID,
    ) -> async_graphql::Result<Option<InPlace<Container>>> {
        let account = error::account(ctx)?;
        let Some(id) = parse_id(&id) else {
            return Ok(None);
        };
        let found = store(ctx)?
            .container(account.id, id)
            .await
            .map_err(|e| error::internal(&e))?;
        Ok(found.map(|c| InPlace(Container::from(c))))
    }

    /// One of the account's shipments; null when the id is unknown, malformed or another
    /// account's.
    async fn shipment(
        &self,
        ctx: &Context<'_>,
        id: ID,
    ) -> async_graphql::Result<Option<InPlace<Shipment>>> {
        let account = error::account(ctx)?;
        let Some(id) = parse_id(&id) else {
            return Ok(None);
        };
        let found = store(ctx)?
            .shipment(account.id, id)
            .await
            .map_err(|e| error::internal(&e))?;
        Ok(found.map(|s| InPlace(Shipment::from(s))))
    }

    /// A port by UN/LOCODE (reference data); null when unknown.
    async fn port(&self, locode: String) -> Option<Port> {
        Port::of(Some(locode.trim().to_ascii_uppercase().as_str()))
    }

    /// A terminal by id (reference data); null when unknown.
    async fn terminal(&self, id: ID) -> Option<Terminal> {
        Terminal::of(parse_id(&id))
    }
}
