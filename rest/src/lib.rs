//! teu-rest: the `/v2` JSON:API interface of `docs/interface.md`, as an axum router over the
//! pipeline's [`Store`].
//!
//! The binary mounts it with `Router::new().nest("/v2", teu_rest::router(state))`. Every request
//! under `/v2` but `GET /v2/openapi.json` first passes [`require_account`]; handlers then read
//! the store only through its account-scoped query functions, so one account never sees
//! another's data.
//!
//! | route | answer |
//! |---|---|
//! | `GET /containers` | page of containers; `page[number]`, `page[size]`, `include` (`shipment`, `pod_terminal`, `transport_events`, `raw_events`), filters ([`list_filters`]) |
//! | `GET /containers/{id}` | one container; the same `include` |
//! | `GET /containers/{id}/map_geojson` | the container's route as a GeoJSON FeatureCollection ([`map`]); 403 without Routing Data |
//! | `GET /containers/{id}/transport_events`, `GET /containers/{id}/raw_events` | the container's carrier events as Terminal49 names them ([`events`]) |
//! | `GET /shipments` | page of shipments; `page[number]`, `page[size]`, `include=containers`, filters ([`list_filters`]: also `number`, `filter[tracking_stopped]`) |
//! | `GET /shipments/{id}` | one shipment; `include=containers` |
//! | `PATCH /shipments/{id}`, `PATCH /shipments/{id}/stop_tracking`, `PATCH /shipments/{id}/resume_tracking` | the user's `ref_numbers` and `tags`; stop and resume tracking ([`shipment_edits`]) |
//! | `GET /email_submissions` | page of email submissions; `include` (default `documents,documents.last_document_representation`) |
//! | `GET /email_submissions/{id}` | one email submission |
//! | `GET /document_schemas/{id}` | one document schema by `<document_type>@<version>` |
//! | `POST /tracking_requests/infer_number` | carrier inference for one number ([`infer`]); 200 requests per minute per account |
//! | `POST /tracking_requests` | stores a tracking request (201; 422 with `source.pointer`) |
//! | `GET /tracking_requests` | page of the account's tracking requests; `page[number]`, `page[size]`, `filter[…]` |
//! | `GET /tracking_requests/{id}`, `PATCH /tracking_requests/{id}` | one tracking request; its `ref_numbers` and `shipment_tags` |
//! | `GET /shipping_lines`, `GET /shipping_lines/{id}`, `GET /ports/{id}`, `GET /terminals/{id}` | reference data, the same for every account ([`reference`]); `{id}` is the id, the SCAC, the UN/LOCODE or the FIRMS code |
//! | `GET /vessels/{id}` | a vessel by id or IMO number with its latest AIS position ([`vessels`]); 403 without Routing Data |
//! | `POST /webhooks`, `GET /webhooks`, `GET/PATCH/DELETE /webhooks/{id}` | the account's webhooks ([`webhooks`]) |
//! | `GET /webhooks/events`, `POST /webhooks/trigger` | the event catalog; one test delivery |
//! | `GET /webhook_notifications`, `GET /webhook_notifications/{id}`, `GET /webhook_notifications/examples` | notifications and their delivery status; example payloads |
//! | `GET /openapi.json` | the OpenAPI 3.1 document of these routes ([`openapi`]); the one route that needs no API key |
//! | anything else under `/v2` | 404 JSON:API error (405 for a known path with another method) |
//!
//! Bodies are `application/json` (interface.md: introduction). Modules: [`query`] (query-string rules),
//! [`pagination`] (page arithmetic and links), [`resources`] (model → resource objects),
//! [`error`] (the one mapping of failures to JSON:API error responses).

#![warn(missing_docs)]

mod base;
pub mod body_limit;
pub mod delivery;
mod email;
pub mod error;
mod events;
pub mod infer;
mod list_filters;
pub mod map;
pub mod openapi;
pub mod pagination;
pub mod payloads;
pub mod query;
pub mod reference;
pub mod resources;
mod routes;
mod shipment_edits;
mod tracking_requests;
mod vessels;
pub mod webhooks;

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::{from_fn_with_state, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch, post};
use axum::Router;
use teu_store::Store;

pub use error::{error_response, ApiError};

/// Shared state of the `/v2` routes: the store and the rate limiter of the infer operation.
/// Cheap to clone (the store is a pool handle, the limiter shared).
#[derive(Clone)]
pub struct RestState {
    /// The account-scoped store every handler reads.
    pub store: Store,
    /// Per-account limiter of `POST /tracking_requests/infer_number` (interface.md: Limits).
    pub infer_limiter: infer::AccountLimiter,
}

impl RestState {
    /// State over `store` with the spec's limit of
    /// [`infer::INFER_REQUESTS_PER_MINUTE`] infer requests per minute per account.
    pub fn new(store: Store) -> Self {
        RestState::with_limiter(store, infer::AccountLimiter::default())
    }

    /// State over `store` with a given infer limiter: the binary passes the one it also gives
    /// the GraphQL schema, so `/v2` and `/graphql` share one allowance per account.
    pub fn with_limiter(store: Store, infer_limiter: infer::AccountLimiter) -> Self {
        RestState {
            store,
            infer_limiter,
        }
    }
}

