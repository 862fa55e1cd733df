//! `POST /tracking_requests`, `GET /tracking_requests`, `GET /tracking_requests/{id}`.
//!
//! Body of the POST (spec: POST /tracking_requests): `{"data": {"type": "tracking_request",
//! "attributes": {"request_number", "scac", "request_type"}}}`. Each failed rule is a 422 with
//! `source.pointer` at the member (`/data/type`, `/data/attributes/request_number`, …); a body
//! that is not a JSON object is a 400. Success is 201 with the stored request, `status`
//! `pending` until feed data for the number arrives, then `created` with a `shipment`
//! relationship (see `teu_pipeline::tracking_requests`).

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{json, Value};
use teu_pipeline::model::Account;
use teu_pipeline::tracking_requests::TrackingRequest;
use uuid::Uuid;

use crate::error::ApiError;
use crate::RestState;

/// The resource object of one tracking request.
fn resource(r: &TrackingRequest) -> Value {
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

/// Validated attributes of a POST body: (request_number, request_type, scac).
fn parse(body: &[u8]) -> Result<(String, String, String), ApiError> {
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
    let text = |name: &str| -> Result<String, ApiError> {
        let pointer = format!("/data/attributes/{name}");
        match &value["data"]["attributes"][name] {
            Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
            Value::String(_) | Value::Null => Err(ApiError::invalid_attribute(
                &pointer,
                format!("{name} is required."),
            )),
            _ => Err(ApiError::invalid_attribute(
                &pointer,
                format!("{name} must be a string."),
            )),
        }
    };
    let number = teu_pipeline::iso6346::normalize(&text("request_number")?);
    if number.len() > 40 || !number.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(ApiError::invalid_attribute(
            "/data/attributes/request_number",
            "request_number must be letters and digits (at most 40).",
        ));
    }
    let request_type = text("request_type")?;
    if teu_pipeline::infer::NumberType::parse(&request_type).is_none() {
        return Err(ApiError::invalid_attribute(
            "/data/attributes/request_type",
            "request_type must be container, bill_of_lading or booking.",
        ));
    }
    let scac = text("scac")?.to_ascii_uppercase();
    if !(2..=4).contains(&scac.len()) || !scac.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(ApiError::invalid_attribute(
            "/data/attributes/scac",
            "scac must be a SCAC: 2 to 4 letters.",
        ));
    }
    Ok((number, request_type, scac))
}

/// `POST /tracking_requests`: 201 with the stored request.
pub(crate) async fn create(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    body: Bytes,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let (number, request_type, scac) = parse(&body)?;
    let r = state
        .store
        .create_tracking_request(account.id, &number, &request_type, &scac)
        .await?;
    Ok((StatusCode::CREATED, Json(json!({ "data": resource(&r) }))))
}

/// `GET /tracking_requests`: all of the account's requests, newest first.
pub(crate) async fn list(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
) -> Result<Json<Value>, ApiError> {
    let all = state.store.list_tracking_requests(account.id).await?;
    Ok(Json(json!({
        "data": all.iter().map(resource).collect::<Vec<_>>(),
        "meta": {"total": all.len()},
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
