//! Live updates: GraphQL subscriptions over WebSocket (`graphql-transport-ws`, and the older
//! `graphql-ws` / subscriptions-transport-ws protocol), on `GET /graphql` with an upgrade and
//! on `GET /graphql/ws`.
//!
//! Browsers cannot set headers on a WebSocket, so the API key travels in the `connection_init`
//! payload: `{"Authorization": "Token <API_KEY>"}` (the key name in any case). An
//! `Authorization` header on the upgrade request is accepted as well. A connection without a
//! valid key is refused: the server closes it (code 1002 and the reason, as async-graphql does
//! for a failed `connection_init`); a client that sends no `connection_init` within
//! [`INIT_TIMEOUT`] is disconnected.
//!
//! The fields stream what the ingest path publishes through
//! [`teu_store::notify`] (PostgreSQL LISTEN/NOTIFY, or the polled `updates` table on
//! SQLite), scoped to the connection's account:
//!
//! - `containerUpdated(containerId, shipmentId)`: each container whose stored content changed
//!   (or whose shipment's did), optionally only one container or the containers of one
//!   shipment;
//! - `trackingRequestUpdated`: each tracking request that went from `PENDING` to `CREATED`.

use std::sync::Arc;
use std::time::Duration;

use async_graphql::futures_util::stream::{self, Stream, StreamExt};
use async_graphql::{Context, Data, Subscription, ID};
use async_graphql_axum::{GraphQLProtocol, GraphQLWebSocket};
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use teu_pipeline::model::Account;
use teu_store::notify::{Change, Update};
use teu_store::Store;
use tokio::sync::broadcast::{self, error::RecvError};
use uuid::Uuid;

use crate::context::{parse_id, store};
use crate::error;
use crate::tracking::TrackingRequest;
use crate::types::Container;
use crate::TeuSchema;

/// How long a new WebSocket may stay open without a successful `connection_init`.
pub const INIT_TIMEOUT: Duration = Duration::from_secs(10);

/// The subscription root: live updates of the connection's account.
#[derive(Default)]
pub struct SubscriptionRoot;

#[Subscription(name = "Subscription")]
impl SubscriptionRoot {
    /// Each of the account's containers whose data changed (a feed moved its status, a
    /// terminal check added a hold, its shipment's ETA moved, ...), as soon as the ingest that
    /// changed it commits. `containerId` keeps one container, `shipmentId` the containers of one
    /// shipment. A re-ingest that changes nothing sends nothing.
    async fn container_updated(
        &self,
        ctx: &Context<'_>,
        container_id: Option<ID>,
        shipment_id: Option<ID>,
    ) -> async_graphql::Result<impl Stream<Item = async_graphql::Result<Container>>> {
        let account = error::account(ctx)?.id;
        let store = store(ctx)?.clone();
        let container_id = filter_id(container_id, "containerId")?;
        let shipment_id = filter_id(shipment_id, "shipmentId")?;
        let ids = changes(store.notifier().subscribe(), account, move |change| {
            let Change::Containers { containers } = change else {
                return Vec::new();
            };
            containers
                .iter()
                .filter(|c| container_id.is_none_or(|id| id == c.id))
                .filter(|c| shipment_id.is_none_or(|id| id == c.shipment_id))
                .map(|c| c.id)
                .collect()
        });
        Ok(ids
            .then(move |ids| {
                let store = store.clone();
                async move {
                    let mut found = store.containers_by_ids(account, &ids).await?;
                    found.sort_by(|a, b| a.number.cmp(&b.number));
                    Ok(found)
                }
            })
            .flat_map(|loaded| stream::iter(each(loaded, Container::from))))
    }

    /// Each of the account's tracking requests whose status changed (`PENDING` → `CREATED`,
    /// when feed data for its number arrives), with its shipment.
    async fn tracking_request_updated(
        &self,
        ctx: &Context<'_>,
    ) -> async_graphql::Result<impl Stream<Item = async_graphql::Result<TrackingRequest>>> {
        let account = error::account(ctx)?.id;
        let store = store(ctx)?.clone();
        let ids = changes(
            store.notifier().subscribe(),
            account,
            |change| match change {
                Change::TrackingRequests { ids } => ids.clone(),
                Change::Containers { .. } => Vec::new(),
            },
        );
        Ok(ids
            .then(move |ids| {
                let store = store.clone();
                async move {
                    let mut found = Vec::with_capacity(ids.len());
                    for id in ids {
                        found.extend(store.tracking_request(account, id).await?);
                    }
                    Ok(found)
                }
            })
            .flat_map(|loaded| stream::iter(each(loaded, TrackingRequest::from))))
    }
}

/// A filter argument as a UUID; a malformed one is `BAD_USER_INPUT` naming the argument.
fn filter_id(id: Option<ID>, field: &'static str) -> async_graphql::Result<Option<Uuid>> {
    id.map(|id| {
        parse_id(&id).ok_or_else(|| error::bad_field(field, format!("`{field}` is not an id")))
    })
    .transpose()
}

