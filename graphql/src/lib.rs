//! teu-graphql: the GraphQL API (`/graphql`) over the pipeline's store.
//!
//! The schema serves the account's data with the same field values as the `/v2` API (names in
//! camelCase). The query root is merged from one part per area:
//!
//! | fields | module |
//! |---|---|
//! | `containers`, `shipments` (Relay connections with `totalCount`), `container(id)`, `shipment(id)` | `query` |
//! | `inferNumber(number)`, `inferNumbers(numbers)` (carrier inference, rate-limited) | `inference` |
//! | `trackingRequests` (connection), `trackingRequest(id)`; mutation `createTrackingRequest(input)` | `tracking` |
//! | subscriptions `containerUpdated(containerId, shipmentId)`, `trackingRequestUpdated` (WebSocket) | `subscription` |
//! | `emailSubmissions` (connection), `emailSubmission(id)`, `documentSchema(id)`, `documentSchemas(documentType)` | `email` |
//! | `webhooks` (connection), `webhook(id)`, `webhookEvents`; mutations `createWebhook(input)`, `updateWebhook(id, input)`, `deleteWebhook(id)` | `webhooks` |
//! | `webhookNotifications(filter)` (connection), `webhookNotification(id)` | `notifications` |
//!
//! The object types over the domain model (`Container`, `Shipment`, their events and route,
//! ports, terminals, email submissions and documents) are in `types`, one module per resource:
//! each is a `SimpleObject` built from the model record by a `From` conversion that names
//! every model field, with the looked-up fields in a `ComplexObject`; enums that mirror a
//! domain enum derive their conversions (`#[graphql(remote = ...)]`). The pagination every
//! connection shares is in `paging`, the request data (store, data loader, ids) in `context`.
//! `Container` and `Shipment` objects are served through `types::InPlace`, which resolves
//! their fields one after another without a boxed future per field, and `POST /graphql`
//! answers are written by `response` (the bytes serde_json would write, with the headers of
//! async-graphql-axum); both were most of the GraphQL page's own cost (docs/NOTES.md,
//! forty-first session). A container's list of event ids is written once as JSON text where
//! no other field of the document shares its response key (`types::event`,
//! `response::raw_json`; fifty-fourth session).
//! Dependencies between these modules point one way: the query and mutation parts use
//! `types`, `paging` and `context`, never the reverse (`scripts/module_cycles.py graphql`).
//!
//! Nested fields (`Container.shipment`, `Container.events`, `Shipment.containers`,
//! `TrackingRequest.shipment`, `EmailSubmission.documents`,
//! `Document.lastDocumentRepresentation`, `WebhookNotification.webhook`) are batch-loaded through a
//! [`DataLoader`](async_graphql::dataloader::DataLoader), one store call per field and page,
//! never one per record.
//!
//! Every resolver reads the [`Account`] from the request data and scopes every store call by
//! its id. [`router`] puts the account there from the request extensions (set by the auth
//! middleware the binary installs in front of it); callers that execute the schema directly
//! add it themselves:
//!
//! ```no_run
//! # async fn demo(store: teu_store::Store, account: teu_pipeline::model::Account) {
//! let limiter = teu_api::limit::AccountLimiter::default();
//! let schema = teu_graphql::schema(store, limiter);
//! let request = async_graphql::Request::new("{ containers { totalCount } }").data(account);
//! let response = schema.execute(request).await;
//! # }
//! ```
//!
//! Errors carry `extensions.code`, from one enum ([`GqlError`]): `BAD_USER_INPUT` (with
//! `extensions.field` when one input field is at fault), `NOT_FOUND`, `FORBIDDEN`,
//! `RATE_LIMITED` (with `extensions.retryAfter` and a `Retry-After` header),
//! `UNAUTHENTICATED`, `TIMEOUT` or `INTERNAL` (store failure, logged, details withheld).
//!
//! Protection: depth and complexity limits, pages of at most 100, a query timeout, automatic
//! persisted queries and introspection that can be switched off ([`Options`]). The crate knows
//! nothing of polars and writes no SQL.

