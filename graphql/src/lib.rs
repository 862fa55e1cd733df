//! teu-graphql: the GraphQL API (`/graphql`) over the pipeline's store.
//!
//! The schema serves the account's containers, shipments and their events with the same field
//! values as the `/v2` API (names in camelCase): `Query.containers` / `Query.shipments` are
//! Relay connections with `totalCount`, `Query.container(id)` / `Query.shipment(id)` look one
//! record up. Nested fields (`Container.shipment`, `Container.events`, `Shipment.containers`)
//! are batch-loaded through a [`DataLoader`](async_graphql::dataloader::DataLoader), one store
//! call per field and page, never one per record.
//!
//! Every resolver reads the [`Account`] from the request data and scopes every store call by
//! its id. [`router`] puts the account there from the request extensions (set by the auth
//! middleware the binary installs in front of it); callers that execute the schema directly
//! add it themselves:
//!
//! ```no_run
//! # async fn demo(store: teu_pipeline::store::Store, account: teu_pipeline::model::Account) {
//! let schema = teu_graphql::schema(store);
//! let request = async_graphql::Request::new("{ containers { totalCount } }").data(account);
//! let response = schema.execute(request).await;
//! # }
//! ```
//!
//! Errors carry `extensions.code`: `BAD_USER_INPUT` (bad argument, e.g. `first` over 100),
//! `UNAUTHENTICATED` (no account in the request) or `INTERNAL` (store failure, logged, details
//! withheld). The crate knows nothing of polars and writes no SQL.

#![warn(missing_docs)]

mod error;
mod loaders;
mod query;
mod route;
mod types;

use async_graphql::http::GraphiQLSource;
use async_graphql::{EmptyMutation, EmptySubscription, Schema, SchemaBuilder};
use async_graphql_axum::{GraphQLRequest, GraphQLResponse};
use axum::extract::State;
use axum::response::Html;
use axum::routing::get;
use axum::{Extension, Router};
use teu_pipeline::model::Account;
use teu_pipeline::store::Store;

pub use query::Query;

/// The teu GraphQL schema: queries only.
pub type TeuSchema = Schema<Query, EmptyMutation, EmptySubscription>;

/// Deepest query accepted (`containers.edges.node.shipment.containers.events.code` is 7).
pub const MAX_DEPTH: usize = 12;
/// Largest query complexity accepted (each selected field counts 1).
pub const MAX_COMPLEXITY: usize = 5000;

/// The schema types and limits, without data.
fn builder() -> SchemaBuilder<Query, EmptyMutation, EmptySubscription> {
    Schema::build(Query, EmptyMutation, EmptySubscription)
        .limit_depth(MAX_DEPTH)
        .limit_complexity(MAX_COMPLEXITY)
}

/// Builds the schema over the store. Limits: depth [`MAX_DEPTH`], complexity
/// [`MAX_COMPLEXITY`]; introspection is on (GraphiQL needs it).
///
/// The schema holds the store and one data loader shared by all requests; every request must
/// carry its [`Account`] as request data (`async_graphql::Request::data`), which [`router`]
/// does.
pub fn schema(store: Store) -> TeuSchema {
    builder()
        .data(loaders::data_loader(store.clone()))
        .data(store)
        .finish()
}

/// Routes for `/graphql`: GET serves GraphiQL (pointed at `/graphql`), POST executes a query.
///
/// The POST handler takes the authenticated [`Account`] from the request extensions (put there
/// by the auth middleware the binary layers in front of POST) and adds it to the GraphQL
/// request data. Without it the query still runs, but every resolver that reads data answers
/// an `UNAUTHENTICATED` error.
pub fn router(schema: TeuSchema) -> Router {
    Router::new()
        .route("/graphql", get(graphiql).post(execute))
        .with_state(schema)
}

/// The SDL of the schema (what `graphql/schema.graphql` holds).
pub fn sdl() -> String {
    builder().finish().sdl()
}

async fn graphiql() -> Html<String> {
    Html(GraphiQLSource::build().endpoint("/graphql").finish())
}

async fn execute(
    State(schema): State<TeuSchema>,
    account: Option<Extension<Account>>,
    request: GraphQLRequest,
) -> GraphQLResponse {
    let mut request = request.into_inner();
    if let Some(Extension(account)) = account {
        request = request.data(account);
    }
    schema.execute(request).await.into()
}

#[cfg(test)]
mod tests;