/// The `/v2` routes (table in the crate documentation), to be nested by the binary:
/// `Router::new().nest("/v2", teu_rest::router(state))`.
///
/// Every request, including unknown paths and wrong methods, must carry a valid API key (see
/// [`require_account`]): without one the answer is 401 whatever the path. The one exception is
/// `GET /openapi.json` ([`openapi`]), mounted in a router of its own merged outside the
/// authentication layer: it describes the routes, so keeping them secret has no point there.
/// Authenticated requests to unknown paths get a 404 and wrong methods a 405 (with `Allow`), both
/// with JSON:API error bodies.
pub fn router(state: RestState) -> Router {
    let authenticated = Router::new()
        .route("/containers", get(routes::list_containers))
        .route("/containers/{id}", get(routes::get_container))
        .route("/containers/{id}/map_geojson", get(map::map_geojson))
        .route(
            "/containers/{id}/transport_events",
            get(events::transport_events),
        )
        .route("/containers/{id}/raw_events", get(events::raw_events))
        .route("/shipments", get(routes::list_shipments))
        .route(
            "/shipments/{id}",
            get(routes::get_shipment).patch(shipment_edits::patch_shipment),
        )
        .route(
            "/shipments/{id}/stop_tracking",
            patch(shipment_edits::stop_tracking),
        )
        .route(
            "/shipments/{id}/resume_tracking",
            patch(shipment_edits::resume_tracking),
        )
        .route("/tracking_requests/infer_number", post(infer::infer_number))
        .route("/email_submissions", get(email::list_email_submissions))
        .route("/email_submissions/{id}", get(email::get_email_submission))
        .route("/document_schemas/{id}", get(email::get_document_schema))
        .route(
            "/tracking_requests",
            post(tracking_requests::create).get(tracking_requests::list),
        )
        .route(
            "/tracking_requests/{id}",
            get(tracking_requests::get_one).patch(tracking_requests::patch),
        )
        .route("/shipping_lines", get(reference::list_shipping_lines))
        .route("/shipping_lines/{id}", get(reference::get_shipping_line))
        .route("/ports/{id}", get(reference::get_port))
        .route("/terminals/{id}", get(reference::get_terminal))
        .route("/vessels/{id}", get(vessels::get_vessel))
        .route("/webhooks", post(webhooks::create).get(webhooks::list))
        .route("/webhooks/events", get(webhooks::events))
        .route("/webhooks/trigger", post(webhooks::trigger))
        .route(
            "/webhooks/{id}",
            get(webhooks::get_one)
                .patch(webhooks::update)
                .delete(webhooks::delete),
        )
        .route("/webhook_notifications", get(webhooks::list_notifications))
        .route("/webhook_notifications/examples", get(webhooks::examples))
        .route(
            "/webhook_notifications/{id}",
            get(webhooks::get_notification),
        )
        // Must follow the routes: it is applied to the routes registered so far.
        .method_not_allowed_fallback(routes::method_not_allowed)
        .fallback(routes::not_found)
        .layer(from_fn_with_state(state.clone(), require_account));
    // Public: no `require_account`. The body limits and the JSON:API error shape apply to both.
    Router::new()
        .route("/openapi.json", get(openapi::serve))
        .method_not_allowed_fallback(routes::method_not_allowed)
        .merge(authenticated)
        .layer(axum::extract::DefaultBodyLimit::max(error::MAX_BODY_BYTES))
        .layer(tower_http::limit::RequestBodyLimitLayer::new(
            error::MAX_BODY_BYTES,
        ))
        .layer(axum::middleware::from_fn(body_limit::limit_body))
        .layer(axum::middleware::from_fn(error::json_api_errors))
        .with_state(state)
}

/// Authentication middleware (interface.md: Authentication), for
/// `axum::middleware::from_fn_with_state(state, require_account)`; [`router`] applies it and
/// the binary also puts it in front of `POST /graphql`.
///
/// Reads `Authorization: Token <API_KEY>` (scheme case-insensitive, one or more spaces, the key
/// itself exact; `teu_api::auth`), finds the key's account, and on success inserts the
/// [`teu_pipeline::model::Account`] into the request extensions for the handlers
/// (`Extension<Account>`). Otherwise answers 401 with a JSON:API error body
/// (`errors[0].status == "401"`, `code` `unauthorized`, a detail telling a missing header from a
/// wrong scheme from an unknown key) and `WWW-Authenticate: Token realm="teu"`. The spec does
/// not show the status for bad credentials; 401 is teu's choice. A store failure while checking
/// the key is a 500, or 503 when the database is unreachable (see [`ApiError`]).
pub async fn require_account(
    State(state): State<RestState>,
    mut req: Request,
    next: Next,
) -> Response {
    let header = req
        .headers()
        .get(header::AUTHORIZATION)
        .map(|v| v.as_bytes());
    match teu_api::auth::account(&state.store, header).await {
        Ok(account) => {
            req.extensions_mut().insert(account);
            next.run(req).await
        }
        Err(teu_api::auth::AuthError::Store(e)) => ApiError::Store(e).into_response(),
        Err(refused) => ApiError::Unauthorized {
            detail: refused.to_string(),
        }
        .into_response(),
    }
}

#[cfg(test)]
mod api_tests;
