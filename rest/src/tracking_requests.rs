//! `POST /tracking_requests`, `GET /tracking_requests`, `GET /tracking_requests/{id}`.
//!
//! Body of the POST (spec: POST /tracking_requests): `{"data": {"type": "tracking_request",
//! "attributes": {"request_number", "scac", "request_type"}}}`. Each failed rule is a 422 with
//! `source.pointer` at the member (`/data/type`, `/data/attributes/request_number`, …); a body
//! that is not a JSON object is a 400. Success is 201 with the stored request, `status`
//! `pending` until feed data for the number arrives, then `created` with a `shipment`
//! relationship (see `teu_pipeline::tracking_requests`, whose `Store::submit_tracking_request`
//! holds the value rules shared with GraphQL).
//!
//! The list is paginated like `/containers`: `page[number]` (default 1), `page[size]` (default
//! 30, at most 100), `links` first/prev/next/last/self/current, `meta` size/total, and a 400
//! JSON:API error with `source.parameter` for a bad value ([`crate::query`],
//! [`crate::pagination`]).

use axum::body::Bytes;
use axum::extract::{OriginalUri, Path, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{json, Value};
use teu_pipeline::model::Account;
use teu_pipeline::tracking_requests::{RequestField, TrackingRequest, TrackingRequestError};
use uuid::Uuid;

use crate::error::ApiError;
use crate::pagination::{page_links, PageMeta};
use crate::query::parse_list;
use crate::routes::Base;
use crate::RestState;

/// The resource object of one tracking request.
pub(crate) fn resource(r: &TrackingRequest) -> Value {
    json!({
        "id": r.id,
        "type": "tracking_request",
        "attributes": {
            "request_number": r.request_number,
            "request_type": r.request_type,
            "scac": r.scac,
            "status": r.status,
            "created_at": r.created_at,
            "updated_at": r.updated_at,
        },
        "relationships": {
            "shipment": {
                "data": r.shipment_id.map(|id| json!({"id": id, "type": "shipment"})),
            }
        }
    })
}

/// The three attributes of a POST body as text (`""` when missing or null), after the JSON
/// shape checks; the value rules are the pipeline's
/// ([`teu_pipeline::tracking_requests::NewTrackingRequest::parse`]).
fn attributes(body: &[u8]) -> Result<[String; 3], ApiError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| ApiError::MalformedBody {
        detail: format!("The request body is not JSON: {e}."),
    })?;
    if !value.is_object() {
        return Err(ApiError::MalformedBody {
            detail: "The request body must be a JSON:API document object.".into(),
        });
    }
    if value["data"]["type"] != "tracking_request" {
        return Err(ApiError::invalid_attribute(
            "/data/type",
            "data.type must be \"tracking_request\".",
        ));
    }
    let text = |field: RequestField| -> Result<String, ApiError> {
        let name = field.as_str();
        match &value["data"]["attributes"][name] {
            Value::String(s) => Ok(s.clone()),
            Value::Null => Ok(String::new()),
            _ => Err(ApiError::invalid_attribute(
                &pointer(field),
                format!("{name} must be a string."),
            )),
        }
    };
    Ok([
        text(RequestField::RequestNumber)?,
        text(RequestField::RequestType)?,
        text(RequestField::Scac)?,
    ])
}

/// JSON pointer of an attribute in the request document.
fn pointer(field: RequestField) -> String {
    format!("/data/attributes/{}", field.as_str())
}

impl From<TrackingRequestError> for ApiError {
    fn from(e: TrackingRequestError) -> Self {
        match e {
            TrackingRequestError::Invalid { field, .. } => {
                ApiError::invalid_attribute(&pointer(field), format!("{e}."))
            }
            TrackingRequestError::Store(e) => ApiError::Store(e),
        }
    }
}

/// `POST /tracking_requests`: 201 with the stored request.
pub(crate) async fn create(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    body: Bytes,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let [number, request_type, scac] = attributes(&body)?;
    let r = state
        .store
        .submit_tracking_request(account.id, &number, &request_type, &scac)
        .await?;
    Ok((StatusCode::CREATED, Json(json!({ "data": resource(&r) }))))
}

/// `GET /tracking_requests`: one page of the account's requests, newest first; `page[number]`
/// and `page[size]` as on `/containers` (links, meta, 400 with `source.parameter`).
pub(crate) async fn list(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    base: Base,
    OriginalUri(uri): OriginalUri,
) -> Result<Json<Value>, ApiError> {
    let q = parse_list(uri.query(), &[])?;
    let (page, total) = state
        .store
        .list_tracking_requests(account.id, q.page.offset(), q.page.limit())
        .await?;
    let total = u64::try_from(total).unwrap_or(0);
    Ok(Json(json!({
        "data": page.iter().map(resource).collect::<Vec<_>>(),
        "links": page_links(&base.url("/tracking_requests"), "", q.page, total),
        "meta": PageMeta { size: q.page.size, total },
    })))
}

/// `GET /tracking_requests/{id}`: one request; 404 for unknown, malformed or other accounts' ids.
pub(crate) async fn get_one(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let missing = || ApiError::not_found("TrackingRequest", &id);
    let uuid = Uuid::parse_str(&id).map_err(|_| missing())?;
    let r = state
        .store
        .tracking_request(account.id, uuid)
        .await?
        .ok_or_else(missing)?;
    Ok(Json(json!({ "data": resource(&r) })))
}