#![warn(missing_docs)]

mod auth;
mod context;
mod email;
mod error;
mod inference;
mod loaders;
mod mutations;
mod notifications;
mod paging;
mod persisted;
mod query;
mod response;
mod subscription;
mod tracking;
mod types;
mod webhooks;

use std::sync::Arc;
use std::time::Duration;

use async_graphql::extensions::apollo_persisted_queries::LruCacheStorage;
use async_graphql::futures_util::stream::{self, BoxStream, StreamExt};
use async_graphql::{Data, Executor, Request, Response};
use axum::http::StatusCode;
use axum::response::IntoResponse;

use async_graphql::http::GraphiQLSource;
use async_graphql::{Schema, SchemaBuilder, ValidationMode};
use async_graphql_axum::GraphQLRequest;
pub use auth::require_account;
use axum::extract::State;
use axum::response::Html;
use axum::routing::get;
use axum::{Extension, Router};
use teu_api::limit::AccountLimiter;
use teu_pipeline::model::Account;
use teu_store::Store;

pub use error::GqlError;
pub use inference::MAX_BATCH;
pub use mutations::Mutation;
pub use paging::MAX_PAGE_SIZE;
pub use query::{ListFilter, OrderBy, Query};
pub use subscription::{SubscriptionRoot, INIT_TIMEOUT};

/// The teu GraphQL schema (queries, mutations and live updates) and what every request gets
/// before it runs: its parsed query from the cache of parsed query texts (which also serves
/// automatic persisted queries), and a data loader of its own.
///
/// Run requests through it ([`TeuSchema::execute`], or as an [`Executor`] for subscription
/// streams), never through the inner async-graphql schema: without the loader every resolver
/// that reads the store answers `INTERNAL`. Cloning is cheap (shared handles).
#[derive(Clone)]
pub struct TeuSchema {
    schema: Schema<Query, Mutation, SubscriptionRoot>,
    /// The same schema (types, data, limits) validating with `ValidationMode::Fast`: it runs
    /// the documents [`Validated`] holds.
    fast: Schema<Query, Mutation, SubscriptionRoot>,
    /// Parsed queries by the SHA-256 of their text (also the persisted queries).
    parsed: LruCacheStorage,
    /// Documents that passed every validation rule without variables.
    validated: Arc<Validated>,
}

/// The documents (SHA-256 of the query text and the operation name) that the full validation
/// (async-graphql's `ValidationMode::Strict`: the GraphQL specification's rules, section 5)
/// passed for a request without variables. A request of the same document and operation
/// without variables meets the same rules against the same schema, so it passes them again:
/// it runs with `ValidationMode::Fast`, which checks fragment cycles, complexity and depth (the
/// limits still hold) and skips the rest. Validation was 12.5% of the instructions of a
/// GraphQL page a client polls, the rules skipped about a quarter of that (14.18 → 13.79 M
/// instructions a page; docs/NOTES.md, thirtieth session). With variables every
/// request is validated in full: whether a variable's value fits its argument is one of the
/// rules. Bounded: when it holds as many documents as the parsed-query cache, it starts over.
struct Validated {
    keys: std::sync::Mutex<std::collections::HashSet<String>>,
    capacity: usize,
}

impl Validated {
    /// The key of a request's document, or `None` when the request has variables or no
    /// document key.
    fn key(request: &Request, document: Option<String>) -> Option<String> {
        let document = document?;
        if !request.variables.is_empty() || !request.uploads.is_empty() {
            return None;
        }
        Some(match &request.operation_name {
            Some(name) => format!("{document}:{name}"),
            None => document,
        })
    }

    fn contains(&self, key: &str) -> bool {
        self.keys.lock().is_ok_and(|keys| keys.contains(key))
    }

    fn insert(&self, key: String) {
        if let Ok(mut keys) = self.keys.lock() {
            if keys.len() >= self.capacity {
                keys.clear();
            }
            keys.insert(key);
        }
    }
}

