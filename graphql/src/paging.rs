//! Relay connections shared by every list of the schema (`containers`, `shipments`,
//! `trackingRequests`, `emailSubmissions`, `webhooks`, `webhookNotifications`): the page a
//! request asks for (`first`, `after`), the cursors, the `totalCount` field and the
//! complexity a connection field counts.

use async_graphql::connection::{Connection, CursorType, Edge, EmptyFields, OpaqueCursor};
use async_graphql::SimpleObject;

use crate::error;

/// Page size when `first` is not given.
pub(crate) const DEFAULT_PAGE_SIZE: i32 = 30;
/// Largest `first` accepted; more is a `BAD_USER_INPUT` error.
pub const MAX_PAGE_SIZE: i32 = 100;

/// Cursor of a list item: its offset in the list, opaque to clients (base64 of JSON).
type Cursor = OpaqueCursor<u64>;

/// A page of `N`, with the list's `totalCount`.
pub(crate) type Page<N> = Connection<Cursor, N, ConnectionFields, EmptyFields>;

/// Extra fields of every connection.
#[derive(SimpleObject)]
pub struct ConnectionFields {
    /// Number of items in the whole list, over all pages.
    pub(crate) total_count: i64,
}

/// Complexity of a connection field: its selection counted once per item of the page it asks
/// for (`first`, 30 when not given; out-of-range values are refused by [`page`] anyway).
pub(crate) fn page_complexity(first: Option<i32>, child_complexity: usize) -> usize {
    let items = first.unwrap_or(DEFAULT_PAGE_SIZE).clamp(1, MAX_PAGE_SIZE) as usize;
    items.saturating_mul(child_complexity).saturating_add(1)
}

/// `(offset, limit)` of the page that `first` and `after` ask for.
///
/// Errors: `BAD_USER_INPUT` when `first` is outside 0..=[`MAX_PAGE_SIZE`] or `after` is not a
/// cursor this API handed out.
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

/// Builds a connection from one page of items starting at `offset` and the list's total,
/// turning each item into its node with `node`.
pub(crate) fn connection<T, N: async_graphql::OutputType>(
    offset: u64,
    items: Vec<T>,
    total: i64,
    node: impl Fn(T) -> N,
) -> Page<N> {
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
