//! The query root, merged ([`MergedObject`]) from one part per area: containers and shipments
//! (here), carrier inference ([`crate::inference`]), tracking requests ([`crate::tracking`]),
//! email submissions and document schemas ([`crate::email`]); and the pagination helpers the
//! parts share.

use async_graphql::connection::{Connection, CursorType, Edge, EmptyFields, OpaqueCursor};
use async_graphql::{Context, MergedObject, Object, SimpleObject, ID};
use teu_pipeline::store::Store;
use uuid::Uuid;

use crate::email::EmailQuery;
use crate::error;
use crate::inference::InferenceQuery;
use crate::tracking::TrackingRequestQuery;
use crate::types::{Container, Shipment};

/// Page size when `first` is not given.
pub(crate) const DEFAULT_PAGE_SIZE: i32 = 30;
/// Largest `first` accepted; more is a `BAD_USER_INPUT` error.
pub(crate) const MAX_PAGE_SIZE: i32 = 100;

/// Cursor of a list item: its offset in the list, opaque to clients (base64 of JSON).
pub(crate) type Cursor = OpaqueCursor<u64>;

/// Extra fields of every connection.
#[derive(SimpleObject)]
pub struct ConnectionFields {
    /// Number of items in the whole list, over all pages.
    pub(crate) total_count: i64,
}

/// A page of containers.
type ContainerConnection = Connection<Cursor, Container, ConnectionFields, EmptyFields>;
/// A page of shipments.
type ShipmentConnection = Connection<Cursor, Shipment, ConnectionFields, EmptyFields>;

/// The query root. Everything it returns belongs to the request's account (document schemas
/// are shared by all accounts).
#[derive(MergedObject, Default)]
pub struct Query(
    ContainerQuery,
    InferenceQuery,
    TrackingRequestQuery,
    EmailQuery,
);

/// The containers and shipments part of [`Query`].
#[derive(Default)]
pub struct ContainerQuery;

/// `(offset, limit)` of the page that `first` and `after` ask for.
pub(crate) fn page(first: Option<i32>, after: Option<String>) -> async_graphql::Result<(u64, u64)> {
    let limit = first.unwrap_or(DEFAULT_PAGE_SIZE);
    if !(0..=MAX_PAGE_SIZE).contains(&limit) {
        return Err(error::bad_user_input(format!(
            "`first` must be between 0 and {MAX_PAGE_SIZE}, got {limit}"
        )));
    }
    let offset = match after {
        None => 0,
        Some(cursor) => {
            let at = Cursor::decode_cursor(&cursor)
                .map_err(|_| error::bad_user_input("`after` is not a valid cursor"))?
                .0;
            // Offsets beyond what the store can count are not cursors this API handed out.
            if at >= i64::MAX as u64 {
                return Err(error::bad_user_input("`after` is not a valid cursor"));
            }
            at + 1
        }
    };
    Ok((offset, limit as u64))
}

/// Builds a connection from one page of items starting at `offset` and the list's total.
pub(crate) fn connection<T, N: async_graphql::OutputType>(
    offset: u64,
    items: Vec<T>,
    total: i64,
    node: impl Fn(T) -> N,
) -> Connection<Cursor, N, ConnectionFields, EmptyFields> {
    let end = offset + items.len() as u64;
    let total_u = u64::try_from(total).unwrap_or(0);
    let mut conn = Connection::with_additional_fields(
        offset > 0,
        end < total_u,
        ConnectionFields { total_count: total },
    );
    conn.edges.extend(
        items
            .into_iter()
            .enumerate()
            .map(|(i, item)| Edge::new(OpaqueCursor(offset + i as u64), node(item))),
    );
    conn
}

pub(crate) fn store<'a>(ctx: &Context<'a>) -> async_graphql::Result<&'a Store> {
    ctx.data_opt::<Store>().ok_or_else(error::internal_opaque)
}

pub(crate) fn parse_id(id: &ID) -> Option<Uuid> {
    Uuid::parse_str(id.as_str()).ok()
}

/// The account's containers and shipments. Everything returned belongs to the account of
/// the API key the request was made with.
#[Object]
impl ContainerQuery {
    /// The account's containers, most recently refreshed first (the `/v2` list order).
    /// `first` defaults to 30 and may be at most 100.
    async fn containers(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> async_graphql::Result<ContainerConnection> {
        let account = error::account(ctx)?;
        let (offset, limit) = page(first, after)?;
        let (items, total) = store(ctx)?
            .list_containers(account.id, offset as i64, limit as i64)
            .await
            .map_err(|e| error::internal(&e))?;
        Ok(connection(offset, items, total, Container))
    }

    /// The account's shipments, most recently refreshed first. `first` defaults to 30 and may
    /// be at most 100.
    async fn shipments(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> async_graphql::Result<ShipmentConnection> {
        let account = error::account(ctx)?;
        let (offset, limit) = page(first, after)?;
        let (items, total) = store(ctx)?
            .list_shipments(account.id, offset as i64, limit as i64)
            .await
            .map_err(|e| error::internal(&e))?;
        Ok(connection(offset, items, total, Shipment))
    }

    /// One of the account's containers; null when the id is unknown, malformed or another
    /// account's.
    async fn container(
        &self,
        ctx: &Context<'_>,
        id: ID,
    ) -> async_graphql::Result<Option<Container>> {
        let account = error::account(ctx)?;
        let Some(id) = parse_id(&id) else {
            return Ok(None);
        };
        let found = store(ctx)?
            .container(account.id, id)
            .await
            .map_err(|e| error::internal(&e))?;
        Ok(found.map(Container))
    }

    /// One of the account's shipments; null when the id is unknown, malformed or another
    /// account's.
    async fn shipment(&self, ctx: &Context<'_>, id: ID) -> async_graphql::Result<Option<Shipment>> {
        let account = error::account(ctx)?;
        let Some(id) = parse_id(&id) else {
            return Ok(None);
        };
        let found = store(ctx)?
            .shipment(account.id, id)
            .await
            .map_err(|e| error::internal(&e))?;
        Ok(found.map(Shipment))
    }
}