/// The loaded records as stream items, or the store failure as one error item.
fn each<T, N>(
    loaded: Result<Vec<T>, teu_store::StoreError>,
    node: impl Fn(T) -> N,
) -> Vec<async_graphql::Result<N>> {
    match loaded {
        Ok(items) => items.into_iter().map(|i| Ok(node(i))).collect(),
        Err(e) => vec![Err(error::internal(&e))],
    }
}

/// The non-empty id lists `select` picks from the updates of `account`. A subscriber that
/// falls more than the channel's capacity behind skips the oldest updates (logged).
fn changes(
    rx: broadcast::Receiver<Arc<Update>>,
    account: Uuid,
    select: impl Fn(&Change) -> Vec<Uuid> + Send + 'static,
) -> impl Stream<Item = Vec<Uuid>> + Send + 'static {
    stream::unfold((rx, select), move |(mut rx, select)| async move {
        loop {
            match rx.recv().await {
                Ok(update) if update.account == account => {
                    let ids = select(&update.change);
                    if !ids.is_empty() {
                        return Some((ids, (rx, select)));
                    }
                }
                Ok(_) => {}
                Err(RecvError::Lagged(n)) => {
                    tracing::warn!(
                        skipped = n,
                        "graphql subscription fell behind; updates skipped"
                    );
                }
                Err(RecvError::Closed) => return None,
            }
        }
    })
}

/// `GET /graphql`: a WebSocket upgrade starts a subscription connection, anything else gets
/// GraphiQL.
pub(crate) async fn get(State(schema): State<TeuSchema>, req: Request) -> Response {
    let upgrade = req
        .headers()
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    if upgrade {
        websocket(State(schema), req).await
    } else {
        crate::graphiql().await.into_response()
    }
}

/// `GET /graphql/ws`: a subscription connection (module documentation).
pub(crate) async fn websocket(State(schema): State<TeuSchema>, req: Request) -> Response {
    let (mut parts, _body) = req.into_parts();
    let protocol = match GraphQLProtocol::from_request_parts(&mut parts, &()).await {
        Ok(p) => p,
        Err(status) => {
            return (status, "unknown or missing Sec-WebSocket-Protocol").into_response()
        }
    };
    let upgrade = match WebSocketUpgrade::from_request_parts(&mut parts, &()).await {
        Ok(u) => u,
        Err(e) => return e.into_response(),
    };
    let Some(store) = schema.data::<Store>().cloned() else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let header_key = key_from_headers(&parts.headers);
    upgrade
        .protocols(async_graphql::http::ALL_WEBSOCKET_PROTOCOLS)
        .on_upgrade(move |socket| async move {
            let (authed_tx, authed_rx) = tokio::sync::oneshot::channel::<()>();
            let serve = GraphQLWebSocket::new(socket, schema, protocol)
                .on_connection_init(move |payload| {
                    let key = key_from_payload(&payload).or(header_key);
                    async move {
                        let account = authenticate(&store, key).await?;
                        let _ = authed_tx.send(());
                        let mut data = Data::default();
                        data.insert(account);
                        Ok(data)
                    }
                })
                .serve();
            tokio::pin!(serve);
            tokio::select! {
                () = &mut serve => return,
                ok = tokio::time::timeout(INIT_TIMEOUT, authed_rx) => {
                    if !matches!(ok, Ok(Ok(()))) {
                        // No connection_init in time: drop the connection.
                        return;
                    }
                }
            }
            serve.await;
        })
}

/// The account of `key`, or the error that closes the connection.
async fn authenticate(store: &Store, key: Option<String>) -> async_graphql::Result<Account> {
    let Some(key) = key else {
        return Err(async_graphql::Error::new(
            "authentication required: send {\"Authorization\": \"Token <API_KEY>\"} as the connection_init payload",
        ));
    };
    match store.authenticate(&key).await {
        Ok(Some(account)) => Ok(account),
        Ok(None) => Err(async_graphql::Error::new("the API key is not valid")),
        Err(e) => {
            tracing::error!(error = %e, "graphql: authenticating a WebSocket failed");
            Err(async_graphql::Error::new("internal error"))
        }
    }
}

/// The key of `Token <key>` (the rules of `/v2`: `teu_api::auth::api_key`).
fn token(value: &str) -> Option<String> {
    teu_api::auth::api_key(Some(value.as_bytes())).ok()
}

/// The key of an `Authorization` entry of the `connection_init` payload (any case).
fn key_from_payload(payload: &serde_json::Value) -> Option<String> {
    payload
        .as_object()?
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
        .and_then(|(_, v)| v.as_str())
        .and_then(token)
}

fn key_from_headers(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_from_the_init_payload() {
        let k = |v: serde_json::Value| key_from_payload(&v);
        assert_eq!(
            k(serde_json::json!({"Authorization": "Token teu_x"})),
            Some("teu_x".into())
        );
        assert_eq!(
            k(serde_json::json!({"authorization": "token  teu_x "})),
            Some("teu_x".into())
        );
        assert_eq!(
            k(serde_json::json!({"Authorization": "Bearer teu_x"})),
            None
        );
        assert_eq!(k(serde_json::json!({"Authorization": "Token "})), None);
        assert_eq!(k(serde_json::json!({})), None);
        assert_eq!(k(serde_json::json!(null)), None);
        assert_eq!(k(serde_json::json!({"Authorization": 3})), None);
    }
}