impl TeuSchema {
    /// Runs `request` (a query or a mutation) and answers its response; errors are in the
    /// response (`errors`), as async-graphql reports them.
    pub async fn execute(&self, request: impl Into<Request>) -> Response {
        let (request, key) = match self.prepare(request.into()).await {
            Ok(prepared) => prepared,
            Err(error) => return Response::from_errors(vec![error]),
        };
        match key {
            Some(key) if self.validated.contains(&key) => self.fast.execute(request).await,
            Some(key) => {
                let response = self.schema.execute(request).await;
                // No error at all: validation passed (an execution error would do too, but
                // the rule is kept simple).
                if response.errors.is_empty() {
                    self.validated.insert(key);
                }
                response
            }
            None => self.schema.execute(request).await,
        }
    }

    /// The schema data of type `D` (the store, the limiter, the query timeout).
    pub(crate) fn data<D: std::any::Any + Send + Sync>(&self) -> Option<&D> {
        self.schema.data::<D>()
    }

    /// `request` with its parsed query ([`persisted::parsed_query`]), its own
    /// data loader over the schema's store ([`loaders::request_loader`]) and memo of its
    /// document's response keys ([`types::KeysCounted`]), and its [`Validated`] key.
    async fn prepare(
        &self,
        request: Request,
    ) -> Result<(Request, Option<String>), async_graphql::ServerError> {
        let (request, document) = persisted::parsed_query(&self.parsed, request).await?;
        let key = Validated::key(&request, document);
        let request = request.data(types::KeysCounted::default());
        let request = match self.schema.data::<Store>() {
            Some(store) => {
                let calls = self
                    .schema
                    .data::<loaders::LoaderStats>()
                    .map(|s| s.0.clone())
                    .unwrap_or_default();
                request.data(loaders::request_loader(store.clone(), calls))
            }
            None => request,
        };
        Ok((request, key))
    }
}

impl Executor for TeuSchema {
    async fn execute(&self, request: Request) -> Response {
        TeuSchema::execute(self, request).await
    }

    fn execute_stream(
        &self,
        request: Request,
        session_data: Option<Arc<Data>>,
    ) -> BoxStream<'static, Response> {
        let this = self.clone();
        stream::once(async move {
            match this.prepare(request).await {
                Ok((request, _)) => this
                    .schema
                    .execute_stream_with_session_data(request, session_data.unwrap_or_default()),
                Err(error) => {
                    stream::once(async move { Response::from_errors(vec![error]) }).boxed()
                }
            }
        })
        .flatten()
        .boxed()
    }
}

/// Deepest query accepted (`containers.edges.node.shipment.containers.events.code` is 7).
pub const MAX_DEPTH: usize = 12;
/// Largest query complexity accepted: each selected field counts 1, and a connection field
/// (`containers`, `shipments`, `trackingRequests`, `emailSubmissions`) counts its selection
/// once per item of the page (`first`). A page of 100 containers with every field, their
/// shipment and events is about 10,500.
pub const MAX_COMPLEXITY: usize = 20_000;

/// The schema types and limits, without data.
fn builder() -> SchemaBuilder<Query, Mutation, SubscriptionRoot> {
    Schema::build(Query::default(), Mutation::default(), SubscriptionRoot)
        .limit_depth(MAX_DEPTH)
        .limit_complexity(MAX_COMPLEXITY)
}

/// How the server runs queries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Whether `__schema` / `__type` introspection is answered (GraphiQL needs it). On by
    /// default; `teu serve --no-introspection` turns it off.
    pub introspection: bool,
    /// Longest a query may run; then it is cancelled and answered 503 with `TIMEOUT`.
    pub query_timeout: Duration,
    /// How many parsed queries (by the SHA-256 of their text; automatic persisted queries are
    /// among them) the LRU cache keeps.
    pub persisted_queries: usize,
}

/// Default [`Options::query_timeout`].
pub const DEFAULT_QUERY_TIMEOUT: Duration = Duration::from_secs(10);

impl Default for Options {
    fn default() -> Self {
        Options {
            introspection: true,
            query_timeout: DEFAULT_QUERY_TIMEOUT,
            persisted_queries: 1024,
        }
    }
}

