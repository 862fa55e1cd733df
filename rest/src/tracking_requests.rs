//! `POST /tracking_requests`, `GET /tracking_requests`, `GET /tracking_requests/{id}`,
//! `PATCH /tracking_requests/{id}`.
//!
//! Body of the POST (interface.md: POST /tracking_requests): `{"data": {"type": "tracking_request",
//! "attributes": {"request_number", "scac", "request_type"}}}`, and optionally Terminal49's
//! `ref_numbers` and `shipment_tags` (arrays of strings, given to the shipment the request
//! finds). `request_type` also accepts Terminal49's `booking_number`. Each failed rule is a 422 with
//! `source.pointer` at the member (`/data/type`, `/data/attributes/request_number`, …); a body
//! that is not a JSON object is a 400. Success is 201 with the stored request, `status`
//! `pending` until feed data for the number arrives, then `created` with a `shipment`
//! relationship (see `teu_pipeline::tracking_requests`, whose `Store::submit_tracking_request`
//! holds the value rules shared with GraphQL).
//!
//! The list is paginated like `/containers`: `page[number]` (default 1), `page[size]` (default
//! 30, at most 100), `links` first/prev/next/last/self/current, `meta` size/total, and a 400
//! JSON:API error with `source.parameter` for a bad value ([`crate::query`],
//! [`crate::pagination`]). Filters (Terminal49 API reference, "List tracking requests"), all
//! given must match: `filter[request_number]`, `filter[status]` (`pending`, `created`,
//! `failed`, `awaiting_manifest`, `tracking_stopped`), `filter[scac]`,
//! `filter[created_at][start]`/`[end]` and `filter[updated_at][start]`/`[end]` (RFC 3339
//! times or `YYYY-MM-DD` dates, UTC, inclusive).
//!
//! The PATCH body is `{"data": {"type": "tracking_request", "attributes": {…}}}` with any of
//! `ref_number` (one string, Terminal49's documented attribute: the request's reference
//! numbers become that one), `ref_numbers` and `shipment_tags` (arrays replacing the request's
//! lists); 200 with the request, 404 for an unknown id, 422 with `source.pointer` for a bad
//! value.

