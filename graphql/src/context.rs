//! What every resolver reads from the request: the store and the request's data loader (both
//! put in the schema data by [`crate::schema_with`]), and ids given as arguments.
//!
//! The account comes from [`crate::error::account`], which answers `UNAUTHENTICATED` when the
//! request carries none.

use async_graphql::{Context, ID};
use teu_store::Store;
use uuid::Uuid;

use crate::error;
use crate::loaders::StoreDataLoader;

/// The schema's store.
///
/// Errors: `INTERNAL` (details withheld) when the schema was built without one, which
/// [`crate::schema`] never does.
pub(crate) fn store<'a>(ctx: &Context<'a>) -> async_graphql::Result<&'a Store> {
    ctx.data_opt::<Store>().ok_or_else(error::internal_opaque)
}

/// The request's data loader (one per request, with its own cache; see [`crate::loaders`]).
///
/// Errors: `INTERNAL` (details withheld) when the request has none, which happens only when
/// the schema was built without the loader extension.
pub(crate) fn loader<'a>(ctx: &Context<'a>) -> async_graphql::Result<&'a StoreDataLoader> {
    ctx.data_opt::<StoreDataLoader>()
        .ok_or_else(error::internal_opaque)
}

/// The UUID an `ID` argument holds; `None` when it is not a UUID (resolvers then answer null
/// or `NOT_FOUND`, as for an unknown id).
pub(crate) fn parse_id(id: &ID) -> Option<Uuid> {
    Uuid::parse_str(id.as_str()).ok()
}
