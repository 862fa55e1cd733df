//! `GET /containers/{id}/map_geojson` (interface.md: "GET /containers/{id}/map_geojson").
//!
//! The body is the FeatureCollection itself (not a JSON:API document), built by
//! [`teu_pipeline::route::container_route`] and serialized by
//! [`teu_pipeline::route::ContainerRoute::to_geojson`]; GraphQL serves the same value.
//!
//! Order of checks: an account without the Routing Data feature gets 403 for every id (so
//! the answer says nothing about which ids exist); then an unknown, malformed or other
//! account's id is 404; a known container without route data answers 200 with an empty
//! `features` array.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use teu_pipeline::model::Account;
use uuid::Uuid;

use crate::{ApiError, RestState};

/// The 403 detail for accounts without Routing Data.
pub const ROUTING_DATA_REQUIRED: &str =
    "Routing Data is a paid feature that this account does not have; \
     map_geojson needs it (an operator grants it with `teu accounts create --routing-data`).";

/// `GET /containers/{id}/map_geojson`: the container's route (module documentation).
pub async fn map_geojson(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    id: Result<Path<String>, axum::extract::rejection::PathRejection>,
) -> Result<Response, ApiError> {
    if !account.routing_data {
        return Err(ApiError::Forbidden {
            detail: ROUTING_DATA_REQUIRED.into(),
        });
    }
    let raw = id.map(|Path(id)| id).unwrap_or_default();
    let id = Uuid::parse_str(&raw).map_err(|_| ApiError::not_found("Container", &raw))?;
    let route = teu_pipeline::route::container_route(&state.store, account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("Container", &raw))?;
    Ok(Json(route.to_geojson()).into_response())
}