/// The query timeout, kept in the schema data for the HTTP handler.
#[derive(Debug, Clone, Copy)]
struct QueryTimeout(Duration);

/// Builds the schema over the store with the default [`Options`]. Limits: depth
/// [`MAX_DEPTH`], complexity [`MAX_COMPLEXITY`], pages of at most [`MAX_PAGE_SIZE`].
///
/// The schema holds the store, one data loader shared by all requests and the inference rate
/// limiter (`limiter`: pass the one the `/v2` state uses, so that both APIs share one allowance
/// per account); every request must carry its [`Account`] as request data
/// (`async_graphql::Request::data`), which [`router`] does.
pub fn schema(store: Store, limiter: AccountLimiter) -> TeuSchema {
    schema_with(store, limiter, &Options::default())
}

/// [`schema`] with the given options: introspection on or off, the query timeout (applied by
/// [`router`]) and automatic persisted queries (Apollo's `extensions.persistedQuery` with a
/// `sha256Hash`: an unknown hash without the query text is answered `PersistedQueryNotFound`,
/// the client then sends hash and text once, and the hash alone afterwards).
pub fn schema_with(store: Store, limiter: AccountLimiter, options: &Options) -> TeuSchema {
    let stats = loaders::LoaderStats::default();
    let build = |mode: ValidationMode| {
        let mut b = builder()
            .validation_mode(mode)
            .data(stats.clone())
            .data(store.clone())
            .data(limiter.clone())
            .data(QueryTimeout(options.query_timeout));
        if !options.introspection {
            b = b.disable_introspection();
        }
        b.finish()
    };
    let capacity = options.persisted_queries.max(1);
    TeuSchema {
        schema: build(ValidationMode::Strict),
        fast: build(ValidationMode::Fast),
        parsed: LruCacheStorage::new(capacity),
        validated: Arc::new(Validated {
            keys: Default::default(),
            capacity,
        }),
    }
}

/// Routes for `/graphql`: GET serves GraphiQL (pointed at `/graphql`), POST executes a query,
/// a WebSocket upgrade on `GET /graphql` or `GET /graphql/ws` opens a subscription connection
/// (authenticated by its `connection_init` payload, see the `subscription` module).
///
/// The POST handler takes the authenticated [`Account`] from the request extensions (put there
/// by the auth middleware the binary layers in front of POST) and adds it to the GraphQL
/// request data. A query running longer than the schema's [`Options::query_timeout`] is
/// cancelled and answered 503 with one error of code `TIMEOUT`. Without it the query still runs, but every resolver that reads data answers
/// an `UNAUTHENTICATED` error.
pub fn router(schema: TeuSchema) -> Router {
    Router::new()
        .route("/graphql", get(subscription::get).post(execute))
        .route("/graphql/ws", get(subscription::websocket))
        .with_state(schema)
}

/// The SDL of the schema (what `graphql/schema.graphql` holds).
pub fn sdl() -> String {
    builder().finish().sdl()
}

async fn graphiql() -> Html<String> {
    Html(
        GraphiQLSource::build()
            .endpoint("/graphql")
            .subscription_endpoint("/graphql")
            .finish(),
    )
}

async fn execute(
    State(schema): State<TeuSchema>,
    account: Option<Extension<Account>>,
    request: GraphQLRequest,
) -> axum::response::Response {
    let mut request = request.into_inner();
    if let Some(Extension(account)) = account {
        request = request.data(account);
    }
    let limit = schema
        .data::<QueryTimeout>()
        .map_or(DEFAULT_QUERY_TIMEOUT, |t| t.0);
    match tokio::time::timeout(limit, schema.execute(request)).await {
        Ok(response) => response::http(response),
        Err(_) => {
            let error = GqlError::Timeout(limit.as_millis())
                .into_graphql()
                .into_server_error(async_graphql::Pos::default());
            let response = async_graphql::Response::from_errors(vec![error]);
            (StatusCode::SERVICE_UNAVAILABLE, response::http(response)).into_response()
        }
    }
}

#[cfg(test)]
mod tests;