use axum::body::Bytes;
use axum::extract::{OriginalUri, Path, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{json, Value};
use teu_pipeline::model::Account;
use teu_pipeline::tracking_requests::{
    RequestField, RequestPatch, TrackingRequest, TrackingRequestFilter,
};
use teu_store::TrackingRequestError;
use uuid::Uuid;

use crate::base::Base;
use crate::error::ApiError;
use crate::pagination::{page_links, PageMeta};
use crate::query::{parse_list_filtered, parse_time_filter};
use crate::RestState;

/// The filters of `GET /tracking_requests`, as written in the query.
pub(crate) const FILTERS: &[&str] = &[
    "filter[request_number]",
    "filter[status]",
    "filter[scac]",
    "filter[created_at][start]",
    "filter[created_at][end]",
    "filter[updated_at][start]",
    "filter[updated_at][end]",
];

/// The statuses a tracking request can take (Terminal49's enum).
const STATUSES: &[&str] = &[
    "pending",
    "awaiting_manifest",
    "created",
    "failed",
    "tracking_stopped",
];

/// The resource object of one tracking request, with Terminal49's attribute names:
/// `is_retrying` is always false and `retry_count` 0 (teu waits for feeds, it does not poll
/// carriers); `tracked_object` is the shipment once found. `shipment` carries the same
/// relationship under the name teu served first.
pub(crate) fn resource(r: &TrackingRequest) -> Value {
    let shipment = r
        .shipment_id
        .map(|id| json!({"id": id, "type": "shipment"}));
    json!({
        "id": r.id,
        "type": "tracking_request",
        "attributes": {
            "request_number": r.request_number,
            "request_type": r.request_type,
            "scac": r.scac,
            "ref_numbers": r.ref_numbers,
            "shipment_tags": r.shipment_tags,
            "created_at": r.created_at,
            "updated_at": r.updated_at,
            "status": r.status,
            "failed_reason": r.failed_reason,
            "is_retrying": false,
            "retry_count": 0,
        },
        "relationships": {
            "tracked_object": { "data": shipment },
            "shipment": { "data": shipment },
            "customer": { "data": null },
        },
        "links": { "self": format!("/v2/tracking_requests/{}", r.id) },
    })
}

/// The request body as a JSON:API document of type `tracking_request`.
fn document(body: &[u8]) -> Result<Value, ApiError> {
    crate::error::request_document(body, "tracking_request", true)
}

/// The three attributes of a POST body as text (`""` when missing or null), after the JSON
/// shape checks; the value rules are the pipeline's
/// ([`teu_pipeline::tracking_requests::NewTrackingRequest::parse`]).
fn attributes(value: &Value) -> Result<[String; 3], ApiError> {
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
            TrackingRequestError::InvalidList { field, .. } => {
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
    let value = document(&body)?;
    let [number, request_type, scac] = attributes(&value)?;
    let refs = crate::shipment_edits::string_array(&value, "/data/attributes/ref_numbers")?
        .unwrap_or_default();
    let tags = crate::shipment_edits::string_array(&value, "/data/attributes/shipment_tags")?
        .unwrap_or_default();
    let r = state
        .store
        .submit_tracking_request_with(account.id, &number, &request_type, &scac, &refs, &tags)
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
    let q = parse_list_filtered(uri.query(), &[], FILTERS)?;
    let filter = TrackingRequestFilter {
        request_number: q.filter("filter[request_number]").map(str::to_string),
        status: match q.filter("filter[status]") {
            None => None,
            Some(s) if STATUSES.contains(&s) => Some(s.to_string()),
            Some(s) => {
                return Err(ApiError::invalid(
                    "filter[status]",
                    format!(
                        "filter[status] must be one of {}, got {s:?}.",
                        STATUSES.join(", ")
                    ),
                ))
            }
        },
        scac: q.filter("filter[scac]").map(str::to_string),
        created_from: time_filter(&q, "filter[created_at][start]", false)?,
        created_to: time_filter(&q, "filter[created_at][end]", true)?,
        updated_from: time_filter(&q, "filter[updated_at][start]", false)?,
        updated_to: time_filter(&q, "filter[updated_at][end]", true)?,
    };
    let (page, total) = state
        .store
        .list_tracking_requests_filtered(account.id, &filter, q.page.offset(), q.page.limit())
        .await?;
    let total = u64::try_from(total).unwrap_or(0);
    Ok(Json(json!({
        "data": page.iter().map(resource).collect::<Vec<_>>(),
        "links": page_links(&base.url("/tracking_requests"), &q.link_suffix(), q.page, total),
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

/// A time filter of the list (`None` when not given); see [`parse_time_filter`].
fn time_filter(
    q: &crate::query::ListQuery,
    name: &str,
    end: bool,
) -> Result<Option<chrono::DateTime<chrono::Utc>>, ApiError> {
    q.filter(name)
        .map(|v| parse_time_filter(name, v, end))
        .transpose()
}

/// `PATCH /tracking_requests/{id}`: replaces the request's `ref_numbers` (or sets them to the
/// one `ref_number`) and `shipment_tags`; 200 with the request, 404 for an unknown id.
pub(crate) async fn patch(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let missing = || ApiError::not_found("TrackingRequest", &id);
    let uuid = Uuid::parse_str(&id).map_err(|_| missing())?;
    let value = document(&body)?;
    let mut refs = crate::shipment_edits::string_array(&value, "/data/attributes/ref_numbers")?;
    match value.pointer("/data/attributes/ref_number") {
        None => {}
        Some(Value::String(one)) => refs = Some(vec![one.clone()]),
        Some(Value::Null) => refs = Some(Vec::new()),
        Some(_) => {
            return Err(ApiError::invalid_attribute(
                "/data/attributes/ref_number",
                "must be a string.",
            ))
        }
    }
    let tags = crate::shipment_edits::string_array(&value, "/data/attributes/shipment_tags")?;
    let extras = teu_pipeline::tracking_requests::RequestExtras::parse(
        refs.as_deref().unwrap_or_default(),
        tags.as_deref().unwrap_or_default(),
    )
    .map_err(TrackingRequestError::from)?;
    let patch = RequestPatch {
        ref_numbers: refs.map(|_| extras.ref_numbers),
        shipment_tags: tags.map(|_| extras.shipment_tags),
    };
    let r = state
        .store
        .patch_tracking_request(account.id, uuid, &patch)
        .await?
        .ok_or_else(missing)?;
    Ok(Json(json!({ "data": resource(&r) })))
}
